"""exceptstar.asyncio's own promises, beyond CPython's tests and the differential programs.

Which names it gives where, the TimeoutError of 3.8-3.10, that the user's task
is never replaced or kept alive, that an outside cancel of a task in a group
ends (the ``taskgroup`` backport busy-loops there on 3.8), what the
cancellation count sees and what it cannot, and uvloop.  Every event loop run
here is under ``asyncio.wait_for`` or a subprocess timeout.
"""

from __future__ import annotations

import asyncio
import builtins
import gc
import os
import pickle
import subprocess
import sys
import traceback
import weakref
from pathlib import Path
from typing import Any, Awaitable, Callable, TypeVar

import pytest

import exceptstar
import exceptstar.asyncio as ea

SRC = Path(__file__).resolve().parent.parent / "src"
OURS = sys.version_info < (3, 11) or exceptstar.PURE
T = TypeVar("T")


def run(main: Callable[[], Awaitable[T]], loop_factory: Callable[[], asyncio.AbstractEventLoop] | None = None) -> T:
    """Run ``main()`` to completion on a new loop, under a 20 s guard."""
    loop = (loop_factory or asyncio.new_event_loop)()
    try:
        return loop.run_until_complete(asyncio.wait_for(main(), 20))
    finally:
        loop.close()


def test_names() -> None:
    if OURS:
        assert ea.TaskGroup.__module__ == "exceptstar.asyncio._taskgroup"
        assert ea.Timeout.__module__ == "exceptstar.asyncio._timeout"
    else:
        assert ea.TaskGroup is asyncio.TaskGroup  # type: ignore[attr-defined]
        assert (ea.timeout, ea.timeout_at, ea.Timeout) == (
            asyncio.timeout, asyncio.timeout_at, asyncio.Timeout)  # type: ignore[attr-defined]
    if sys.version_info >= (3, 11):
        assert ea.TimeoutError is builtins.TimeoutError is asyncio.TimeoutError
    if sys.version_info >= (3, 12):
        assert ea.open_connection is asyncio.open_connection
    import exceptstar.socket

    if sys.version_info >= (3, 11):
        import socket

        assert exceptstar.socket.create_connection is socket.create_connection


@pytest.mark.needs_processes
def test_import_exceptstar_does_not_import_asyncio() -> None:
    code = "import sys, exceptstar; print(sorted(m for m in sys.modules if 'asyncio' in m or m.endswith('socket')))"
    env = dict(os.environ, PYTHONPATH=str(SRC))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.strip() == "[]", out.stderr


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="the built-in TimeoutError is asyncio's on 3.11+")
def test_timeout_error_before_3_11() -> None:
    async def main() -> BaseException:
        try:
            async with ea.timeout(0):
                await asyncio.sleep(1)
        except asyncio.TimeoutError as exc:
            return exc
        raise AssertionError("not raised")

    exc = run(main)
    assert type(exc) is ea.TimeoutError
    assert isinstance(exc, builtins.TimeoutError) and isinstance(exc, asyncio.TimeoutError)
    assert isinstance(exc.__cause__, asyncio.CancelledError)
    assert repr(exc) == "TimeoutError()" and str(exc) == ""
    # Shown as the built-in one, as on 3.11.
    assert traceback.format_exception_only(type(exc), exc) == ["TimeoutError\n"]
    copy = pickle.loads(pickle.dumps(exc))
    assert type(copy) is ea.TimeoutError
    with_args = pickle.loads(pickle.dumps(ea.TimeoutError("late")))
    assert with_args.args == ("late",)


@pytest.mark.needs_asyncio_loop
def test_task_object_is_never_replaced() -> None:
    async def main() -> None:
        me = asyncio.current_task()
        async with ea.TaskGroup() as tg:
            assert asyncio.current_task() is me
            child = tg.create_task(asyncio.sleep(0))
            async with ea.timeout(10):
                assert asyncio.current_task() is me
        assert asyncio.current_task() is me and child.done()
        assert type(me) is asyncio.Task

    run(main)


def test_counts_do_not_keep_tasks_alive() -> None:
    refs = []

    async def child() -> None:
        refs.append(weakref.ref(asyncio.current_task()))
        await asyncio.sleep(10)

    async def main() -> None:
        async def body() -> None:
            async with ea.TaskGroup() as tg:
                tg.create_task(child())
                await asyncio.sleep(0.01)
                raise ValueError

        task = asyncio.ensure_future(body())
        refs.append(weakref.ref(task))
        try:
            await task
        except BaseException:
            pass
        del task

    run(main)
    gc.collect()
    assert len(refs) == 2 and all(ref() is None for ref in refs)


def test_outside_cancel_of_a_task_in_a_group_ends() -> None:
    # The taskgroup 0.2.2 backport loops forever here on 3.8.
    async def main() -> tuple[bool, bool]:
        async def parent() -> None:
            async with ea.TaskGroup() as tg:
                tg.create_task(asyncio.sleep(10))
                await asyncio.sleep(10)

        task = asyncio.ensure_future(parent())
        await asyncio.sleep(0.01)
        task.cancel()
        done, _ = await asyncio.wait([task], timeout=5)
        return task in done, task.cancelled()

    assert run(main) == (True, True)


def test_outside_cancel_counts_when_it_reaches_the_group() -> None:
    # 3.13 counts an outside cancel() when it is made; exceptstar on 3.8-3.10
    # when its CancelledError reaches a TaskGroup or a timeout (docs/howto/asyncio.md).
    seen = []

    async def main() -> None:
        me = asyncio.current_task()
        assert me is not None
        try:
            async with ea.TaskGroup():
                asyncio.get_running_loop().call_soon(me.cancel)
                try:
                    await asyncio.sleep(1)
                except asyncio.CancelledError:
                    seen.append(ea.cancelling(me))
                    raise
        except asyncio.CancelledError:
            seen.append(ea.cancelling(me))
        seen.append(ea.uncancel(me))
        seen.append(ea.uncancel(me))

    run(main)
    inside = 0 if sys.version_info < (3, 11) else 1
    assert seen == [inside, 1, 0, 0]


def test_uncancel_on_a_task_never_counted() -> None:
    async def main() -> tuple[int, int]:
        me = asyncio.current_task()
        assert me is not None
        return ea.cancelling(me), ea.uncancel(me)

    assert run(main) == (0, 0)


def test_on_uvloop() -> None:
    uvloop = pytest.importorskip("uvloop")
    log = []

    async def fail() -> None:
        await asyncio.sleep(0.01)
        raise KeyError("child")

    async def main() -> Any:
        try:
            async with ea.TaskGroup() as tg:
                tg.create_task(fail())
                async with ea.timeout(5):
                    await asyncio.sleep(10)
        except BaseException as exc:
            log.append(repr(exc))
        try:
            async with ea.timeout(0.01):
                await asyncio.sleep(10)
        except TimeoutError:
            log.append("timeout")
        return ea.cancelling(asyncio.current_task())  # type: ignore[arg-type]

    assert run(main, uvloop.new_event_loop) == 0
    assert log == ["ExceptionGroup('unhandled errors in a TaskGroup', [KeyError('child')])", "timeout"]
