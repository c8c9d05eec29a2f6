"""What an ``except*`` statement propagates: CPython's ``_PyExc_PrepReraiseStar``, for the engine."""

from exceptstar import _classes
from exceptstar._split import MAX_DEPTH, SPLIT_TOO_DEEP, subset

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Iterator, List, Optional, Set, Tuple

_BaseExceptionGroup = _classes.BaseExceptionGroup


def prep_reraise_star(
    orig: BaseException, excs: "List[Optional[BaseException]]"
) -> "Optional[BaseException]":
    """CPython's ``_PyExc_PrepReraiseStar``.

    ``orig`` is what the body raised; ``excs`` what each executed handler
    raised, in clause order, then what no clause matched (``None`` entries are
    skipped).  Handlers' re-raises (same traceback, cause and context objects
    as ``orig``) and the unmatched rest are merged back into ``orig``'s shape;
    anything else is new and goes first.  One result propagates as is, more
    are wrapped in a new group.
    """
    if not excs:
        return None
    if not isinstance(orig, _classes.GROUPS):
        return excs[0]
    tb = orig.__traceback__
    cause = orig.__cause__
    context = orig.__context__
    raised: List[BaseException] = []
    reraised: List[BaseException] = []
    for exc in excs:
        if exc is None:
            continue
        if exc.__traceback__ is tb and exc.__cause__ is cause and exc.__context__ is context:
            reraised.append(exc)
        else:
            raised.append(exc)
    projection = _project(orig, _leaf_ids(reraised)) if reraised else None
    if not raised:
        return projection
    if projection is not None:
        raised.append(projection)
    if len(raised) == 1:
        return raised[0]
    return _BaseExceptionGroup("", raised)


def _leaf_ids(excs: "List[BaseException]") -> "Set[int]":
    """The ids of the leaves (non-groups) of ``excs``, at any depth."""
    groups = _classes.GROUPS
    ids = set()
    todo = list(excs)
    while todo:
        exc = todo.pop()
        if isinstance(exc, groups):
            todo.extend(exc.exceptions)  # type: ignore[attr-defined]
        else:
            ids.add(id(exc))
    return ids


def _project(group: BaseException, leaf_ids: "Set[int]") -> "Optional[BaseException]":
    """The part of ``group`` whose leaves are in ``leaf_ids``, keeping its nesting.

    CPython's split by instance ids: groups are rebuilt with their own
    ``derive`` (never reused, even when every leaf is kept), innermost first,
    and given the original's metadata.  A loop over an explicit stack, not
    recursion: C nests groups as deep as memory allows.
    """
    groups = _classes.GROUPS
    # One entry per group being walked: the group, its remaining members, what is kept of it.
    stack: List[Tuple[BaseException, Iterator[BaseException], List[BaseException]]] = [
        (group, iter(group.exceptions), [])  # type: ignore[attr-defined]
    ]
    part: Optional[BaseException] = None
    while stack:
        node, members, kept = stack[-1]
        for member in members:
            if id(member) in leaf_ids:
                kept.append(member)
            elif isinstance(member, groups):
                if len(stack) >= MAX_DEPTH:  # C projects with the same recursion as it splits
                    raise RecursionError(SPLIT_TOO_DEEP)
                stack.append((member, iter(member.exceptions), []))  # type: ignore[attr-defined]
                break
        else:
            stack.pop()
            part = subset(node, kept, None, groups)
            if stack and part is not None:
                stack[-1][2].append(part)
    return part
