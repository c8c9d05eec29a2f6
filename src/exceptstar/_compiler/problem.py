"""``Problem``: one SyntaxError as CPython 3.15 gives it, and the words of its parser's rules for ``except*``.

What every reader and checker of the wing builds on (``clause_rules`` and
``scan`` from the tokens, ``syntax`` from the tree, ``finally_flow`` for PEP
765's warning made an error): a message, where CPython puts it, and where it
sits for ordering against other errors.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Optional, Tuple, Type

    Key = Tuple[int, int]
    Position = Tuple[int, int, int, int]

MIXED = "cannot have both 'except' and 'except*' on the same 'try'"
# 3.14's parser, where none of its error rules applies: at the token it stopped at.
INVALID = "invalid syntax"
NO_TYPES = "expected one or more exception types"
# CPython 3.14 (PEP 758) takes `except* A, B:`; only with `as` are parentheses still needed.
NOT_PARENTHESIZED_AS = "multiple exception types must be parenthesized when using 'as'"
# 3.14's rule for a target after `as` that is no name (the grammar's word for what it is).
TARGET = "cannot use except* statement with {}"
NEVER_CLOSED = "'{}' was never closed"


class Problem:
    """One invalid use of ``except*``: the SyntaxError CPython raises for it (1-based offsets)."""

    def __init__(self, msg: str, position: "Position", text: "Optional[str]",
                 order: "Optional[Key]" = None) -> None:
        self.msg = msg
        self.position = position
        self.text = text
        # Where the error sits for ordering against other errors (a lost
        # position, -1, still has a place in the source).
        self.order = order or (position[0], position[1])
        # For a mixed-clauses error on a starred clause: where that clause's
        # header ends, and 3.14's error at its star, which stands for this one
        # when the clause's types are not one expression.
        self.clause_end: Key = (0, 0)
        self.at_star: Optional[Problem] = None
        self.error_class: Type[SyntaxError] = SyntaxError

    @property
    def line(self) -> int:
        """The line the problem is reported on, for listing problems in source order."""
        return self.order[0]

    def exception(self, filename: str) -> SyntaxError:
        lineno, offset, end_lineno, end_offset = self.position
        text = self.text
        if text is None and lineno > 0:
            # As PyErr_ProgramTextObject: compiler errors quote the file, if there is one.
            text = _file_line(filename, lineno)
        details: Tuple[Any, ...] = (filename, lineno, offset, text)
        if sys.version_info >= (3, 10):
            details += (end_lineno, end_offset)
        return self.error_class(self.msg, details)


def _file_line(filename: str, lineno: int) -> "Optional[str]":
    try:
        with open(filename, "rb") as file:
            for number, line in enumerate(file, 1):
                if number == lineno:
                    return line.decode("utf-8", "replace")
    except (OSError, ValueError):
        pass
    return None
