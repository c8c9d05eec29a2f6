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

from exceptstar._compiler.syntax import Problem

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Any, Dict, List, Optional, Tuple

FINALLY_FLOW = "'{}' in a 'finally' block"

# In a block: a flow word, or a line that may run on onto lines indented less
# (a backslash at its end, a triple quote).
_RISK = r"(?m)\b(?:return|break|continue)\b|\\\r?$|\"\"\"|\'\'\'"
# One-line strings and comments: taken out before a block's brackets are counted.
_INERT = r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|#[^\n]*"


def may_leave_finally(text: str) -> bool:
    """False when no ``return``/``break``/``continue`` of ``text`` can sit in a ``finally``
    block; True when one may (then only a tree can tell).

    Each ``finally`` keyword that starts a line is read with its block: the
    lines below it indented deeper (as the tokenizer compares indentation),
    blank lines and comments.  A flow word anywhere in the block (even in a string) is True;
    so is whatever may hide a block's true end from such a reading: a line
    ending in a backslash, a triple quote, brackets left open (outside
    one-line strings and comments), a ``finally`` on a continued line or
    split from its colon, and lines ended by a lone carriage return.
    """
    at = text.find("finally")
    if at < 0:
        return False
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return True
    import re

    risky, inert = re.compile(_RISK).search, re.compile(_INERT).sub
    block_ends: Dict[int, Any] = {}  # indentation width -> the search for the first line that ends such a block
    size = len(text)
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        line_end = size if line_end < 0 else line_end
        after = text[at + 7:at + 8]
        if text[start:at].strip(" \t\f") or after.isalnum() or after == "_":
            at = text.find("finally", line_end)  # not the keyword starting its line
            continue
        if text[max(start - 3, 0):start].rstrip("\r\n").endswith("\\"):
            return True  # a continued line: its indentation is not the statement's
        if not text[at + 7:line_end].lstrip(" \t\f").startswith(":"):
            return True
        width = _width(text[start:at])
        block_end = block_ends.get(width)
        if block_end is None:
            # A line of code indented no deeper; a line whose indentation holds a
            # form feed never matches, so such a block is read on, never cut short.
            block_end = block_ends[width] = re.compile(f"\\n[ \\t]{{0,{width}}}(?=[^ \\t\\f\\r\\n#])").search
        end = block_end(text, line_end)
        body = text[at + 7:end.start() if end else size]
        if risky(body) or _unbalanced(inert("", body)):
            return True
        at = text.find("finally", line_end)
    return False


def _unbalanced(code: str) -> bool:
    return code.count("(") != code.count(")") or code.count("[") != code.count("]") \
        or code.count("{") != code.count("}")


def _width(indent: str) -> int:
    """How deep an indentation is, as the tokenizer compares them: a form feed
    starts it again, and a file whose tabs and spaces disagree with this count
    (a tab as one column) is a TabError, so the count is enough."""
    return len(indent) - indent.rfind("\f") - 1


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

    As CPython's compiler gives it: no registry, the module named after the
    file (so each compile of each file shows it under the default filters),
    and when a filter makes it an error, a SyntaxError at the statement.
    """
    nodes = flow_in_finally(tree)
    if not nodes:
        return
    import warnings

    for node in nodes:
        message = FINALLY_FLOW.format(type(node).__name__.lower())
        failed = False
        try:
            warnings.warn_explicit(message, SyntaxWarning, filename, node.lineno)
        except SyntaxWarning:
            failed = True
        if failed:
            # Raised outside the handler: 3.14's SyntaxError replaces the warning, no context.
            raise Problem(message, (node.lineno, node.col_offset + 1, node.end_lineno, node.end_col_offset + 1),
                          None).exception(filename)
