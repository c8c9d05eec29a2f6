"""Nuitka on 3.8-3.10: a module that uses ``except*`` reaches Nuitka as exceptstar's transformed tree.

Nuitka parses every module it compiles with the running interpreter's
``ast.parse``, which 3.8-3.10 refuse on ``except*``.  Loaded by Nuitka as a
user plugin (``--user-plugin=`` this file, which ``python -m exceptstar
nuitka`` passes), it makes Nuitka's parser exceptstar's ``compile`` with
``ast.PyCF_ONLY_AST`` for such source: the tree that runs on 3.8-3.10, every
statement on its own line, so tracebacks of the compiled program name the
same lines.  The tree's first statement (after the docstring and
``__future__`` imports, on line 1's number) imports exceptstar's runtime,
which the transformed code finds through the builtin ``__exceptstar__``.
Nuitka's modules are imported by name: packagers that scan imports
(PyInstaller) do not bundle Nuitka with exceptstar.
"""

import ast
import importlib

from exceptstar._classes import PURE
from exceptstar._compiler import transform
from exceptstar._compiler.source import has_except_star

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, List

_PluginBase: "Any" = importlib.import_module("nuitka.plugins.PluginBase").NuitkaPluginBase
_nuitka_parse: "List[Callable[..., Any]]" = []


class ExceptStarPlugin(_PluginBase):  # type: ignore[misc]
    plugin_name = "exceptstar"
    plugin_desc = "Compile modules that use except* on Python 3.8-3.10 (exceptstar's transformation)."

    def onModuleSourceCode(self, module_name: "Any", source_filename: str, source_code: str) -> None:
        # Called before each module is parsed; Nuitka's tree builder cannot be imported when plugins load.
        if PURE and not _nuitka_parse:
            building: Any = importlib.import_module("nuitka.tree.Building")
            _nuitka_parse.append(building.parseSourceCodeToAst)
            building.parseSourceCodeToAst = parse


def parse(source_code: str, module_name: "Any", filename: str, line_offset: int) -> "Any":
    """Nuitka's ``parseSourceCodeToAst``, reading ``except*``."""
    if not has_except_star(source_code):
        return _nuitka_parse[0](source_code, module_name, filename, line_offset)
    tree: Any = transform.compile(source_code, filename, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    body = tree.body
    first = 1 if body and _is_docstring(body[0]) else 0
    while first < len(body) and _is_future(body[first]):
        first += 1
    runtime = ast.parse("__import__('exceptstar._compiler.runtime')").body[0]
    for node in ast.walk(runtime):
        if "lineno" in node._attributes:
            node.lineno, node.col_offset = 1, 0  # type: ignore[attr-defined]
            node.end_lineno, node.end_col_offset = 1, 0  # type: ignore[attr-defined]
    body.insert(first, runtime)
    if line_offset > 0:
        ast.increment_lineno(tree, line_offset)
    return tree


def _is_docstring(node: "ast.stmt") -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def _is_future(node: "ast.stmt") -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


__all__ = ["ExceptStarPlugin", "parse"]
