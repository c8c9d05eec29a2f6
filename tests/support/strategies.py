"""Hypothesis strategies for the scenarios of ``support.scenarios`` (tests only: needs hypothesis)."""

from __future__ import annotations

import sys
from typing import Any, List

from hypothesis import strategies as st

from support.scenarios import (
    BAD_CLAUSE_TYPES,
    BODY_META,
    CLAUSE_TYPES,
    ENDS,
    GROUP_KINDS,
    LEAF_TYPES,
    STEPS,
    group,
    leaf,
)


def _has_base(tree: Any) -> bool:
    if tree["kind"] == "leaf":
        return bool(tree["type"] == "MyBase")
    return any(_has_base(child) for child in tree["children"])


def _group(kind: str, n: int, children: List[Any]) -> Any:
    if kind != "BaseExceptionGroup" and any(_has_base(c) for c in children):
        kind = "BaseExceptionGroup"
    return group(kind, f"g{n}", *children)


LEAVES = st.builds(lambda t, n: leaf(t, f"{t[0].lower()}{n}"), st.sampled_from(LEAF_TYPES), st.integers(0, 9))
TREES = st.recursive(
    LEAVES,
    lambda children: st.builds(_group, st.sampled_from(GROUP_KINDS), st.integers(0, 9),
                               st.lists(children, min_size=1, max_size=3)),
    max_leaves=6,
)


def clauses(types: List[str], steps: List[str]) -> Any:
    return st.lists(
        st.fixed_dictionaries({
            "types": st.sampled_from(types),
            "steps": st.lists(st.sampled_from(steps), max_size=2),
            "end": st.sampled_from(ENDS),
        }),
        min_size=1, max_size=3, unique_by=lambda c: c["types"],
    )


PYPY311 = sys.implementation.name == "pypy" and sys.version_info >= (3, 11)


def _nested_split_free(tree: Any, top: bool = True) -> Any:
    """The backport's split calls the split of nested groups (CPython's does not), and so does
    PyPy 3.11's built-in one, which SplitEG's ``super().split()`` reaches (docs/explanation/
    differences.md, pypy_split.py): nested SplitEGs would log calls that are their business,
    not the engine's."""
    if tree is None or tree["kind"] == "leaf":
        return tree
    kind = "PlainEG" if tree["type"] == "SplitEG" and not top else tree["type"]
    return group(kind, tree["message"], *(_nested_split_free(c, False) for c in tree["children"]))


def fit_family(scn: Any) -> Any:
    if scn["family"] == "backport" or PYPY311:
        scn["body"] = _nested_split_free(scn["body"])
    return scn


def scenarios(types: List[str], steps: List[str] = STEPS) -> Any:
    return st.fixed_dictionaries({
        "body": st.one_of(st.none(), TREES),
        "meta": st.sampled_from(BODY_META),
        "clauses": clauses(types, steps),
        "outer": st.booleans(),
        "family": st.sampled_from(["ours", "backport"]),
    }).map(fit_family)


SCENARIOS = scenarios(CLAUSE_TYPES)
# For except* and the engine, not catch(): also clause types that are errors at
# run time, and handlers that yield (the statement then runs in a generator).
SCENARIOS_FOR_ENGINE = scenarios(CLAUSE_TYPES + BAD_CLAUSE_TYPES, [*STEPS, "yield"])
