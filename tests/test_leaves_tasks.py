"""``leaf_exceptions`` and ``collapse`` on the groups that task groups raise.

exceptstar.asyncio's TaskGroup (asyncio's own on 3.11+), anyio's (asyncio
and Trio backends) and Trio's nursery, on every interpreter: each leaf's
traceback runs from the caller's frame through the task group to the failed
child; ``collapse`` raises the one failure with it and none of exceptstar's frames.
"""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import List, Tuple

import pytest
from support.leaves_trees import entries

from exceptstar import collapse, leaf_exceptions
from exceptstar._classes import group_classes
from exceptstar._frames import is_own


def frames(tb: TracebackType | None) -> List[Tuple[str, int]]:
    return [(entry.tb_frame.f_code.co_name, entry.tb_lineno) for entry in entries(tb)]


def names(tb: TracebackType | None) -> List[str]:
    return [e.tb_frame.f_code.co_name for e in entries(tb)]


def fail(exc: BaseException) -> None:
    raise exc


# --- the groups task groups raise ---------------------------------------------------


async def child(number: int) -> None:
    # No checkpoint before failing: both children fail before either can be cancelled.
    fail(ValueError(number))


def two_failed(runner: str) -> BaseException:
    """The group a task group raises when two children fail (a third, sleeping, is cancelled)."""

    async def main_asyncio() -> None:
        import asyncio

        from exceptstar.asyncio import TaskGroup

        async with TaskGroup() as tg:
            tg.create_task(asyncio.sleep(3600))
            tg.create_task(child(1))
            tg.create_task(child(2))

    async def main_anyio() -> None:
        import anyio

        async with anyio.create_task_group() as tg:
            tg.start_soon(anyio.sleep, 3600)
            tg.start_soon(child, 1)
            tg.start_soon(child, 2)

    async def main_trio() -> None:
        import trio

        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.sleep, 3600)
            nursery.start_soon(child, 1)
            nursery.start_soon(child, 2)

    try:
        if runner == "asyncio":
            import asyncio

            asyncio.run(main_asyncio())
        elif runner == "trio":
            import trio

            trio.run(main_trio)
        else:
            import anyio

            anyio.run(main_anyio, backend=runner.split("-")[1])
    except BaseException as group:
        return group
    raise AssertionError("the task group raised nothing")


@pytest.mark.needs_asyncio_loop
@pytest.mark.parametrize("runner", ["asyncio", "anyio-asyncio", "anyio-trio", "trio"])
def test_task_group_leaves(runner: str) -> None:
    group = two_failed(runner)
    assert isinstance(group, group_classes())
    leaves = leaf_exceptions(group)
    assert sorted(leaf.args[0] for leaf, _tb in leaves) == [1, 2]
    main = "main_trio" if runner == "trio" else f"main_{runner.split('-')[0]}"
    for leaf, tb in leaves:
        shown = [name for name, _line in frames(tb)]
        # From this test's frame, through the task group's, to the child that failed.
        assert shown[0] == "two_failed" and main in shown and shown[-2:] == ["child", "fail"], shown
        # The leaf's own frames are the tail; those above come from the group.
        assert entries(tb)[-len(entries(leaf.__traceback__)):] == entries(leaf.__traceback__)
        assert entries(tb)[0].tb_frame is entries(group.__traceback__)[0].tb_frame


# --- task groups -------------------------------------------------------------------


async def child_fails() -> None:
    await asyncio.sleep(0)
    raise ValueError("the real one")


def check_collapsed(error: BaseException, outer: str) -> None:
    assert type(error) is ValueError and str(error) == "the real one"
    shown = names(error.__traceback__)
    assert shown[0] == outer and shown[-1] == "child_fails"
    assert not any(is_own(e) for e in entries(error.__traceback__))
    context = error.__context__
    assert context is not None
    assert [leaf for leaf, _tb in leaf_exceptions(context)] == [error]
    assert isinstance(context, group_classes())


def test_asyncio_task_group() -> None:
    from exceptstar.asyncio import TaskGroup

    async def main() -> None:
        with collapse(ignore=asyncio.CancelledError):
            async with TaskGroup() as tg:
                tg.create_task(asyncio.sleep(3600))
                tg.create_task(child_fails())

    with pytest.raises(ValueError) as info:
        asyncio.run(main())
    check_collapsed(info.value, "test_asyncio_task_group")
    assert "main" in names(info.value.__traceback__)


@pytest.mark.needs_asyncio_loop
@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_anyio_task_group(backend: str) -> None:
    anyio = pytest.importorskip("anyio")

    async def child() -> None:
        await anyio.sleep(0)
        await child_fails_any()

    async def child_fails_any() -> None:
        raise ValueError("the real one")

    @collapse()
    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(anyio.sleep, 3600)
            tg.start_soon(child)

    with pytest.raises(ValueError) as info:
        anyio.run(main, backend=backend)
    shown = names(info.value.__traceback__)
    assert shown[-3:] == ["main", "child", "child_fails_any"] or shown[-2:] == ["child", "child_fails_any"]
    assert "main" in shown
    assert not any(is_own(e) for e in entries(info.value.__traceback__))
    assert isinstance(info.value.__context__, group_classes())


def test_trio_nursery() -> None:
    trio = pytest.importorskip("trio")

    async def child() -> None:
        await trio.sleep(0)
        raise ValueError("the real one")

    async def main() -> None:
        async with collapse(ignore=trio.Cancelled), trio.open_nursery() as nursery:
            nursery.start_soon(trio.sleep, 3600)
            nursery.start_soon(child)

    with pytest.raises(ValueError) as info:
        trio.run(main)
    shown = names(info.value.__traceback__)
    assert "main" in shown and shown[-1] == "child"
    assert not any(is_own(e) for e in entries(info.value.__traceback__))
    assert isinstance(info.value.__context__, group_classes())
