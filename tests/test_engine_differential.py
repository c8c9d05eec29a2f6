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


# PyPy 3.9 writes back into a handled exception's ``__traceback__`` the
# traceback it was handled with whenever an ``except`` block inside its handler
# ends (plain ``try``/``except`` as much as ``except*``): a part the handler
# raised by name and caught again ends with the traceback it was handed, where
# PyPy 3.11 and CPython keep the newer one.  Only which traceback object it is
# differs there; everything else is compared.
PYPY39_TB = sys.implementation.name == "pypy" and sys.version_info < (3, 10)


# PyPy 3.11 never replaces an exception's ``__context__`` once it has one,
# assigned or given at a raise (CPython gives it one at each raise): an
# exception a handler raises again (``raise e.exceptions[-1]``, ``raise e``
# caught and followed by another raise) keeps the context it had.
PYPY311 = sys.implementation.name == "pypy" and sys.version_info >= (3, 11)


def pypy311_keeps_context(scn: Dict[str, Any]) -> bool:
    return PYPY311 and any(c["end"] == "leaf" or "raise_caught" in c["steps"] for c in scn["clauses"])


def check(scenarios: List[Dict[str, Any]]) -> None:
    scenarios = [s for s in scenarios
                 if not (OLD_RERAISE and any("raise_caught" in c["steps"] and c["end"] == "reraise"
                                             for c in s["clauses"])) and not pypy311_keeps_context(s)]
    sources = [render_native(s) for s in scenarios]
    expected = outcomes.run_newest(sources)
    got = outcomes.run_transformed(sources)
    for scn, source, g, e in zip(scenarios, sources, got, expected):
        if PYPY39_TB and any("raise_caught" in c["steps"] for c in scn["clauses"]):
            outcomes.drop_tb_labels(g)
            outcomes.drop_tb_labels(e)
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
