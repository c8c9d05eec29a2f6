"""Working with the leaves of exception groups: ``leaf_exceptions()`` and ``collapse()``.

A leaf's own ``__traceback__`` runs from where it was raised to where it
was caught; the frames above hang on each group that encloses it.
``leaf_exceptions`` joins them into one traceback per leaf, made of new
``types.TracebackType`` entries, so that no exception changes.  ``collapse``
re-raises the one real error of a group (the failed child of a task group
whose other children were cancelled) with that whole traceback.

Both take any group: ours, the built-in ones, the ``exceptiongroup``
backport's (``_classes.group_classes()``).  Walks are loops, not
recursion, as every walk over groups in the core.
"""

import sys
from itertools import repeat
from types import TracebackType

from exceptstar import _frames, _handled
from exceptstar._catch import RAISE_BY_NAME, _chain, _Settle, hidden
from exceptstar._classes import group_classes
from exceptstar._notes import add_note

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import FrameType
    from typing import Any, Callable, Iterator, List, Literal, Optional, Sequence, Set, Tuple, Type, TypeVar, Union

    from exceptstar._classes import BaseExceptionGroup

    _E = TypeVar("_E", bound=BaseException)
    _F = TypeVar("_F", bound=Callable[..., Any])
    _Leaf = Tuple[BaseException, Optional[TracebackType]]
    _ExcType = Optional[Type[BaseException]]
    _Traceback = Optional[TracebackType]
    _Exc = Optional[BaseException]
    _Ignore = Union[Type[BaseException], Tuple[Type[BaseException], ...]]
    # TracebackType's arguments after tb_next for the entries above a leaf, the innermost first.
    _Arguments = List[Tuple[FrameType, int, int]]
    # What the walk carries down a level: the arguments, or the entries that collapse keeps.
    _Above = TypeVar("_Above", "_Arguments", "List[TracebackType]")

# typing.overload for type checkers; at run time (no ``typing`` import) the last
# definition is the function.  In this order linters see typing's decorator.
if not TYPE_CHECKING:
    def overload(func: object) -> object:
        return func
else:  # pragma: no cover
    from typing import overload


_PYPY = sys.implementation.name == "pypy"

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


def _arguments(tb: "Optional[TracebackType]", outer: "_Arguments") -> "_Arguments":
    """``TracebackType``'s arguments after ``tb_next`` for each entry of ``tb``, the last first, then ``outer``'s."""
    arguments: _Arguments = []
    while tb is not None:
        lineno = tb.tb_lineno
        # 3.11+ reads None where no line is known; -1 asks it to compute the line again.
        arguments.append((tb.tb_frame, tb.tb_lasti, -1 if lineno is None else lineno))
        tb = tb.tb_next
    arguments.reverse()
    arguments += outer
    return arguments


def _kept(tb: "Optional[TracebackType]", outer: "List[TracebackType]") -> "List[TracebackType]":
    """``outer``'s entries, then those of ``tb`` not ours, in order (a new list)."""
    kept = outer[:]
    keep = kept.append
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in _theirs or not _ours(tb):
            keep(tb)
        tb = tb.tb_next
    return kept


@overload
def leaf_exceptions(group: "BaseExceptionGroup[_E]") -> "List[Tuple[_E, Optional[TracebackType]]]": ...
@overload
def leaf_exceptions(group: "_E") -> "List[Tuple[_E, Optional[TracebackType]]]": ...
def leaf_exceptions(group: BaseException) -> "List[_Leaf]":  # type: ignore[misc]
    """Every leaf exception of ``group``, depth first, each with its whole traceback.

    A leaf's traceback runs from the first frame of the outermost group's
    traceback, through those of every group that encloses the leaf, to the
    leaf's own frames: what the interpreter shows above and at the leaf when
    it prints the group.  It is made of new traceback entries (the leaf's own
    chain is shared as its tail): no exception, no traceback changes, so
    ``traceback.print_exception(type(leaf), leaf, tb)``, ``pdb.post_mortem(tb)``
    and ``logging``'s ``exc_info=(type(leaf), leaf, tb)`` take it as it is.
    A group without a traceback (never raised) adds no frames; a leaf whose
    groups and itself have none gets None.

    Each exception is taken once, by identity, where the walk first meets
    it: a subgroup or a leaf that appears twice in the tree (the same
    object) is walked or reported once.  ``group`` itself may be a plain
    exception: ``[(group, group.__traceback__)]``.

    This is PEP 785's ``BaseExceptionGroup.leaf_exceptions()`` as its open
    revision (python/peps PR #4568) proposes it, where the draft and the
    revision disagree: the draft returns the leaves alone and, by default
    (``fix_tracebacks=True``), replaces each leaf's ``__traceback__`` with the
    composite one; the revision, followed here, returns ``(exception,
    traceback)`` pairs, changes nothing, and processes each sub-exception once.
    """
    classes = group_classes()
    if not isinstance(group, classes):
        return [(group, group.__traceback__)]
    leaves: List[_Leaf] = []
    new = TracebackType
    for run, above in _runs(group, classes):
        if _PYPY:
            # PyPy's JIT runs this loop several times faster than the maps below.
            for leaf in run:
                tb = leaf.__traceback__
                for frame, lasti, lineno in above:
                    tb = new(tb, frame, lasti, lineno)
                leaves.append((leaf, tb))
            continue
        # One map per entry above, over the whole run: CPython makes the entries in C, not one call per leaf.
        tbs: Iterator[Optional[TracebackType]] = iter([leaf.__traceback__ for leaf in run])
        count = len(run)
        for frame, lasti, lineno in above:
            tbs = map(new, tbs, repeat(frame, count), repeat(lasti, count), repeat(lineno, count))
        leaves += zip(run, tbs)
    return leaves


def _runs(group: BaseException, classes: "Tuple[type, ...]") -> "Iterator[Tuple[Sequence[BaseException], _Arguments]]":
    """The leaves under ``group`` in order, in runs of siblings, each with the ``_arguments`` of the groups above.

    ``_walk``'s order and identity rule.  On CPython a group whose members are all leaves met for the first
    time (the common case) is one run, checked in C; the others are walked one member at a time.
    """
    seen: Set[int] = {id(group)}
    # The group to enter next, with its groups' arguments.
    entering: Optional[Tuple[Sequence[BaseException], _Arguments]]
    entering = (group.exceptions, _arguments(group.__traceback__, []))  # type: ignore[attr-defined]
    # Members left of the groups being walked one at a time, each with its groups' arguments.
    walking: List[Tuple[Iterator[BaseException], _Arguments]] = []
    while entering is not None or walking:
        if entering is not None:
            members, above = entering
            entering = None
            members = tuple(members)
            # PyPy's JIT walks one member at a time faster than it runs these passes.
            if not _PYPY and seen.isdisjoint(map(id, members)) and not any(map(isinstance, members, repeat(classes))):
                size = len(seen)
                seen.update(map(id, members))
                if len(seen) - size == len(members):
                    yield members, above
                    continue
                # A leaf there twice: none was met before, so the walk one at a time starts from the same state.
                seen.difference_update(map(id, members))
            walking.append((iter(members), above))
        members_left, above = walking[-1]
        run: List[BaseException] = []
        for exc in members_left:
            key = id(exc)
            if key in seen:
                continue
            seen.add(key)
            if isinstance(exc, classes):
                entering = (exc.exceptions, _arguments(exc.__traceback__, above))  # type: ignore[attr-defined]
                break
            run.append(exc)
        else:
            walking.pop()
        if run:
            yield run, above


def _walk(group: BaseException, classes: "Tuple[type, ...]", above: "_Above", children: "Sequence[BaseException]",
          extend: "Callable[[Optional[TracebackType], _Above], _Above]") -> "Iterator[Tuple[BaseException, _Above]]":
    """Each leaf under ``group`` in order, with what ``extend`` made of the tracebacks of the groups above it.

    ``above`` is what it made of ``group``'s, ``children`` are ``group.exceptions``.  A subgroup's is
    ``extend(its traceback, its parent's)``, taken as the walk enters it; one object, shared by the leaves
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
                above = extend(exc.__traceback__, above)
                path.append(above)
                pending.append(iter(exc.exceptions))  # type: ignore[attr-defined]
                break
            yield exc, above
        else:
            pending.pop()
            path.pop()
            if path:
                above = path[-1]


def _one_of(group: BaseException, classes: "Tuple[type, ...]", ignore: "_Ignore") -> "Optional[BaseException]":
    """The one leaf of ``group`` (one of ``classes``) not an instance of ``ignore``, if exactly one is, made
    ready for a bare ``raise`` out of ``group``'s place (see ``collapse``); otherwise None: ``group`` goes on
    as it is.  The walk stops at a second."""
    children: Sequence[BaseException] = group.exceptions  # type: ignore[attr-defined]
    leaf: BaseException
    if type(children) is tuple and len(children) == 1 and not isinstance(children[0], classes):
        # A task group's one failed child, most often: no walk to set up.
        leaf = children[0]
        if isinstance(leaf, ignore):
            return None
        # Inline, unlike the walk: each function call here is a good part of collapse's whole time.
        kept: List[TracebackType] = []
        tb = group.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename in _theirs or not _ours(tb):
                kept.append(tb)
            tb = tb.tb_next
        tail = tb = leaf.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename not in _theirs and _ours(tb):
                kept = _kept(tail, kept)
                tail = None
                break
            tb = tb.tb_next
    else:
        tail = None
        found = None
        above = _kept(group.__traceback__, [])
        for exc, exc_above in _walk(group, classes, above, children, _kept):
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
    tb = tail
    for entry in reversed(kept):
        lineno = entry.tb_lineno
        tb = TracebackType(tb, entry.tb_frame, entry.tb_lasti, -1 if lineno is None else lineno)
    leaf.__traceback__ = tb
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

    def __enter__(self) -> None:
        return None

    # Literal[False]: nothing is swallowed, which type checkers must know (what follows a raise is unreachable).
    def __exit__(self, exc_type: "_ExcType", exc: "_Exc", tb: "_Traceback") -> "Literal[False]":
        if exc is None:
            return False
        classes = group_classes()
        if not isinstance(exc, classes):
            return False
        try:
            leaf = _one_of(exc, classes, self._ignore)
        except BaseException as interrupt:
            # Raised here, so the group is its context already.
            leaf = _frames.strip(interrupt)
        if leaf is None:
            return False
        exc = None  # no cycle through this frame
        try:
            raise _Settle
        except _Settle:
            # A bare raise adds no entry for this frame; what is handled here is restored when this block ends.
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
        classes = group_classes()
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

