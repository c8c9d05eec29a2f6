"""coverage.py on 3.8-3.10: measuring and reporting modules that use ``except*``.

Measuring needs nothing of ours: the tracer sees the transformed code, whose
lines are the user's.  Reporting does: coverage reads each file's source
itself (``ast.parse`` for its statements, branches, exclusions and regions,
``compile`` for the lines its code can report), and the parser of 3.8-3.10
rejects ``except*``.  So coverage's source readers get an ``ast`` whose
``parse`` gives the tree 3.11 gives (``ast311``: a ``TryStar`` node for each
starred ``try``, which coverage's own analysis then treats as that version
of coverage treats it on 3.11+) and a ``compile`` that compiles ``except*``:
every report (text, html, xml, json, lcov) counts what coverage counts for
the same program on native 3.11+.  Nothing is recorded differently, so data
from 3.8-3.10 runs and from 3.11+ runs combine.

Switched on by ``plugins = ["exceptstar"]`` in coverage's ``[run]`` settings
(coverage imports ``exceptstar`` and calls ``coverage_init``), which also
transforms the measured program, main script included (``coverage run
script.py``); and by a global ``exceptstar.install()`` (``run``, the pytest
plugin) when coverage is imported (an ``ON_INSTALL`` row).  On 3.11+ it does
nothing: coverage reads ``except*`` itself, with any of its cores.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType
    from typing import Any

NATIVE_SYNTAX = sys.version_info >= (3, 11)

# coverage's modules that call ast.parse on a file's source.
_READERS = ("parser", "phystokens", "regions")


def coverage_init(reg: "Any", options: "Any") -> None:
    """coverage's entry point for ``plugins = ["exceptstar"]``: its reports, and the measured program."""
    if NATIVE_SYNTAX:
        return
    import coverage

    from exceptstar._compiler.hook import install

    patch(coverage)
    install()


def patch(module: "ModuleType") -> None:
    """coverage (the package ``module``) reads and compiles ``except*`` from now on."""
    if NATIVE_SYNTAX:
        return
    import importlib

    from exceptstar._integrations.ast311 import reader as ast_reader

    reader = ast_reader()
    for name in _READERS:
        importlib.import_module(f"{module.__name__}.{name}").ast = reader  # type: ignore[attr-defined]
    # ByteParser compiles the source for the lines its code reports: it lives
    # in coverage.parser up to 7.6, in coverage.bytecode after.  A module
    # global named compile is what its call finds before the builtin.
    byte_parser = importlib.import_module(f"{module.__name__}.parser").ByteParser
    sys.modules[byte_parser.__module__].compile = _compile  # type: ignore[attr-defined]
    from exceptstar._watch import when_imported

    # ``coverage run``'s main script, compiled by coverage's own runner.
    when_imported(f"{module.__name__}.execfile", _patch_runner)


def _patch_runner(execfile: "ModuleType") -> None:
    execfile.compile = _compile  # type: ignore[attr-defined]


def _compile(source: "Any", filename: "Any", mode: str, flags: int = 0, dont_inherit: bool = False,
             optimize: int = -1) -> "Any":
    """The built-in ``compile`` as coverage calls it (never inheriting its own future flags), reading
    ``except*``: for code run as ``__main__`` with the interpreter's builtins (``coverage run``'s
    script), or only looked at (the lines of its line table), as ``run`` compiles a script."""
    from exceptstar._compiler.transform import compile, compile_source

    if flags or mode != "exec":
        return compile(source, filename, mode, flags, True, optimize)
    return compile_source(source, filename, mode, flags, optimize, module=True)[0]
