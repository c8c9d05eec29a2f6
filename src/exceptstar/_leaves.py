"""``leaf_exceptions()``: every leaf of an exception group, with its whole traceback.

A leaf's own ``__traceback__`` runs from where it was raised to where it
was caught; the frames above hang on each group that encloses it.
``leaf_exceptions`` joins them into one traceback per leaf, made of new
``types.TracebackType`` entries, so that no exception changes.  (``collapse``,
in ``_collapse``, raises the one real error of a group with that traceback.)

It takes any group: ours, the built-in ones, the ``exceptiongroup``
backport's (``_classes.group_classes()``).  Walks are loops, not
recursion, as every walk over groups in the core.
"""

import sys
from itertools import repeat
from types import TracebackType

from exceptstar._classes import group_classes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import FrameType
    from typing import Iterator, List, Optional, Sequence, Set, Tuple, TypeVar

    from exceptstar._classes import BaseExceptionGroup

    _E = TypeVar("_E", bound=BaseException)
    _Leaf = Tuple[BaseException, Optional[TracebackType]]
    # TracebackType's arguments after tb_next for the entries above a leaf, the innermost first.
    _Arguments = List[Tuple[FrameType, int, int]]

# typing.overload for type checkers; at run time (no ``typing`` import) the last
# definition is the function.  In this order linters see typing's decorator.
if not TYPE_CHECKING:
    def overload(func: object) -> object:
        return func
else:  # pragma: no cover
    from typing import overload


_PYPY = sys.implementation.name == "pypy"

def _arguments(tb: "Optional[TracebackType]", outer: "_Arguments") -> "_Arguments":
    """``TracebackType``'s arguments after ``tb_next`` for each entry of ``tb``, the last first, then ``outer``'s."""
    arguments: _Arguments = []
    while tb is not None:
        lineno = tb.tb_lineno
        # 3.11+ reads None where no line is known; -1 asks it to compute the line again.
        arguments.append((tb.tb_frame, tb.tb_lasti, -1 if lineno is None else lineno))
        tb = tb.tb_next
    arguments.reverse()
    arguments += outer
    return arguments


@overload
def leaf_exceptions(group: "BaseExceptionGroup[_E]") -> "List[Tuple[_E, Optional[TracebackType]]]": ...
@overload
def leaf_exceptions(group: "_E") -> "List[Tuple[_E, Optional[TracebackType]]]": ...
def leaf_exceptions(group: BaseException) -> "List[_Leaf]":  # type: ignore[misc]
    """Every leaf exception of ``group``, depth first, each with its whole traceback.

    A leaf's traceback runs from the first frame of the outermost group's
    traceback, through those of every group that encloses the leaf, to the
    leaf's own frames: what the interpreter shows above and at the leaf when
    it prints the group.  It is made of new traceback entries (the leaf's own
    chain is shared as its tail): no exception, no traceback changes, so
    ``traceback.print_exception(type(leaf), leaf, tb)``, ``pdb.post_mortem(tb)``
    and ``logging``'s ``exc_info=(type(leaf), leaf, tb)`` take it as it is.
    A group without a traceback (never raised) adds no frames; a leaf whose
    groups and itself have none gets None.

    Each exception is taken once, by identity, where the walk first meets
    it: a subgroup or a leaf that appears twice in the tree (the same
    object) is walked or reported once.  ``group`` itself may be a plain
    exception: ``[(group, group.__traceback__)]``.

    This is PEP 785's ``BaseExceptionGroup.leaf_exceptions()`` as its open
    revision (python/peps PR #4568) proposes it, where the draft and the
    revision disagree: the draft returns the leaves alone and, by default
    (``fix_tracebacks=True``), replaces each leaf's ``__traceback__`` with the
    composite one; the revision, followed here, returns ``(exception,
    traceback)`` pairs, changes nothing, and processes each sub-exception once.
    """
    classes = group_classes()
    if not isinstance(group, classes):
        return [(group, group.__traceback__)]
    leaves: List[_Leaf] = []
    new = TracebackType
    for run, above in _runs(group, classes):
        if _PYPY:
            # PyPy's JIT runs this loop several times faster than the maps below.
            for leaf in run:
                tb = leaf.__traceback__
                for frame, lasti, lineno in above:
                    tb = new(tb, frame, lasti, lineno)
                leaves.append((leaf, tb))
            continue
        # One map per entry above, over the whole run: CPython makes the entries in C, not one call per leaf.
        tbs: Iterator[Optional[TracebackType]] = iter([leaf.__traceback__ for leaf in run])
        count = len(run)
        for frame, lasti, lineno in above:
            tbs = map(new, tbs, repeat(frame, count), repeat(lasti, count), repeat(lineno, count))
        leaves += zip(run, tbs)
    return leaves


def _runs(group: BaseException, classes: "Tuple[type, ...]") -> "Iterator[Tuple[Sequence[BaseException], _Arguments]]":
    """The leaves under ``group`` in order, in runs of siblings, each with the ``_arguments`` of the groups above.

    ``_walk``'s order and identity rule.  On CPython a group whose members are all leaves met for the first
    time (the common case) is one run, checked in C; the others are walked one member at a time.
    """
    seen: Set[int] = {id(group)}
    # The group to enter next, with its groups' arguments.
    entering: Optional[Tuple[Sequence[BaseException], _Arguments]]
    entering = (group.exceptions, _arguments(group.__traceback__, []))  # type: ignore[attr-defined]
    # Members left of the groups being walked one at a time, each with its groups' arguments.
    walking: List[Tuple[Iterator[BaseException], _Arguments]] = []
    while entering is not None or walking:
        if entering is not None:
            members, above = entering
            entering = None
            members = tuple(members)
            # PyPy's JIT walks one member at a time faster than it runs these passes.
            if not _PYPY and seen.isdisjoint(map(id, members)) and not any(map(isinstance, members, repeat(classes))):
                size = len(seen)
                seen.update(map(id, members))
                if len(seen) - size == len(members):
                    yield members, above
                    continue
                # A leaf there twice: none was met before, so the walk one at a time starts from the same state.
                seen.difference_update(map(id, members))
            walking.append((iter(members), above))
        members_left, above = walking[-1]
        run: List[BaseException] = []
        for exc in members_left:
            key = id(exc)
            if key in seen:
                continue
            seen.add(key)
            if isinstance(exc, classes):
                entering = (exc.exceptions, _arguments(exc.__traceback__, above))  # type: ignore[attr-defined]
                break
            run.append(exc)
        else:
            walking.pop()
        if run:
            yield run, above


