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
        assert ea.TaskGroup.__bases__ == (object,)
        assert ea.Timeout.__module__ == "exceptstar.asyncio._timeout"
    else:
        if sys.version_info >= (3, 15):
            assert ea.TaskGroup is asyncio.TaskGroup  # type: ignore[attr-defined]
        else:
            # 3.15's behaviour in a subclass: isinstance() checks against asyncio's class hold.
            assert ea.TaskGroup.__module__ == "exceptstar.asyncio._taskgroup"
            assert ea.TaskGroup.__bases__ == (asyncio.TaskGroup,)  # type: ignore[attr-defined]
            assert isinstance(ea.TaskGroup(), asyncio.TaskGroup)  # type: ignore[attr-defined]
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


@pytest.mark.skipif(OURS or not (3, 11) <= sys.version_info < (3, 15), reason="the subclass is 3.11-3.14's")
def test_subclass_overrides_every_method_of_asyncio() -> None:
    # asyncio's private methods differ from 3.11 to 3.14 (_aexit from 3.14):
    # none of them may run under 3.15's logic.
    base = asyncio.TaskGroup  # type: ignore[attr-defined]
    methods = {name for name, value in vars(base).items() if callable(value)}
    assert methods <= set(vars(ea.TaskGroup)), methods - set(vars(ea.TaskGroup))


@pytest.mark.skipif(sys.version_info >= (3, 15) and not OURS, reason="asyncio's own class on 3.15+")
def test_docstrings_are_restructured_text() -> None:
    # docs/reference shows them through autodoc: no markup warnings (asyncio's
    # own class docstring ends a definition list without a blank line).
    docutils_core = pytest.importorskip("docutils.core")
    import inspect

    class Stream:
        def __init__(self) -> None:
            self.warnings: list[str] = []

        def write(self, text: str) -> None:
            self.warnings.append(text)

    assert "3.15" in (inspect.getdoc(ea.TaskGroup) or "")
    for obj in (ea.TaskGroup, ea.TaskGroup.cancel, ea.TaskGroup.create_task):
        stream = Stream()
        docutils_core.publish_doctree(inspect.getdoc(obj), settings_overrides={"warning_stream": stream})
        assert stream.warnings == [], (obj, stream.warnings)


@pytest.mark.needs_asyncio_loop
def test_cancel_from_the_body_then_from_outside_before_the_next_await() -> None:
    # The task cancelled twice before it waits: 3.15 counts two requests and
    # propagates the outside one.  A 3.8-3.10 task keeps one flag for both, so
    # exceptstar sees only the group's own (docs/howto/asyncio.md).
    async def main() -> tuple[bool, int]:
        async def body() -> None:
            me = asyncio.current_task()
            assert me is not None
            async with ea.TaskGroup() as tg:
                tg.cancel()
                me.cancel()
                await asyncio.sleep(0)

        task = asyncio.ensure_future(body())
        try:
            await task
        except asyncio.CancelledError:
            pass
        return task.cancelled(), ea.cancelling(task)

    assert run(main) == ((False, 0) if sys.version_info < (3, 11) else (True, 1))


@pytest.mark.needs_asyncio_loop
def test_cancel_withdrawn_when_the_body_never_awaits() -> None:
    # 3.13's uncancel() withdraws the cancellation still pending; 3.8-3.12
    # tasks keep it, so exceptstar spends it before the group exits.
    async def main() -> list[str]:
        log = []
        me = asyncio.current_task()
        assert me is not None
        async with ea.TaskGroup() as tg:
            tg.cancel()
            log.append("body")
        log.append(f"count {ea.cancelling(me)}")
        await asyncio.sleep(0)
        log.append("next await")
        return log

    assert run(main) == ["body", "count 0", "next await"]
