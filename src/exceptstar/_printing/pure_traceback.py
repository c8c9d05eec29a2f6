"""exceptstar's own ``TracebackException``: CPython 3.15's, groups, notes and colours included.

Used on 3.8-3.10 and wherever ``EXCEPTSTAR_PURE=1``: a subclass of the running
interpreter's class that knows every kind of group (``_classes.group_classes``)
and notes, and lays them out exactly as CPython 3.15 does (its SyntaxError
lines, carets by display width; its hints, ``suggestions``; notes in their
colour).  Frame lines are produced by the running
interpreter's own ``StackSummary.format`` (``colour`` colours them), so a
plain traceback looks the same as the interpreter's own; on 3.8-3.10 an entry
that spans an ``except*`` clause shows its lines as 3.13+ do (``spans``).

Import it through ``formatting``, which imports ``traceback`` first: on
3.8-3.10 that import is what replaces ``traceback.TracebackException`` with
this class (``patches``), and it needs this module complete.
"""

import collections.abc
import sys
import traceback

from exceptstar import _classes
from exceptstar._printing import colour, spans, suggestions
from exceptstar._printing.layout import Layout, PrintContext, display_width, group_lines

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import IO, Any, Iterator, List, Optional, Set, Tuple, Type, TypeVar

    _Self = TypeVar("_Self", bound="TracebackException")


_StdTracebackException = traceback.TracebackException
_CAUSE_MESSAGE = "\nThe above exception was the direct cause of the following exception:\n\n"
_CONTEXT_MESSAGE = "\nDuring handling of the above exception, another exception occurred:\n\n"
_StackSummary = traceback.StackSummary
_FULL_POSITIONS = hasattr(traceback, "_walk_tb_with_full_positions")
_EXC_TYPE_IS_PROPERTY = sys.version_info >= (3, 13)
_STACK_FORMAT_TAKES_KWARGS = sys.version_info >= (3, 13)


def _safe_string(value: object, what: str, func: "Any" = str) -> str:
    try:
        return func(value)  # type: ignore[no-any-return]
    except BaseException:
        return f"<{what} {func.__name__}() failed>"


def _members(exc: BaseException, group_types: "Tuple[type, ...]") -> "Optional[Tuple[Any, ...]]":
    if not isinstance(exc, group_types):
        return None
    try:
        return tuple(exc.exceptions)  # type: ignore[attr-defined]
    except Exception:
        # A subclass whose ``exceptions`` fails prints as a plain exception.
        return None


def _extract(tb: "Optional[TracebackType]", limit: "Optional[int]", lookup_lines: bool,
             capture_locals: bool) -> "traceback.StackSummary":
    if _FULL_POSITIONS:
        # 3.11+: keep the column positions so the frames get their carets.
        return _StackSummary._extract_from_extended_frame_gen(  # type: ignore[attr-defined,no-any-return]
            traceback._walk_tb_with_full_positions(tb),  # type: ignore[attr-defined]
            limit=limit, lookup_lines=lookup_lines, capture_locals=capture_locals)
    return spans.extract(tb, limit, lookup_lines, capture_locals)


class TracebackException(_StdTracebackException):
    """An exception ready for rendering, groups and notes included (CPython 3.15's).

    ``exceptions`` holds a ``TracebackException`` per member of a group
    (``None`` for other exceptions) and ``__notes__`` the notes;
    ``max_group_width`` and ``max_group_depth`` bound what ``format`` prints.
    Members that ``format`` can never show (past the width or the depth) are
    captured without their frames, so that huge groups stay cheap; a group
    that (through its members) contains itself is shown as a plain
    exception where it recurs.
    """

    exceptions: "Optional[List[TracebackException]]"
    __notes__: "Any"
    exc_type_qualname: "Any"
    exc_type_module: "Any"

    def __init__(
        self,
        exc_type: "Optional[Type[BaseException]]",
        exc_value: "Optional[BaseException]",
        exc_traceback: "Optional[TracebackType]",
        *,
        limit: "Optional[int]" = None,
        lookup_lines: bool = True,
        capture_locals: bool = False,
        compact: bool = False,
        max_group_width: int = 15,
        max_group_depth: int = 10,
        save_exc_type: bool = True,
        _seen: "Optional[Set[int]]" = None,
    ) -> None:
        is_recursive_call = _seen is not None
        seen: Set[int] = set() if _seen is None else _seen
        seen.add(id(exc_value))
        options = (limit, lookup_lines, capture_locals, max_group_width, max_group_depth,
                   save_exc_type)
        self._capture(exc_type, exc_value, exc_traceback, options, True)
        self.__cause__: Optional[TracebackException] = None
        self.__context__: Optional[TracebackException] = None
        self.exceptions = None
        if not is_recursive_call:
            self._capture_related(exc_value, options, compact, seen)

    @classmethod
    def from_exception(
        cls: "Type[_Self]",
        exc: BaseException,
        *,
        limit: "Optional[int]" = None,
        lookup_lines: bool = True,
        capture_locals: bool = False,
        compact: bool = False,
        max_group_width: int = 15,
        max_group_depth: int = 10,
        save_exc_type: bool = True,
    ) -> "_Self":
        """Capture ``exc``, its chain and its members (the options of 3.13's).

        The interpreter's own method passes these through too; declaring them
        tells type checkers of 3.8-3.10 targets, whose ``from_exception`` has
        no group options, that they exist.  So the keyword list repeats
        ``__init__``'s: both are the drop-in API, and ``**kwargs`` would type them away.
        """
        return cls(type(exc), exc, exc.__traceback__, limit=limit, lookup_lines=lookup_lines,
                   capture_locals=capture_locals, compact=compact,
                   max_group_width=max_group_width, max_group_depth=max_group_depth,
                   save_exc_type=save_exc_type)

    def _capture(self, exc_type: "Any", exc_value: "Any", tb: "Any", options: "Any",
                 with_frames: bool) -> None:
        """What one exception contributes, without what it links to."""
        limit, lookup_lines, capture_locals, width, depth, save_exc_type = options
        self.max_group_width = width
        self.max_group_depth = depth
        if with_frames:
            self.stack = _extract(tb, limit, lookup_lines, capture_locals)
        else:
            self.stack = _StackSummary()
        if _EXC_TYPE_IS_PROPERTY:
            self._exc_type = exc_type if save_exc_type else None
        else:
            self.exc_type = exc_type
        self._have_exc_type = exc_type is not None
        self.exc_type_qualname = exc_type.__qualname__ if exc_type is not None else None
        self.exc_type_module = exc_type.__module__ if exc_type is not None else None
        self._str = _safe_string(exc_value, "exception")
        try:
            self.__notes__ = getattr(exc_value, "__notes__", None)
        except Exception as error:
            self.__notes__ = [
                "Ignored error getting __notes__: "
                + _safe_string(error, "__notes__", repr)]
        self._is_syntax_error = exc_type is not None and issubclass(exc_type, SyntaxError)
        if self._is_syntax_error:
            self.filename = exc_value.filename
            lineno = exc_value.lineno
            self.lineno = str(lineno) if lineno is not None else None
            end_lineno = getattr(exc_value, "end_lineno", None)
            self.end_lineno = str(end_lineno) if end_lineno is not None else None
            self.text = exc_value.text
            self.offset = exc_value.offset
            self.end_offset = getattr(exc_value, "end_offset", None)
            self.msg = exc_value.msg
            self._exc_metadata = getattr(exc_value, "_metadata", None)
        elif exc_type is not None:
            self._str = suggestions.add_hints(exc_type, exc_value, tb, self._str)
        self.__suppress_context__ = (
            exc_value.__suppress_context__ if exc_value is not None else False)

    def _child(self, exc: "BaseException", options: "Any", with_frames: bool,
               seen: "Set[int]") -> "TracebackException":
        seen.add(id(exc))
        child: TracebackException = type(self).__new__(type(self))
        child._capture(type(exc), exc, exc.__traceback__, options, with_frames)
        child.__cause__ = child.__context__ = child.exceptions = None
        return child

    def _capture_related(self, exc_value: "Any", options: "Any", compact: bool,
                         seen: "Set[int]") -> None:
        """Causes, contexts and members, in the order (and with the ``_seen``) of 3.13.

        Iterative, so that long chains and deep nesting cannot overflow the
        stack.  Each entry carries the depth at which ``format`` would print
        it and whether ``format`` can print it at all; a ``None`` entry
        closes a group, so ``open_groups`` is the chain of groups that
        contain the current one and a member among them is a cycle.
        """
        group_types = _classes.group_classes()
        width = options[3]
        max_depth = options[4]
        open_groups: Set[int] = set()
        queue: List[Any] = [(self, exc_value, 0, True)]
        while queue:
            entry = queue.pop()
            if entry[0] is None:
                open_groups.discard(entry[1])
                continue
            te, exc, depth, visible = entry
            if exc is None:
                continue
            cause = exc.__cause__
            if cause is not None and id(cause) not in seen:
                te.__cause__ = self._child(cause, options, visible, seen)
            need_context = not compact or (
                te.__cause__ is None and not exc.__suppress_context__)
            context = exc.__context__
            if context is not None and need_context and id(context) not in seen:
                te.__context__ = self._child(context, options, visible, seen)
            members = _members(exc, group_types)
            if members is not None and id(exc) in open_groups:
                members = None
            if members is not None:
                shown = visible and depth <= max_depth
                te.exceptions = [self._child(member, options, shown and i < width, seen)
                                 for i, member in enumerate(members)]
            if te.__cause__ is not None:
                queue.append((te.__cause__, cause, depth, visible))
            if te.__context__ is not None:
                queue.append((te.__context__, context, depth, visible))
            if members:
                open_groups.add(id(exc))
                queue.append((None, id(exc)))
                member_depth = max(depth, 1) + 1
                queue.extend(
                    (member_te, member, member_depth, shown and i < width)
                    for i, (member_te, member) in enumerate(zip(te.exceptions, members)))

    @property
    def exc_type_str(self) -> "Optional[str]":
        if not self._have_exc_type:
            return None
        stype: str = self.exc_type_qualname
        module = self.exc_type_module
        if module not in ("__main__", "builtins"):
            if not isinstance(module, str):
                module = "<unknown>"
            stype = module + "." + stype
        return stype

    def __str__(self) -> str:
        return self._str

    def format_exception_only(  # type: ignore[override]
        self, *, show_group: bool = False, _depth: int = 0, **kwargs: "Any"
    ) -> "Iterator[str]":
        """Format the exception part of the traceback.

        Yields the message line (the lines of a syntax error), then the
        notes; with ``show_group``, the members of a group follow,
        recursively, indented three spaces a level.  ``colorize=True``
        colours them as 3.15 does.
        """
        layout = _coloured_layout if kwargs.get("colorize", False) else _own_layout
        return group_lines(self, layout, show_group, _depth)

    def _message_lines(self, colorize: bool = False) -> "Iterator[str]":
        stype = self.exc_type_str
        if stype is None:
            yield colour.message_line("None", self._str) if colorize else (
                f"None: {self._str}\n" if self._str else "None\n")
            return
        if self._is_syntax_error:
            yield from self._syntax_error_lines(stype, colorize)
        elif colorize:
            yield colour.message_line(stype, self._str)
        elif self._str:
            yield f"{stype}: {self._str}\n"
        else:
            yield f"{stype}\n"
        notes = self.__notes__
        if isinstance(notes, collections.abc.Sequence) and not isinstance(notes, (str, bytes)):
            for note in notes:
                yield from colour.note_lines(_safe_string(note, "note"), colorize)
        elif notes is not None:
            yield from colour.note_lines(_safe_string(notes, "__notes__", repr), colorize)

    def _syntax_error_lines(self, stype: str, colorize: bool) -> "Iterator[str]":
        """3.15's ``_format_syntax_error``: the file line, the source line, carets by display width, the message."""
        theme = colour.THEME if colorize else colour.NO_THEME
        suffix = ""
        if self.lineno is not None:
            yield (f'  File {theme.filename}"{self.filename or "<string>"}"{theme.reset}, '
                   f'line {theme.line_no}{self.lineno}{theme.reset}\n')
        elif self.filename is not None:
            suffix = f" ({self.filename})"
        if isinstance(self.text, str):
            if hasattr(_StdTracebackException, "_find_keyword_typos"):
                # 3.14+ (the parser leaves what it needs in the error): "Did you mean 'for'?"
                try:
                    self._find_keyword_typos()  # type: ignore[attr-defined]
                except Exception:
                    pass
            yield from self._source_lines(theme)
        msg = self.msg
        try:
            if not msg:
                msg = "<no detail available>"
        except TypeError:
            pass
        yield f"{theme.type}{stype}{theme.reset}: {theme.message}{msg}{theme.reset}{suffix}\n"

    def _source_lines(self, theme: "Any") -> "Iterator[str]":
        rtext = self.text.rstrip("\n")
        ltext = rtext.lstrip(" \n\f")
        spaces = len(rtext) - len(ltext)
        offset = self.offset
        if offset is None:
            yield f"    {ltext}\n"
            return
        if not isinstance(offset, int):
            return
        if self.lineno == self.end_lineno:
            end_offset = self.end_offset if isinstance(self.end_offset, int) and self.end_offset != 0 else offset
        else:
            end_offset = len(rtext) + 1
        if self.text and offset > len(self.text):
            offset = len(rtext) + 1
        if self.text and end_offset > len(self.text):
            end_offset = len(rtext) + 1
        if offset >= end_offset or end_offset < 0:
            end_offset = offset + 1
        colno = offset - 1 - spaces
        end_colno = end_offset - 1 - spaces
        if colno < 0:
            yield f"    {ltext}\n"
            return
        highlighted = ltext[colno:end_colno]
        carets = display_width(highlighted) if highlighted else end_colno - colno
        yield f"    {ltext[:colno]}{theme.error_highlight}{highlighted}{theme.reset}{ltext[end_colno:]}\n"
        yield f"    {' ' * display_width(ltext[:colno])}{theme.error_highlight}{'^' * carets}{theme.reset}\n"

    def _frames(self, kwargs: "Any") -> "List[str]":
        if _STACK_FORMAT_TAKES_KWARGS and kwargs:
            return self.stack.format(**kwargs)
        if kwargs.get("colorize", False):
            return colour.frames(self.stack, self.stack.format())
        return self.stack.format()

    def format(  # type: ignore[override]
        self, *, chain: bool = True, _ctx: "Optional[PrintContext]" = None, **kwargs: "Any"
    ) -> "Iterator[str]":
        """Format the exception, its chain and its members, as CPython 3.15 lays them out.

        If ``chain`` is false, ``__cause__`` and ``__context__`` are left out.
        The message of the exception is always the last line of its block.
        """
        ctx = PrintContext() if _ctx is None else _ctx
        only_kwargs = {"colorize": kwargs["colorize"]} if "colorize" in kwargs else {}
        output: List[Tuple[Optional[str], TracebackException]] = []
        exc: Optional[TracebackException] = self
        if chain:
            while exc is not None:
                if exc.__cause__ is not None:
                    output.append((_CAUSE_MESSAGE, exc))
                    exc = exc.__cause__
                elif exc.__context__ is not None and not exc.__suppress_context__:
                    output.append((_CONTEXT_MESSAGE, exc))
                    exc = exc.__context__
                else:
                    output.append((None, exc))
                    exc = None
        else:
            output.append((None, self))
        for message, exc in reversed(output):
            if message is not None:
                yield from ctx.emit(message)
            yield from self._format_one(exc, chain, ctx, kwargs, only_kwargs)

    def _format_one(self, exc: "TracebackException", chain: bool, ctx: "PrintContext",
                    kwargs: "Any", only_kwargs: "Any") -> "Iterator[str]":
        if exc.exceptions is None:
            if exc.stack:
                yield from ctx.emit("Traceback (most recent call last):\n")
                yield from ctx.emit(exc._frames(kwargs))
            yield from ctx.emit(exc.format_exception_only(**only_kwargs))
            return
        if ctx.exception_group_depth > self.max_group_depth:
            yield from ctx.emit(f"... (max_group_depth is {self.max_group_depth})\n")
            return
        is_toplevel = ctx.exception_group_depth == 0
        if is_toplevel:
            ctx.exception_group_depth += 1
        if exc.stack:
            yield from ctx.emit("Exception Group Traceback (most recent call last):\n",
                                margin_char="+" if is_toplevel else "|")
            yield from ctx.emit(exc._frames(kwargs))
        yield from ctx.emit(exc.format_exception_only(**only_kwargs))
        count = len(exc.exceptions)
        width = self.max_group_width
        shown = count if count <= width else width + 1
        ctx.need_close = False
        for i in range(shown):
            last = i == shown - 1
            if last:
                # A nested group that ends last closes the box for both.
                ctx.need_close = True
            truncated = i >= width
            title = "..." if truncated else str(i + 1)
            yield (ctx.indent() + ("+-" if i == 0 else "  ")
                   + f"+---------------- {title} ----------------\n")
            ctx.exception_group_depth += 1
            if truncated:
                remaining = count - width
                yield from ctx.emit(
                    f"and {remaining} more exception{'s' if remaining > 1 else ''}\n")
            else:
                yield from exc.exceptions[i].format(chain=chain, _ctx=ctx, **kwargs)
            if last and ctx.need_close:
                yield ctx.indent() + "+------------------------------------\n"
                ctx.need_close = False
            ctx.exception_group_depth -= 1
        if is_toplevel:
            ctx.exception_group_depth = 0

    def print(self, *, file: "Optional[IO[str]]" = None, chain: bool = True,
              **kwargs: "Any") -> None:
        """Print the result of ``self.format(chain=chain)`` to ``file`` (stderr)."""
        if file is None:
            file = sys.stderr
        colorize = {"colorize": kwargs["colorize"]} if "colorize" in kwargs else {}
        for line in self.format(chain=chain, **colorize):
            print(line, file=file, end="")


def _own_layout(node: "Any") -> Layout:
    return Layout(node._message_lines(), not node._is_syntax_error, node._have_exc_type)


def _coloured_layout(node: "Any") -> Layout:
    return Layout(node._message_lines(True), not node._is_syntax_error, node._have_exc_type)
