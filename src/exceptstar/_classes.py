"""Which exception group classes this process uses, and which classes count as groups.

The built-in classes on 3.11+, the pure-Python ones from ``_groups`` on
3.8-3.10, or everywhere when ``EXCEPTSTAR_PURE=1`` (``PURE``): that switch is
how the tests compare the two on one interpreter and how the benchmarks
measure them, and it also turns the ``except*`` transformation on.  Every
other module takes the classes and the switch from here, so the choice is made
once.

``group_classes()`` is the one answer to "is this an exception group?" for
everything that handles groups from elsewhere (the engine, ``suppress``, the
formatter, the printing hooks).
"""

import os
import sys

PURE = sys.version_info < (3, 11) or os.environ.get("EXCEPTSTAR_PURE", "") not in ("", "0")

TYPE_CHECKING = False

# Type checkers see generic classes on every target: the built-ins on 3.11+
# (EXCEPTSTAR_PURE=1, the tests' switch, is invisible to them), typed
# declarations of the pure classes below.
if sys.version_info < (3, 11):
    if TYPE_CHECKING:  # pragma: no cover
        # For type checkers the classes are generic, typed as the built-ins
        # are, and named as on 3.11+ (aliases, which checkers print by name).
        from exceptstar import _group_types

        BaseExceptionGroup = _group_types.BaseExceptionGroup
        ExceptionGroup = _group_types.ExceptionGroup
    else:
        from exceptstar._groups import BaseExceptionGroup, ExceptionGroup
elif TYPE_CHECKING or not PURE:
    import builtins

    BaseExceptionGroup = builtins.BaseExceptionGroup
    ExceptionGroup = builtins.ExceptionGroup
else:
    from exceptstar._groups import BaseExceptionGroup, ExceptionGroup  # type: ignore[assignment]

if TYPE_CHECKING:  # pragma: no cover
    from typing import List, Tuple

# The backport's defining module: its class is the one to adopt (see _backport_class).
BACKPORT_MODULE = "exceptiongroup._exceptions"
# Bound once: every except* statement reads it (a global, not an attribute of sys).
_modules = sys.modules


def _backport_class() -> object:
    """The class that the ``exceptiongroup`` backport defined, once it has been imported.

    Taken from the module that defines it: on 3.8-3.10 ``_integrations.backport`` rebinds
    the backport's public names to our classes, and the groups it created
    before that are still groups.  (On 3.11+ that module is not imported and
    the backport's names are the built-ins.)
    """
    return getattr(_modules.get(BACKPORT_MODULE), "BaseExceptionGroup", None)


def _find_group_classes() -> "Tuple[type, ...]":
    """The active class; the built-in one when the pure classes are forced on
    3.11+; and the ``exceptiongroup`` backport's own, once it has been imported."""
    classes: List[type] = [BaseExceptionGroup]
    native = getattr(sys.modules["builtins"], "BaseExceptionGroup", None)
    if isinstance(native, type):
        classes.append(native)
    for backport in (_backport_class(), getattr(sys.modules.get("exceptiongroup"), "BaseExceptionGroup", None)):
        if isinstance(backport, type):
            classes.append(backport)
    return tuple(dict.fromkeys(classes))


# GROUPS is recomputed when the backport's class appears or changes;
# _seen_backport is the class it was computed for.  Hot paths call
# group_classes() once and then use GROUPS.
GROUPS = _find_group_classes()
_seen_backport = _backport_class()


def group_classes() -> "Tuple[type, ...]":
    """Every class whose instances are exception groups here (``GROUPS``, kept current)."""
    global GROUPS, _seen_backport
    # _backport_class() inline: the engine asks at every statement.  Without the
    # backport a test of the modules' dict, which calls nothing, is the whole check.
    if BACKPORT_MODULE not in _modules:
        if _seen_backport is None:
            return GROUPS
        backport = None
    else:
        # get, not [ ]: another thread may have removed it since
        backport = getattr(_modules.get(BACKPORT_MODULE), "BaseExceptionGroup", None)
    if backport is not _seen_backport:
        _seen_backport = backport
        GROUPS = _find_group_classes()
    return GROUPS


__all__ = ["GROUPS", "PURE", "BaseExceptionGroup", "ExceptionGroup", "group_classes"]


def provide_classes() -> None:
    """Bind the built-in names ``ExceptionGroup`` and ``BaseExceptionGroup`` to the classes, before 3.11.

    The classes say they live in ``builtins`` (``__module__``, so that tracebacks
    print ``ExceptionGroup``), and whatever looks a class up by that name, as
    pickle does for ``pickle.dumps(ExceptionGroup)`` (multiprocessing, copy),
    must find them there.  Run by ``import exceptstar``; ``_py311.provide()``
    gives the rest of 3.11's names.

    Names already there (someone else's) are left alone; nothing under
    ``EXCEPTSTAR_NO_BUILTINS=1``.
    """
    if sys.version_info >= (3, 11) or os.environ.get("EXCEPTSTAR_NO_BUILTINS", "") not in ("", "0"):
        return
    import builtins

    for name in ("ExceptionGroup", "BaseExceptionGroup"):
        if not hasattr(builtins, name):
            setattr(builtins, name, globals()[name])
