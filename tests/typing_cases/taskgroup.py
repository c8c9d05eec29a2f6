"""``exceptstar.asyncio.TaskGroup`` (3.15's, with ``cancel()``) as users' type checkers see it (tests/test_typing.py).

Never run: checked by mypy --strict and pyright for targets 3.8 to 3.13, as uses.py.
"""

import asyncio
from typing import List, Optional

from typing_extensions import assert_type

from exceptstar.asyncio import TaskGroup


async def first_answer(questions: List[str]) -> Optional[str]:
    answer: Optional[str] = None

    async def ask(question: str, group: TaskGroup) -> None:
        nonlocal answer
        await asyncio.sleep(0)
        answer = question
        group.cancel()  # the first answer cancels the others and the body, without an error

    async with TaskGroup() as group:
        assert_type(group, TaskGroup)
        for question in questions:
            task = group.create_task(ask(question, group), name=question)
            assert_type(task, "asyncio.Task[None]")
    return answer


async def cancelled_on_entry() -> int:
    group = TaskGroup()
    group.cancel()  # before entering: the group is cancelled as it is entered
    async with group:
        await asyncio.sleep(1)
    group.cancel()  # after exit: nothing happens
    assert_type(group.cancel(), None)
    return 0


async def results() -> List[int]:
    async def double(n: int) -> int:
        await asyncio.sleep(0)
        return n * 2

    async with TaskGroup() as group:
        tasks = [group.create_task(double(n)) for n in range(3)]
    return [task.result() for task in tasks]


async def not_a_coroutine(group: TaskGroup) -> None:
    group.create_task(print)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    group.cancel(1)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
