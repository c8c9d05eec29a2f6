"""Frames whose position spans several lines, printed on 3.8-3.10 as 3.13+ print them.

CPython's ``except*`` gives the entries it makes in the frame of the ``try``
the position of a whole clause, and 3.13+ print its lines: the first and the
last, dedented together, the one between them or ``...<N lines>...``.  On
3.8-3.10 the engine's entries carry the clause's last line (``_spans``):
``extract`` is ``StackSummary.extract`` whose frames made from such entries
are ``SpanFrame``s, which its stack's ``format`` shows so.  Carets, which
3.13+ draw where a span does not fill its lines, need columns those versions
do not have.  Everything else is the running interpreter's own.
"""

import linecache
import textwrap
import traceback

from exceptstar import _spans

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import Any, Iterator, List, Optional, Tuple


def extract(tb: "Optional[TracebackType]", limit: "Optional[int]", lookup_lines: bool,
            capture_locals: bool) -> "traceback.StackSummary":
    """``traceback.StackSummary.extract`` of ``walk_tb(tb)``, with the spans of the entries that carry one."""
    entries: List[TracebackType] = []
    stack = traceback.StackSummary.extract(_walk(tb, entries), limit=limit, lookup_lines=lookup_lines,
                                           capture_locals=capture_locals)
    return _with_spans(stack, entries, lookup_lines)


def _walk(tb: "Optional[TracebackType]", entries: "List[TracebackType]") -> "Iterator[Tuple[Any, int]]":
    """``traceback.walk_tb``, keeping the entries walked in ``entries``."""
    while tb is not None:
        entries.append(tb)
        yield tb.tb_frame, tb.tb_lineno
        tb = tb.tb_next


def _with_spans(stack: "traceback.StackSummary", entries: "List[TracebackType]",
                lookup_lines: bool) -> "traceback.StackSummary":
    """``stack``, whose frames made where an ``except*`` clause matched span the clause."""
    # A negative limit keeps the last entries walked.
    first = len(entries) - len(stack)
    result: Optional[traceback.StackSummary] = None
    for i, entry in enumerate(entries[first:]):
        end = _spans.end_line(entry.tb_lasti)
        if end is not None:
            if result is None:
                result = SpanStack(stack)
            result[i] = SpanFrame(stack[i], entry.tb_lineno, end, lookup_lines)
    return stack if result is None else result


class SpanFrame(traceback.FrameSummary):
    """A frame whose position spans several lines, to ``end_lineno``.

    ``line`` is the first line, as on 3.13+.
    """

    __slots__ = ("_lines", "_span", "end_lineno")

    def __init__(self, frame: "traceback.FrameSummary", lineno: int, end_lineno: int, lookup_line: bool) -> None:
        super().__init__(frame.filename, lineno, frame.name, lookup_line=lookup_line)
        self.locals = frame.locals
        self.end_lineno = end_lineno
        self._span = range(lineno, end_lineno + 1)
        self._lines: Optional[List[str]] = None
        if lookup_line:
            self.source_lines()

    def source_lines(self) -> "List[str]":
        """The lines of the span, right-stripped (empty where there is none)."""
        if self._lines is None:
            self._lines = [linecache.getline(self.filename, lineno).rstrip() for lineno in self._span]
        return self._lines

    def shown(self) -> str:
        """What 3.13+ print below the frame's first line: the first and last lines, dedented together.

        One line between them is shown, more are counted.  The carets that
        3.13+ draw where the span does not fill its lines need columns.
        """
        dedented = textwrap.dedent("\n".join(self.source_lines()) + "\n")
        if not dedented.strip():
            return ""
        lines = dedented.splitlines()[:len(self._span)]
        last = len(lines) - 1
        result = [lines[0] + "\n"]
        if last == 2:
            result.append(lines[1] + "\n")
        elif last > 2:
            result.append(f"...<{last - 1} lines>...\n")
        if last > 0:
            result.append(lines[last] + "\n")
        return textwrap.indent(textwrap.dedent("".join(result)), "    ", lambda line: True)


class SpanStack(traceback.StackSummary):
    """The interpreter's ``StackSummary``, whose ``SpanFrame`` rows show their spans."""

    def format(self) -> "List[str]":
        rows = super().format()
        frames = iter(_shown_frames(self))
        for index, row in enumerate(rows):
            if not row.startswith('  File "'):
                continue  # the "[Previous line repeated ...]" lines
            frame = next(frames, None)
            if isinstance(frame, SpanFrame):
                # The interpreter's row, the span in place of its one line.
                lines = [f'  File "{frame.filename}", line {frame.lineno}, in {frame.name}\n',
                         frame.shown()]
                for name, value in sorted((frame.locals or {}).items()):
                    lines.append(f"    {name} = {value}\n")
                rows[index] = "".join(lines)
        return rows


def _shown_frames(stack: "traceback.StackSummary") -> "Iterator[traceback.FrameSummary]":
    """The frames that ``format`` gives a row, in order: not those past the recursion cutoff."""
    last = None
    count = 0
    for frame in stack:
        key = (frame.filename, frame.lineno, frame.name)
        if key != last:
            last, count = key, 0
        count += 1
        if count <= traceback._RECURSIVE_CUTOFF:  # type: ignore[attr-defined]
            yield frame
