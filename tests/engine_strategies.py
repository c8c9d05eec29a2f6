"""Hypothesis strategies for the scenarios of ``engine_scenarios``."""

from __future__ import annotations

from typing import Any, List

from engine_scenarios import BODY_META, CLAUSE_TYPES, ENDS, GROUP_KINDS, LEAF_TYPES, STEPS
from hypothesis import strategies as st


def _has_base(tree: Any) -> bool:
    if tree[0] == "leaf":
        return bool(tree[1] == "MyBase")
    return any(_has_base(child) for child in tree[3])


def _group(kind: str, n: int, children: List[Any]) -> Any:
    if kind != "BaseExceptionGroup" and any(_has_base(c) for c in children):
        kind = "BaseExceptionGroup"
    return ["group", kind, f"g{n}", children]


LEAVES = st.builds(lambda t, n: ["leaf", t, f"{t[0].lower()}{n}"],
                   st.sampled_from(LEAF_TYPES), st.integers(0, 9))
TREES = st.recursive(
    LEAVES,
    lambda children: st.builds(_group, st.sampled_from(GROUP_KINDS), st.integers(0, 9),
                               st.lists(children, min_size=1, max_size=3)),
    max_leaves=6,
)
CLAUSES = st.lists(
    st.fixed_dictionaries({
        "types": st.sampled_from(CLAUSE_TYPES),
        "steps": st.lists(st.sampled_from(STEPS), max_size=2),
        "end": st.sampled_from(ENDS),
    }),
    min_size=1, max_size=3, unique_by=lambda c: c["types"],
)
SCENARIOS = st.fixed_dictionaries({
    "body": st.one_of(st.none(), TREES),
    "meta": st.sampled_from(BODY_META),
    "clauses": CLAUSES,
})
