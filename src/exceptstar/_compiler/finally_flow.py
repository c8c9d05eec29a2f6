"""PEP 765 (CPython 3.14): ``return``, ``break`` or ``continue`` leaving a ``finally`` block.

3.14 gives a ``SyntaxWarning`` for each when code is compiled (never from
``ast.parse``), after the parser's errors and before the compiler's; a filter
that makes it an error makes it a SyntaxError at the statement.  Before 3.11
exceptstar gives it for the code it compiles: ``flow_in_finally`` finds the
statements in a tree, ``warn_flow_in_finally`` gives the warnings (called by
``syntax.check_tree``), and ``may_leave_finally`` tells from text alone, in
C loops, that a part compiled without a tree (``transform``'s native parts)
has none.
"""

import sys

from exceptstar._compiler.syntax import Problem

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Any, List, Optional, Tuple

FINALLY_FLOW = "'{}' in a 'finally' block"

# From the start of a `finally:` line: the rest of the line, then every line
# indented deeper than the `finally`, blank or a comment.
_FINALLY_BLOCK = r"(?m)([ \t]*)finally[ \t]*:(.*(?:\n(?:\1[ \t]+.*|[ \t\r\f]*(?:#.*)?$))*)"
# In a block: a flow word, or a line that may run on onto lines indented less
# (a backslash at its end, a triple quote).
_RISK = r"(?m)\b(?:return|break|continue)\b|\\\r?$|\"\"\"|\'\'\'"


def may_leave_finally(text: str) -> bool:
    """False when no ``return``/``break``/``continue`` of ``text`` can sit in a ``finally``
    block (so code compiled from it without a tree misses no warning).

    Blocks are read by indentation.  A flow word anywhere in a block (in a
    string or not), or a line that may continue onto lines indented less (a
    backslash, a triple quote, unbalanced brackets), makes the answer True:
    True sends the source through the tree, which knows.
    """
    at = text.find("finally")
    if at < 0:
        return False
    import re

    # Found with str.find, each block then read by a match anchored at its line:
    # a multi-line regex search would try every position of the text.
    block_at, risky = re.compile(_FINALLY_BLOCK).match, re.compile(_RISK).search
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        match = block_at(text, start) if not text[start:at].strip(" \t") else None
        if match is not None:
            block = match.group(2)
            if risky(block) or block.count("(") != block.count(")") \
                    or block.count("[") != block.count("]") or block.count("{") != block.count("}"):
                return True
        at = text.find("finally", at + 7)
    return False


def flow_in_finally(tree: "ast.AST") -> "List[Any]":
    """The ``return``, ``break`` and ``continue`` statements that leave a ``finally`` block (PEP 765).

    As 3.14's AST pass decides: only the innermost of the enclosing finally
    blocks, function bodies and loop bodies counts (a class body and a loop's
    ``else`` are not one of them), so a ``return`` in a loop in a ``finally``
    is not reported, nor a ``break`` in a function defined there.
    """
    found: List[Any] = []
    todo: List[Tuple[List[Any], Optional[str]]] = [(getattr(tree, "body", []), None)]
    while todo:
        body, inside = todo.pop()
        for node in body:
            kind = type(node).__name__
            if kind in ("Return", "Break", "Continue"):
                if inside == "finally":
                    found.append(node)
            elif kind in ("FunctionDef", "AsyncFunctionDef"):
                todo.append((node.body, "function"))
            elif kind in ("For", "AsyncFor", "While"):
                todo.append((node.body, "loop"))
                todo.append((node.orelse, inside))
            elif kind in ("Try", "TryStar"):
                todo.append((node.finalbody, "finally"))
                todo.extend((block, inside) for block in
                            (node.body, node.orelse, *(handler.body for handler in node.handlers)))
            else:
                todo.extend((getattr(node, field, []), inside) for field in ("body", "orelse"))
                todo.extend((case.body, inside) for case in getattr(node, "cases", ()))
    found.sort(key=lambda node: (node.lineno, node.col_offset))
    return found


def warn_flow_in_finally(tree: "ast.AST", filename: str) -> None:
    """Give 3.14's SyntaxWarning for each statement of ``flow_in_finally``, in source order.

    As CPython's warning from the compiler: attributed to the code that called
    ``compile`` (its module and registry: the first frame outside this
    package), and when a filter makes it an error, a SyntaxError at the
    statement instead.
    """
    nodes = flow_in_finally(tree)
    if not nodes:
        return
    import warnings

    from exceptstar._frames import user_frame

    caller = user_frame(sys._getframe(1))
    context = caller.f_globals if caller is not None else {}
    module = context.get("__name__")
    if not isinstance(module, str) and module is not None:
        module = "<string>"
    registry = context.setdefault("__warningregistry__", {}) if caller is not None else {}
    for node in nodes:
        message = FINALLY_FLOW.format(type(node).__name__.lower())
        failed = False
        try:
            warnings.warn_explicit(message, SyntaxWarning, filename, node.lineno,
                                   module if module is not None else "<string>", registry)
        except SyntaxWarning:
            failed = True
        if failed:
            # Raised outside the handler: 3.14's SyntaxError replaces the warning, no context.
            raise Problem(message, (node.lineno, node.col_offset + 1, node.end_lineno, node.end_col_offset + 1),
                          None).exception(filename)
