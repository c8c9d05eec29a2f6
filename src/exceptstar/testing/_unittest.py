"""``RaisesGroupMixin``: ``assertRaisesGroup`` for ``unittest.TestCase``, in the manner of ``assertRaises``."""

from __future__ import annotations

from typing import Any, Type

from exceptstar.testing._group import RaisesGroup

# unittest leaves frames of modules that set this out of its failure reports.
__unittest = True


class RaisesGroupMixin:
    """Mix into a ``unittest.TestCase``: ``with self.assertRaisesGroup(ValueError, TypeError) as info:``.

    The arguments are ``RaisesGroup``'s; a mismatch raises the test case's
    ``failureException`` (a failure, not an error), under any runner.
    """

    failureException: Type[BaseException]

    def assertRaisesGroup(self, *expected: Any, **options: Any) -> RaisesGroup[Any]:
        """A ``RaisesGroup(*expected, **options)`` that fails with ``self.failureException``."""
        expectation: RaisesGroup[Any] = RaisesGroup(*expected, **options)
        expectation._failure = getattr(self, "failureException", AssertionError)
        return expectation
