"""pytest plugin: lets test files that use ``except*`` run on 3.8-3.10.

Registered as the ``pytest11`` entry point ``exceptstar``, so it is on once
exceptstar is installed (``-p no:exceptstar`` turns it off; ``-p exceptstar``
loads it where entry points are not used).  Does nothing on 3.11+ unless
``EXCEPTSTAR_PURE=1``.  On 3.8-3.10 it also gives test code and the code it
tests 3.11's built-in names (``_py311``).

pytest compiles test modules and ``conftest.py`` itself, to rewrite their
asserts: it parses the source, rewrites the tree and compiles it.  For files
that use ``except*`` this plugin takes over that step with the same three
stages plus the transformation: exceptstar's parser (which accepts
``except*``), pytest's own ``rewrite_asserts`` on that tree, then the
``except*`` rewrite.  So assertion rewriting keeps working inside them.  Such
files are cached by pytest beside its usual pyc, under a name that also
carries exceptstar's version.  Other modules under the rootdir that use
``except*`` (helpers, or test files under ``--assert=plain``) go through the
import hook.
"""

import ast
import os
import types

from exceptstar import _classes, _py311, _watch
from exceptstar._compiler import hook, pycache, transform

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path
    from types import CodeType
    from typing import Any, Callable, Optional, Set


def _star_pyc(pyc: "Path") -> "Path":
    return type(pyc)(pycache.transformed_pyc(str(pyc)))


def _file_has_except_star(path: "Path") -> bool:
    try:
        return transform.has_except_star(path.read_bytes())
    except OSError:
        return False


class _StarAst(types.ModuleType):
    """The ``ast`` module, except that ``parse`` accepts ``except*``."""

    def __init__(self) -> None:
        super().__init__("ast")

    def __getattr__(self, name: str) -> "Any":
        return getattr(ast, name)

    @staticmethod
    def parse(source: "Any", filename: str = "<unknown>", mode: str = "exec", **kwargs: "Any") -> "Any":
        # pytest compiles the tree it asks for: the compiler's warnings are due.
        return transform.parse(source, filename, mode, compiling=True)


def _rewrite_and_transform(rewrite_asserts: "Callable[..., None]",
                           transform: "Callable[[Any], bool]") -> "Callable[..., None]":
    def rewrite_then_transform(tree: "Any", *args: "Any", **kwargs: "Any") -> None:
        rewrite_asserts(tree, *args, **kwargs)
        transform(tree)

    return rewrite_then_transform


def _patch_assertion_rewriting() -> None:
    import importlib

    # Imported before pytest's compiler is patched: pytest rewrites the asserts
    # of a plugin's whole distribution, and the rewrite's docstring shows except*.
    from exceptstar._compiler.rewrite import transform as rewrite_tree

    # pytest's private module, typed loosely: its signatures change between versions.
    rewrite: Any = importlib.import_module("_pytest.assertion.rewrite")
    if getattr(rewrite._rewrite_test, "exceptstar", False):
        return
    original_rewrite = rewrite._rewrite_test
    original_read: Callable[..., Optional[CodeType]] = rewrite._read_pyc
    original_write: Callable[..., Any] = rewrite._write_pyc
    transformed_codes: Set[int] = set()

    def _rewrite_test(fn: "Path", config: "Any") -> "Any":
        if not _file_has_except_star(fn):
            return original_rewrite(fn, config)
        # pytest's own function runs, with its `ast.parse` and `rewrite_asserts`
        # standing in for ours for the duration of the call.
        saved = rewrite.ast, rewrite.rewrite_asserts
        rewrite.ast = _StarAst()
        rewrite.rewrite_asserts = _rewrite_and_transform(saved[1], rewrite_tree)
        try:
            result = original_rewrite(fn, config)
        finally:
            rewrite.ast, rewrite.rewrite_asserts = saved
        transformed_codes.add(id(result[1]))
        return result

    def _read_pyc(source: "Path", pyc: "Path", *args: "Any") -> "Optional[CodeType]":
        code = original_read(source, _star_pyc(pyc), *args)
        if code is not None:
            return code
        if transform.NATIVE_SYNTAX and _file_has_except_star(source):
            return None  # pytest's own pyc holds the native except* code
        return original_read(source, pyc, *args)

    def _write_pyc(state: "Any", co: "CodeType", source_stat: "Any", pyc: "Path") -> "Any":
        if id(co) in transformed_codes:
            transformed_codes.discard(id(co))
            pyc = _star_pyc(pyc)
        return original_write(state, co, source_stat, pyc)

    _rewrite_test.exceptstar = True  # type: ignore[attr-defined]
    rewrite._rewrite_test = _rewrite_test
    rewrite._read_pyc = _read_pyc
    rewrite._write_pyc = _write_pyc


def _report_pure_groups() -> None:
    """Make pytest's failure reports show the members of exceptstar's pure groups.

    pytest prints a group member by member only when it is an instance of the
    one class it knows (the backport's before 3.11, the built-in after), with
    the ``TracebackException`` it imported before exceptstar was loaded.  It
    looks both names up in its module at call time, so a tuple that adds our
    class serves its isinstance checks and ``except`` clauses, and our
    ``TracebackException`` (which knows every kind of group) formats them.
    On 3.8-3.10 pytest's name is usually our class already (``_integrations.backport``);
    the tuple then serves the built-in class under ``EXCEPTSTAR_PURE=1`` and
    the backport's under ``EXCEPTSTAR_NO_BACKPORT=1``.
    """
    import builtins
    import importlib

    from exceptstar._printing import formatting

    code: Any = importlib.import_module("_pytest._code.code")
    # Before 3.11 pytest imports the backport's class; from 3.11 on the name is the built-in.
    known = getattr(code, "BaseExceptionGroup", None) or getattr(builtins, "BaseExceptionGroup", None)
    if isinstance(known, type) and not issubclass(_classes.BaseExceptionGroup, known):
        code.BaseExceptionGroup = (known, _classes.BaseExceptionGroup)
    # Even where pytest's name is our class (the backport integration adopted it): the class
    # pytest holds may not list a group's members, and pytest then fails on it.
    if hasattr(code, "TracebackException"):
        code.TracebackException = formatting.TracebackException


def pytest_load_initial_conftests(early_config: "Any", parser: "Any", args: "Any") -> None:
    if not _classes.PURE:
        return
    # Test code and the modules it tests see 3.11's names, as on 3.11.
    _py311.provide()
    # Tools that compile the user's code themselves (doctest for --doctest-modules, coverage).
    _watch.activate(_watch.ON_INSTALL)
    _report_pure_groups()
    _patch_assertion_rewriting()
    root = getattr(early_config, "rootpath", None) or getattr(early_config, "rootdir", None)
    if root is not None:
        hook.install_paths(str(root))
    # Test directories given on the command line may lie outside the rootdir.
    hook.install_paths(*(a for a in args if not str(a).startswith("-") and os.path.isdir(str(a))))


__all__ = ["pytest_load_initial_conftests"]
