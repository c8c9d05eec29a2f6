"""``exceptstar.testing``: optimal and ordered matching, and pytest's verdicts and messages elsewhere.

Where pytest 8.4+ is installed (3.9+), every case is also run through pytest's
own ``RaisesGroup``: the same verdict gives the same ``fail_reason``, and ours
passes exactly when an assignment of members to expectations exists (found
here by trying every permutation).
"""

from __future__ import annotations

import builtins
import importlib
import itertools
import re
import sys
from typing import Any, List, Sequence, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exceptstar.testing
from exceptstar import BaseExceptionGroup, ExceptionGroup
from exceptstar.testing import ExceptionInfo, RaisesExc, RaisesGroup

# The reference is pytest 9 (3.10+): 8.3 (the last on 3.8) has no RaisesGroup, and 8.4 (the last on
# 3.9) writes older messages and can crash while writing one (a KeyError in _check_exceptions).
pytest_raises: Any = importlib.import_module("_pytest.raises") if int(pytest.__version__.split(".")[0]) >= 9 else None

needs_pytest_raises = pytest.mark.skipif(pytest_raises is None, reason="the reference is pytest 9's RaisesGroup")


def test_the_issue_example_passes_where_greedy_fails() -> None:
    group = ExceptionGroup("", [ValueError("hello"), ValueError("other")])
    ours = RaisesGroup(ValueError, RaisesExc(ValueError, match="hello"))
    assert ours.matches(group)
    assert ours.fail_reason is None
    with ours as info:
        raise group
    assert info.value is group


@needs_pytest_raises
def test_the_issue_example_is_a_failure_of_pytest() -> None:
    group = ExceptionGroup("", [ValueError("hello"), ValueError("other")])
    theirs = pytest_raises.RaisesGroup(ValueError, pytest_raises.RaisesExc(ValueError, match="hello"))
    assert not theirs.matches(group)


# The one message that differs where both fail: the flatten hint is given when flattening would make
# the expectation pass. Ours finds the assignment in the flattened members (OSError('foo') for the
# RaisesExc, OSError('hello') for OSError); pytest's greedy pass does not, so pytest gives no hint.
FLATTEN_CASE = (
    lambda raises, exc: raises.RaisesGroup(OSError, exc(OSError, match="foo")),
    lambda group_type: group_type("hello", [group_type("foo", [OSError("foo"), OSError("hello")])]),
)
FLATTEN_REASON = (
    "\nThe following expected exceptions did not find a match:\n"
    "  OSError\n"
    "  RaisesExc(OSError, match='foo')\n"
    "The following raised exceptions did not find a match\n"
    "  ExceptionGroup('foo', [OSError('foo'), OSError('hello')]):\n"
    "    Unexpected nested `ExceptionGroup()`, expected `OSError`\n"
    "    RaisesExc(OSError, match='foo'): `ExceptionGroup()` is not an instance of `OSError`\n"
    "Did you mean to use `flatten_subgroups=True`?"
)


def test_flatten_hint_where_flattening_would_pass() -> None:
    ours = FLATTEN_CASE[0](exceptstar.testing, RaisesExc)
    assert not ours.matches(FLATTEN_CASE[1](ExceptionGroup))
    assert ours.fail_reason == FLATTEN_REASON
    flattened = RaisesGroup(OSError, RaisesExc(OSError, match="foo"), flatten_subgroups=True)
    assert flattened.matches(FLATTEN_CASE[1](ExceptionGroup))


@needs_pytest_raises
def test_flatten_hint_is_the_deliberate_difference_from_pytest() -> None:
    ours = FLATTEN_CASE[0](exceptstar.testing, RaisesExc)
    theirs = FLATTEN_CASE[0](pytest_raises, pytest_raises.RaisesExc)
    native = getattr(builtins, "ExceptionGroup", ExceptionGroup)
    assert not ours.matches(FLATTEN_CASE[1](ExceptionGroup)) and not theirs.matches(FLATTEN_CASE[1](native))
    assert ours.fail_reason is not None and theirs.fail_reason is not None
    assert ours.fail_reason == FLATTEN_REASON == theirs.fail_reason + "\nDid you mean to use `flatten_subgroups=True`?"
    assert not pytest_raises.RaisesGroup(OSError, pytest_raises.RaisesExc(OSError, match="foo"),
                                         flatten_subgroups=True).matches(FLATTEN_CASE[1](native))


def test_no_assignment_fails_with_pytest_message() -> None:
    group = ExceptionGroup("", [ValueError("other"), ValueError("other")])
    ours = RaisesGroup(ValueError, RaisesExc(ValueError, match="hello"))
    assert not ours.matches(group)
    assert ours.fail_reason == (
        "\n1 matched exception. \n"
        "The following expected exceptions did not find a match:\n"
        "  RaisesExc(ValueError, match='hello')\n"
        "The following raised exceptions did not find a match\n"
        "  ValueError('other'):\n"
        "    It matches `ValueError` which was paired with `ValueError('other')`\n"
        "    RaisesExc(ValueError, match='hello'): Regex pattern did not match.\n"
        "      Expected regex: 'hello'\n"
        "      Actual message: 'other'"
    )


def test_chained_augmenting_path() -> None:
    # Greedy: TypeError-or-ValueError takes TypeError, ValueError takes ValueError, then
    # KeyError-or-TypeError finds nothing; the assignment exists by moving two expectations.
    either = RaisesExc((TypeError, ValueError))
    group = ExceptionGroup("", [TypeError(), ValueError(), KeyError()])
    assert RaisesGroup(either, RaisesExc((ValueError, KeyError)), RaisesExc((KeyError, TypeError))).matches(group)
    assert not RaisesGroup(either, either, either).matches(group)


def test_ordered() -> None:
    in_order = ExceptionGroup("", [TypeError("a"), ValueError("b")])
    reversed_ = ExceptionGroup("", [ValueError("b"), TypeError("a")])
    expectation = RaisesGroup(TypeError, ValueError, ordered=True)
    assert repr(expectation) == "RaisesGroup(TypeError, ValueError, ordered=True)"
    assert expectation.matches(in_order)
    assert not expectation.matches(reversed_)
    assert expectation.fail_reason == (
        "The raised exceptions match, but not in the expected order (`ordered=True`):\n"
        "  0: `ValueError('b')` is not `TypeError`:\n"
        "    `ValueError()` is not an instance of `TypeError`\n"
        "  1: `TypeError('a')` is not `ValueError`:\n"
        "    `TypeError()` is not an instance of `ValueError`"
    )
    assert RaisesGroup(TypeError, ValueError).matches(reversed_)
    # A failure that is not about the order keeps the unordered message.
    assert not expectation.matches(ExceptionGroup("", [TypeError("a"), KeyError("b")]))
    assert expectation.fail_reason == "1 matched exception. `KeyError()` is not an instance of `ValueError`"
    with pytest.raises(BaseException, match="not in the expected order"), expectation:
        raise reversed_


def test_nothing_expected_propagates() -> None:
    with pytest.raises(KeyError), RaisesExc(ValueError):
        raise KeyError(1)


def test_info_object() -> None:
    with RaisesGroup(ValueError, RaisesGroup(KeyError)) as info:
        raise ExceptionGroup("outer", [ExceptionGroup("inner", [KeyError(1)]), ValueError(2)])
    assert info.type is ExceptionGroup
    assert info.tb is not None and info.tb.tb_frame.f_code.co_name == "test_info_object"
    assert info.group_contains(KeyError, depth=2)
    assert not info.group_contains(KeyError, depth=1)
    assert info.group_contains(ValueError, match="^2$")


def test_our_info_object_without_pytest() -> None:
    info: ExceptionInfo[BaseException] = ExceptionInfo.for_later()
    group = BaseExceptionGroup("g", [KeyboardInterrupt(), ExceptionGroup("i", [OSError("x")])])
    info.fill_unfilled((type(group), group, None))
    assert info.value is group and info.typename == "BaseExceptionGroup"
    assert info.group_contains(OSError, match="x", depth=2)
    assert not info.group_contains(OSError, depth=1)
    assert info.match("^g")


# --- differential: every small case against brute force and against pytest's RaisesGroup -------------

TYPES = (ValueError, TypeError, KeyError)
MESSAGES = ("a", "b")


def _expectation(kind: Tuple[int, str | None], pytest_side: bool) -> Any:
    exc_type, message = TYPES[kind[0]], kind[1]
    if message is None:
        return exc_type
    module = pytest_raises if pytest_side else sys.modules[__name__]
    return module.RaisesExc(exc_type, match=f"^{message}$")


def _assignment_exists(expected: List[Any], members: Sequence[BaseException]) -> bool:
    if len(expected) != len(members):
        return False
    return any(
        all(
            (RaisesExc(e) if isinstance(e, type) else e).matches(m) for e, m in zip(expected, permuted)
        )
        for permuted in itertools.permutations(members)
    )


kinds = st.tuples(st.integers(0, len(TYPES) - 1), st.sampled_from((None, *MESSAGES)))
members = st.tuples(st.integers(0, len(TYPES) - 1), st.sampled_from(MESSAGES))


@settings(max_examples=300, deadline=None)
@given(st.lists(kinds, min_size=1, max_size=4), st.lists(members, min_size=1, max_size=4))
def test_optimal_and_same_as_pytest_where_the_verdict_agrees(
    expected_kinds: List[Tuple[int, str | None]], member_kinds: List[Tuple[int, str]]
) -> None:
    raised = [TYPES[i](message) for i, message in member_kinds]
    group = ExceptionGroup("g", raised)
    ours = RaisesGroup(*[_expectation(k, False) for k in expected_kinds])
    verdict = ours.matches(group)
    assert verdict == _assignment_exists([_expectation(k, False) for k in expected_kinds], raised)
    if pytest_raises is None:
        return
    # pytest knows the built-in class only (ours is another one under EXCEPTSTAR_PURE=1 on 3.11+).
    native = getattr(builtins, "ExceptionGroup", ExceptionGroup)("g", raised)
    assert ours.matches(native) == verdict
    theirs = pytest_raises.RaisesGroup(*[_expectation(k, True) for k in expected_kinds])
    if theirs.matches(native):
        assert verdict
    if not verdict:
        assert ours.fail_reason == theirs.fail_reason


@pytest.mark.parametrize("member_order", list(itertools.permutations(range(3))))
def test_ordered_is_positional(member_order: Tuple[int, ...]) -> None:
    raised = [[ValueError("a"), TypeError("b"), KeyError("c")][i] for i in member_order]
    expectation = RaisesGroup(ValueError, TypeError, KeyError, ordered=True)
    assert expectation.matches(ExceptionGroup("", raised)) == (member_order == (0, 1, 2))


def test_messages_of_the_context_manager() -> None:
    not_raised = re.escape("DID NOT RAISE any exception, expected `ExceptionGroup(ValueError)`")
    with pytest.raises(BaseException, match=not_raised), RaisesGroup(ValueError):
        pass
    mismatch = re.escape("Raised exception group did not match: `KeyError()` is not an instance of `ValueError`")
    with pytest.raises(BaseException, match=mismatch), RaisesGroup(ValueError):
        raise ExceptionGroup("", [KeyError()])
