"""The small checks of CPython's C API that every part of exceptstar applies.

Each mirrors one C macro or function, so that the group classes, the
``except*`` engine and ``catch()`` accept and refuse exactly what the
interpreter does; they live here once so that they cannot drift apart.
That includes what a ``split``/``subgroup`` condition means (CPython's
``get_matcher_type``): an exception type, a tuple of them, or a callable that
is not a class, anything else the TypeError every group method raises.  A type
condition becomes a ``TypeMatcher``, a tuple of its classes that the split walk
also reads itself, to match each distinct member type once (most groups hold few).
``PySequence_Check`` is CPython's own, through ctypes, bound on first use.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Callable, Tuple

    Matcher = Callable[[BaseException], bool]
    _Types = Tuple[type, ...]
else:
    _Types = tuple

# type.__subclasscheck__ is the real MRO test: CPython matches exception types
# with PyType_IsSubtype, ignoring any metaclass __subclasscheck__.
real_issubclass = type.__subclasscheck__

class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        # help() and inspect show it as the default of BaseExceptionGroup.__new__'s two arguments.
        return "<not given>"


# For attributes that may be missing where None is a valid value (``__notes__``), and arguments not given.
MISSING: object = _Missing()


def is_exception_class(value: object) -> bool:
    """PyExceptionClass_Check: a real type (not something claiming to be one) deriving from BaseException."""
    return real_issubclass(type, type(value)) and real_issubclass(BaseException, value)  # type: ignore[arg-type]


def is_sequence(value: object) -> bool:
    """PySequence_Check: not a dict by its real type, and a type that fills the sequence item slot.

    That slot cannot be seen from Python: a C type's ``__getitem__`` may fill the
    mapping slot alone (``mappingproxy``'s does).  So beyond lists and tuples
    CPython's own function answers, bound on first use.  PyPy has no C API to
    call, nor the two slots: there a ``__getitem__`` makes a sequence but for
    ``mappingproxy``'s (a ``re.Match``, a mapping alone in CPython, is one there).
    """
    cls = type(value)
    if cls is list or cls is tuple:
        return True
    if real_issubclass(dict, cls):
        return False
    return bool(_sequence_check(value))


def _bind_on_first_use(value: object) -> int:
    """``_sequence_check`` until its first call, which binds the check and puts it in its place."""
    global _sequence_check
    if _sequence_check is _bind_on_first_use:
        if sys.implementation.name == "pypy":
            _sequence_check = _has_getitem
        else:
            from exceptstar._handled import untraced

            _sequence_check = untraced(_c_sequence_check)
    return _sequence_check(value)


def _c_sequence_check() -> "Callable[[object], int]":
    import ctypes

    check = ctypes.pythonapi["PySequence_Check"]  # ours: argtypes set elsewhere stay theirs
    check.argtypes = (ctypes.py_object,)
    check.restype = ctypes.c_int
    return check


def _has_getitem(value: object) -> int:
    cls = type(value)
    return cls is not _MAPPINGPROXY and hasattr(cls, "__getitem__")


_MAPPINGPROXY = type(type.__dict__)


# A type comment, not an annotation: PyPy 3.9 refuses an annotated name that a function declares global.
_sequence_check = _bind_on_first_use  # type: Callable[[object], int]


def type_name(cls: type) -> str:
    """_PyType_GetFullyQualifiedName: the qualified name, after its module unless that is builtins or __main__."""
    module = cls.__module__
    if real_issubclass(str, type(module)) and module not in ("builtins", "__main__"):
        return f"{module}.{cls.__qualname__}"
    return cls.__qualname__


def repr_of(value: object) -> str:
    """PyObject_Repr, with 3.15's error for a ``__repr__`` that returns no str (on every version)."""
    result = type(value).__repr__(value)
    if not real_issubclass(str, type(result)):
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
    return TypeMatcher(types)


class TypeMatcher(_Types):
    """A type condition's classes, matched by the real type (PyType_IsSubtype), as C matches them.

    A tuple, so that C makes one (the engine makes one per clause) without a frame of ours.  Nothing is
    remembered between calls: asking a class is one C call, no dearer than looking an answer up.
    """

    __slots__ = ()

    def __call__(self, exc: BaseException) -> bool:
        exc_type = type(exc)
        for t in self:  # a loop: no generator frame
            if real_issubclass(t, exc_type):
                break
        else:
            return False
        return True
