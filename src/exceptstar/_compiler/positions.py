"""Where the rewrite's generated nodes sit: the positions that keep tracebacks and line events exact."""

import _ast as ast  # the node classes, without the ast module's imports (see rewrite)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List


def position_all(nodes: "List[Any]", at: "Dict[str, int]") -> None:
    """Give ``nodes``, wholly generated, and every node under them the position ``at``."""
    # A node's fields and positions live in its __dict__: read and written
    # there, the walk costs no calls.
    node_type = ast.AST
    todo = list(nodes)
    while todo:
        node = todo.pop()
        fields = node.__dict__
        if node._attributes:
            fields.update(at)
        for field in node._fields:
            value = fields.get(field)
            if type(value) is list:
                todo.extend(value)
            elif isinstance(value, node_type):
                todo.append(value)


POSITION = ("lineno", "col_offset", "end_lineno", "end_col_offset")
# Code with no line (3.10): what runs after every clause.
NO_LINE = {"lineno": -1, "col_offset": 0, "end_lineno": -1, "end_col_offset": 0}


def keyword_position(where: "Any") -> "Dict[str, int]":
    """A clause's ``except`` keyword: its machinery's position.

    The keyword only, not the whole clause: 3.12+ reports an attribute load at
    its node's *end* line, which for a whole clause would be the last line of
    its handler.
    """
    lineno, col = where.lineno, where.col_offset
    return {"lineno": lineno, "col_offset": col, "end_lineno": lineno, "end_col_offset": col + len("except")}


def clause_extent(handler: "Any") -> int:
    """How many lines a clause runs on past its ``except`` keyword's, to its handler's last statement.

    CPython's match of a clause has the whole clause's position, so its
    traceback entries span these lines.  Counted from the keyword, not as a
    line number: the counts are small constants, shared by a module's code.
    0 in a tree without end positions.
    """
    extent: int = (getattr(handler, "end_lineno", None) or handler.lineno) - handler.lineno
    return extent
