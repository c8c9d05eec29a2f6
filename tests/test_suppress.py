"""suppress() against Python 3.12's contextlib.suppress, on the same inputs.

The same body is run under ``contextlib.suppress`` by a 3.12+ interpreter
(this one when it is 3.12+) and under ``exceptstar.suppress`` here; what
propagates (structure, types, messages, notes, cause, context) and what ran
must be equal.  Groups here may be exceptstar's or the ``exceptiongroup``
backport's (on 3.11+ the backport's are the built-ins).
"""

from __future__ import annotations

import sys
from typing import Any, Dict, List, Tuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import outcomes
from support.scenarios import group, leaf, render_suppress
from support.strategies import TREES, fit_family

import exceptstar

ARGS = ["ValueError", "ValueError, TypeError", "", "Exception", "LookupError, MyBase",
        "ExceptionGroup", "BaseExceptionGroup", "BaseException", "MyError"]
if sys.version_info >= (3, 10) and sys.implementation.name != "pypy":
    # issubclass()'s message for a non-class changed in 3.10; PyPy 3.11's has the older words.
    ARGS.append("ValueError, 42")

FLAT = group("BaseExceptionGroup", "eg", leaf("ValueError", "v1"), leaf("TypeError", "t1"))
NESTED = group("MyEG", "my", leaf("ValueError", "v1"),
               group("BaseExceptionGroup", "in", leaf("KeyError", "k1"), leaf("MyBase", "b1")))
HAND_WRITTEN: List[Tuple[Dict[str, Any], str]] = [
    ({"body": leaf("ValueError", "v"), "meta": "plain"}, "ValueError"),
    ({"body": leaf("KeyError", "k"), "meta": "context"}, "ValueError"),
    ({"body": leaf("MyError", "m"), "meta": "plain"}, "ValueError, TypeError"),
    ({"body": FLAT, "meta": "notes"}, "ValueError"),
    ({"body": FLAT, "meta": "cause", "outer": True}, "ValueError, TypeError"),
    ({"body": FLAT, "meta": "plain"}, "ExceptionGroup"),
    ({"body": FLAT, "meta": "plain"}, ""),
    ({"body": NESTED, "meta": "context"}, "LookupError, MyBase"),
    ({"body": NESTED, "meta": "plain"}, "ValueError"),
    ({"body": FLAT, "meta": "notes", "family": "backport"}, "TypeError"),
    ({"body": NESTED, "meta": "plain", "family": "backport"}, "Exception"),
    ({"body": None, "meta": "plain"}, "ValueError"),
]


def check(cases: List[Tuple[Dict[str, Any], str]]) -> None:
    expected = outcomes.run_native([render_suppress(s, a, native=True) for s, a in cases])
    got = outcomes.run_here([render_suppress(s, a, native=False) for s, a in cases])
    for (scn, args), g, e in zip(cases, got, expected):
        # contextlib's ``raise rest`` adds its __exit__ frame; exceptstar's adds none.
        del g["tb"], e["tb"]
        assert g == e, f"suppress({args}) with {scn}"


@pytest.mark.parametrize("case", HAND_WRITTEN, ids=[f"{i}" for i in range(len(HAND_WRITTEN))])
def test_hand_written(case: Tuple[Dict[str, Any], str]) -> None:
    check([case])


CASES = st.tuples(
    st.fixed_dictionaries({
        "body": st.one_of(st.none(), TREES),
        "meta": st.sampled_from(["plain", "cause", "context", "notes"]),
        "outer": st.booleans(),
        "family": st.sampled_from(["ours", "backport"]),
    }).map(fit_family),
    st.sampled_from(ARGS),
)


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(CASES, min_size=1, max_size=10))
def test_generated(cases: List[Tuple[Dict[str, Any], str]]) -> None:
    check(cases)


def test_no_exceptstar_frame_in_what_is_raised() -> None:
    def body() -> None:
        raise exceptstar.ExceptionGroup("eg", [ValueError(1), TypeError(2)])

    with pytest.raises(exceptstar.ExceptionGroup) as info, exceptstar.suppress(ValueError):
        body()
    tb = info.value.__traceback__
    names = []
    while tb is not None:
        names.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    assert not [n for n in names if n.startswith(exceptstar.__path__[0])]


def test_returns_as_contextlib() -> None:
    s = exceptstar.suppress(ValueError)
    assert s.__enter__() is None
    assert s.__exit__(None, None, None) is None
    assert s.__exit__(ValueError, ValueError(), None) is True
    assert s.__exit__(KeyError, KeyError(), None) is False
