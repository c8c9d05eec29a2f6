"""Case 10: ``leaf_exceptions()`` and ``collapse()`` against the recipes they replace.

``leaves``: every leaf of a raised group of 10 raised subgroups of 100 raised
leaves.  exceptstar's ``leaf_exceptions`` returns each with a composite
traceback (new entries above the leaf's own); the peer is the hand-written
recursive walk of the README, which returns the leaves alone, so the ratio is
the price of the tracebacks.  ``collapse``: a group of one error raised in a
block and caught outside it; exceptstar's ``collapse()`` against the
``except BaseExceptionGroup`` unwrapping written by hand (Starlette's
``collapse_excgroups``), with each side's group types.
"""

from __future__ import annotations

import _timing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator, List, Type

    from _timing import Rows

SUBGROUPS = 10
LEAVES = 100


def fail(index: int) -> None:
    raise ValueError(index)


def raise_group(eg_type: Type[BaseException], members: List[BaseException]) -> None:
    raise eg_type("failed", members)


def raised_group(eg_type: Type[BaseException], members: List[BaseException]) -> BaseException:
    try:
        raise_group(eg_type, members)
    except BaseException as group:
        return group
    raise AssertionError("raise_group returned")


def build_tree(eg_type: Type[BaseException]) -> BaseException:
    subgroups: List[BaseException] = []
    for sub in range(SUBGROUPS):
        leaves: List[BaseException] = []
        for index in range(LEAVES):
            try:
                fail(sub * LEAVES + index)
            except ValueError as exc:
                leaves.append(exc)
        subgroups.append(raised_group(eg_type, leaves))
    return raised_group(eg_type, subgroups)


def hand_walk(group: BaseException, base: Type[BaseException]) -> Iterator[BaseException]:
    for exc in group.exceptions:  # type: ignore[attr-defined]
        if isinstance(exc, base):
            yield from hand_walk(exc, base)
        else:
            yield exc


def build(side: str) -> Rows:
    base, eg_type = _timing.group_types(side)
    tree = build_tree(eg_type)

    def body() -> None:
        # A new leaf each time: raising one leaf again would lengthen its traceback.
        try:
            fail(0)
        except ValueError as exc:
            raise eg_type("one failed", [exc]) from None

    if side == "exceptstar":
        leaf_exceptions = _timing.api("leaf_exceptions")
        collapse = _timing.api("collapse")
        pairs = leaf_exceptions(tree)
        frames = sum(1 for _ in _entries(pairs[0][1]))
        _timing.NOTES["leaves"] = f"{len(pairs)} leaves, {frames} entries each"

        def leaves(n: int) -> None:
            for _ in range(n):
                leaf_exceptions(tree)

        def collapsing(n: int) -> None:
            for _ in range(n):
                try:
                    with collapse():
                        body()
                except ValueError:
                    pass
    else:
        _timing.NOTES["leaves"] = f"{len(list(hand_walk(tree, base)))} leaves, no tracebacks"

        def leaves(n: int) -> None:
            for _ in range(n):
                list(hand_walk(tree, base))

        def collapsing(n: int) -> None:
            for _ in range(n):
                try:
                    try:
                        body()
                    except base as caught:
                        error: BaseException = caught
                        while isinstance(error, base) and len(error.exceptions) == 1:  # type: ignore[attr-defined]
                            error = error.exceptions[0]  # type: ignore[attr-defined]
                        # The recipe measured raises the leaf as it is (its context becomes the group).
                        raise error  # noqa: B904
                except ValueError:
                    pass

    return {"leaves": leaves, "collapse": collapsing}


def _entries(tb: object) -> Iterator[object]:
    while tb is not None:
        yield tb
        tb = tb.tb_next  # type: ignore[attr-defined]


if __name__ == "__main__":
    _timing.main(build)
