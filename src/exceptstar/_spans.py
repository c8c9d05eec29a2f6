"""The last line of an ``except*`` clause, carried by a traceback entry: the span 3.8-3.10 print.

CPython gives the entry that its ``except*`` makes in the frame of the ``try``
(the group wrapping a naked exception, an error of a clause's match) the
position of the whole clause, from its ``except`` keyword to the end of its
handler, and 3.13+ print all those lines.  3.8-3.10's code objects hold no
end lines, so the engine writes the clause's last line into each such entry
it makes (the compiler counts each clause's lines), and the printer
(``_printing.spans``) reads it back.  The place is the entry's ``tb_lasti``, which no
printing of those versions reads: the span lives as long as the entry, with
no table beside it and nothing spent on a statement that raises nothing.
Real offsets are never below -2 (3.10's unstarted frame), ours far below.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import Optional

# Only 3.8-3.10's printing reads it: on 3.11+ entries keep -1, an entry with no instruction.
CARRIED = sys.version_info < (3, 11)
# An entry's tb_lasti is BASE less the last line: lines run far below 1 << 29.  No further: these values
# then take one digit of a Python int (30 bits), whose arithmetic is the fast one.
BASE = -(1 << 29)


def lasti(end: "Optional[int]", lineno: int) -> int:
    """The ``tb_lasti`` of an entry at ``lineno`` whose clause ends at line ``end`` (None: not known)."""
    if not CARRIED or end is None or not lineno < end < -BASE:
        return -1
    return BASE - end


def end_line(lasti: int) -> "Optional[int]":
    """The last line that an entry's ``tb_lasti`` carries, or None: an entry of one line."""
    return BASE - lasti if lasti <= BASE else None


def spans_lines(tb: "Optional[TracebackType]") -> bool:
    """Whether an entry of ``tb`` carries a last line: what the interpreter's own printing would not show."""
    while tb is not None:
        if tb.tb_lasti <= BASE:
            return True
        tb = tb.tb_next
    return False
