"""Cases 1-3: constructing groups, and split/subgroup of flat and nested ones.

``construct_small`` builds groups of 1, 2, 5 and 10 members (one iteration
builds all four); ``construct_distinct`` a group of 10,000 members of 10,000
distinct classes (every member type new to the type pass); ``split_deep`` and
``split_deep_4x`` split groups nested 1,200 and 4,800 levels deep (each level
[ValueError, next level]): a side that cannot (RecursionError) reports the
row unavailable, and the two depths together show the cost per level.
"""

from __future__ import annotations

import _timing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Type

    from _timing import Row, Rows

LEAVES = 1000
DEPTH = 50
SMALL = (1, 2, 5, 10)
DISTINCT = 10_000
DEEP = 1200


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


def deep_group(eg_type: Type[BaseException], depth: int) -> BaseException:
    """``depth`` levels of [ValueError, next level]; the innermost is [ValueError, TypeError]."""
    group = eg_type("bottom", [ValueError(-1), TypeError(-1)])
    for level in range(depth - 1):
        group = eg_type("level", [ValueError(level), group])
    return group


def deep_row(eg_type: Type[BaseException], depth: int) -> Row:
    """split(TypeError) of a ``depth``-deep group, or why this side cannot do it."""
    try:
        group = deep_group(eg_type, depth)
        split = group.split  # type: ignore[attr-defined]
        matched, rest = split(TypeError)
    except RecursionError as error:
        return f"RecursionError at depth {depth}: {error}"
    assert matched is not None and rest is not None
    level, count = matched, 0
    while True:  # the match keeps every level, down to the one TypeError
        count += 1
        inner = [e for e in level.exceptions if isinstance(e, eg_type)]
        if not inner:
            break
        level = inner[0]
    assert count == depth, count

    def run(n: int) -> None:
        for _ in range(n):
            split(TypeError)

    return run


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

    small = [[ValueError(i) for i in range(size)] for size in SMALL]
    small_1, small_2, small_5, small_10 = small

    def construct_small(n: int) -> None:
        for _ in range(n):
            eg_type("a", small_1)
            eg_type("b", small_2)
            eg_type("c", small_5)
            eg_type("d", small_10)

    distinct_count = DISTINCT if _timing.wanted("construct_distinct") else 0
    distinct = [type(f"E{i}", (ValueError,), {})(i) for i in range(distinct_count)]

    def construct_distinct(n: int) -> None:
        for _ in range(n):
            eg_type("distinct", distinct)

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
        "construct_small": construct_small,
        "construct_distinct": construct_distinct,
        "split_flat": split,
        "subgroup_flat": subgroup,
        "split_nested": split_deep,
        **{key: deep_row(eg_type, depth) for key, depth in (("split_deep", DEEP), ("split_deep_4x", 4 * DEEP))
           if _timing.wanted(key)},
    }


if __name__ == "__main__":
    _timing.main(build)
