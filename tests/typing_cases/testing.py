"""Uses of ``exceptstar.testing`` for type checkers (tests/test_typing.py), after pytest's typing_raises_group.

Never run.  The classes are generic as pytest's are: ``RaisesExc[OSError]``,
``RaisesGroup[ValueError]``; the context managers' ``.value`` and
``matches()`` narrow to the group the expectation describes.
"""

import unittest
from typing import Union

from typing_extensions import assert_type

from exceptstar import BaseExceptionGroup, ExceptionGroup
from exceptstar.testing import RaisesExc, RaisesGroup, RaisesGroupMixin


def check_basic_contextmanager() -> None:
    with RaisesGroup(ValueError) as info:
        raise ExceptionGroup("foo", (ValueError(),))
    assert_type(info.value, ExceptionGroup[ValueError])


def check_base_members_give_a_base_group() -> None:
    with RaisesGroup(KeyboardInterrupt) as info:
        raise BaseExceptionGroup("", [KeyboardInterrupt()])
    assert_type(info.value, BaseExceptionGroup[KeyboardInterrupt])


def check_matches_narrows() -> None:
    exc: Union[ExceptionGroup[ValueError], ValueError] = ExceptionGroup("", (ValueError(),))
    if RaisesGroup(ValueError).matches(exc):
        assert_type(exc, ExceptionGroup[ValueError])


def check_raisesexc() -> None:
    def check_filename(exc: FileNotFoundError) -> bool:
        return not str(exc.filename).endswith(".tmp")

    assert_type(RaisesExc(OSError), RaisesExc[OSError])
    assert_type(RaisesExc(FileNotFoundError, check=check_filename), RaisesExc[FileNotFoundError])
    assert_type(RaisesExc(match="x"), RaisesExc[BaseException])
    RaisesExc()  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]
    RaisesExc(ValueError, check=check_filename)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    with RaisesExc(OSError) as info:
        raise FileNotFoundError("x")
    assert_type(info.value, OSError)
    if RaisesExc(OSError).matches(info.value.__cause__):
        assert_type(info.value.__cause__, OSError)


def check_raisesgroup_generics() -> None:
    assert_type(RaisesGroup(ValueError), RaisesGroup[ValueError])
    # Several member types: mypy joins them (Exception), pyright unites them; both are RaisesGroup[Exception].
    mixed: RaisesGroup[Exception] = RaisesGroup(ValueError, RaisesExc(TypeError))
    assert mixed.matches(None) is False
    assert_type(RaisesGroup(RaisesGroup(ValueError)), RaisesGroup[ExceptionGroup[ValueError]])
    assert_type(
        RaisesGroup(ValueError, RaisesGroup(KeyError)), RaisesGroup[Union[ValueError, ExceptionGroup[KeyError]]]
    )
    ordered: RaisesGroup[Exception] = RaisesGroup(ValueError, TypeError, ordered=True)
    assert ordered.ordered
    assert_type(RaisesGroup(ValueError, allow_unwrapped=True), RaisesGroup[ValueError])
    assert_type(RaisesGroup(ValueError, flatten_subgroups=True, match="x"), RaisesGroup[ValueError])
    # allow_unwrapped takes one expectation, not a group, and no match.
    RaisesGroup(ValueError, TypeError, allow_unwrapped=True)  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue]


def check_check_parameter() -> None:
    def many(group: ExceptionGroup[ValueError]) -> bool:
        return len(group.exceptions) > 1

    RaisesGroup(ValueError, check=many)
    RaisesGroup(TypeError, check=many)  # type: ignore[arg-type]  # pyright: ignore[reportCallIssue, reportArgumentType]


def check_attributes() -> None:
    expectation = RaisesGroup(ValueError)
    reason = expectation.fail_reason
    assert_type(reason, Union[str, None])
    assert_type(expectation.expected_type(), str)


class Case(RaisesGroupMixin, unittest.TestCase):
    def test_group(self) -> None:
        with self.assertRaisesGroup(ValueError, TypeError, ordered=True) as info:
            raise ExceptionGroup("", [ValueError(), TypeError()])
        self.assertEqual(len(info.value.exceptions), 2)
