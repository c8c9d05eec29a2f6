"""The small checks of CPython's C API that every part of exceptstar applies.

Each mirrors one C macro or function, so that the group classes, the
``except*`` engine and ``catch()`` accept and refuse exactly what the
interpreter does; they live here once so that they cannot drift apart.
That includes what a ``split``/``subgroup`` condition means (CPython's
``get_matcher_type``): an exception type, a tuple of them, or a callable that
is not a class, anything else the TypeError every group method raises.  A type
condition becomes a ``TypeMatcher``, which the split walk can also ask about a
whole set of member types at once (most groups hold few distinct types).
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Callable, Dict, Set, Tuple

    Matcher = Callable[[BaseException], bool]

# type.__subclasscheck__ is the real MRO test: CPython matches exception types
# with PyType_IsSubtype, ignoring any metaclass __subclasscheck__.
real_issubclass = type.__subclasscheck__

# For attributes that may be missing where None is a valid value (``__notes__``).
MISSING = object()


def is_exception_class(value: object) -> bool:
    """PyExceptionClass_Check: a real type (not something claiming to be one) deriving from BaseException."""
    return real_issubclass(type, type(value)) and real_issubclass(BaseException, value)  # type: ignore[arg-type]


def is_sequence(value: object) -> bool:
    """PySequence_Check: a ``__getitem__`` slot, and not a dict."""
    return not isinstance(value, dict) and hasattr(type(value), "__getitem__")


def type_name(cls: type) -> str:
    """_PyType_GetFullyQualifiedName: the qualified name, after its module unless that is builtins or __main__."""
    module = cls.__module__
    if isinstance(module, str) and module not in ("builtins", "__main__"):
        return f"{module}.{cls.__qualname__}"
    return cls.__qualname__


def repr_of(value: object) -> str:
    """PyObject_Repr, with 3.15's error for a ``__repr__`` that returns no str (on every version)."""
    result = type(value).__repr__(value)
    if not isinstance(result, str):
        raise TypeError(f"{type_name(type(value))}.__repr__() must return a str, not {type_name(type(result))}")
    return result


ERROR_CONDITION = "expected an exception type, a tuple of exception types, or a callable (other than a class)"


def matcher_of(condition: object) -> "Matcher":
    """Turn a split condition into a test of one node (get_matcher_type in CPython)."""
    if callable(condition) and not real_issubclass(type, type(condition)):
        return lambda exc: bool(condition(exc))
    if is_exception_class(condition):
        types: Tuple[type, ...] = (condition,)  # type: ignore[assignment]
    elif type(condition) is tuple and all(map(is_exception_class, condition)):
        types = condition
    else:
        raise TypeError(ERROR_CONDITION)
    # A matcher per call: remembering answers across splits would hold classes
    # alive and go stale if a class's __bases__ were reassigned.
    return TypeMatcher(types)


class TypeMatcher:
    """Matches by the real type, remembering the answer per type (there are few)."""

    __slots__ = ("cache", "types")

    def __init__(self, types: "Tuple[type, ...]") -> None:
        self.types = types
        self.cache: Dict[type, bool] = {}

    def __call__(self, exc: BaseException) -> bool:
        return self.type_matches(type(exc))

    def type_matches(self, exc_type: type) -> bool:
        matched = self.cache.get(exc_type)
        if matched is None:
            matched = False
            for t in self.types:
                if real_issubclass(t, exc_type):
                    matched = True
                    break
            self.cache[exc_type] = matched
        return matched

    def matching_types(self, member_types: "Set[type]") -> "Set[type]":
        matching = set()
        for t in member_types:  # a loop: no comprehension frame on this hot path
            if self.type_matches(t):
                matching.add(t)
        return matching
