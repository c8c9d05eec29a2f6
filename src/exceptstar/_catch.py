"""``catch()`` and ``suppress()``: ``except*`` and ``contextlib.suppress`` as context managers.

Both run on the engine (``_engine``), so they see the same groups as the
transformed ``except*`` (ours, the built-in ones, the ``exceptiongroup``
backport's) and split them the same way.  What they raise leaves their
``__exit__`` with a bare ``raise`` of an exception made current by the engine,
so no frame of exceptstar ends up in a traceback.
"""

import sys

from exceptstar import _frames, _handled
from exceptstar._classes import group_classes
from exceptstar._clauses import MATCHED_BY, PLAIN, invalid_types_message
from exceptstar._engine import _PURE_EG_ID, Star, _flat_group
from exceptstar._groups import ExceptionGroup as _PureEG

# _DEFAULT_DERIVE and _DEFAULT_GETATTRIBUTE: set when _groups (imported above) handed _split its classes.
from exceptstar._split import _BUILTIN_EXCEPTIONS, _DEFAULT_DERIVE, _DEFAULT_GETATTRIBUTE

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import Any, Callable, Iterable, Iterator, List, Mapping, Optional, Tuple, Type, TypeVar, Union

    _Types = Union[Type[BaseException], Tuple[Type[BaseException], ...]]
    _Key = Union[Type[BaseException], Iterable[Type[BaseException]]]
    from exceptstar._classes import BaseExceptionGroup, ExceptionGroup
    from exceptstar._engine import _Flat

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
        entries: List[Tuple[_Types, _Call]] = []
        plain = True
        for key, handler in items:
            types: _Types
            if type(key) is type and key in PLAIN:  # valid: no check to call
                types = key
            else:
                plain = False
                if isinstance(key, type):
                    types = key
                else:
                    try:
                        types = tuple(key)
                    except TypeError:
                        types = key  # type: ignore[assignment]  # invalid_types_message gives CPython's message
                error = invalid_types_message(types)
                if error is not None:
                    raise TypeError(error)
            if not callable(handler):
                raise TypeError(f"'{type(handler).__name__}' object is not callable")
            entries.append((types, handler))
        self._handlers = entries, plain

    def _run_handlers(self, star: Star, entries: "Iterable[Tuple[_Types, _Call]]"
                      ) -> "Iterator[Tuple[_Call, object, BaseException]]":
        """Call each handler whose key matches a part, in order, recording what it raises.

        A handler that returns an awaitable is yielded as ``(handler, awaitable,
        part)``: ``async with`` awaits it, the plain form refuses it.  Each part
        is the handled exception while its handler runs (the generator has an
        exception state of its own, which dies with it).
        """
        for types, handler in entries:
            part = star.match(types)
            if part is None:
                continue
            try:
                result = handler(part)
            except BaseException as raised:
                star.raised(_frames.strip(raised))
            else:
                if result is not None and _is_awaitable(result):
                    yield handler, result, part

    def __enter__(self) -> None:
        return None

    def _run_flat(self, exc: BaseException) -> "Iterator[Tuple[Optional[_Flat], Tuple[BaseException, ...]]]":
        """``_run_handlers`` for a flat group of ours and built-in classes only, as ``Star.match``'s inline path.

        The parts come apart by member type in this frame's locals, with no ``Star``; what is left, if
        anything (the rest unbuilt, as ``Star`` keeps it, and what the handlers raised), is yielded once
        at the end.
        """
        message, excs, member_types, _ = exc._state  # type: ignore[attr-defined]
        tb, context, cause = exc.__traceback__, exc.__context__, exc.__cause__
        take, length, set_exc_info = _handled.steps  # type: ignore[misc]
        tb_id = None if tb is None else id(tb)
        raised: Tuple[BaseException, ...] = ()
        entries = iter(self._handlers[0])
        for types, handler in entries:
            matching = member_types & MATCHED_BY[types]
            if not matching:
                continue
            member_types = member_types - matching
            if member_types:
                matched: List[BaseException] = []
                left: List[BaseException] = []
                for member in excs:  # built-in classes: __class__ is the real type
                    (matched if member.__class__ in matching else left).append(member)
                members, excs = tuple(matched), tuple(left)
            else:
                matched, members = [*excs], excs
            part = _flat_group(message, matched, members, matching, tb, context, cause)
            take((_PureEG, part) if tb is None else (_PureEG, part, tb))  # _handled.set_handled inline: no frame
            length.value = 0
            set_exc_info(_PURE_EG_ID, id(part), tb_id)
            try:
                result = handler(part)
            except BaseException as error:
                raised += (_frames.strip(error),)
            else:
                if result is not None and _is_awaitable(result):
                    raised += (_not_sync(handler, part, result),)
            if not member_types:
                rest = None
                break
            if _PureEG.derive is not _DEFAULT_DERIVE or _PureEG.__getattribute__ is not _DEFAULT_GETATTRIBUTE:
                # A handler changed how groups of ours come apart: the engine takes the clauses left.
                star = Star(exc)
                star._rest, star._raised = (message, excs, member_types, tb, context, cause), raised
                for called, awaitable, given in self._run_handlers(star, entries):
                    star.raised(_not_sync(called, given, awaitable))
                rest, raised = star._rest, star._raised
                # Handed over below: the handlers' frames point back to _run_handlers' (f_back), which holds star.
                star._orig = star._rest = star._raised = None
                break
        else:  # members left
            rest = message, excs, member_types, tb, context, cause
        if rest is not None or raised:
            yield rest, raised
            # The handlers' frames point back to this one (f_back): handed over, what they raised must not
            # stay in a local, or their tracebacks would hold reference cycles.
            raised = ()

    def __exit__(self, exc_type: "_ExcType", exc: "Optional[BaseException]", tb: "_Traceback") -> bool:
        if exc is None or not self._handlers[0]:
            return False
        # The with statement's exc_type is type(exc): a naked exception pays one test.
        if exc_type is _PureEG and self._handlers[1] and type(exc) is _PureEG and not exc.__dict__ \
                and _handled.steps is not None and _PureEG.derive is _DEFAULT_DERIVE \
                and _PureEG.__getattribute__ is _DEFAULT_GETATTRIBUTE \
                and (member_types := exc._state[2]) is not None and member_types <= _BUILTIN_EXCEPTIONS:
            star = None
            for rest, raised in self._run_flat(exc):  # once, if anything is left
                star = Star(exc)
                star._rest, star._raised = rest, raised
                del rest, raised  # see below
            if star is None:  # all handled
                exc = None  # see below
                return True
        else:
            star = Star(exc)
            for handler, awaitable, part in self._run_handlers(star, self._handlers[0]):
                star.raised(_not_sync(handler, part, awaitable))
            if star._rest is None and not star._raised:  # all handled (as outcome() would say): no block needed
                star = handler = awaitable = part = exc = None  # type: ignore[assignment]  # see below
                return True
        try:
            raise _Settle
        except _Settle:
            # What finish() makes the handled exception lasts until this block
            # ends: a with statement restores the state it had itself, but a
            # direct call (ExitStack, frameworks) would leave it for the thread.
            outcome = star.finish()
            verdict = _verdict(outcome, exc)
            # The handlers' frames point back to this one (f_back): no local may lead
            # to what they raised, or the tracebacks would hold reference cycles.
            star = handler = awaitable = part = exc = None  # type: ignore[assignment]
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
        if exc is None or not self._handlers[0]:
            return False
        star = Star(exc)
        for _handler, awaitable, part in self._run_handlers(star, self._handlers[0]):
            # Awaited here, in a frame whose handled exception must be the part too.
            _handled.set_handled(part)
            try:
                await awaitable  # type: ignore[misc]
            except BaseException as raised:
                star.raised(_frames.strip(raised))
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


class suppress:
    """Suppress the given exceptions, as Python 3.12's ``contextlib.suppress``, on every version.

    ``with exceptstar.suppress(FileNotFoundError): os.remove(path)``

    A matching exception is suppressed.  From an exception group (ours, a
    built-in one or the ``exceptiongroup`` backport's) the matching part is
    taken out with the group's own ``split`` and the rest, if any, is raised,
    with the original group as its ``__context__``; a group that matches
    entirely is suppressed.
    """

    __slots__ = ("_exceptions",)

    def __init__(self, *exceptions: "Type[BaseException]") -> None:
        self._exceptions = exceptions

    def __enter__(self) -> None:
        return None

    # bool, as typeshed declares contextlib.suppress's: type checkers then know
    # that the with statement may swallow, so the code after it is reachable.
    def __exit__(self, exc_type: "_ExcType", exc: "Optional[BaseException]", tb: "_Traceback") -> bool:
        if exc_type is None:
            return None  # type: ignore[return-value]  # what contextlib's returns
        if issubclass(exc_type, self._exceptions):
            return True
        if issubclass(exc_type, group_classes()):
            _match, rest = exc.split(self._exceptions)  # type: ignore[union-attr]
            if rest is None:
                return True
            _chain(rest, exc)  # type: ignore[arg-type]
            try:
                raise _Settle
            except _Settle:
                # Handled only within this block: see catch.__exit__.
                _handled.set_handled(rest)
                raise
        return False


class _Settle(BaseException):
    """Raised and caught at once by ``__exit__``, for an except block whose end restores the handled exception."""


def _chain(raised: BaseException, handled: BaseException) -> None:
    """The ``__context__`` that ``raise raised`` would set while ``handled`` is handled.

    As CPython's _PyErr_SetObject: a link in ``handled``'s context chain that
    leads back to ``raised`` is cut so that no cycle forms.
    """
    if raised is handled:
        return
    seen = set()
    node = handled
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        context = node.__context__
        if context is raised:
            node.__context__ = None
            break
        node = context  # type: ignore[assignment]
    raised.__context__ = handled
