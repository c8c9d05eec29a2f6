"""catch() against native ``except*``: the same scenarios must have the same outcomes.

Each scenario is written once (``support.scenarios``) and rendered with native
``except*`` and with ``exceptstar.catch()``; what propagates, what each
handler saw and the order things ran must be equal.  The native outcome
comes from the native interpreter (this one on 3.11+, a 3.11+ child process
before that), never from a recording.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import outcomes
from support.scenarios import HAND_WRITTEN, render_catch, render_native
from support.strategies import SCENARIOS

from exceptstar import PURE


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


# PyPy 3.9 keeps the traceback an exception had when it was made the handled
# one (catch() calls each handler with its part handled) and writes it back into
# ``__traceback__`` when it becomes the ``__context__`` of a later exception: a
# part the handler re-raised by name and caught again ends with the traceback it
# was handed (PyPy 3.11 and CPython keep the newer one).  Only which traceback
# object it is differs; everything else is compared.
PYPY39_TB = sys.implementation.name == "pypy" and sys.version_info < (3, 11)


def pypy39_tb_differs(scn: Dict[str, Any]) -> bool:
    return PYPY39_TB and any("raise_caught" in c["steps"] for c in scn["clauses"])


# PyPy 3.11 never replaces an exception's ``__context__`` once it has one,
# assigned or given at a raise (CPython gives it one at each raise): an
# exception a handler raises again (``raise e.exceptions[-1]``, ``raise e``
# caught and followed by another raise) keeps the context it had.  And what
# catch() re-raises out of an ``async with`` gets its context assigned to stay
# (see ``_catch._PYPY``), so an asyncio task raising it again later in an outer
# handler cannot give it that handler's exception as CPython does.
PYPY311 = sys.implementation.name == "pypy" and sys.version_info >= (3, 11)


def pypy311_keeps_context(scn: Dict[str, Any], is_async: bool = False) -> bool:
    if not PYPY311:
        return False
    raised_again = any(c["end"] == "leaf" or "raise_caught" in c["steps"] for c in scn["clauses"])
    return raised_again or (is_async and bool(scn.get("outer")))


def without_tb(outcomes: List[Any]) -> List[Any]:
    # A with statement whose __exit__ raises adds an entry for its own line:
    # the traceback of what catch() propagates has one more frame entry, so
    # the finally clause after the with sees it with a traceback of its own.
    for outcome in outcomes:
        del outcome["tb"]
        for entry in outcome["log"]:
            if entry[0] == "finally" and entry[1] is not None:
                del entry[1]["tb"]
    return outcomes


def check(scenarios: List[Dict[str, Any]], is_async: bool = False) -> None:
    scenarios = [s for s in scenarios if not old_reraise_differs(s) and not pypy311_keeps_context(s, is_async)]
    expected = outcomes.run_native([render_native(s, is_async=is_async) for s in scenarios])
    got = outcomes.run_here([render_catch(s, is_async=is_async) for s in scenarios])
    for scn, g, e in zip(scenarios, got, expected):
        if pypy39_tb_differs(scn):
            outcomes.drop_tb_labels(g)
            outcomes.drop_tb_labels(e)
    assert_same(scenarios, without_tb(got), without_tb(expected))


@pytest.mark.parametrize("is_async", [False, True], ids=["with", "async-with"])
@pytest.mark.parametrize("name", sorted(HAND_WRITTEN))
def test_hand_written(name: str, is_async: bool) -> None:
    if pypy311_keeps_context(HAND_WRITTEN[name], is_async):
        pytest.skip("PyPy 3.11 keeps the first __context__ an exception gets (pypy311_keeps_context)")
    check([HAND_WRITTEN[name]], is_async)


@pytest.mark.skipif(not OLD_RERAISE, reason="3.8-3.10 only")
def test_old_bare_raise_restores_the_caught_traceback() -> None:
    """The known 3.8-3.10 difference: the handler's bare raise counts as a re-raise."""
    scn = HAND_WRITTEN["flat_raise_caught"]
    expected = outcomes.run_native([render_native(scn)])[0]["result"]
    got = outcomes.run_here([render_catch(scn)])[0]["result"]
    # Native: a new group, message "", whose first member is the part handler 0 re-raised.
    assert expected["args"].startswith("('', [") and expected["children"][0]["identity"] == "part0"
    # catch(): a group "eg" whose first member is the body's ValueError('v1'), as if re-raised.
    first = got["children"][0]
    assert got["args"].startswith("('eg', [") and (first["type"], first["args"]) == ("ValueError", "('v1',)")


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(SCENARIOS, min_size=1, max_size=8))
def test_generated(scenarios: List[Dict[str, Any]]) -> None:
    check(scenarios)


@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(SCENARIOS, min_size=1, max_size=8))
def test_generated_async(scenarios: List[Dict[str, Any]]) -> None:
    check(scenarios, is_async=True)


@pytest.mark.needs_processes
@pytest.mark.skipif(sys.version_info < (3, 11) or PURE, reason="compares pure and native on one 3.11+")
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(SCENARIOS, min_size=5, max_size=10))
def test_generated_pure_classes(scenarios: List[Dict[str, Any]]) -> None:
    scenarios = [s for s in scenarios if not pypy311_keeps_context(s)]
    expected = outcomes.run_newest([render_native(s) for s in scenarios])
    got = outcomes.run_pure([render_catch(s) for s in scenarios])
    assert_same(scenarios, without_tb(got), without_tb(expected))
