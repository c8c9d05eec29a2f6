"""How nested exception groups are laid out as text, as CPython 3.15's ``traceback`` does.

Shared by exceptstar's own ``TracebackException`` and the 3.11/3.12 one in
``formatting``: the margins and indentation of ``format()`` (``PrintContext``)
and the tree walk of ``format_exception_only(show_group=True)``; and how wide
text is on a terminal (``display_width``), which 3.15 lines carets up by.
"""

import collections
import re

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Iterator, List


def _separate_lines(indent: str, chunk: str, split: bool) -> "List[str]":
    if not split:
        return [indent + chunk]
    lines = chunk.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [indent + line + "\n" for line in lines]


_ESCAPE = re.compile(r"\x1b\[[ -@]*[A-~]")


def _char_width(char: str) -> int:
    if ord(char) < 128:
        return 1
    import unicodedata

    # Combining marks and format characters (the soft hyphen aside) take no cell.
    if unicodedata.combining(char) or (unicodedata.category(char) == "Cf" and char != "\u00ad"):
        return 0
    return 1 if unicodedata.east_asian_width(char) in ("N", "Na", "H", "A") else 2


def display_width(text: str) -> int:
    """The cells ``text`` takes on a terminal, as 3.15's ``traceback`` (pyrepl's) counts them.

    Escape sequences take none, a Ctrl-Z two (shown as ``^Z``).
    """
    width = sum(map(_char_width, text)) + text.count("\x1a")
    return width - sum(map(len, _ESCAPE.findall(text))) if "\x1b" in text else width


# How format_exception_only(show_group=True) lays out one node of the tree:
# its own lines (as at depth 0: message, then notes), whether its message line
# is split on newlines when nested (not for SyntaxErrors), and whether it can
# have members to show (not without an exception type).


Layout = collections.namedtuple("Layout", "lines split_message may_have_members")


def group_lines(top: "Any", layout: "Callable[[Any], Layout]", show_group: bool, depth: int) -> "Iterator[str]":
    """``format_exception_only(show_group=...)`` of 3.13 over a tree of nodes.

    Deeper nodes are indented three spaces a level.  Iterative, so that very
    deep nesting cannot overflow the stack.
    """
    stack = [(top, depth)]
    while stack:
        node, level = stack.pop()
        indent = "   " * level
        shown = layout(node)
        for i, chunk in enumerate(shown.lines):
            # Only the message line is split (and only below the top); notes
            # arrive already one line a chunk.
            yield from _separate_lines(indent, chunk, shown.split_message and level > 0 and i == 0)
        if not shown.may_have_members or not show_group:
            continue
        members = node.exceptions
        if members:
            stack.extend((member, level + 1) for member in reversed(members))


class PrintContext:
    """Indentation state while printing nested groups (3.13's _ExceptionPrintContext)."""

    __slots__ = ("exception_group_depth", "need_close")

    def __init__(self) -> None:
        self.exception_group_depth = 0
        self.need_close = False

    def indent(self) -> str:
        return "  " * self.exception_group_depth

    def emit(self, text: "Any", margin_char: str = "|") -> "Iterator[str]":
        prefix = self.indent()
        if self.exception_group_depth:
            prefix += margin_char + " "
        if isinstance(text, str):
            text = (text,)
        for chunk in text:
            # textwrap.indent with an always-true predicate, without textwrap.
            yield "".join([prefix + line for line in chunk.splitlines(True)])
