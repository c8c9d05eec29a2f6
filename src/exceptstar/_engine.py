"""The run-time half of ``except*``, shared by every front end.

One ``Star`` per executing ``try``/``except*`` statement: it wraps a naked
exception, checks each clause's types, splits what is left with the group's
own ``split``, makes the matched part the handled exception (what
``sys.exc_info()`` returns and what becomes the ``__context__`` of anything the
handler raises), collects what the handlers raise and finally rebuilds what
propagates as CPython's ``_PyExc_PrepReraiseStar`` does.  The transformed
``except*``, ``catch()`` and ``suppress()`` all go through here.

Making an exception "handled" without raising it (raising would add a
traceback entry and a ``__context__``, which ``except*`` never does) needs the
C API: ``PyErr_SetHandledException`` on 3.11+, ``PyErr_SetExcInfo`` before.
It changes the exception state of the ``except`` block that is running, which
the interpreter restores when that block ends, so nothing outlives it.  ctypes
is imported on first use only: ``import exceptstar`` must stay cheap.
"""

import sys

from . import _classes
from ._groups import subset
from ._rules import real_issubclass

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, List, Optional, Set, Tuple

_BaseExceptionGroup = _classes.BaseExceptionGroup

if _classes.PURE:
    from ._groups import _build_valid

    def _wrap(exc: BaseException) -> BaseException:
        """``BaseExceptionGroup('', (exc,))``, skipping the checks a caught exception passes."""
        return _build_valid("", (exc,), {type(exc)})

else:  # pragma: no cover - the built-in constructor is already fast

    def _wrap(exc: BaseException) -> BaseException:
        return _BaseExceptionGroup("", (exc,))


_CANNOT_CATCH = "catching classes that do not inherit from BaseException is not allowed"
_CANNOT_CATCH_GROUP = "catching ExceptionGroup with except* is not allowed. Use except instead."


# --- making an exception the handled one -----------------------------------

def _bind_set_handled() -> "Callable[[BaseException], None]":
    import ctypes

    api = ctypes.pythonapi
    if sys.version_info >= (3, 11):
        setter = api.PyErr_SetHandledException
        setter.argtypes = (ctypes.py_object,)
        setter.restype = None
        return setter  # type: ignore[no-any-return]

    # PyErr_SetExcInfo steals a reference to each argument.  Each comes from
    # a C function that returns a new reference as an address ctypes does not
    # own: the type, the exception itself (PyObject_SelfIter returns its
    # argument), the traceback or NULL.  One call each, no Python-level work.
    def bind(name: str, argtypes: "Tuple[type, ...]", restype: "Optional[type]") -> "Any":
        function = getattr(api, name)
        function.argtypes = argtypes
        function.restype = restype
        return function

    obj = (ctypes.py_object,)
    new_type_ref = bind("PyObject_Type", obj, ctypes.c_void_p)
    new_ref = bind("PyObject_SelfIter", obj, ctypes.c_void_p)
    new_tb_ref = bind("PyException_GetTraceback", obj, ctypes.c_void_p)
    set_exc_info = bind("PyErr_SetExcInfo", (ctypes.c_void_p,) * 3, None)

    def set_handled(exc: BaseException) -> None:
        if exc.__traceback__ is None:  # a new group: NULL needs no reference, nor a call
            set_exc_info(new_type_ref(exc), new_ref(exc), None)
        else:
            set_exc_info(new_type_ref(exc), new_ref(exc), new_tb_ref(exc))

    return set_handled


_setter: "Optional[Callable[[BaseException], None]]" = None


def set_handled(exc: BaseException) -> None:
    """Make ``exc`` the exception of the ``except`` block that is running."""
    global _setter
    if _setter is None:
        _setter = _bind_set_handled()
    _setter(exc)


# --- the clause check and match --------------------------------------------

def invalid_types_message(types: object) -> "Optional[str]":
    """CPython's _PyEval_CheckExceptStarTypeValid: the TypeError's message, or None if valid."""
    if isinstance(types, tuple):
        for item in types:
            if not (real_issubclass(type, type(item)) and real_issubclass(BaseException, item)):
                return _CANNOT_CATCH
        groups = _classes.group_classes()
        for item in types:
            if issubclass(item, groups):
                return _CANNOT_CATCH_GROUP
        return None
    if not (real_issubclass(type, type(types)) and real_issubclass(BaseException, types)):  # type: ignore[arg-type]
        return _CANNOT_CATCH
    if issubclass(types, _classes.group_classes()):  # type: ignore[arg-type]
        return _CANNOT_CATCH_GROUP
    return None


def _given_matches(exc_type: type, types: object) -> bool:
    """PyErr_GivenExceptionMatches once the types are known to be valid."""
    if isinstance(types, tuple):
        for item in types:  # noqa: SIM110 - a loop is faster than any() over a generator
            if real_issubclass(item, exc_type):
                return True
        return False
    return real_issubclass(types, exc_type)  # type: ignore[arg-type]


class Star:
    """One executing ``try``/``except*`` statement.

    Created with what the body raised; ``match`` is then called for every
    clause in order, ``raised`` with whatever a matched clause's handler
    raised, and ``finish`` once at the end.
    """

    __slots__ = ("_orig", "_raised", "_rest")

    def __init__(self, exc: "Optional[BaseException]" = None) -> None:
        if exc is None:
            # The transformed statement passes nothing: an `except ... as name`
            # would cost one more of CPython's 20 nested blocks at every level.
            exc = sys.exc_info()[1]
        _classes.group_classes()  # notices a backport imported since the last statement
        self._orig: Optional[BaseException] = exc
        # What later clauses may still match: the naked exception itself until
        # a clause takes it (it is wrapped then, as CPython does).
        self._rest: Optional[BaseException] = exc
        self._raised: Optional[List[BaseException]] = None

    def match(self, types: object) -> "Optional[BaseException]":
        """Check the clause's ``types`` and take from what is left what they match.

        Raises CPython's TypeErrors for invalid ``types``, even when nothing is
        left.  A match becomes the handled exception and is returned (a naked
        exception is wrapped in a new ``ExceptionGroup('', (exc,))``; a group
        matched as a whole is returned as is); otherwise ``None``.
        """
        rest = self._rest
        if type(types) is type:
            # The common case, a plain class, checked and matched inline.
            if not real_issubclass(BaseException, types):
                raise TypeError(_CANNOT_CATCH)
            if issubclass(types, _classes.GROUPS):
                raise TypeError(_CANNOT_CATCH_GROUP)
            if rest is None:
                return None
            full = real_issubclass(types, type(rest))
        else:
            error = invalid_types_message(types)
            if error is not None:
                raise TypeError(error)
            if rest is None:
                return None
            full = _given_matches(type(rest), types)
        part: Optional[BaseException]
        if full:
            part = rest if isinstance(rest, _classes.GROUPS) else _wrap(rest)
            self._rest = None
        elif isinstance(rest, _classes.GROUPS):
            pair = rest.split(types)  # type: ignore[attr-defined]
            if type(pair) is not tuple:
                raise TypeError(
                    f"{type(rest).__name__}.split must return a tuple, not {type(pair).__name__}"
                )
            if len(pair) < 2:
                raise TypeError(
                    f"{type(rest).__name__}.split must return a 2-tuple, got tuple of size {len(pair)}"
                )
            part = pair[0]
            self._rest = pair[1]
            if part is None:
                return None
        else:
            return None
        set_handled(part)
        return part

    def raised(self, exc: BaseException) -> None:
        """Record what the handler of the last matched clause raised."""
        if self._raised is None:
            self._raised = [exc]
        else:
            self._raised.append(exc)

    def finish(self) -> "Optional[BaseException]":
        """What propagates (None: nothing), made the handled exception; the Star then holds nothing.

        The caller then runs a bare ``raise``, which re-raises it exactly (no
        traceback entry, no ``__context__``), as CPython's ``RERAISE`` does.
        """
        orig = self._orig
        rest = self._rest
        raised = self._raised
        self._orig = self._rest = self._raised = None
        result: Optional[BaseException]
        if not isinstance(orig, _classes.GROUPS):
            # A naked exception: at most one clause ran, so there is one candidate.
            result = raised[0] if raised else rest
        elif raised is None:
            result = None if rest is None else prep_reraise_star(orig, [rest])  # type: ignore[arg-type]
        else:
            raised.append(rest)  # type: ignore[arg-type]
            result = prep_reraise_star(orig, raised)  # type: ignore[arg-type]
        if result is not None:
            set_handled(result)
        return result


# --- what propagates ---------------------------------------------------------

def prep_reraise_star(
    orig: BaseException, excs: "List[Optional[BaseException]]"
) -> "Optional[BaseException]":
    """CPython's ``_PyExc_PrepReraiseStar``.

    ``orig`` is what the body raised; ``excs`` what each executed handler
    raised, in clause order, then what no clause matched (``None`` entries are
    skipped).  Handlers' re-raises (same traceback, cause and context objects
    as ``orig``) and the unmatched rest are merged back into ``orig``'s shape;
    anything else is new and goes first.  One result propagates as is, more
    are wrapped in a new group.
    """
    if not excs:
        return None
    if not isinstance(orig, _classes.GROUPS):
        return excs[0]
    tb = orig.__traceback__
    cause = orig.__cause__
    context = orig.__context__
    raised: List[BaseException] = []
    reraised: List[BaseException] = []
    for exc in excs:
        if exc is None:
            continue
        if exc.__traceback__ is tb and exc.__cause__ is cause and exc.__context__ is context:
            reraised.append(exc)
        else:
            raised.append(exc)
    projection = _project(orig, _leaf_ids(reraised)) if reraised else None
    if not raised:
        return projection
    if projection is not None:
        raised.append(projection)
    if len(raised) == 1:
        return raised[0]
    return _BaseExceptionGroup("", raised)


def _leaf_ids(excs: "List[BaseException]") -> "Set[int]":
    """The ids of the leaves (non-groups) of ``excs``, at any depth."""
    groups = _classes.GROUPS
    ids = set()
    todo = list(excs)
    while todo:
        exc = todo.pop()
        if isinstance(exc, groups):
            todo.extend(exc.exceptions)  # type: ignore[attr-defined]
        else:
            ids.add(id(exc))
    return ids


def _project(group: BaseException, leaf_ids: "Set[int]") -> "Optional[BaseException]":
    """The part of ``group`` whose leaves are in ``leaf_ids``, keeping its nesting.

    CPython's split by instance ids: groups are rebuilt with their own
    ``derive`` (never reused, even when every leaf is kept), innermost first,
    and given the original's metadata.
    """
    kept = []
    for member in group.exceptions:  # type: ignore[attr-defined]
        if id(member) in leaf_ids:
            kept.append(member)
        elif isinstance(member, _classes.GROUPS):
            part = _project(member, leaf_ids)  # type: ignore[arg-type]
            if part is not None:
                kept.append(part)
    return subset(group, kept, None, _classes.GROUPS)
