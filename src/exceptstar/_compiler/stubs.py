"""The ``.pyi`` stub of a module that uses ``except*``, for the wheels of the projects that use it.

A checker run by a 3.8-3.10 interpreter cannot parse ``except*`` (mypy's
``Invalid syntax``), and one at a 3.8-3.10 target rejects it, in the
installed package too, so a library's users could not type-check code that
imports it.  A stub beside the module is read in its place.  The stub is the
module itself, every line where it was (the checkers' notes name stub
lines), with one change: each ``except* T`` clause becomes ``except G(T)``,
where ``G`` (``exceptstar._handler_types.group``, imported on a line added at
the end) is a function declared to give the class ``ExceptionGroup[T]`` or
``BaseExceptionGroup[T]``: the name a clause binds has the type that 3.11
gives it, and the clause parses on 3.8.  Everything the checkers take from
a stub (signatures, classes, attributes set in methods, module variables,
imports, ``__all__``, docstrings) is then the module's own.

What a stub cannot carry: a checker infers no return type from a stub's
function body, so pyright and basedpyright see a function without a return
annotation as returning ``Unknown`` (mypy sees such a function as untyped
either way), and mypy reads a stub's imports as not re-exported, as it reads
a module's under ``--no-implicit-reexport`` (part of ``--strict``).
"""

import builtins

from exceptstar._compiler.scan import Scan
from exceptstar._compiler.source import has_except_star, mark, source_text
from exceptstar._compiler.source import lines as source_lines

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import List, Optional, Tuple, Union

_builtin_compile = builtins.compile
_PyCF_ONLY_AST = 0x400

GROUP = "_exceptstar_group"
# Added as the stub's last line, so that no line of the module moves (and after
# any `from __future__` import, which must come first); checkers resolve a
# stub's names wherever in the module they are bound.
IMPORT = f"from exceptstar._handler_types import group as {GROUP}  # added by exceptstar: except* -> except\n"


def stub(source: "Union[str, bytes]", filename: str = "<unknown>") -> "Optional[str]":
    """The stub of ``source``, or None when no ``except*`` clause is in its tokens.

    Invalid source raises the SyntaxError that exceptstar's ``compile`` raises for it.
    """
    if not has_except_star(source):
        return None
    text = source_text(source, filename)
    scan = Scan(text)
    if not scan.stars:
        return None  # `except*` in a comment or a string only
    from exceptstar._compiler.transform import compile

    compile(text, filename, "exec")  # the SyntaxError of an invalid module, as importing it raises
    # The tokenizer's text: each clause's `*` a space, every line and column in place.
    tree = _builtin_compile(scan.rewritten, filename, "exec", _PyCF_ONLY_AST, True)
    mark(tree, scan.stars)
    import ast

    edits: List[Tuple[int, int, str]] = []  # (line, byte column, inserted text)
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and getattr(node, "exceptstar_star", False):
            types = node.type
            assert types is not None and types.end_lineno is not None and types.end_col_offset is not None
            edits.append((types.lineno, types.col_offset, f"{GROUP}("))
            edits.append((types.end_lineno, types.end_col_offset, ")"))
    lines = [line.encode("utf-8") for line in source_lines(scan.rewritten)]
    # From the end, so that each edit's column is still where the tree put it.
    for row, column, inserted in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:column] + inserted.encode("utf-8") + line[column:]
    result = b"".join(lines).decode("utf-8")
    if result and not result.endswith(("\n", "\r")):
        result += "\n"
    return result + IMPORT
