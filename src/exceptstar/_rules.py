"""The small checks of CPython's C API that every part of exceptstar applies.

Each mirrors one C macro or function, so that the group classes, the
``except*`` engine and ``catch()`` accept and refuse exactly what the
interpreter does; they live here once so that they cannot drift apart.
"""

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
