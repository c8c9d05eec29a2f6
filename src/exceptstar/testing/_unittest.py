"""``RaisesGroupMixin``: ``assertRaisesGroup`` for ``unittest.TestCase``, in the manner of ``assertRaises``."""

from __future__ import annotations

from typing import Any, Type

from exceptstar.testing._group import RaisesGroup


class RaisesGroupMixin:
    """Mix into a ``unittest.TestCase``: ``with self.assertRaisesGroup(ValueError, TypeError) as info:``.

    The arguments are ``RaisesGroup``'s; a mismatch raises the test case's
    ``failureException`` (a failure, not an error), under any runner.
    """

    failureException: Type[BaseException]

    def assertRaisesGroup(self, *expected: Any, **options: Any) -> RaisesGroup[Any]:
        """A ``RaisesGroup(*expected, **options)`` that fails with ``self.failureException``."""
        __tracebackhide__ = True
        expectation: RaisesGroup[Any] = RaisesGroup(*expected, **options)
        expectation._failure = getattr(self, "failureException", AssertionError)
        return expectation
