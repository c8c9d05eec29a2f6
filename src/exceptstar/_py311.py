"""3.11's names on 3.8-3.10, so that code written for 3.11 runs unchanged in every module.

On 3.11 every module, transformed or not, has the built-in names
``ExceptionGroup`` and ``BaseExceptionGroup``, ``exc.add_note(...)`` on every
exception and ``sys.exception()``; the module that raises a group is often not
the one that catches it.  ``provide()`` gives the same names on 3.8-3.10.  It
is run by a global ``install()`` (and so by ``python -m exceptstar run``) and
by the pytest plugin.  A plain ``import exceptstar`` binds the two classes only
(``_classes.provide_classes()``).

``add_note`` has to go into ``BaseException``'s own namespace, which Python
code cannot write: the dict behind the type's mapping proxy is written
directly, and the interpreter's attribute cache is then cleared
(``sys._clear_type_cache``: ``PyType_Modified`` of ``object``, so of every
type, as ``type.__setattr__`` does for one class and its subclasses), which
forgets any lookup of ``add_note`` made before.  Not ``ctypes``' call of
``PyType_Modified(BaseException)``: importing ctypes costs a process start
about 2 ms.  Only a new key is added, a plain function that the dict owns one
reference to, so no existing slot, method or subclass changes.

``EXCEPTSTAR_NO_BUILTINS=1`` turns it all off.
"""

import os
import sys

from exceptstar import _classes
from exceptstar._notes import add_note_default

_DISABLED = os.environ.get("EXCEPTSTAR_NO_BUILTINS", "") not in ("", "0")


def add_note(self: BaseException, note: str) -> None:
    """Add a note to the exception"""
    if not isinstance(self, BaseException):
        # What the method descriptor of 3.11+ says.
        raise TypeError("descriptor 'add_note' for 'BaseException' objects doesn't apply to a "
                        f"'{type(self).__name__}' object")
    add_note_default(self, note)


add_note.__qualname__ = "BaseException.add_note"


def exception() -> "BaseException | None":
    """Return the current exception."""
    # A plain function call pushes no exception state: this is the caller's.
    return sys.exc_info()[1]


def _add_to_builtin_type(cls: type, name: str, value: object) -> None:
    import gc

    (namespace,) = gc.get_referents(cls.__dict__)
    namespace[name] = value
    sys._clear_type_cache()


def provide() -> None:
    """Give this process 3.11's ``ExceptionGroup``, ``BaseExceptionGroup``, ``add_note`` and ``sys.exception``.

    Does nothing on 3.11+ and under ``EXCEPTSTAR_NO_BUILTINS=1``; names that
    are already there (someone else's) are left alone.
    """
    if _DISABLED or sys.version_info >= (3, 11):
        return
    _classes.provide_classes()
    if not hasattr(sys, "exception"):
        sys.exception = exception  # type: ignore[attr-defined]
    # PyPy's built-in types take no new attribute, by any route: there ``exceptstar.add_note``
    # is the way (docs/explanation/differences.md).
    if "add_note" not in vars(BaseException) and sys.implementation.name != "pypy":
        _add_to_builtin_type(BaseException, "add_note", add_note)


__all__ = ["add_note", "exception", "provide"]
