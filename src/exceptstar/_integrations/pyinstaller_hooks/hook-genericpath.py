"""PyInstaller hook run in every build where exceptstar is installed: ``genericpath`` (``os.path``'s) is in every app.

On 3.8-3.10 the build compiles with exceptstar from here on, and when the
analysis refused some of the app's modules for their ``except*`` they are
read again and exceptstar is bundled (its own hook and runtime hook then
follow), so that plain ``pyinstaller`` also works for an app that never
imports exceptstar (one run by ``python -m exceptstar run``).  PyInstaller
ships no hook for ``genericpath``; this one changes nothing else.
"""


def hook(hook_api: object) -> None:
    from exceptstar._classes import PURE

    if PURE:
        from exceptstar._integrations import pyinstaller

        pyinstaller.patch_build()
        if pyinstaller.readmit(hook_api.module_graph):  # type: ignore[attr-defined]
            hook_api.add_imports("exceptstar")  # type: ignore[attr-defined]
