"""PEP 765 (CPython 3.14): ``return``, ``break`` or ``continue`` leaving a ``finally`` block.

3.14 gives a ``SyntaxWarning`` for each when code is compiled (never from
``ast.parse``), after the parser's errors and before the compiler's; a filter
that makes it an error makes it a SyntaxError at the statement.  Before 3.11
exceptstar gives it for the code it compiles: ``flow_in_finally`` finds the
statements in a tree, ``warn_flow_in_finally`` gives the warnings (called by
``syntax.check_tree``), and ``may_leave_finally`` tells from text alone, in
C loops, that a part compiled without a tree (``native_parts``) has none.
"""

from exceptstar._compiler.problem import Problem

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Any, Dict, List, Optional, Tuple

FINALLY_FLOW = "'{}' in a 'finally' block"

# A `finally` keyword, its colon and its block: the rest of its line and the
# lines below indented deeper than `width` (as the tokenizer compares them),
# blank, comments, or whose indentation holds a form feed (never read as cut short).
_BLOCK = r"finally\b(?:[ \t\f]*(:)(.*(?:\n(?:[ \t]{{{deeper}}}|[ \t]{{0,{width}}}(?=[\f\r#\n]|\Z)).*)*))?"
# A `finally` on a continued line: its indentation is not the statement's.  (After
# a blank line the tokenizer has ended the continuation: taken as continued all
# the same, which only costs that rare module a tree.)
_CONTINUED = r"\\(?:\r?\n|\n\n)[ \t\f]*finally\b"
_FLOW = r"\b(?:return|break|continue)\b"
# One-line strings and comments: taken out before the blocks' brackets are matched.
_INERT = r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|#[^\n]*"
# Every byte but the brackets and the blocks' separator.
_NOT_BRACKETS = bytes(byte for byte in range(256) if byte not in b"()[]{}\0")


def may_leave_finally(text: str) -> bool:
    """False when no ``return``/``break``/``continue`` of ``text`` can sit in a ``finally``
    block; True when one may (then only a tree can tell).

    Each ``finally`` keyword that starts a line is read with its block: the
    lines below it indented deeper (as the tokenizer compares indentation),
    blank lines and comments.  A flow word anywhere in a block (even in a string) is True;
    so is whatever may hide a block's true end from such a reading: a line
    ending in a backslash, a triple quote, brackets left open (outside
    one-line strings and comments), a ``finally`` on a continued line or
    split from its colon, and lines ended by a lone carriage return.  The
    blocks are cut out one by one and looked into all at once, in C loops:
    a module may have hundreds.
    """
    at = text.find("finally")
    if at < 0:
        return False
    if "\0" in text or ("\r" in text and text.count("\r") != text.count("\r\n")):
        return True  # a null byte: no module, and it separates the blocks below
    import re

    if "\\" in text and re.search(_CONTINUED, text):  # a search for one character first: in C, ~30 times faster
        return True
    blocks = _blocks_at_one_width(text, at, re)
    if blocks is not None:
        return bool(blocks) and _flow_or_open("\n\0".join(blocks))
    block_reads: Dict[int, Any] = {}  # indentation width -> the match of a block at its `finally`
    blocks = []
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        indent = text[start:at]
        if not indent.strip(" \t\f"):  # the keyword starts its line
            width = _width(indent)
            read = block_reads.get(width)
            if read is None:
                read = block_reads[width] = re.compile(_BLOCK.format(width=width, deeper=width + 1)).match
            block = read(text, at)
            if block:  # else a name that starts with the word
                if block.group(1) is None:
                    return True  # split from its colon
                blocks.append(block.group(2))
        at = text.find("finally", at + 7)
    return bool(blocks) and _flow_or_open("\n\0".join(blocks))


def _blocks_at_one_width(text: str, at: int, re: "Any") -> "Optional[List[str]]":
    """The blocks of ``may_leave_finally`` read by one search, when every ``finally``
    of ``text`` starts a line indented as the first one (``at``), by spaces and
    tabs alone, has a block, and none is in another's block; else None (then
    each is read on its own).

    Each is then where the search finds it, read by the same pattern: so the
    blocks are the same, in one C loop instead of a turn per ``finally``.
    """
    indent = text[text.rfind("\n", 0, at) + 1:at]
    if indent.strip(" \t") or "\f" in text:
        return None
    width = len(indent)
    # The keyword first, then what precedes it (the search skips to the keyword in C); a
    # `finally` not so placed or read matches `other`.
    read = _BLOCK.format(width=width, deeper=width + 1)[len("finally"):]
    pattern = rf"finally(?:(?<=\n[ \t]{{{width}}}finally){read}|(?P<other>))"
    blocks = []
    for block in re.finditer(pattern, "\n" + text):
        if block.group("other") is not None:
            return None
        if block.group(1) is None:
            return ["return"]  # split from its colon: as a flow word
        blocks.append(block.group(2))
    # A `finally` inside a block is passed over by the search.
    return None if any("finally" in block for block in blocks) else blocks


def _flow_or_open(blocks: str) -> bool:
    """Whether ``blocks`` (separated by null bytes) hold a flow word, a triple
    quote or a line ending in a backslash, or one leaves brackets open."""
    if "\\\n" in blocks or "\\\r\n" in blocks or blocks.endswith(("\\", "\\\r")) \
            or '"""' in blocks or "\'\'\'" in blocks:
        return True
    import re

    if ("return" in blocks or "break" in blocks or "continue" in blocks) and re.search(_FLOW, blocks):
        return True
    brackets = re.sub(_INERT, "", blocks).encode("utf-8", "surrogatepass").translate(None, _NOT_BRACKETS)
    while True:  # matched pairs taken out, innermost first, until none is left
        fewer = brackets.replace(b"()", b"").replace(b"[]", b"").replace(b"{}", b"")
        if len(fewer) == len(brackets):
            return bool(brackets.strip(b"\0"))
        brackets = fewer


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
