"""``python -m exceptstar pyinstaller ARGS...``: PyInstaller, freezing modules that use ``except*``.

PyInstaller reads every module it bundles with the built-in ``compile``
(modulegraph's analysis, then the code it writes into the archive), which
3.8-3.10 refuse on ``except*``: the module is left out as "invalid" and the
frozen app fails with ``ModuleNotFoundError``.  exceptstar's hooks mend
that inside plain ``pyinstaller`` (``_integrations.pyinstaller``), except
for the scripts themselves, compiled before any hook runs; so this command
runs PyInstaller's own entry point in this process with exceptstar's
``compile`` in place from the start: the archive then holds the transformed
code and no source.  Transformed code names exceptstar only through the builtin
``__exceptstar__``, so the command also bundles exceptstar (a hidden import
given through PyInstaller's ``CONF``, which a ``.spec`` build reads too); the
hook directory exceptstar registers through the ``pyinstaller40`` entry point
then bundles every module of exceptstar (``hook-exceptstar.py``) and runs,
before the app's first module, the runtime hook that sets that builtin.  On
3.11+ it is plain PyInstaller.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, List


def main(args: "List[str]") -> int:
    import importlib

    try:
        # Its modules typed loosely: PyInstaller ships no types, and these are its internals.
        entry: Any = importlib.import_module("PyInstaller.__main__")
    except ImportError:
        import sys

        sys.stderr.write("exceptstar pyinstaller: PyInstaller is not installed (pip install pyinstaller)\n")
        return 2
    from exceptstar._classes import PURE

    if PURE:
        from exceptstar._integrations import pyinstaller

        config: Any = importlib.import_module("PyInstaller.config")
        config.CONF["hiddenimports"] = [*config.CONF.get("hiddenimports", []), "exceptstar._compiler.runtime"]
        pyinstaller.patch_build()
    # PyInstaller's errors leave as its own SystemExit (a message, or a status), as from its script.
    entry.run(args)
    return 0


__all__ = ["main"]
