"""Random trees of exceptions, groups and group subclasses, split with random conditions.

exceptstar's pure classes and CPython's built-ins must give the same structure,
identities, metadata, predicate call order and errors.  On 3.11+ both run in
this process; before that, a native 3.11+ interpreter answers each case.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any, Iterator

import group_trees
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.interpreters import native_python
from support.processes import TESTS

from exceptstar import _groups

leaf = st.fixed_dictionaries({
    "kind": st.just("leaf"),
    "type": st.sampled_from(group_trees.LEAF_TYPES),
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
        "type": st.sampled_from(group_trees.GROUP_KINDS),
        "message": st.sampled_from(["", "eg", "inner"]),
        "children": st.lists(children, min_size=1, max_size=4),
    }, optional=metadata),
    max_leaves=12,
)
condition = st.one_of(
    st.fixed_dictionaries({"kind": st.just("type"),
                           "type": st.sampled_from(group_trees.LEAF_TYPES + group_trees.GROUP_KINDS)}),
    st.fixed_dictionaries({"kind": st.just("tuple"),
                           "types": st.lists(st.sampled_from([*group_trees.LEAF_TYPES, "MyEG"]), max_size=3)}),
    st.fixed_dictionaries({"kind": st.just("pred"), "rule": st.sampled_from(["even", "type", "message"]),
                           "type": st.sampled_from(group_trees.LEAF_TYPES + group_trees.GROUP_KINDS),
                           "message": st.sampled_from(["eg", "inner"])}),
)
case = st.fixed_dictionaries({"tree": tree.filter(lambda t: t["kind"] == "group"), "condition": condition})


@pytest.fixture(scope="module")
def native() -> Iterator[Any]:
    if sys.version_info >= (3, 11):
        import builtins

        yield lambda c: group_trees.run_case(c, builtins.BaseExceptionGroup, builtins.ExceptionGroup)
        return
    exe = native_python()
    if exe is None:
        pytest.skip("no CPython 3.11+ on this machine to compare with")
    proc = subprocess.Popen([exe, str(TESTS / "group_trees.py")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None

    def ask(c: Any) -> Any:
        proc.stdin.write(json.dumps(c) + "\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]
        return json.loads(proc.stdout.readline())  # type: ignore[union-attr]

    yield ask
    proc.stdin.close()
    proc.wait(timeout=30)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(case)
def test_pure_split_matches_native(native: Any, case: Any) -> None:
    expected = native(case)
    # A JSON round trip, so that both sides are compared as the same kind of data.
    actual = json.loads(json.dumps(group_trees.run_case(case, _groups.BaseExceptionGroup, _groups.ExceptionGroup)))
    assert actual == expected


def test_the_comparison_sees_differences(native: Any) -> None:
    """A wrong implementation must be caught: swap split's sides and the outcomes differ."""
    c = {"tree": {"kind": "group", "type": "ExceptionGroup", "message": "eg",
                  "children": [{"kind": "leaf", "type": "ValueError", "arg": 1},
                               {"kind": "leaf", "type": "TypeError", "arg": 2}]},
         "condition": {"kind": "type", "type": "ValueError"}}
    expected = native(c)
    good = json.loads(json.dumps(group_trees.run_case(c, _groups.BaseExceptionGroup, _groups.ExceptionGroup)))
    assert good == expected
    assert expected["split"]["value"][0]["children"][0]["type"] == "ValueError"
    c["condition"]["type"] = "TypeError"
    assert native(c) != expected
