"""sentry-sdk on 3.8-3.10: an event carries every exception of a group, as on 3.11+.

``sentry_sdk.utils`` reads ``builtins.BaseExceptionGroup`` once, when it is
imported, and treats every exception as a plain one when the name is absent
(sentry-sdk 3 still lists a group's members then, but marks no group).
``import exceptstar`` binds that name (``_classes.provide_classes``), so
sentry-sdk imported afterwards already finds our class; imported before, it
holds None.  This module (its row in ``_watch.ON_IMPORT``) gives it the class
then, so ``capture_exception``, the logging integration and the excepthook
build 3.11's event: one entry per exception, ``mechanism.is_exception_group``,
``parent_id``, ``source``.  ``EXCEPTSTAR_NO_SENTRY=1`` turns it off.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType


def _patch_utils(utils: "ModuleType") -> None:
    if getattr(utils, "BaseExceptionGroup", None) is None:
        from exceptstar._classes import BaseExceptionGroup

        utils.BaseExceptionGroup = BaseExceptionGroup  # type: ignore[attr-defined]


def patch(sentry_sdk: "ModuleType") -> None:
    """Give ``sentry_sdk.utils`` the group class it looked for at its import."""
    from exceptstar._watch import when_imported

    when_imported("sentry_sdk.utils", _patch_utils)


__all__ = ["patch"]
