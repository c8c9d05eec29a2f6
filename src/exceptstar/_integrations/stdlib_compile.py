"""The standard library's tools that compile the user's code themselves: doctest, pdb, cProfile, profile, trace.

Each calls the built-in ``compile`` from its own module: doctest on every
example (mode ``"single"``), cProfile, profile and trace on the script they
run, trace again on each file it reports ``--missing`` lines for, pdb on the
commands typed at its prompt.  Under a global ``install()`` (so under ``run``
and the pytest plugin) each of these modules gets exceptstar's ``compile`` as
a module global when it is imported (its rows in ``_watch.ON_INSTALL``): the
name shadows the built-in for that module's own code only, and exceptstar's
``compile`` hands source without ``except*`` to the built-in unchanged.

pdb runs its script through a statement executed in ``__main__``
(``exec(compile(source, filename, 'exec'))``), where only the built-in can
answer.  For that one call ``builtins.compile`` is exceptstar's, put back
before the script's first line runs, so the program never sees it.

Every ``Pdb`` (``python -m pdb``, ``breakpoint()``) also skips exceptstar's
modules when it steps, as the interpreter's C machinery is never stepped into:
``step`` through an ``except*`` stays on the user's lines, as on 3.11.
"""

from exceptstar._compiler.transform import compile as transform_compile

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType
    from typing import Any


def patch(module: "ModuleType") -> None:
    """Give ``module`` (doctest, pdb, cProfile, profile or trace) exceptstar's ``compile``."""
    module.compile = transform_compile  # type: ignore[attr-defined]
    if module.__name__ == "pdb":
        _patch_pdb_script(module)
        _patch_pdb_skip(module)


def _patch_pdb_skip(pdb: "Any") -> None:
    original = pdb.Pdb.__init__

    def __init__(self: "Any", *args: "Any", **kwargs: "Any") -> None:
        original(self, *args, **kwargs)
        self.skip = set(self.skip or ()) | {"exceptstar", "exceptstar.*"}

    __init__.__doc__ = original.__doc__
    pdb.Pdb.__init__ = __init__


def _patch_pdb_script(pdb: "Any") -> None:
    original = pdb.Pdb._runscript

    def _runscript(self: "Any", filename: str) -> None:
        import builtins

        builtin = builtins.compile
        script = self.canonic(filename)

        def compile_script(source: "Any", name: "Any", mode: str, *args: "Any", **kwargs: "Any") -> "Any":
            if name != script or mode != "exec" or args or kwargs:
                return builtin(source, name, mode, *args, **kwargs)
            builtins.compile = builtin
            # As the built-in called from pdb's statement would: no future flags to inherit.
            return transform_compile(source, name, mode, 0, True)

        builtins.compile = compile_script  # type: ignore[assignment]
        try:
            original(self, filename)
        finally:
            current: Any = builtins.compile
            if current is compile_script:
                builtins.compile = builtin

    _runscript.__doc__ = original.__doc__
    pdb.Pdb._runscript = _runscript


__all__ = ["patch"]
