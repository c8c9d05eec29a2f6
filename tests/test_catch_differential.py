"""catch() against native ``except*``: the same scenarios must have the same outcomes.

Each scenario is written once (``engine_scenarios``) and rendered with native
``except*`` and with ``exceptstar.catch()``; what propagates, what each
handler saw and the order things ran must be equal.  The native outcome
comes from the native interpreter (this one on 3.11+, a 3.11+ child process
before that), never from a recording.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List

import engine_oracle
import pytest
from engine_scenarios import render_catch, render_native
from engine_strategies import SCENARIOS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from exceptstar import PURE


def clause(types: str, end: str = "pass", *steps: str) -> Dict[str, Any]:
    return {"types": types, "steps": list(steps), "end": end}


def leaf(kind: str, msg: str) -> List[Any]:
    return ["leaf", kind, msg]


def group(kind: str, msg: str, *children: Any) -> List[Any]:
    return ["group", kind, msg, list(children)]


FLAT = group("BaseExceptionGroup", "eg", leaf("ValueError", "v1"), leaf("TypeError", "t1"),
             leaf("OSError", "o1"))
NESTED = group("BaseExceptionGroup", "outer", leaf("ValueError", "v1"),
               group("BaseExceptionGroup", "inner", leaf("TypeError", "t1"), leaf("ValueError", "v2")),
               leaf("OSError", "o1"))
DERIVING = group("MyEG", "my", leaf("ValueError", "v1"),
                 group("MyEG", "sub", leaf("TypeError", "t1"), leaf("KeyError", "k1")))
SPLITTING = group("SplitEG", "split", leaf("ValueError", "v1"), leaf("TypeError", "t1"))
BASE = group("BaseExceptionGroup", "base", leaf("MyBase", "b1"), leaf("ValueError", "v1"))

HAND_WRITTEN: Dict[str, Dict[str, Any]] = {
    "naked_pass": {"body": leaf("ValueError", "v"), "meta": "plain",
                   "clauses": [clause("ValueError", "pass", "exc_info")]},
    "naked_unmatched": {"body": leaf("KeyError", "k"), "meta": "context",
                        "clauses": [clause("ValueError", "pass")]},
    "naked_second_clause": {"body": leaf("KeyError", "k"), "meta": "plain",
                            "clauses": [clause("ValueError"), clause("LookupError", "new")]},
    "naked_reraise": {"body": leaf("ValueError", "v"), "meta": "cause",
                      "clauses": [clause("ValueError", "reraise")]},
    "naked_raise_e": {"body": leaf("ValueError", "v"), "meta": "plain",
                      "clauses": [clause("ValueError", "raise_e")]},
    "naked_base": {"body": leaf("MyBase", "b"), "meta": "plain",
                   "clauses": [clause("Exception"), clause("BaseException", "reraise", "exc_info")]},
    "flat_all_pass": {"body": FLAT, "meta": "plain",
                      "clauses": [clause("ValueError"), clause("(TypeError, OSError)")]},
    "flat_partial": {"body": FLAT, "meta": "notes",
                     "clauses": [clause("ValueError", "pass", "exc_info")]},
    "flat_new_and_reraise": {"body": FLAT, "meta": "plain",
                             "clauses": [clause("TypeError", "new"), clause("ValueError", "reraise")]},
    "flat_two_new": {"body": FLAT, "meta": "context",
                     "clauses": [clause("TypeError", "new"), clause("ValueError", "new_base"),
                                 clause("OSError")]},
    "flat_raise_e": {"body": FLAT, "meta": "plain",
                     "clauses": [clause("ValueError", "raise_e"), clause("OSError", "reraise")]},
    "flat_from": {"body": FLAT, "meta": "cause",
                  "clauses": [clause("ValueError", "new_from_e"), clause("TypeError", "new_from_none")]},
    "flat_note_reraise": {"body": FLAT, "meta": "notes",
                          "clauses": [clause("ValueError", "reraise", "note")]},
    "flat_cause_reraise": {"body": FLAT, "meta": "plain",
                           "clauses": [clause("ValueError", "reraise", "cause")]},
    "flat_nested_try": {"body": FLAT, "meta": "plain",
                        "clauses": [clause("ValueError", "reraise", "nested", "exc_info")]},
    "flat_raise_caught": {"body": FLAT, "meta": "plain",
                          "clauses": [clause("ValueError", "reraise", "raise_caught")]},
    "flat_whole": {"body": FLAT, "meta": "context",
                   "clauses": [clause("Exception", "reraise", "exc_info")]},
    "nested_projection": {"body": NESTED, "meta": "plain",
                          "clauses": [clause("ValueError", "reraise"), clause("OSError", "new")]},
    "nested_leaf": {"body": NESTED, "meta": "plain",
                    "clauses": [clause("TypeError", "leaf")]},
    "nested_subgroup": {"body": NESTED, "meta": "plain",
                        "clauses": [clause("TypeError", "new_group"), clause("ValueError", "reraise")]},
    "deriving": {"body": DERIVING, "meta": "notes",
                 "clauses": [clause("TypeError", "reraise"), clause("KeyError", "new")]},
    "own_split": {"body": SPLITTING, "meta": "plain",
                  "clauses": [clause("KeyError"), clause("ValueError", "reraise"), clause("TypeError")]},
    "base_members": {"body": BASE, "meta": "plain",
                     "clauses": [clause("ValueError", "new_base"), clause("MyBase", "reraise")]},
    "no_exception": {"body": None, "meta": "plain", "clauses": [clause("ValueError", "new")]},
}


def assert_same(scenarios: List[Dict[str, Any]], got: List[Any], expected: List[Any]) -> None:
    for scn, g, e in zip(scenarios, got, expected):
        assert g == e, f"scenario {scn}:\n{render_catch(scn)}"


# 3.8-3.10's bare ``raise`` re-raises with the traceback the exception had when
# it was caught (3.11 made it use ``__traceback__``), whatever the handler did
# to it meanwhile; so after ``raise e`` was caught inside the handler, a bare
# ``raise`` still counts as a re-raise there.  No library can change that.
OLD_RERAISE = sys.version_info < (3, 11)


def old_reraise_differs(scn: Dict[str, Any]) -> bool:
    return OLD_RERAISE and any("raise_caught" in c["steps"] and c["end"] == "reraise"
                               for c in scn["clauses"])


def check(scenarios: List[Dict[str, Any]]) -> None:
    scenarios = [s for s in scenarios if not old_reraise_differs(s)]
    expected = engine_oracle.run_native([render_native(s) for s in scenarios])
    got = engine_oracle.run_here([render_catch(s) for s in scenarios])
    assert_same(scenarios, got, expected)


@pytest.mark.parametrize("name", sorted(HAND_WRITTEN))
def test_hand_written(name: str) -> None:
    check([HAND_WRITTEN[name]])


@pytest.mark.skipif(not OLD_RERAISE, reason="3.8-3.10 only")
def test_old_bare_raise_restores_the_caught_traceback() -> None:
    """The known 3.8-3.10 difference: the handler's bare raise counts as a re-raise."""
    scn = HAND_WRITTEN["flat_raise_caught"]
    expected = engine_oracle.run_native([render_native(scn)])[0]["result"]
    got = engine_oracle.run_here([render_catch(scn)])[0]["result"]
    assert expected["m"] == "" and expected["x"][0] == "@part0"
    assert got["m"] == "eg" and got["x"][0]["r"] == "ValueError('v1')"


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(SCENARIOS, min_size=1, max_size=8))
def test_generated(scenarios: List[Dict[str, Any]]) -> None:
    check(scenarios)


@pytest.mark.skipif(sys.version_info < (3, 11) or PURE, reason="compares pure and native on one 3.11+")
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(SCENARIOS, min_size=5, max_size=10))
def test_generated_pure_classes(scenarios: List[Dict[str, Any]]) -> None:
    expected = engine_oracle.run_here([render_native(s) for s in scenarios])
    got = engine_oracle.run_pure([render_catch(s) for s in scenarios])
    assert_same(scenarios, got, expected)
