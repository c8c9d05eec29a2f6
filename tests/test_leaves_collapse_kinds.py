"""``collapse()``'s shortcut for a group of ours whose members are of built-in classes.

Such a group is collapsed without the group classes (no backport check, no
instance tests): these cases sit on either side of that line and must come
out as the general path gives them.  A member of a built-in class that is a
group (3.11's ``ExceptionGroup``), of the backport's class, of a class made in
Python, or a group of ours among built-in errors, takes the general path.
Where our classes are not the active ones (3.11+ unless forced), a group of
ours is no group: it passes unchanged, as before the shortcut.
"""

from __future__ import annotations

import builtins
import sys
from typing import Callable, List

import pytest

from exceptstar import _classes, collapse
from exceptstar._groups import BaseExceptionGroup as PureBEG
from exceptstar._groups import ExceptionGroup as PureEG

# Whether a group of ours is a group here (3.8-3.10, or EXCEPTSTAR_PURE=1).
OURS_ACTIVE = PureBEG in _classes.GROUPS


class Custom(ValueError):
    pass


def collapsed(make: Callable[[], BaseException]) -> BaseException:
    try:
        with collapse():
            raise make()
    except BaseException as exc:  # what left the block
        return exc
    raise AssertionError("the block raised nothing")


def test_one_builtin_error_is_raised_with_the_group_as_context() -> None:
    leaf = ValueError(1)
    group = PureEG("one", [leaf])
    if not OURS_ACTIVE:
        assert collapsed(lambda: group) is group
        return
    assert collapsed(lambda: group) is leaf
    assert leaf.__context__ is group


@pytest.mark.parametrize("member", [lambda: Custom(2), lambda: PureEG("inner", [KeyError(3)])])
def test_other_members_collapse_through_the_general_path(member: Callable[[], BaseException]) -> None:
    first = member()
    leaf = first if not isinstance(first, PureBEG) else first.exceptions[0]
    group = PureEG("outer", [first])
    assert collapsed(lambda: group) is (leaf if OURS_ACTIVE else group)


def test_two_builtin_errors_pass_unchanged() -> None:
    group = PureEG("two", [ValueError(1), TypeError(2)])
    assert collapsed(lambda: group) is group


def test_ignored_builtin_error_leaves_the_group() -> None:
    group = PureEG("one", [ValueError(1)])
    try:
        with collapse(ignore=ValueError):
            raise group
    except BaseException as exc:
        assert exc is group


@pytest.mark.skipif(not hasattr(builtins, "ExceptionGroup"), reason="no built-in groups before 3.11")
def test_a_builtin_group_member_is_a_group() -> None:
    leaf = OSError(4)
    native: List[BaseException] = [builtins.ExceptionGroup("native", [leaf])]  # type: ignore[attr-defined]
    group = PureEG("outer", native)
    assert collapsed(lambda: group) is (leaf if OURS_ACTIVE else group)


def test_a_backport_group_member_is_a_group() -> None:
    backport = pytest.importorskip("exceptiongroup._exceptions")
    leaf = LookupError(5)
    inner = backport.ExceptionGroup("backport", [leaf])
    group = PureEG("outer", [inner])
    assert collapsed(lambda: group) is (leaf if OURS_ACTIVE else group)
    assert sys.modules["exceptiongroup._exceptions"] is backport
