"""``collapse()``: the one real error of an exception group, raised in the group's place.

The failed child of a task group whose other children were cancelled: the
group's one leaf (``_leaves``' walk, once those ignored are dropped) is raised
with the traceback ``leaf_exceptions`` gives it, less exceptstar's entries, in
a ``with`` block or around a function.  Any group: ours, the built-in ones,
the ``exceptiongroup`` backport's (``_classes.group_classes()``).
"""

import sys
from types import TracebackType

from exceptstar import _classes, _frames, _handled
from exceptstar._catch import RAISE_BY_NAME, _Settle, hidden
from exceptstar._classes import group_classes
from exceptstar._groups import BaseExceptionGroup as _PureBEG
from exceptstar._groups import ExceptionGroup as _PureEG
from exceptstar._notes import add_note
from exceptstar._split import _BUILTIN_EXCEPTIONS
from exceptstar._suppress import _chain

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Iterator, List, Literal, Optional, Sequence, Set, Tuple, Type, TypeVar, Union

    _F = TypeVar("_F", bound=Callable[..., Any])
    _ExcType = Optional[Type[BaseException]]
    _Traceback = Optional[TracebackType]
    _Exc = Optional[BaseException]
    _Ignore = Union[Type[BaseException], Tuple[Type[BaseException], ...]]
    _Entries = List[TracebackType]

_modules = _classes._modules
_BACKPORT_MODULE = _classes.BACKPORT_MODULE

# Files that hold none of our modules, as _frames.is_own (which reads nothing else of an
# entry) found them: collapse asks about every entry of every error it raises.
_theirs: "Set[str]" = set()
# Code exec'd under a new file name each time (notebook cells) must not grow it for ever.
_THEIRS_MAX = 1024


def _ours(tb: TracebackType) -> bool:
    """``_frames.is_own(tb)``, the entry's file remembered in ``_theirs`` when it is not ours."""
    if _frames.is_own(tb):
        return True
    if len(_theirs) >= _THEIRS_MAX:
        _theirs.clear()
    _theirs.add(tb.tb_frame.f_code.co_filename)
    return False


def _kept(tb: "Optional[TracebackType]", outer: "List[TracebackType]") -> "List[TracebackType]":
    """``outer``'s entries, then those of ``tb`` not ours, in order (a new list)."""
    kept = outer[:]
    keep = kept.append
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in _theirs or not _ours(tb):
            keep(tb)
        tb = tb.tb_next
    return kept


def _walk(group: BaseException, classes: "Tuple[type, ...]", above: "_Entries",
          children: "Sequence[BaseException]") -> "Iterator[Tuple[BaseException, _Entries]]":
    """Each leaf under ``group`` in order, with the entries of the groups above it that ``_kept`` keeps.

    ``above`` is ``group``'s, ``children`` are ``group.exceptions``.  A subgroup's is
    ``_kept(its traceback, its parent's)``, taken as the walk enters it; one list, shared by the leaves
    of that level: not to be changed.
    """
    # Ids of the nodes met: the tree holds them all, so they stay unique while this runs.
    seen: Set[int] = {id(group)}
    met = seen.add
    path = [above]
    pending: List[Iterator[BaseException]] = [iter(children)]
    while pending:
        for exc in pending[-1]:
            key = id(exc)
            if key in seen:
                continue
            met(key)
            if isinstance(exc, classes):
                above = _kept(exc.__traceback__, above)
                path.append(above)
                pending.append(iter(exc.exceptions))  # type: ignore[attr-defined]
                break
            yield exc, above
        else:
            pending.pop()
            path.pop()
            if path:
                above = path[-1]


def _copied(kept: "_Entries", tail: "Optional[TracebackType]") -> "Optional[TracebackType]":
    """New entries for ``kept``'s, in order, then ``tail``: the first."""
    tb = tail
    for entry in reversed(kept):
        lineno = entry.tb_lineno
        tb = TracebackType(tb, entry.tb_frame, entry.tb_lasti, -1 if lineno is None else lineno)
    return tb


def _one_of(group: BaseException, classes: "Tuple[type, ...]", ignore: "_Ignore",
            children: "Optional[Sequence[BaseException]]" = None) -> "Optional[BaseException]":
    """The one leaf of ``group`` (one of ``classes``) not an instance of ``ignore``, if exactly one is, made
    ready for a bare ``raise`` out of ``group``'s place (see ``collapse``); otherwise None: ``group`` goes on
    as it is.  The walk stops at a second.  ``children``: ``group``'s, if the caller has them."""
    if children is not None:
        one = len(children) == 1
    elif type(group) is _PureEG or type(group) is _PureBEG:
        # What their `exceptions` property returns, without its frame (1.1k instructions on 3.10): always a tuple.
        children = group._state[1]
        one = len(children) == 1
    else:
        children = group.exceptions  # type: ignore[attr-defined]
        one = type(children) is tuple and len(children) == 1
    leaf: BaseException
    if one and not isinstance(children[0], classes):
        # A task group's one failed child, most often: no walk to set up.
        leaf = children[0]
        # The default, no class, needs no call (500 instructions on 3.10).
        if ignore is not _NOTHING and isinstance(leaf, ignore):
            return None
        # Inline, unlike the walk: each function call here is a good part of collapse's whole time.
        # Each entry of the group's not ours is copied as the loop meets it, the copies linked
        # through tb_next (writable): one pass, no list.
        head = last = None
        tb = group.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_code.co_filename in _theirs or not _ours(tb):
                lineno = tb.tb_lineno
                entry = TracebackType(None, frame, tb.tb_lasti, -1 if lineno is None else lineno)
                if last is None:
                    head = entry
                else:
                    last.tb_next = entry
                last = entry
            tb = tb.tb_next
        tail = tb = leaf.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename not in _theirs and _ours(tb):
                tail = _copied(_kept(tail, []), None)
                break
            tb = tb.tb_next
        if last is None:
            head = tail
        else:
            last.tb_next = tail
    else:
        found = None
        above = _kept(group.__traceback__, [])
        for exc, exc_above in _walk(group, classes, above, children):
            if isinstance(exc, ignore):
                continue
            if found is not None:
                return None
            # Its entries as they are now: what the rest of the walk runs (an isinstance check of the
            # user's) cannot change them.
            found = (exc, _kept(exc.__traceback__, exc_above))
        if found is None:
            return None
        leaf, kept = found
        head = _copied(kept, None)
    leaf.__traceback__ = head
    if leaf.__context__ is None:
        context = group.__context__
        # _chain's first step, inline for the common cases: a group raised in a handler for the leaf
        # (the link to cut) or raised with no context.
        if context is leaf:
            group.__context__ = None
            leaf.__context__ = group
        elif context is None:
            leaf.__context__ = group
        else:
            _chain(leaf, group)
    else:
        add_note(leaf, f"(collapsed from {type(group).__name__}({group.message!r}), its one error)")  # type: ignore[attr-defined]
    return leaf


def _check_ignore(ignore: object) -> None:
    classes = ignore if isinstance(ignore, tuple) else (ignore,)
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise TypeError(f"collapse() ignore must be an exception class or a tuple of them, not {ignore!r}")


# collapse()'s default ignore: no class.
_NOTHING: "Tuple[Type[BaseException], ...]" = ()
# Our ExceptionGroup where it is the active class (3.8-3.10, or forced): a group of it skips the classes' tests.
_OUR_EG = _PureEG if _classes.GROUPS[0] is _PureBEG else None
# The opcode of a with statement's call of __exit__ as it ends on an exception, used where _handled.steps is bound.
_WITH_EXIT = _handled.WITH_EXIT
_getframe = sys._getframe


def _outcome(exc: BaseException, ignore: "_Ignore") -> BaseException:
    """What the decorated function's caller gets instead of ``exc``: the one leaf, or ``exc`` without our frames."""
    _frames.strip(exc)
    classes = group_classes()
    return (isinstance(exc, classes) and _one_of(exc, classes, ignore)) or exc


class collapse:
    """Raise the one real error of an exception group in its place, in a ``with`` block or a function.

    ``with exceptstar.collapse(ignore=asyncio.CancelledError):`` (also
    ``async with``, and ``@exceptstar.collapse()`` on a function or a
    coroutine function): when a group (ours, built-in, the backport's)
    leaves the block and its leaves (``leaf_exceptions``), once those that are
    instances of ``ignore`` are dropped, are exactly one exception, that
    exception is raised instead of the group:

    - with its composite traceback: the frames of every group above it, then
      its own (none of exceptstar's); the ``with`` statement's line comes
      first, as for any exception raised by ``__exit__``;
    - with its own ``__cause__``, ``__context__`` and ``__suppress_context__``;
    - with the group reachable: as its ``__context__`` if it had none (what
      ``raise leaf`` in an ``except`` clause for the group would set), otherwise
      through a note naming the group, since its own context is kept.

    Anything else propagates unchanged: a plain exception (a bare ``raise``
    of one passes through untouched), a group of several errors, a group
    whose leaves are all ignored (every child cancelled).  The decorator
    lets nothing of its own frame into either traceback; it refuses
    generator functions, whose bodies run after it has returned.

    An exception that arrives while this runs (a ``KeyboardInterrupt``) propagates
    with the group as its ``__context__``.
    """

    __slots__ = ("_ignore",)

    def __init__(self, *, ignore: "_Ignore" = _NOTHING) -> None:
        if ignore is not _NOTHING:  # the default needs no check: the common case, at every with statement
            _check_ignore(ignore)
        self._ignore = ignore

    if TYPE_CHECKING:  # pragma: no cover
        def __enter__(self) -> None: ...
    else:
        # A C function that takes the instance alone and returns None, not a Python method: no frame at
        # every with statement (600 instructions on 3.10).  A descriptor, bound as a method is: ExitStack
        # calls type(cm).__enter__(cm).
        __enter__ = object.__init__

    # Literal[False]: nothing is swallowed, which type checkers must know (what follows a raise is unreachable).
    def __exit__(self, exc_type: "_ExcType", exc: "_Exc", tb: "_Traceback") -> "Literal[False]":
        if exc is None:
            return False
        # A group of ours whose members are of built-in classes (the common case) holds no group of any
        # class (3.11's ExceptionGroup is not one of _BUILTIN_EXCEPTIONS: a heap type): none to keep
        # current or to test for.
        if type(exc) is _OUR_EG and (state := exc._state)[2] is not None and state[2] <= _BUILTIN_EXCEPTIONS:
            classes = _NOTHING
            children = state[1]
        else:
            children = None
            # As the engine at each statement: without the backport imported or seen, a test of the
            # modules' dict, which calls nothing, stands for group_classes() (2.2k instructions on 3.8).
            if _BACKPORT_MODULE in _modules or _classes._seen_backport is not None:
                group_classes()
            classes = _classes.GROUPS
            if not isinstance(exc, classes):
                return False
        try:
            leaf = _one_of(exc, classes, self._ignore, children)
        except BaseException as interrupt:
            # Raised here, so the group is its context already.
            leaf = _frames.strip(interrupt)
        if leaf is None:
            return False
        exc = None  # no cycle through this frame
        steps = _handled.steps
        if steps:
            caller = _getframe().f_back  # None: called from C with no frame below (a thread's first call)
            if caller is not None and caller.f_code.co_code[caller.f_lasti] == _WITH_EXIT:
                # Called by a with statement, as it ends on the group: the group is the handled
                # exception, which the statement's handler restores as the leaf leaves it.  Set_handled
                # inline, then a bare raise, with no block of this frame around them (raising and catching
                # _Settle costs 3.3k instructions on 3.10, this test 1.8k).  An interrupt in between has the
                # group or the leaf as its context.
                take, length, set_exc_info = steps
                cls = type(leaf)
                tb = leaf.__traceback__
                take((cls, leaf) if tb is None else (cls, leaf, tb))
                length.value = 0
                set_exc_info(id(cls), id(leaf), None if tb is None else id(tb))
                leaf = None
                raise
        try:
            # A new instance each time, not one shared (700 instructions less on 3.8): an interrupt
            # landing in this block has it as its context, and the group must stay reachable from there.
            raise _Settle
        except _Settle:
            # A bare raise adds no entry for this frame; what is handled here is restored when this block
            # ends: called directly (ExitStack, a caller's own __exit__), nothing else would restore it.
            _handled.set_handled(leaf)
            if RAISE_BY_NAME:
                raise leaf  # noqa: B904 - PyPy 3.9, see _catch._PYPY
            leaf = None
            raise

    async def __aenter__(self) -> None:
        return None

    # __exit__'s body again: a call to it would put this frame in the traceback.
    async def __aexit__(self, exc_type: "_ExcType", exc: "_Exc", tb: "_Traceback") -> "Literal[False]":
        if exc is None:
            return False
        if _BACKPORT_MODULE in _modules or _classes._seen_backport is not None:
            group_classes()
        classes = _classes.GROUPS
        if not isinstance(exc, classes):
            return False
        try:
            leaf = _one_of(exc, classes, self._ignore)
        except BaseException as interrupt:
            leaf = _frames.strip(interrupt)
        if leaf is None:
            return False
        exc = None
        try:
            raise _Settle
        except _Settle:
            _handled.set_handled(leaf)
            if RAISE_BY_NAME:
                raise leaf  # noqa: B904 - PyPy 3.9, see _catch._PYPY
            leaf = None
            raise

    __exit__ = hidden(__exit__)
    __aexit__ = hidden(__aexit__)

    def __call__(self, func: "_F") -> "_F":
        import functools
        import inspect

        if inspect.isgeneratorfunction(func) or inspect.isasyncgenfunction(func):
            # Its body runs after the call returns, out of the wrapper's reach.
            raise TypeError(f"collapse() cannot decorate a generator function ({func.__qualname__}): "
                            "use 'with collapse():' in its body")
        ignore = self._ignore
        if inspect.iscoroutinefunction(func):
            @functools.wraps(func)
            async def collapsing_async(*args: "Any", **kwargs: "Any") -> "Any":
                try:
                    return await func(*args, **kwargs)
                except BaseException as error:
                    if RAISE_BY_NAME:
                        # PyPy 3.9's hidden frame handles its exception for itself alone: made the
                        # handled one, it is the context of an interrupt raised while choosing.
                        _handled.set_handled(error)
                    try:
                        chosen = _outcome(error, ignore)
                    except BaseException as interrupt:
                        chosen = _frames.strip(interrupt)
                        _frames.strip(error)  # as in collapsing, below
                    _handled.set_handled(chosen)
                    if RAISE_BY_NAME:
                        raise chosen  # noqa: B904 - PyPy 3.9, see _catch._PYPY
                    chosen = None  # type: ignore[assignment]
                    raise

            return hidden(collapsing_async)  # type: ignore[return-value]

        @functools.wraps(func)
        def collapsing(*args: "Any", **kwargs: "Any") -> "Any":
            try:
                return func(*args, **kwargs)
            except BaseException as error:
                if RAISE_BY_NAME:
                    # PyPy 3.9's hidden frame handles its exception for itself alone: made the
                    # handled one, it is the context of an interrupt raised while choosing.
                    _handled.set_handled(error)
                try:
                    chosen = _outcome(error, ignore)
                except BaseException as interrupt:
                    chosen = _frames.strip(interrupt)
                    # PyPy gives the handled exception back the traceback it was caught with when
                    # another is caught inside its handler: our entry again.
                    _frames.strip(error)
                _handled.set_handled(chosen)
                if RAISE_BY_NAME:
                    raise chosen  # noqa: B904 - PyPy 3.9, see _catch._PYPY
                chosen = None  # type: ignore[assignment]
                raise

        return hidden(collapsing)  # type: ignore[return-value]

