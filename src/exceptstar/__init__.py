"""exceptstar: exception groups, notes and ``except*`` for every CPython from 3.8.

The group types and ``add_note`` are imported eagerly; they are all most
processes ever touch.  Everything else is loaded on first use through the
module ``__getattr__`` below, so that ``import exceptstar`` stays cheap.
"""

import sys

from exceptstar._classes import PURE, BaseExceptionGroup, ExceptionGroup
from exceptstar._notes import add_note
from exceptstar._version import __version__

if sys.version_info < (3, 11):
    # Groups and notes in every printed traceback; lazy, see patches.
    from exceptstar import _classes, _watch
    from exceptstar._printing import patches

    patches.activate()
    # The classes are found where they say they live: see _classes.  Before the
    # integrations, some of which look for them there.
    _classes.provide_classes()
    # When they are imported: the backport (our groups are its, so anyio's, Trio's and
    # pytest's), libraries that show groups only on 3.11+ (structlog, sentry-sdk, ...).
    _watch.activate(_watch.ON_IMPORT)

# What __getattr__ returns, for type checkers: without these imports every lazy
# name would have __getattr__'s type, ``object``.  TYPE_CHECKING is a constant
# of ours (type checkers treat any such name as true) so that ``typing`` stays
# unimported.  The formatting names stand again in _printing.formatting's
# imports from traceback: each list must be literal, as type checkers follow no
# computed one, so the copy stays.
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from exceptstar._catch import catch
    from exceptstar._collapse import collapse
    from exceptstar._compiler.hook import install, uninstall
    from exceptstar._compiler.transform import compile
    from exceptstar._integrations.coverage_plugin import coverage_init
    from exceptstar._integrations.ipython import load_ipython_extension, unload_ipython_extension
    from exceptstar._leaves import leaf_exceptions
    from exceptstar._printing.formatting import (
        TracebackException,
        format_exc,
        format_exception,
        format_exception_only,
        print_exc,
        print_exception,
    )
    from exceptstar._suppress import suppress

# Public name -> private module that defines it, imported on first access.
_LAZY = {
    "catch": "._catch",
    "suppress": "._suppress",
    "leaf_exceptions": "._leaves",
    "collapse": "._collapse",
    "compile": "._compiler.transform",
    "install": "._compiler.hook",
    "uninstall": "._compiler.hook",
    "load_ipython_extension": "._integrations.ipython",  # %load_ext exceptstar
    "unload_ipython_extension": "._integrations.ipython",
    "coverage_init": "._integrations.coverage_plugin",  # plugins = ["exceptstar"] in coverage's settings
    "TracebackException": "._printing.formatting",
    "format_exception": "._printing.formatting",
    "format_exception_only": "._printing.formatting",
    "format_exc": "._printing.formatting",
    "print_exception": "._printing.formatting",
    "print_exc": "._printing.formatting",
}


# Hidden from type checkers: they would take any misspelt name for one that
# __getattr__ returns, typed ``object``.
if not TYPE_CHECKING:
    def __getattr__(name: str) -> object:
        module_name = _LAZY.get(name)
        if module_name is None:
            raise AttributeError(f"module 'exceptstar' has no attribute {name!r}")
        import importlib

        value = getattr(importlib.import_module(module_name, __name__), name)
        globals()[name] = value
        return value


def __dir__() -> "list[str]":
    return sorted([*globals(), *_LAZY])


__all__ = [
    "PURE",
    "BaseExceptionGroup",
    "ExceptionGroup",
    "TracebackException",
    "__version__",
    "add_note",
    "catch",
    "collapse",
    "compile",
    "coverage_init",
    "format_exc",
    "format_exception",
    "format_exception_only",
    "install",
    "leaf_exceptions",
    "load_ipython_extension",
    "print_exc",
    "print_exception",
    "suppress",
    "uninstall",
    "unload_ipython_extension",
]
