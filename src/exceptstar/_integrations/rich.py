"""rich on 3.8-3.10: a group's traceback shows every member in its panels, as on 3.11+.

``rich.traceback.Traceback.extract`` (behind ``Traceback``,
``traceback.install()`` and ``RichHandler(rich_tracebacks=True)``) fills a
stack's ``is_group`` and ``exceptions`` only under ``sys.version_info >= (3,
11)``, and reads the same version for column positions that 3.8-3.10 do not
have.  This module (its row in ``_watch.ON_IMPORT``) wraps ``extract``: the
original builds the stacks of the exception's chain, then each stack whose
exception is a group gets its members as rich's 3.11 branch makes them (the
same options passed on; where rich's own ``extract`` takes
``_visited_exceptions`` (15.0, not 14.0), a member already shown skipped, depth
first, and no cause or context followed once a member has been seen).  So what rich does on
3.11+ too is kept: a group's ``__cause__``/``__context__`` is not shown, and
the top exception's notes stand on every stack.
``EXCEPTSTAR_NO_RICH=1`` turns it off.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType
    from typing import Any, Iterator, Optional, Set, Type

# The options rich's 3.11 branch hands on to a member's extract (not the others: rich's choice).
_MEMBER_OPTIONS = ("show_locals", "locals_max_length", "locals_hide_dunder", "locals_hide_sunder")


def _chain(exc: "Any") -> "Iterator[Any]":
    """The exceptions of rich's stacks, in its order: each, then its cause or shown context."""
    while True:
        yield exc
        cause = getattr(exc, "__cause__", None)
        if cause is not None and cause is not exc:
            exc = cause
            continue
        cause = exc.__context__
        if cause is not None and not getattr(exc, "__suppress_context__", False):
            exc = cause
            continue
        return


def _patch_traceback(module: "ModuleType") -> None:
    from exceptstar._classes import group_classes

    owner: Any = module.Traceback
    original = vars(owner)["extract"].__func__
    # Later rich (15.0) keeps a set of the members already shown and stops at a group's cause or
    # context; rich 14.0, the first with groups, shows every member and follows the whole chain.
    visits = "_visited_exceptions" in original.__code__.co_varnames

    def extract(cls: "Type[Any]", /, exc_type: "Any", exc_value: "Any", traceback: "Any", *,
                _visited_exceptions: "Optional[Set[BaseException]]" = None, **options: "Any") -> "Any":
        grouped = set() if _visited_exceptions is None else _visited_exceptions
        if visits:
            options["_visited_exceptions"] = grouped
        trace = original(cls, exc_type, exc_value, traceback, **options)
        passed = {name: options[name] for name in _MEMBER_OPTIONS if name in options}
        groups = group_classes()
        kept = []
        for stack, exc in zip(trace.stacks, _chain(exc_value)):
            kept.append(stack)
            if isinstance(exc, groups) and not stack.is_group:
                stack.is_group = True
                group: Any = exc
                for member in group.exceptions:
                    if visits:
                        if member in grouped:
                            continue
                        grouped.add(member)
                        passed["_visited_exceptions"] = grouped
                    stack.exceptions.append(cls.extract(type(member), member, member.__traceback__, **passed))
            if visits and grouped:
                break
        trace.stacks[:] = kept
        return trace

    extract.__doc__ = original.__doc__
    owner.extract = classmethod(extract)


def patch(rich: "ModuleType") -> None:
    """Wrap rich's traceback extraction once ``rich.traceback`` is loaded."""
    from exceptstar._watch import when_imported

    when_imported("rich.traceback", _patch_traceback)


__all__ = ["patch"]
