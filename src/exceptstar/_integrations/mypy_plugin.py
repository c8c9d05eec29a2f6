"""mypy on 3.8-3.10 targets checks modules that use ``except*`` as it does at 3.11.

``plugins = ["exceptstar.mypy"]`` in the project's mypy settings.  Two things
stand between mypy and such a module at an older target, and the plugin
changes just those:

- The parse.  mypy reads a module with Python's ``ast.parse`` at the target's
  ``feature_version`` (mypy 2's native parser is turned off for the run: it
  takes ``except*`` for plain ``except`` below 3.11, and cannot be taught
  otherwise).  ``ast.parse`` becomes ``ast311.parse_at`` in mypy's process:
  ``except*`` is read at every target and on every interpreter, everything
  else at the target, with 3.11's parser errors.  mypy's own 3.11 code then
  does the rest: handler names typed ``ExceptionGroup[X]``, its except*
  errors.
- The two group names.  typeshed defines ``BaseExceptionGroup`` and
  ``ExceptionGroup`` in ``builtins`` from 3.11 only, and mypy types a handler's
  name with them.  Under exceptstar the builtins have them on 3.8-3.10 too
  (``import exceptstar``), so the plugin makes that one ``sys.version_info``
  block of ``builtins.pyi`` reachable at every target, as mypy hands it the
  parsed stub.  Every other version-gated name keeps the project's target.

mypy is compiled (mypyc): its own functions cannot be replaced, so the plugin
only uses what it is given (the options, the parsed ``builtins`` tree) and the
``ast`` module that mypy calls through.
"""

import ast
import sys
from typing import Any, Callable, List, Tuple, Type

from mypy.nodes import Block, ClassDef, IfStmt, MypyFile
from mypy.options import Options
from mypy.plugin import Plugin, ReportConfigContext

from exceptstar._integrations import ast311
from exceptstar._version import __version__

_GROUPS = frozenset({"BaseExceptionGroup", "ExceptionGroup"})


class ExceptStarPlugin(Plugin):
    """Reads ``except*`` at every target; the group names are builtins at every target."""

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        if getattr(options, "num_workers", 0):
            # Parallel mode runs only the native parser, in worker processes started
            # before any plugin is loaded: the modules would be read as without us.
            sys.exit("exceptstar's mypy plugin: mypy's parallel mode (--num-workers) parses with "
                     "mypy's native parser only, which cannot read except* below 3.11; run mypy "
                     "without it")
        if getattr(options, "native_parser", False):
            options.native_parser = False

    def get_additional_deps(self, file: MypyFile) -> List[Tuple[int, str, int]]:
        if file.fullname == "builtins":
            _reach_groups(file)
        return []

    def report_config_data(self, ctx: ReportConfigContext) -> Any:
        # builtins' cached analysis depends on us; a new release may change it.
        return __version__ if ctx.id == "builtins" else None


def _reach_groups(builtins: MypyFile) -> None:
    """The statements of ``builtins.pyi``'s ``if sys.version_info >= (3, 11):`` that
    defines the groups stand at the top level instead, so every target has them.

    Flipping the block's reachability would not do: the semantic analyzer
    infers it again.
    """
    for index, statement in enumerate(builtins.defs):
        if isinstance(statement, IfStmt) and len(statement.body) == 1 and _defines_groups(statement.body[0]):
            builtins.defs[index:index + 1] = statement.body[0].body
            return


def _defines_groups(body: Block) -> bool:
    return any(isinstance(node, ClassDef) and node.name in _GROUPS for node in body.body)


def _patch_ast_parse() -> None:
    native: Callable[..., ast.AST] = ast.parse
    if getattr(native, "exceptstar_parse_at", False):
        return

    def parse(source: Any, filename: Any = "<unknown>", mode: str = "exec", **options: Any) -> ast.AST:
        return ast311.parse_at(native, source, filename, mode, **options)

    parse.exceptstar_parse_at = True  # type: ignore[attr-defined]
    ast.parse = parse  # type: ignore[assignment]


def plugin(version: str) -> Type[Plugin]:
    """mypy's entry point: called with mypy's version when the plugin is loaded."""
    _patch_ast_parse()
    return ExceptStarPlugin
