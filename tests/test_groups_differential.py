"""Random trees of exceptions, groups and group subclasses, split with random conditions.

exceptstar's pure classes and CPython's built-ins must give the same structure,
identities, metadata, predicate call order and errors (``support.splits``).
On 3.11+ both run in this process; before that, a native 3.11+ interpreter
answers each example's cases.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import splits
from support.interpreters import native_python
from support.processes import call

from exceptstar import _groups

leaf = st.fixed_dictionaries({
    "kind": st.just("leaf"),
    "type": st.sampled_from(splits.LEAF_TYPES),
    "arg": st.integers(0, 9),
})
metadata = {
    "notes": st.one_of(st.none(), st.lists(st.sampled_from(["n1", "n2"]), max_size=2), st.just("ab"), st.just(5)),
    "raise": st.booleans(),
    "cause": st.booleans(),
    "context": st.booleans(),
}
tree = st.recursive(
    leaf,
    lambda children: st.fixed_dictionaries({
        "kind": st.just("group"),
        "type": st.sampled_from(splits.GROUP_KINDS),
        "message": st.sampled_from(["", "eg", "inner"]),
        "children": st.lists(children, min_size=1, max_size=4),
    }, optional=metadata),
    max_leaves=12,
)
condition = st.one_of(
    st.fixed_dictionaries({"kind": st.just("type"),
                           "type": st.sampled_from(splits.LEAF_TYPES + splits.GROUP_KINDS)}),
    st.fixed_dictionaries({"kind": st.just("tuple"),
                           "types": st.lists(st.sampled_from([*splits.LEAF_TYPES, "MyEG"]), max_size=3)}),
    st.fixed_dictionaries({"kind": st.just("pred"), "rule": st.sampled_from(["even", "type", "message"]),
                           "type": st.sampled_from(splits.LEAF_TYPES + splits.GROUP_KINDS),
                           "message": st.sampled_from(["eg", "inner"])}),
)
case = st.fixed_dictionaries({"tree": tree.filter(lambda t: t["kind"] == "group"), "condition": condition})


@pytest.fixture(scope="module")
def native() -> Callable[[List[Any]], List[Any]]:
    """Outcomes with the built-in groups: here on CPython 3.11+, else from the native interpreter.

    PyPy 3.11's own groups are no reference (its subgroup keeps a group whose
    members all match, where CPython makes a new one): the newest CPython is.
    """
    if sys.version_info >= (3, 11) and sys.implementation.name != "pypy":
        return splits.run_native_cases
    exe = native_python()
    if exe is None:
        pytest.skip("no CPython 3.11+ on this machine to compare with")
    return lambda cases: call(exe, "splits.run_native_cases", cases)  # type: ignore[no-any-return]


def pure(cases: List[Any]) -> List[Any]:
    # A JSON round trip, so that both sides are compared as the same kind of data.
    return json.loads(json.dumps([splits.run_case(c, _groups.BaseExceptionGroup, _groups.ExceptionGroup)
                                  for c in cases]))  # type: ignore[no-any-return]


# Several cases per example: before 3.11 each example asks a new native process.
@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                 HealthCheck.function_scoped_fixture])
@given(st.lists(case, min_size=4, max_size=8))
def test_pure_split_matches_native(native: Callable[[List[Any]], List[Any]], cases: List[Any]) -> None:
    for c, actual, expected in zip(cases, pure(cases), native(cases)):
        assert actual == expected, c


def test_the_comparison_sees_differences(native: Callable[[List[Any]], List[Any]]) -> None:
    """A wrong implementation must be caught: swap split's sides and the outcomes differ."""
    c = {"tree": {"kind": "group", "type": "ExceptionGroup", "message": "eg",
                  "children": [{"kind": "leaf", "type": "ValueError", "arg": 1},
                               {"kind": "leaf", "type": "TypeError", "arg": 2}]},
         "condition": {"kind": "type", "type": "ValueError"}}
    swapped = {**c, "condition": {"kind": "type", "type": "TypeError"}}
    expected, other = native([c, swapped])
    assert pure([c]) == [expected]
    assert expected["split"]["value"][0]["children"][0]["type"] == "ValueError"
    assert other != expected
