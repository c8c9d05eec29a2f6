"""Cases 1-3: constructing groups, and split/subgroup of flat and nested ones."""

from __future__ import annotations

import _timing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Type

    from _timing import Rows

LEAVES = 1000
DEPTH = 50


def flat_group(eg_type: Type[BaseException]) -> BaseException:
    """1000 leaves, ValueError and TypeError alternating (the worst order for runs)."""
    leaves: List[BaseException] = [
        ValueError(i) if i % 2 == 0 else TypeError(i) for i in range(LEAVES)
    ]
    return eg_type("flat", leaves)


def nested_group(eg_type: Type[BaseException]) -> BaseException:
    """50 levels, each [ValueError, TypeError, next level]; the last has no next level."""
    group = eg_type(f"level {DEPTH - 1}", [ValueError(DEPTH - 1), TypeError(DEPTH - 1)])
    for level in range(DEPTH - 2, -1, -1):
        group = eg_type(f"level {level}", [ValueError(level), TypeError(level), group])
    return group


def build(side: str) -> Rows:
    _, eg_type = _timing.group_types(side)
    leaves = [ValueError(i) for i in range(LEAVES)]
    flat = flat_group(eg_type)
    nested = nested_group(eg_type)
    split_flat = flat.split  # type: ignore[attr-defined]
    subgroup_flat = flat.subgroup  # type: ignore[attr-defined]
    split_nested = nested.split  # type: ignore[attr-defined]

    # Sanity: both sides must do the same work.
    matched, rest = split_nested(ValueError)
    assert len(matched.exceptions) == 2 and len(rest.exceptions) == 2
    assert len(split_flat(ValueError)[0].exceptions) == LEAVES // 2

    def construct(n: int) -> None:
        for _ in range(n):
            eg_type("bench", leaves)

    def split(n: int) -> None:
        for _ in range(n):
            split_flat(ValueError)

    def subgroup(n: int) -> None:
        for _ in range(n):
            subgroup_flat(ValueError)

    def split_deep(n: int) -> None:
        for _ in range(n):
            split_nested(ValueError)

    return {
        "construct": construct,
        "split_flat": split,
        "subgroup_flat": subgroup,
        "split_nested": split_deep,
    }


if __name__ == "__main__":
    _timing.main(build)
