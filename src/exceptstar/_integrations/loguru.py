"""loguru on 3.8-3.10: ``logger.exception`` and ``opt(exception=...)`` show a group's members, as on 3.11+.

loguru decides with ``is_exception_group`` in ``loguru._better_exceptions``:
``isinstance(exc, ExceptionGroup)`` with the built-in class on 3.11+, and on
3.8-3.10 with the backport's class if it could import it, else never.  With
the backport installed exceptstar's adoption already makes that our class;
without it, this module (its row in ``_watch.ON_IMPORT``, run when loguru is
imported) gives loguru 3.11's test: an ``ExceptionGroup`` of any family
(ours, the backport's), a ``BaseExceptionGroup`` that is not an
``Exception`` not expanded, as loguru does natively.
``EXCEPTSTAR_NO_LOGURU=1`` turns it off.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType


def _is_exception_group(exc: object) -> bool:
    from exceptstar._classes import group_classes

    # 3.11's ExceptionGroup is exactly a BaseExceptionGroup that is an Exception.
    return isinstance(exc, group_classes()) and isinstance(exc, Exception)


def _patch_formatter(module: "ModuleType") -> None:
    module.is_exception_group = _is_exception_group  # type: ignore[attr-defined]


def patch(loguru: "ModuleType") -> None:
    """Give loguru's formatter 3.11's test for a group (its package has just been imported)."""
    from exceptstar._watch import when_imported

    when_imported("loguru._better_exceptions", _patch_formatter)


__all__ = ["patch"]
