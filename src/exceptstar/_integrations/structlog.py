"""structlog on 3.8-3.10: dict tracebacks of a group have ``is_group`` and ``exceptions``, as on 3.11+.

``structlog.tracebacks.extract`` (behind ``ExceptionDictTransformer`` and
``dict_tracebacks``) descends into a group's members only under
``sys.version_info >= (3, 11)``, then names the built-in ``BaseExceptionGroup``
and ``ExceptionGroup``, which ``import exceptstar`` binds in ``builtins`` on
3.8-3.10.  The module reads ``sys`` for that test alone, so this module (its
row in ``_watch.ON_IMPORT``) gives ``structlog.tracebacks`` a ``sys`` of its
own that answers 3.11's version and forwards everything else.  Only where
the built-in names are there (not under ``EXCEPTSTAR_NO_BUILTINS=1``).
``ConsoleRenderer`` prints through rich or ``traceback``, which exceptstar
adapts already.  ``EXCEPTSTAR_NO_STRUCTLOG=1`` turns it off.
"""

import builtins
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType


class _Sys:
    """``sys`` as a module that knows exception groups sees it on 3.11."""

    version_info = (3, 11, 0, "final", 0)

    def __getattr__(self, name: str) -> object:
        return getattr(sys, name)


def _patch_tracebacks(tracebacks: "ModuleType") -> None:
    if vars(tracebacks).get("sys") is sys and hasattr(builtins, "BaseExceptionGroup"):
        tracebacks.sys = _Sys()  # type: ignore[attr-defined]


def patch(structlog: "ModuleType") -> None:
    """Open structlog's group branch when its tracebacks module is loaded."""
    from exceptstar._watch import when_imported

    when_imported("structlog.tracebacks", _patch_tracebacks)


__all__ = ["patch"]
