"""PyInstaller hook: every exceptstar module, since ``exceptstar`` loads its wings by name.

Run in the build process once the app imports exceptstar: on 3.8-3.10 the
build compiles with exceptstar from then on, and the app's modules that the
analysis refused for their ``except*`` are read again (``_integrations.pyinstaller``).
"""

import pkgutil

import exceptstar

hiddenimports = [name for _, name, _ in pkgutil.walk_packages(exceptstar.__path__, "exceptstar.")]


def hook(hook_api: object) -> None:
    from exceptstar._classes import PURE

    if PURE:
        from exceptstar._integrations import pyinstaller

        pyinstaller.patch_build()
        pyinstaller.readmit(hook_api.module_graph)  # type: ignore[attr-defined]
