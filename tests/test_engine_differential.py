"""``except*`` through exceptstar's transformation, against native ``except*``.

Each scenario of ``support.scenarios`` is rendered once, as ``except*``
source.  The native interpreter runs it as it is; exceptstar compiles the same
source with ``exceptstar.compile``, the transformation that ships (here on
3.8-3.10, in an ``EXCEPTSTAR_PURE=1`` child of this interpreter on 3.11+).
The outcomes must be equal: what propagated, including every frame of its
traceback, what each handler saw, what ran in which order.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import outcomes
from support.scenarios import HAND_WRITTEN, HAND_WRITTEN_BAD_TYPES, HAND_WRITTEN_GENERATORS, render_native
from support.strategies import SCENARIOS_FOR_ENGINE

# See test_catch_differential: 3.8-3.10's bare raise restores the caught traceback.
OLD_RERAISE = sys.version_info < (3, 11)


def check(scenarios: List[Dict[str, Any]]) -> None:
    scenarios = [s for s in scenarios
                 if not (OLD_RERAISE and any("raise_caught" in c["steps"] and c["end"] == "reraise"
                                             for c in s["clauses"]))]
    sources = [render_native(s) for s in scenarios]
    expected = outcomes.run_newest(sources)
    got = outcomes.run_transformed(sources)
    for source, g, e in zip(sources, got, expected):
        assert g == e, source


CASES = {**HAND_WRITTEN, **HAND_WRITTEN_BAD_TYPES, **HAND_WRITTEN_GENERATORS}


@pytest.mark.needs_processes
@pytest.mark.parametrize("name", sorted(CASES))
def test_hand_written(name: str) -> None:
    check([CASES[name]])


@pytest.mark.needs_processes
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(SCENARIOS_FOR_ENGINE, min_size=1, max_size=8))
def test_generated(scenarios: List[Dict[str, Any]]) -> None:
    check(scenarios)
