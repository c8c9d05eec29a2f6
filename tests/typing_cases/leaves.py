"""``leaf_exceptions`` and ``collapse`` as users' type checkers see them (tests/test_typing.py).

Never run: checked by mypy --strict and pyright for targets 3.8 to 3.13, as uses.py.
"""

import asyncio
from types import TracebackType
from typing import List, Optional, Tuple

from typing_extensions import assert_type

from exceptstar import BaseExceptionGroup, ExceptionGroup, collapse, leaf_exceptions


def log_each(group: ExceptionGroup[OSError]) -> None:
    leaves = leaf_exceptions(group)
    assert_type(leaves, List[Tuple[OSError, Optional[TracebackType]]])
    for leaf, tb in leaves:
        assert_type(leaf.strerror, Optional[str])
        assert_type(tb, Optional[TracebackType])


def any_group(group: BaseExceptionGroup[BaseException]) -> None:
    assert_type(leaf_exceptions(group), List[Tuple[BaseException, Optional[TracebackType]]])


def plain(error: KeyError) -> None:
    assert_type(leaf_exceptions(error), List[Tuple[KeyError, Optional[TracebackType]]])


def not_an_exception() -> None:
    leaf_exceptions("text")  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue,reportArgumentType]


def the_one_error() -> int:
    with collapse(ignore=asyncio.CancelledError):
        return 1


def unreachable_after() -> int:
    with collapse():
        raise ExceptionGroup("", [ValueError()])


async def in_async() -> str:
    async with collapse(ignore=(asyncio.CancelledError, KeyboardInterrupt)):
        await asyncio.sleep(0)
    return "done"


@collapse()
def decorated(count: int) -> str:
    return str(count)


@collapse(ignore=asyncio.CancelledError)
async def decorated_async(count: int) -> str:
    await asyncio.sleep(0)
    return str(count)


async def use_them() -> None:
    assert_type(decorated(1), str)
    assert_type(await decorated_async(2), str)
    decorated("one")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]


def wrong_ignore() -> None:
    collapse(ignore=ValueError())  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
