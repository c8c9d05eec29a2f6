"""The run-time namespace of transformed code: the builtin name ``__exceptstar__``.

Transformed code reaches everything it calls through that one name, set as a
builtin when this module is imported (every path that produces transformed
code imports it first).  A builtin rather than an injected import, so that
transformed code also works when it is executed with arbitrary globals
(``exec(code, {})``, separate locals, a REPL namespace).  See ``rewrite`` for
the code that uses it.
"""

import builtins
import sys

from exceptstar import _classes
from exceptstar._engine import Star as Star  # what transformed code calls: __exceptstar__.Star
from exceptstar._interrupted import interrupted as interrupted  # and __exceptstar__.interrupted
from exceptstar._notes import add_note, add_note_default

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Callable

# Looked up here rather than as a plain name so that a module rebinding
# ``BaseException`` cannot change what the generated handlers catch.
BaseException = builtins.BaseException
ExceptionGroup = _classes.ExceptionGroup
BaseExceptionGroup = _classes.BaseExceptionGroup


def note_method(obj: object) -> "Callable[..., None]":
    """``obj.add_note`` as 3.11+ resolves it (3.8-3.10: BaseException lacks the method).

    Where the lookup would have reached ``BaseException``: an exception, a
    ``super()`` proxy past the exception's own overrides, or an exception class
    (``BaseException.add_note(exc, note)``).
    """
    try:
        return obj.add_note  # type: ignore[attr-defined,no-any-return]
    except AttributeError:
        if isinstance(obj, BaseException):
            return add_note.__get__(obj)  # type: ignore[no-any-return]
        instance = getattr(obj, "__self__", None) if isinstance(obj, super) else None
        if isinstance(instance, BaseException):
            return add_note_default.__get__(instance)  # type: ignore[no-any-return]
        if isinstance(obj, type) and issubclass(obj, BaseException):
            return add_note_default
        raise


def provide_group_names() -> None:
    """Give the calling module ``ExceptionGroup`` and ``BaseExceptionGroup``, as 3.11's builtins.

    Only names it does not have yet: its own bindings, made when they run,
    replace these, as they would shadow the builtins.
    """
    module_globals = sys._getframe(1).f_globals
    module_globals.setdefault("ExceptionGroup", ExceptionGroup)
    module_globals.setdefault("BaseExceptionGroup", BaseExceptionGroup)


class Anchor:
    """How transformed code finds this module when its builtins are not the interpreter's.

    ``exec(code, {"__builtins__": {...}})`` gives the code a builtins dict
    without ``__exceptstar__`` (nor ``__import__``).  A transformed module then
    binds the name in its own globals from ``Anchor.runtime``, reached through
    ``().__class__.__base__.__subclasses__()``: the one route to an object of
    ours that needs no name at all (see ``rewrite``).
    """

    runtime = sys.modules[__name__]


builtins.__exceptstar__ = sys.modules[__name__]  # type: ignore[attr-defined]
