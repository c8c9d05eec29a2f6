"""``catch()``: ``except*`` as a context manager.

It runs on the engine (``_engine``), so it sees the same groups as the
transformed ``except*`` (ours, the built-in ones, the ``exceptiongroup``
backport's) and splits them the same way.  What it raises leaves its
``__exit__`` with a bare ``raise`` of an exception made current by the engine,
so no frame of exceptstar ends up in a traceback.  An interrupt landing in its
machinery is recorded as a handler's exception (``_recovered``).
"""

import sys

from exceptstar import _frames, _handled
from exceptstar._clauses import MATCHED_BY, PLAIN, invalid_types_message, matched_by
from exceptstar._engine import _PURE_EG_ID, CaughtStar, Star, _flat_group
from exceptstar._groups import ExceptionGroup as _PureEG

# _DEFAULT_DERIVE and _DEFAULT_GETATTRIBUTE: set when _groups (imported above) handed _split its classes.
from exceptstar._split import _BUILTIN_EXCEPTIONS, _DEFAULT_DERIVE, _DEFAULT_GETATTRIBUTE

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import (
        Any,
        Awaitable,
        Callable,
        Iterable,
        Iterator,
        List,
        Mapping,
        Optional,
        Tuple,
        Type,
        TypeVar,
        Union,
    )

    _Types = Union[Type[BaseException], Tuple[Type[BaseException], ...]]
    _Key = Union[Type[BaseException], Iterable[Type[BaseException]]]
    from exceptstar._classes import BaseExceptionGroup, ExceptionGroup
    from exceptstar._engine import _Flat

    # What the flat path leaves to a Star: the rest (None: all taken), what the handlers raised.
    _FlatEnd = Tuple[Optional[_Flat], Tuple[BaseException, ...]]

    # A handler is called with the matched part, always a group: one annotated
    # for either group class (of any members) is accepted, one for a plain
    # exception is refused.  It may return an awaitable (``async with``).
    _Handler = Union[Callable[[BaseExceptionGroup[Any]], object], Callable[[ExceptionGroup[Any]], object]]
    # What the handlers are to the code that calls them with a part.
    _Call = Callable[[Any], object]
    _ExcType = Optional[Type[BaseException]]
    _Traceback = Optional[TracebackType]
    _F = TypeVar("_F", bound=Callable[..., Any])

def _not_sync(handler: object, part: BaseException, result: object) -> TypeError:
    close = getattr(result, "close", None)
    if close is not None:
        # The coroutine never ran: closing it prevents the "never awaited" warning.
        close()
    error = TypeError(
        f"catch() handler {handler!r} returned an awaitable: a coroutine function needs "
        "'async with exceptstar.catch(...)', which awaits it"
    )
    error.__cause__ = part
    return error


def _verdict(outcome: "Optional[BaseException]", exc: BaseException) -> "Optional[bool]":
    """What ``__exit__`` does with what propagates (``Star.finish()``, already the handled exception).

    True: nothing does, suppress.  False: ``exc`` untouched, which the with
    statement re-raises exactly as it was.  None: the caller's bare ``raise``
    (in its own frame, so that no frame of exceptstar's is added).
    """
    if outcome is None:
        return True
    if outcome is exc:
        return False
    return None


def _is_awaitable(value: object) -> bool:
    import inspect

    return inspect.isawaitable(value)


# On PyPy the exception re-raised by a bare raise after it was made handled
# gets its __context__ late, from the exception handled where it first arrives:
# the caller's, which a with statement makes the one that its __exit__
# received.  PyPy 3.9's __exit__ and __aexit__ raise it by name instead
# (handled, so its __context__ stays), in frames that PyPy hides from
# tracebacks as CPython's bare raise leaves them out.  PyPy 3.11 keeps a
# __context__ that was assigned when the exception is raised again: the
# outcome's own is assigned to it before the bare raise.
_PYPY = sys.implementation.name == "pypy"
# PyPy 3.9: raise by name, in frames made hidden (``hidden``).
RAISE_BY_NAME = _PYPY and sys.version_info < (3, 11)
# The opcode of a with statement's call of __exit__ as it ends on an exception (None: __exit__ keeps a block of
# its own, as on PyPy, which settles what it re-raises otherwise).
_WITH_EXIT = _handled.WITH_EXIT
_getframe = sys._getframe


def hidden(func: "_F") -> "_F":
    """``func``, whose frame PyPy 3.9 leaves out of tracebacks (see ``_PYPY``); itself elsewhere."""
    if not RAISE_BY_NAME:
        return func
    import __pypy__  # type: ignore[import-not-found]

    return __pypy__.hidden_applevel(func)  # type: ignore[no-any-return]


class catch:
    """Handle parts of exception groups as ``except*`` would, in a ``with`` statement.

    ``handlers`` maps an exception class, or an iterable of them, to a callable
    (the mapping of the ``exceptiongroup`` backport's ``catch()``)::

        def on_value_error(group):
            ...

        with exceptstar.catch({ValueError: on_value_error, (KeyError, TypeError): other}):
            ...

    behaves as::

        try:
            ...
        except* ValueError as group:
            on_value_error(group)
        except* (KeyError, TypeError) as group:
            other(group)

    Each handler is called, in the mapping's order, with the part of the
    group its key matches (a naked exception is wrapped in an
    ``ExceptionGroup('', (exc,))`` first); during the call that part is the
    handled exception (``sys.exc_info()``, the ``__context__`` of whatever the
    handler raises).  A bare ``raise`` in a handler re-raises its part, which
    is merged back into the original group's structure; ``raise part`` or any
    other exception is new.  What propagates is what ``except*`` would
    propagate: new exceptions first, then what was re-raised or left
    unmatched.  Afterwards the exception handled before the ``with``
    statement is the handled one again.

    ``async with`` awaits handlers that are coroutine functions (or that
    return awaitables); the plain ``with`` form refuses them with a TypeError.

    Keys are checked at once, with CPython's ``except*`` errors: a key must be
    an exception class (or an iterable of them) and not an exception group
    class, and a handler must be callable.
    """

    # The (types, handler) entries, and whether every key is a class of PLAIN.
    __slots__ = ("_handlers",)

    def __init__(self, handlers: "Mapping[_Key, _Handler]") -> None:
        try:
            items = handlers.items()
        except AttributeError:
            raise TypeError(
                f"catch() argument must be a mapping, not {type(handlers).__name__}"
            ) from None
        # What the loops below check: classes (or iterables of them) and callables.
        entries: List[Tuple[_Types, _Call]] = [*items]  # type: ignore[list-item]
        for key, handler in entries:
            if type(key) is not type or key not in PLAIN or not callable(handler):
                break
        else:  # every key a class of PLAIN (valid: no check to call), every handler callable
            self._handlers = entries, True
            return
        checked: List[Tuple[_Types, _Call]] = []
        for key, handler in entries:
            types: _Types
            if isinstance(key, type):
                types = key
            else:
                try:
                    types = tuple(key)
                except TypeError:
                    types = key  # invalid_types_message gives CPython's message
            error = invalid_types_message(types)
            if error is not None:
                raise TypeError(error)
            if not callable(handler):
                raise TypeError(f"'{type(handler).__name__}' object is not callable")
            checked.append((types, handler))
        self._handlers = checked, False

    def _run_handlers(self, star: Star, entries: "Iterable[Tuple[_Types, _Call]]"
                      ) -> "Iterator[Tuple[_Call, object, BaseException]]":
        """Call each handler whose key matches a part, in order, recording what it raises.

        A handler that returns an awaitable is yielded as ``(handler, awaitable,
        part)``: ``async with`` awaits it, the plain form refuses it.  Each part
        is the handled exception while its handler runs (the generator has an
        exception state of its own, which dies with it).  An exception of the
        machinery's own leaves it with ``star`` consistent (``_recovered``).
        """
        for types, handler in entries:
            part = star.match(types, None, False)
            if part is None:
                continue
            try:
                result = handler(part)
            except BaseException as raised:
                star._raised += (raised,)  # type: ignore[operator]  # recorded by a line that calls nothing, then stripped
                _frames.strip(raised)
            else:
                if result is not None and _is_awaitable(result):
                    yield handler, result, part

    def __enter__(self) -> None:
        return None

    def _outcome(self, exc_type: "_ExcType", exc: BaseException) -> "Optional[BaseException]":
        """What the with statement propagates (None: nothing), made the handled exception (``Star.finish``).

        A flat group of ours, its members and the keys all of built-in classes
        (the keys told at construction), comes apart by member type in this
        frame's locals, as ``Star.match``'s inline path: no Star unless
        something is left.  Anything else goes through the engine
        (``_run_handlers``).  No generator is needed for the handled
        exception: the block that calls this (the with statement's, or that
        of ``__exit__``) restores it as it ends.

        An exception of the machinery's own (a signal handler's, a tracer's)
        is recorded as a handler's exception where it lands (``_recovered``):
        each step commits in one line that calls nothing.  Before the try
        nothing is taken; after ``finish()`` the outcome is what is handled:
        the exception has either as its context.
        """
        star: Optional[Star] = None
        excs = None  # not None: the flat path's state is in the locals below, which no Star holds yet
        try:
            entries, plain = self._handlers
            pending = iter(entries)
            # The with statement's exc_type is type(exc): a naked exception pays one test.
            if exc_type is _PureEG and plain and type(exc) is _PureEG and not exc.__dict__ \
                    and _handled.steps and _PureEG.derive is _DEFAULT_DERIVE \
                    and _PureEG.__getattribute__ is _DEFAULT_GETATTRIBUTE \
                    and (member_types := exc._state[2]) is not None and member_types <= _BUILTIN_EXCEPTIONS:
                tb, context, cause = exc.__traceback__, exc.__context__, exc.__cause__
                take, length, set_exc_info = _handled.steps
                tb_id = None if tb is None else id(tb)
                raised: Tuple[BaseException, ...] = ()
                hand_over = False
                message, excs, _, _ = exc._state  # the rest unbuilt, as a Star keeps it (member_types: above)
                for types, handler in pending:
                    matching = member_types & (MATCHED_BY.get(types) or matched_by(types))  # type: ignore[arg-type]
                    if not matching:
                        continue
                    left_types = member_types - matching
                    if left_types:
                        matched: List[BaseException] = []
                        left: List[BaseException] = []
                        for member in excs:  # built-in classes: __class__ is the real type
                            (matched if member.__class__ in matching else left).append(member)
                        members, kept = tuple(matched), tuple(left)
                    else:
                        matched, members, kept = [*excs], excs, ()
                    part = _flat_group(message, matched, members, matching, tb, context, cause)
                    take((_PureEG, part) if tb is None else (_PureEG, part, tb))  # _handled.set_handled inline
                    length.value = 0
                    set_exc_info(_PURE_EG_ID, id(part), tb_id)
                    # One line that calls nothing: from here the part counts as handled, even if its
                    # handler never runs.
                    member_types, excs = left_types, kept
                    try:
                        result = handler(part)
                    except BaseException as error:
                        raised += (error,)  # recorded by a line that calls nothing, then stripped of our frames
                        _frames.strip(error)
                    else:
                        if result is not None and _is_awaitable(result):
                            raised += (_not_sync(handler, part, result),)
                    if not member_types:
                        break
                    if _PureEG.derive is not _DEFAULT_DERIVE \
                            or _PureEG.__getattribute__ is not _DEFAULT_GETATTRIBUTE:
                        hand_over = True  # a handler changed how groups of ours come apart: the engine goes on
                        break
                # The handlers' frames point back to this one (f_back): no local may lead to what they
                # raised (a part re-raised, a new exception), or their tracebacks would hold reference cycles.
                part = result = matched = left = members = kept = None  # type: ignore[assignment]
                if not member_types and not raised:  # all handled
                    excs = None
                    return None
                star = CaughtStar(exc)
                star._rest, star._raised, excs = \
                    (message, excs, member_types, tb, context, cause) if member_types else None, raised, None
                raised = None  # type: ignore[assignment]  # the Star holds them
                if hand_over:
                    for handler, awaitable, given in self._run_handlers(star, pending):
                        star.raised(_not_sync(handler, given, awaitable))
            else:
                star = CaughtStar(exc)
                for handler, awaitable, given in self._run_handlers(star, pending):
                    star.raised(_not_sync(handler, given, awaitable))
                if star._rest is None and not star._raised:  # all handled (as outcome() would say)
                    return None
            return star.finish()
        except BaseException as error:
            if star is not None and star._orig is None:  # finish() was done: its outcome is error's context
                raise
            flat: Optional[_FlatEnd] = None
            if excs is not None:  # the flat path's state, which no Star holds yet
                flat = (message, excs, member_types, tb, context, cause) if member_types else None, raised
            star = _recovered(star, exc, flat, error)
            error = flat = excs = raised = part = result = matched = left = members = kept = None  # type: ignore[assignment]
        return star.finish()

    def __exit__(self, exc_type: "_ExcType", exc: "Optional[BaseException]", tb: "_Traceback") -> bool:
        if exc is None or not self._handlers[0]:
            return False
        if _WITH_EXIT is not None and (caller := _getframe(1)) is not None \
                and caller.f_code.co_code[caller.f_lasti] == _WITH_EXIT:
            # Called by a with statement as it ends on exc, which is the handled exception: the statement's
            # handler restores the one before as anything leaves it.  No block of this frame is needed, so
            # none has an entry where an interrupt would have the block's own exception as its context.
            outcome = self._outcome(exc_type, exc)
            if outcome is None:
                return True
            if outcome is exc:  # untouched: the with statement re-raises it as it was
                return False
            outcome = exc = None
            raise  # the outcome, handled: a bare raise adds no entry for this frame
        try:
            raise _Settle
        except _Settle:
            # What outcome() makes the handled exception lasts until this block
            # ends: called directly (ExitStack, frameworks), nothing else would restore it.
            outcome = self._outcome(exc_type, exc)
            verdict = _verdict(outcome, exc)
            exc = None
            if verdict is None:
                if RAISE_BY_NAME:
                    raise outcome  # type: ignore[misc]  # noqa: B904 - see _PYPY
                if _PYPY:
                    outcome.__context__ = outcome.__context__  # type: ignore[union-attr]  # see _PYPY
                outcome = None
                raise
        return verdict

    async def __aenter__(self) -> None:
        return None

    async def __aexit__(self, exc_type: "_ExcType", exc: "Optional[BaseException]", tb: "_Traceback") -> bool:
        # A coroutine has an exception state of its own: what it makes handled dies with it.
        if exc is None or not self._handlers[0]:
            return False
        star: Optional[Star] = None
        try:
            star = CaughtStar(exc)
            for _handler, awaitable, part in self._run_handlers(star, iter(self._handlers[0])):
                await _awaited(star, part, awaitable)  # type: ignore[arg-type]  # an awaitable: _run_handlers
            outcome = star.finish()
        except BaseException as error:  # see _outcome
            if star is not None and star._orig is None:
                raise
            star = _recovered(star, exc, None, error)
            error = None  # type: ignore[assignment]
        if star._orig is not None:  # recovered: finished here, outside the block, which restores what it handled
            outcome = star.finish()
        verdict = _verdict(outcome, exc)
        # The handlers' frames point back to this one (f_back): no local may lead
        # to what they raised, or the tracebacks would hold reference cycles.
        star = _handler = awaitable = part = exc = None  # type: ignore[assignment]
        if verdict is None:
            if RAISE_BY_NAME:
                try:
                    raise _Settle
                except _Settle:
                    _handled.set_handled(outcome)  # type: ignore[arg-type]
                    raise outcome  # type: ignore[misc]  # noqa: B904 - see _PYPY
            if _PYPY:
                outcome.__context__ = outcome.__context__  # type: ignore[union-attr]  # see _PYPY
            outcome = None
            raise
        return verdict


catch.__exit__ = hidden(catch.__exit__)  # type: ignore[method-assign]
catch.__aexit__ = hidden(catch.__aexit__)  # type: ignore[method-assign]


async def _awaited(star: Star, part: BaseException, awaitable: "Awaitable[object]") -> None:
    """Await what a handler returned with its part handled, recording what it raises in ``star``.

    A coroutine of its own: its handled exception is the part's, and the
    ``try`` is not in ``__aexit__``'s guard, where on 3.11+ an exception that a
    tracer raises at the line of a ``try`` nested in it would escape it (the
    line's NOP is in no range of the exception table).
    """
    _handled.set_handled(part)
    try:
        await awaitable
    except BaseException as raised:
        star._raised += (raised,)  # type: ignore[operator]  # recorded by a line that calls nothing, then stripped
        _frames.strip(raised)


def _recovered(star: "Optional[Star]", exc: BaseException, flat: "Optional[_FlatEnd]", error: BaseException
               ) -> Star:
    """The Star of a ``catch()`` whose machinery ``error`` interrupted, recorded as a handler's exception.

    As ``_interrupted.interrupted`` for the transformed statement: what was left and
    what the handlers raised go on with it, so nothing of the group is lost.
    The clauses after it are not taken.  ``flat``: the flat path's state, when
    the Star does not hold it yet.
    """
    if star is None:
        star = CaughtStar(exc)
    if flat is not None:
        star._rest, star._raised = flat[0], flat[1]
    for recorded in star._raised:  # type: ignore[union-attr]  # one may have been recorded but not stripped
        _frames.strip(recorded)
    star._raised += (_frames.strip(error),)  # type: ignore[operator]
    return star


class _Settle(BaseException):
    """Raised and caught at once by ``__exit__``, for an except block whose end restores the handled exception."""
