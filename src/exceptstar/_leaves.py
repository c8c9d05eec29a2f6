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

from types import TracebackType

from exceptstar import _frames, _handled
from exceptstar._catch import RAISE_BY_NAME, _chain, _Settle, hidden
from exceptstar._classes import group_classes
from exceptstar._notes import add_note

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Iterator, List, Literal, Optional, Set, Tuple, Type, TypeVar, Union

    from exceptstar._classes import BaseExceptionGroup

    _E = TypeVar("_E", bound=BaseException)
    _F = TypeVar("_F", bound=Callable[..., Any])
    _Leaf = Tuple[BaseException, Optional[TracebackType]]
    _ExcType = Optional[Type[BaseException]]
    _Traceback = Optional[TracebackType]
    _Exc = Optional[BaseException]
    _Ignore = Union[Type[BaseException], Tuple[Type[BaseException], ...]]

# typing.overload for type checkers; at run time (no ``typing`` import) the last
# definition is the function.  In this order linters see typing's decorator.
if not TYPE_CHECKING:
    def overload(func: object) -> object:
        return func
else:  # pragma: no cover
    from typing import overload


def _entries(tb: "Optional[TracebackType]") -> "Iterator[TracebackType]":
    while tb is not None:
        yield tb
        tb = tb.tb_next


def _linked(entries: "List[TracebackType]", tail: "Optional[TracebackType]") -> "Optional[TracebackType]":
    """New entries for the frames, lines and instructions of ``entries``, in order, ending with ``tail``."""
    for entry in reversed(entries):
        lineno = entry.tb_lineno
        # 3.11+ reads None where no line is known; -1 asks it to compute the line again.
        tail = TracebackType(tail, entry.tb_frame, entry.tb_lasti, -1 if lineno is None else lineno)
    return tail


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
    return [(leaf, _linked(above, leaf.__traceback__)) for leaf, above in _walk(group)]


def _walk(group: BaseException) -> "Iterator[Tuple[BaseException, List[TracebackType]]]":
    """Each leaf of ``group``, in order, with the entries of the groups above it (``group`` alone: none)."""
    classes = group_classes()
    if not isinstance(group, classes):
        yield group, []
        return
    # Ids of the nodes met: the tree holds them all, so they stay unique while this runs.
    seen: Set[int] = {id(group)}
    path: List[List[TracebackType]] = [list(_entries(group.__traceback__))]
    pending: List[Iterator[BaseException]] = [iter(group.exceptions)]  # type: ignore[attr-defined]
    while pending:
        for exc in pending[-1]:
            if id(exc) in seen:
                continue
            seen.add(id(exc))
            if isinstance(exc, classes):
                path.append(list(_entries(exc.__traceback__)))
                pending.append(iter(exc.exceptions))  # type: ignore[attr-defined]
                break
            yield exc, [entry for entries in path for entry in entries]
        else:
            pending.pop()
            path.pop()


def _check_ignore(ignore: object) -> None:
    classes = ignore if isinstance(ignore, tuple) else (ignore,)
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise TypeError(f"collapse() ignore must be an exception class or a tuple of them, not {ignore!r}")


def _the_one(group: BaseException, ignore: "_Ignore") -> "Optional[_Leaf]":
    """The one leaf of ``group`` not an instance of ``ignore``, if exactly one is; the walk stops at a second."""
    found: Optional[_Leaf] = None
    for leaf, above in _walk(group):
        if isinstance(leaf, ignore):
            continue
        if found is not None:
            return None
        found = (leaf, _linked(above, leaf.__traceback__))
    return found


def _collapsed(group: BaseException, leaf: BaseException, tb: "Optional[TracebackType]") -> BaseException:
    """``leaf`` made ready for a bare ``raise`` out of ``group``'s place (see ``collapse``)."""
    leaf.__traceback__ = _linked([entry for entry in _entries(tb) if not _frames.is_own(entry)], None)
    if leaf.__context__ is None:
        _chain(leaf, group)
    else:
        add_note(leaf, f"(collapsed from {type(group).__name__}({group.message!r}), its one error)")  # type: ignore[attr-defined]
    return leaf


def _is_group(exc: BaseException) -> bool:
    return isinstance(exc, group_classes())


def _one_of(group: BaseException, ignore: "_Ignore") -> "Optional[BaseException]":
    """The one leaf of ``group`` made ready to be raised in its place, or None: ``group`` goes on as it is."""
    found = _the_one(group, ignore)
    return None if found is None else _collapsed(group, *found)


def _outcome(exc: BaseException, ignore: "_Ignore") -> BaseException:
    """What the decorated function's caller gets instead of ``exc``: the one leaf, or ``exc`` without our frames."""
    _frames.strip(exc)
    return (_is_group(exc) and _one_of(exc, ignore)) or exc


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

    def __init__(self, *, ignore: "_Ignore" = ()) -> None:
        _check_ignore(ignore)
        self._ignore = ignore

    def __enter__(self) -> None:
        return None

    # Literal[False]: nothing is swallowed, which type checkers must know (what follows a raise is unreachable).
    def __exit__(self, exc_type: "_ExcType", exc: "_Exc", tb: "_Traceback") -> "Literal[False]":
        if exc is None or not _is_group(exc):
            return False
        try:
            leaf = _one_of(exc, self._ignore)
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
        if exc is None or not _is_group(exc):
            return False
        try:
            leaf = _one_of(exc, self._ignore)
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

