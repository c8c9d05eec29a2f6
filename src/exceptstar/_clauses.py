"""What an ``except*`` clause's types are, for the engine and ``catch()``.

CPython's check of them (``_PyEval_CheckExceptStarTypeValid``: ``invalid_types_message`` and its two
messages), ``given_matches`` (``PyErr_GivenExceptionMatches`` once they are valid), ``PLAIN``: the
classes that need neither call, and ``MATCHED_BY``: the built-in classes each of those matches.
"""

import builtins

from exceptstar import _classes
from exceptstar._groups import BaseExceptionGroup, ExceptionGroup
from exceptstar._rules import real_issubclass
from exceptstar._split import _BUILTIN_EXCEPTIONS

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, FrozenSet, Optional, Tuple

CANNOT_CATCH = "catching classes that do not inherit from BaseException is not allowed"
CANNOT_CATCH_GROUP = "catching ExceptionGroup with except* is not allowed. Use except instead."

# The built-in Exception classes that are no group class and of which no group is an instance: valid clauses
# (their bases cannot change), matching a group by its members only.
_GROUPS = (BaseExceptionGroup, ExceptionGroup, *(getattr(builtins, name) for name in (
    "BaseExceptionGroup", "ExceptionGroup") if hasattr(builtins, name)))
PLAIN = frozenset(cls for cls in _BUILTIN_EXCEPTIONS if not any(
    issubclass(cls, group) or issubclass(group, cls) for group in _GROUPS))



# For a class of ``PLAIN``, the built-in classes that it matches (fixed, as the bases of built-in classes are):
# the engine splits a flat group's member types by two set operations, with no call per type.  A plain dict read
# with get(), each entry made by ``matched_by`` on first use: a subclass of dict with ``__missing__`` would look
# up ``__getitem__`` by name at every subscript (CPython gives dict subclasses the generic slot).
MATCHED_BY: "Dict[type, FrozenSet[type]]" = {}


def matched_by(cls: type) -> "FrozenSet[type]":
    """``MATCHED_BY[cls]``, worked out and kept on first use (never empty: ``cls`` is one of them)."""
    matched = MATCHED_BY[cls] = frozenset(filter(cls.__subclasscheck__, _BUILTIN_EXCEPTIONS))
    return matched


def invalid_types_message(types: object) -> "Optional[str]":
    """CPython's _PyEval_CheckExceptStarTypeValid: the TypeError's message, or None if valid."""
    if real_issubclass(tuple, type(types)):  # PyTuple_Check: the real type, whatever __class__ says
        items = _tuple_items(types)  # type: ignore[arg-type]
        for item in items:
            if not (real_issubclass(type, type(item)) and real_issubclass(BaseException, item)):
                return CANNOT_CATCH
        groups = _classes.group_classes()
        for item in items:
            if issubclass(item, groups):
                return CANNOT_CATCH_GROUP
        return None
    if not (real_issubclass(type, type(types)) and real_issubclass(BaseException, types)):  # type: ignore[arg-type]
        return CANNOT_CATCH
    if issubclass(types, _classes.group_classes()):  # type: ignore[arg-type]
        return CANNOT_CATCH_GROUP
    return None


def _tuple_items(types: "Tuple[Any, ...]") -> "Tuple[Any, ...]":
    """The items C reads from a tuple, whatever ``__iter__`` a subclass of tuple gives."""
    return types if type(types) is tuple else tuple(tuple.__iter__(types))


def given_matches(exc_type: type, types: object) -> bool:
    """PyErr_GivenExceptionMatches once the types are known to be valid."""
    if real_issubclass(tuple, type(types)):
        for item in _tuple_items(types):  # type: ignore[arg-type]  # noqa: SIM110 - faster than any()
            if real_issubclass(item, exc_type):
                return True
        return False
    return real_issubclass(types, exc_type)  # type: ignore[arg-type]
