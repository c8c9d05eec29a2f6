"""The run-time half of ``except*``, shared by every front end.

One ``Star`` per executing ``try``/``except*`` statement: it wraps a naked
exception, checks each clause's types, splits what is left with the group's
own ``split``, makes the matched part the handled exception (what
``sys.exc_info()`` returns and what becomes the ``__context__`` of anything the
handler raises), collects what the handlers raise and finally rebuilds what
propagates as CPython's ``_PyExc_PrepReraiseStar`` does.  The transformed
``except*``, ``catch()`` and ``suppress()`` all go through here.

A matched part is made "handled" without raising it (raising would add a
traceback entry and a ``__context__``, which ``except*`` never does) by
``_handled``.  Every method keeps the state consistent at every line, so that
an exception arriving in the middle (``interrupted``) loses nothing.
"""

import builtins
import sys

from exceptstar import _classes, _clauses, _frames, _handled, _pypy, _spans
from exceptstar._clauses import CANNOT_CATCH, CANNOT_CATCH_GROUP, PLAIN, given_matches, invalid_types_message
from exceptstar._groups import BaseExceptionGroup as _PureBEG
from exceptstar._groups import ExceptionGroup as _PureEG
from exceptstar._reraise import prep_reraise_star
from exceptstar._rules import TypeMatcher, real_issubclass

# _DEFAULT_DERIVE and _DEFAULT_GETATTRIBUTE: set when _groups (imported above) handed _split its classes.
from exceptstar._split import (
    _BUILTIN_EXCEPTIONS,
    _DEFAULT_DERIVE,
    _DEFAULT_GETATTRIBUTE,
    _new_exception,
    _split,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import FrameType, TracebackType
    from typing import List, Optional, Sequence, Set, Tuple, Type, Union

    # A flat group's rest that match() keeps unbuilt: its message, members, member types, traceback, context
    # and cause as they were when it was split (the group would be a copy of them, seen by nobody but match()).
    _Flat = Tuple[str, Tuple[BaseException, ...], Set[type], Optional[TracebackType], Optional[BaseException],
                  Optional[BaseException]]

_BaseExceptionGroup = _classes.BaseExceptionGroup

_PURE = _classes.PURE
_exc_info = sys.exc_info
_getframe = sys._getframe
_modules = _classes._modules
_BACKPORT_MODULE = _classes.BACKPORT_MODULE


def _traceback_class() -> type:
    """``types.TracebackType``, without importing ``types`` (not imported at startup)."""
    try:
        raise Exception
    except Exception as error:
        return type(error.__traceback__)


_TracebackType = _traceback_class()


# Whether a group wrapping a naked exception gets a traceback: the frame of the
# `try` at its `except*` line (CPython gh-128799: 3.14, and 3.13 after 3.13.0).
# Where CPython's built-in groups are in use, what this interpreter's own except* does;
# PyPy 3.11's gives none, and catch() follows CPython 3.15 there.
_WRAPPER_TRACEBACK: "Optional[bool]" = True if _classes.PURE or sys.implementation.name == "pypy" else None


def _native_wrapper_traceback() -> bool:
    global _WRAPPER_TRACEBACK
    if _WRAPPER_TRACEBACK is None:
        probe = "try:\n    raise ValueError\nexcept* ValueError as e:\n    found = e.__traceback__ is not None\n"
        namespace: dict[str, object] = {}
        exec(builtins.compile(probe, "<exceptstar probe>", "exec"), namespace)
        _WRAPPER_TRACEBACK = bool(namespace["found"])
    return _WRAPPER_TRACEBACK


_SPANS, _SPAN_BASE = _spans.CARRIED, _spans.BASE


# The group classes whose split()/derive() are exceptstar's or CPython's own
# code: what they raise is an interrupt of the machinery (see `interrupted`),
# not an error of the user's that propagates alone.
_PURE_GROUPS = (_PureBEG, _PureEG)
_PLAIN_GROUPS: "Set[type]" = set(_PURE_GROUPS)
if hasattr(builtins, "BaseExceptionGroup"):
    _PLAIN_GROUPS |= {builtins.BaseExceptionGroup, getattr(builtins, "ExceptionGroup")}  # noqa: B009 - typed for 3.10
_PLAIN_SPLITS: "Set[object]" = {getattr(cls, "split") for cls in _PLAIN_GROUPS}  # noqa: B009
_PLAIN_DERIVES: "Set[object]" = {getattr(cls, "derive") for cls in _PLAIN_GROUPS}  # noqa: B009
_PLAIN_GETATTRIBUTES: "Set[object]" = {cls.__getattribute__ for cls in _PLAIN_GROUPS}
_PURE_EG_ID = id(_PureEG)
_STEPS = _handled.steps
_MATCHED_BY, _matched_by = _clauses.MATCHED_BY, _clauses.matched_by


class Star:
    """One executing ``try``/``except*`` statement.

    Begun with what the body raised; ``match`` is then called for every
    clause in order, ``raised`` with whatever a matched clause's handler
    raised, and ``finish`` once at the end (``outcome`` for transformed code,
    which drops the ``Star`` itself).  The transformed statement makes it with
    no arguments, which runs no Python code (a class call and ``__init__``
    cost as much as the rest of a naked statement's match), and its first
    clause's ``match`` begins it; ``catch()``'s ``CaughtStar`` begins itself.

    Every method leaves the state consistent at every line, so that an
    exception arriving in the middle (a signal handler's ``KeyboardInterrupt``,
    a tracer's error) can be recorded by ``interrupted`` as if a handler had
    raised it at that point, and the statement finished with nothing lost.
    """

    __slots__ = ("_alone", "_done", "_orig", "_raised", "_rest")

    # The exception that propagates on its own, as CPython's does: an invalid
    # clause, a bad split() result, an error of a group's own split() or
    # derive().  Unset until then (one store less for every statement): read
    # it with getattr.
    _alone: "Optional[BaseException]"

    # _orig: what the body raised.  _rest: what later clauses may still match, the naked exception itself
    # until a clause takes it (it is wrapped then, as CPython does).  _raised: what the handlers raised, in
    # clause order (transformed code appends with `star._raised += (exc,)`, which calls nothing: no interrupt
    # can fall between a handler's exception and its record).  _done: how many match() calls have returned
    # (tells `interrupted` whether an exception came from a clause's types expression or after its match).
    # _done is set last: set, the Star is begun.
    _orig: "Optional[BaseException]"
    _rest: "Union[BaseException, _Flat, None]"
    _raised: "Optional[Tuple[BaseException, ...]]"
    _done: int

    def begin(self, exc: "Optional[BaseException]") -> None:
        """Start with ``exc``, what the body raised (``match`` begins the transformed statement's Star inline)."""
        self._orig = self._rest = exc
        self._raised = ()
        self._done = 0

    def match(self, types: object, extent: "Optional[int]", begin: bool) -> "Optional[BaseException]":
        """Check the clause's ``types`` and take from what is left what they match.

        Raises CPython's TypeErrors for invalid ``types``, even when nothing is
        left.  A match becomes the handled exception and is returned (a naked
        exception is wrapped in a new ``ExceptionGroup('', (exc,))``; a group
        matched as a whole is returned as is); otherwise ``None``.

        ``extent``: how many lines the clause runs on past its ``except``
        line, from the compiler: where the traceback entry made for a naked
        exception it takes ends (``_spans``).  None for ``catch()``, which has
        no clause in the user's code and is called by exceptstar's frames.
        ``begin``: the transformed statement's first clause, whose Star is new:
        it is begun first, with the exception being handled.  Every argument
        is given at every call: CPython calls a function without defaults the
        fast way.
        """
        if not begin:
            rest, done = self._rest, self._done
        else:  # begin() inline (an `except ... as name` in the statement would cost one of CPython's 20 blocks)
            self._orig = self._rest = rest = _exc_info()[1]
            self._raised = ()
            self._done = done = 0
        rest_kind: type = type(rest)
        part: Optional[BaseException]
        if rest_kind in _BUILTIN_EXCEPTIONS and type(types) is type and types in PLAIN:
            # A naked exception of a built-in class under a built-in clause, the usual naked case: valid, and
            # matched by the class alone, with none of the checks below (both built-in: no code of the user's).
            full = issubclass(rest_kind, types)
            cls: Type[_PureBEG] = _PureEG  # each of them an Exception
        else:
            # A group of ours: the usual clause may split it inline.
            if (rest_kind is tuple or rest_kind is _PureEG) and type(types) is type and types in PLAIN \
                    and _PureEG.derive is _DEFAULT_DERIVE and _PureEG.__getattribute__ is _DEFAULT_GETATTRIBUTE:
                # The usual clause: a built-in class, valid, which matches no group whole.  Our group with its own
                # derive, no notes, flat (built-in leaves, which cannot change class) comes apart by member type,
                # inline: its parts as _split._parts makes them, the rest kept as what it is made of (``_Flat``).
                if rest_kind is tuple:
                    message, excs, member_types, tb, context, cause = rest  # type: ignore[misc]  # a _Flat
                    flat = True
                elif not rest.__dict__:
                    message, excs, member_types, _ = rest._state  # type: ignore[union-attr]  # an ExceptionGroup; None: tested next
                    flat = member_types is not None and member_types <= _BUILTIN_EXCEPTIONS
                    tb, context, cause = rest.__traceback__, rest.__context__, rest.__cause__  # type: ignore[union-attr]
                else:
                    flat = False
                if flat:
                    matched_by = _MATCHED_BY.get(types) or _matched_by(types)
                    matching = member_types & matched_by
                    rest_types = member_types - matched_by
                    if not matching:
                        self._rest, self._done = (message, excs, member_types, tb, context, cause), self._done + 1
                        return None
                    if not rest_types:
                        matched, members, rest = [*excs], excs, None
                    else:
                        matched = []
                        left: List[BaseException] = []
                        for exc in excs:  # a loop: cheaper than C's map and compress for a few members
                            (matched if type(exc) in matching else left).append(exc)
                        members, rest = tuple(matched), (message, tuple(left), rest_types, tb, context, cause)
                    part = group = _flat_group(message, matched, members, matching, tb, context, cause)
                    if not _STEPS or tb is None:
                        _handled.set_handled(group)
                    else:  # set_handled inline (bound on CPython 3.8-3.10), for a group raised: no frame
                        take, length, set_exc_info = _STEPS
                        take((_PureEG, group, tb))
                        length.value = 0
                        set_exc_info(_PURE_EG_ID, id(group), id(tb))
                    self._rest, self._done = rest, self._done + 1
                    return part
            if rest_kind is tuple:  # left by the path above, for a clause it does not take
                rest = self._rest = _flat_group(rest[0], [*rest[1]], *rest[1:])  # type: ignore[index]
                rest_kind = _PureEG
            # Notices a backport imported (or dropped) since GROUPS was last worked out: without one ever
            # seen, a test of the modules' dict, which calls nothing, stands for group_classes().
            if _BACKPORT_MODULE in _modules or _classes._seen_backport is not None:
                _classes.group_classes()
            if type(types) is type:
                # The common case, a plain class, checked (one of PLAIN is valid) and matched inline.
                if types not in PLAIN:
                    if not real_issubclass(BaseException, types):
                        raise self._refuse(CANNOT_CATCH)
                    if issubclass(types, _classes.GROUPS):
                        raise self._refuse(CANNOT_CATCH_GROUP)
                full = rest is not None and real_issubclass(types, rest_kind)
            else:
                error = invalid_types_message(types)
                if error is not None:
                    raise self._refuse(error)
                full = rest is not None and given_matches(type(rest), types)
            if isinstance(rest, _classes.GROUPS):
                if full:
                    part, rest = rest, None  # type: ignore[assignment]  # a group (built above if it was a _Flat)
                else:
                    # CPython's split step of CHECK_EG_MATCH, with its checks of what split() returns.
                    # A subclass of tuple is a valid clause, but a group's split() wants an exact tuple
                    # (get_matcher_type): there it is a predicate if callable, else a TypeError.
                    kind, rest_kind = type(types), type(rest)
                    tuple_subclass = kind is not type and kind is not tuple and real_issubclass(tuple, kind)
                    if rest_kind in _PURE_GROUPS and not tuple_subclass:
                        # Our own split() after its first step, the group matching whole, which `full` was:
                        # a 2-tuple, which needs none of the checks below.
                        part, rest = _split(rest, TypeMatcher(types if kind is tuple else (types,)), True)  # type: ignore[arg-type]
                    else:
                        if tuple_subclass or not (rest_kind in _PLAIN_GROUPS or _own_code_only(rest_kind)):
                            try:
                                pair: object = rest.split(types) if not _PYPY311 else _pypy.split_builtin(rest, types)  # type: ignore[union-attr, arg-type]
                            except BaseException as error:
                                # The group's own code or the condition failed: that propagates alone, as in C.
                                self._alone = error
                                raise
                        else:
                            pair = rest.split(types) if not _PYPY311 else _pypy.split_builtin(rest, types)  # type: ignore[union-attr, arg-type]
                        if type(pair) is not tuple:
                            raise self._refuse(
                                f"{rest_kind.__name__}.split must return a tuple, not {type(pair).__name__}")
                        if len(pair) < 2:
                            raise self._refuse(
                                f"{rest_kind.__name__}.split must return a 2-tuple, got tuple of size {len(pair)}"
                            )
                        part, rest = pair[0], pair[1]
                if isinstance(part, BaseException):
                    # Not what a broken split() may return as the part (5): the handler
                    # gets it, but CPython's making it the handled exception crashes the
                    # interpreter on the next exception raised (its __context__).
                    _handled.set_handled(part)
                # One line that calls nothing: an interrupt finds the clause either
                # taken (its part then counts as handled) or not taken at all.
                self._rest, self._done = rest, self._done + 1
                return part
            cls = _PureEG if isinstance(rest, Exception) else _PureBEG
        if not full:  # a naked exception the clause does not take, or nothing left
            self._done += 1
            return None
        # BaseExceptionGroup('', (rest,)), with the traceback CPython gives it (inline: this runs
        # on every naked exception a clause takes).  The pure group is made without the checks
        # that a caught exception passes, and without its member types (a split works them out).
        if _PURE:  # _build_valid inline: no frame
            # One tuple, the args' and the members', as CPython's group keeps the tuple it is given.
            members = (rest,)
            part = _new_exception(cls, "", members)
            part._state = "", members, None, None  # type: ignore[assignment]
        else:
            part = _BaseExceptionGroup("", (rest,))  # type: ignore[type-var]
        tb = None
        if _WRAPPER_TRACEBACK or (_WRAPPER_TRACEBACK is None and _native_wrapper_traceback()):
            # One entry: the user's frame where it is now (catch()'s own frames come first).
            frame: Optional[FrameType] = _getframe(1)
            if extent is None:
                frame = _frames.user_frame(frame)
            if frame is not None:
                # No instruction: 3.11+ show the line alone, as CPython its clause (carets need
                # positions).  Before, the entry spans the clause (``_spans``): its last line,
                # ``extent`` lines past the frame's, by _spans.lasti written out.
                lineno = frame.f_lineno
                tb = part.__traceback__ = _TracebackType(
                    None, frame, _SPAN_BASE - (lineno + extent) if extent and _SPANS else -1, lineno)  # one big int
        if not _STEPS or tb is None:
            _handled.set_handled(part)
        else:  # set_handled inline, where it is bound (CPython 3.8-3.10, so _PURE), for an entry made: no frame
            take, length, set_exc_info = _STEPS
            take((cls, part, tb))
            length.value = 0
            set_exc_info(_PURE_EG_ID if cls is _PureEG else id(cls), id(part), id(tb))  # a made int: no id()
        # As above: the clause taken in one line that calls nothing.
        self._rest, self._done = None, done + 1
        return part

    def _refuse(self, message: str, kind: "Type[Exception]" = TypeError) -> Exception:
        """The error that propagates alone, as the C checks' errors do."""
        error = kind(message)
        self._alone = error
        return error

    def raised(self, exc: BaseException) -> None:
        """Record what the handler of the last matched clause raised."""
        self._raised += (exc,)  # type: ignore[operator]

    def outcome(self, settled: bool = True) -> "Optional[BaseException]":
        """What propagates (None: nothing), made the handled exception.

        ``settled``: on PyPy 3.11, its ``__context__`` is made to stay as it
        is where the transformed statement's bare raise sends it (``settle_context``).

        Computed from the state, which it leaves as it is: after an interrupt
        the transformed statement records it and asks again.  The caller then
        runs a bare ``raise``, which re-raises it exactly (no traceback entry,
        no ``__context__``), as CPython's ``RERAISE`` does.
        """
        if _BACKPORT_MODULE in _modules or _classes._seen_backport is not None:  # as in match()
            _classes.group_classes()
        orig = self._orig
        rest = self._rest
        if isinstance(rest, tuple):
            rest = _flat_group(rest[0], [*rest[1]], *rest[1:])
        raised: Tuple[BaseException, ...] = self._raised  # type: ignore[assignment]
        result: Optional[BaseException]
        if not isinstance(orig, _classes.GROUPS):
            # A naked exception: at most one clause ran, so there is one
            # candidate, unless an interrupt was recorded besides.
            if not raised:
                result = rest
            elif rest is None and len(raised) == 1:
                result = raised[0]
            else:
                result = _BaseExceptionGroup("", [*raised, *([] if rest is None else [rest])])
        elif rest is None and not raised:
            result = None
        elif rest is not None and not isinstance(rest, BaseException):
            # What a broken split() returned as the rest: CPython's
            # _PyExc_PrepReraiseStar fails on it with this SystemError.
            raise self._refuse("bad argument to internal function", SystemError)
        elif type(orig) in _PLAIN_GROUPS or _own_code_only(type(orig)):
            result = prep_reraise_star(orig, [*raised, rest])  # type: ignore[arg-type]
        else:
            try:
                result = prep_reraise_star(orig, [*raised, rest])  # type: ignore[arg-type]
            except BaseException as error:
                # A derive() of the group's own failed: alone, as in C.
                self._alone = error
                raise
        if result is not None:
            _handled.set_handled(result)
            if _PYPY311 and settled:
                _pypy.settle_context(result, orig)
        return result

    def finish(self) -> "Optional[BaseException]":
        """``outcome()``, after which the Star holds nothing (for ``catch()``, which keeps it in a local).

        Not ``settled``: ``catch()``'s ``__exit__`` settles what it re-raises itself.
        """
        result = self.outcome(False)
        self._orig = self._rest = self._raised = None
        return result


class CaughtStar(Star):
    """``catch()``'s Star, begun with ``exc``: its methods are called by exceptstar's frames, not the user's."""

    __slots__ = ()

    def __init__(self, exc: BaseException) -> None:
        self.begin(exc)


def _flat_group(message: str, excs: "Sequence[BaseException]", members: "Tuple[BaseException, ...]",
                member_types: "Set[type]", tb: "Optional[TracebackType]", context: "Optional[BaseException]",
                cause: "Optional[BaseException]") -> BaseException:
    """``subset``'s part of a flat group of ours: what a clause takes of it (``Star.match``, ``catch``), or
    the rest ``match`` kept unbuilt (``_Flat``).  ``excs`` held in the args, as derive's list, and the
    metadata the group had when it was split.  The one place such a part is made: a call costs the usual
    two-clause statement about 4% of its instructions on 3.8, where the part used to be made inline."""
    group = _new_exception(_PureEG, message, excs)
    group._state = message, members, member_types, None
    if tb is not None:  # a new part's own are None (its context left unassigned, as in subset)
        group.__traceback__ = tb
    if context is not None:
        group.__context__ = context
    group.__cause__ = cause
    return group


def _own_code_only(cls: type) -> bool:
    """Whether ``split``/``derive`` of groups of ``cls`` run only exceptstar's or CPython's code.

    Callers test ``cls in _PLAIN_GROUPS`` first, inline: no call for the usual groups.
    """
    return (getattr(cls, "split", None) in _PLAIN_SPLITS and getattr(cls, "derive", None) in _PLAIN_DERIVES
            and cls.__getattribute__ in _PLAIN_GETATTRIBUTES)


_PYPY = sys.implementation.name == "pypy"
_PYPY311 = _PYPY and sys.version_info >= (3, 11)
