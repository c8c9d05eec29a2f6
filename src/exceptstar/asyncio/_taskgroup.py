"""``TaskGroup`` with CPython 3.13's behaviour, for interpreters without one.

The logic follows CPython 3.13's ``Lib/asyncio/taskgroups.py`` step by step
(the same states, the same order of cancellations, errors and messages); it
differs in where the cancellation count lives (``_cancel``: on
3.8-3.10 tasks have no ``cancelling()``/``uncancel()``) and in the group class
it raises (exceptstar's ``BaseExceptionGroup``).
"""

import asyncio

from exceptstar import BaseExceptionGroup
from exceptstar.asyncio._cancel import arrived, cancelling, recancel, request, settle

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from contextvars import Context
    from types import TracebackType
    from typing import Any, Coroutine, List, Optional, Set, Type, TypeVar

    _T = TypeVar("_T")


class TaskGroup:
    """Asynchronous context manager for managing groups of tasks.

    Example use::

        async with TaskGroup() as group:
            task1 = group.create_task(some_coroutine(...))
            task2 = group.create_task(other_coroutine(...))
        print("Both tasks have completed now.")

    All tasks are awaited when the context manager exits.

    Any exceptions other than `asyncio.CancelledError` raised within
    a task will cancel all remaining tasks and wait for them to exit.
    The exceptions are then combined and raised as an `ExceptionGroup`.
    """

    def __init__(self) -> None:
        self._entered = False
        self._exiting = False
        self._aborting = False
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._parent_task: Optional[asyncio.Task[Any]] = None
        self._parent_cancel_requested = False
        self._tasks: Set[asyncio.Task[Any]] = set()
        self._errors: Optional[List[BaseException]] = []
        self._base_error: Optional[BaseException] = None
        self._on_completed_fut: Optional[asyncio.Future[bool]] = None

    def __repr__(self) -> str:
        info = [""]
        if self._tasks:
            info.append(f"tasks={len(self._tasks)}")
        if self._errors:
            info.append(f"errors={len(self._errors)}")
        if self._aborting:
            info.append("cancelling")
        elif self._entered:
            info.append("entered")
        return f"<TaskGroup{' '.join(info)}>"

    async def __aenter__(self) -> "TaskGroup":
        if self._entered:
            raise RuntimeError(f"TaskGroup {self!r} has already been entered")
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        self._parent_task = asyncio.current_task(self._loop)
        if self._parent_task is None:
            raise RuntimeError(f"TaskGroup {self!r} cannot determine the parent task")
        self._entered = True
        return self

    async def __aexit__(
        self,
        et: "Optional[Type[BaseException]]",
        exc: "Optional[BaseException]",
        tb: "Optional[TracebackType]",
    ) -> None:
        assert self._parent_task is not None and self._loop is not None and self._errors is not None
        self._exiting = True
        parent = self._parent_task

        if exc is not None and _is_base_error(exc) and self._base_error is None:
            self._base_error = exc

        propagate_cancellation_error: Optional[BaseException] = None
        if et is not None and issubclass(et, asyncio.CancelledError):
            propagate_cancellation_error = exc
            arrived(parent)

        # The body raised, or the parent task is being cancelled: stop the
        # children (unless a failing child already did).
        if et is not None and not self._aborting:
            self._abort()

        # A loop, because the wait can be cancelled several times while the
        # parent task is cancelled again and again.
        while self._tasks:
            if self._on_completed_fut is None:
                self._on_completed_fut = self._loop.create_future()
            try:
                await self._on_completed_fut
            except asyncio.CancelledError as ex:
                arrived(parent)
                if not self._aborting:
                    # The parent task was cancelled while the body was done
                    # and the children still ran.
                    propagate_cancellation_error = ex
                    self._abort()
            self._on_completed_fut = None

        assert not self._tasks

        if self._base_error is not None:
            raise self._base_error

        if self._parent_cancel_requested and await settle(parent) == 0:
            # Our own cancellation of the parent is withdrawn; with no other
            # request pending, it must not propagate.
            propagate_cancellation_error = None

        # Errors have priority over a cancellation.
        if propagate_cancellation_error is not None and not self._errors:
            raise propagate_cancellation_error

        if et is not None and not issubclass(et, asyncio.CancelledError):
            assert exc is not None
            self._errors.append(exc)

        if self._errors:
            # The group turns the parent's cancellation into an exception
            # group: re-arm the cancellation so that whoever requested it
            # still sees it, keeping the count as it was.
            if cancelling(parent):
                recancel(parent)
            # Drop the list (exceptions form cycles with their frames).
            try:
                me = BaseExceptionGroup("unhandled errors in a TaskGroup", self._errors)
                raise me from None
            finally:
                self._errors = None

    def create_task(
        self,
        coro: "Coroutine[Any, Any, _T]",
        *,
        name: "Optional[str]" = None,
        context: "Optional[Context]" = None,
    ) -> "asyncio.Task[_T]":
        """Create a new task in this group and return it.

        Similar to `asyncio.create_task`.
        """
        if not self._entered:
            coro.close()
            raise RuntimeError(f"TaskGroup {self!r} has not been entered")
        if self._exiting and not self._tasks:
            coro.close()
            raise RuntimeError(f"TaskGroup {self!r} is finished")
        if self._aborting:
            coro.close()
            raise RuntimeError(f"TaskGroup {self!r} is shutting down")
        assert self._loop is not None
        if context is None:
            task = self._loop.create_task(coro, name=name)
        else:
            # 3.11's loops take context=; older ones raise TypeError, and the
            # coroutine, never started, is closed as in the errors above.
            try:
                task = self._loop.create_task(coro, name=name, context=context)  # type: ignore[call-arg,unused-ignore]
            except TypeError:
                coro.close()
                raise
        # A task that is already done (an eager task factory) is handled now.
        if task.done():
            self._on_task_done(task)
        else:
            self._tasks.add(task)
            task.add_done_callback(self._on_task_done)
        return task

    def _abort(self) -> None:
        self._aborting = True
        for t in self._tasks:
            if not t.done():
                request(t)

    def _on_task_done(self, task: "asyncio.Task[Any]") -> None:
        assert self._parent_task is not None and self._loop is not None
        self._tasks.discard(task)

        if self._on_completed_fut is not None and not self._tasks and not self._on_completed_fut.done():
            self._on_completed_fut.set_result(True)

        if task.cancelled():
            return

        exc = task.exception()
        if exc is None:
            return

        assert self._errors is not None
        self._errors.append(exc)
        if _is_base_error(exc) and self._base_error is None:
            self._base_error = exc

        if self._parent_task.done():
            self._loop.call_exception_handler({
                "message": f"Task {task!r} has errored out but its parent "
                           f"task {self._parent_task} is already completed",
                "exception": exc,
                "task": task,
            })
            return

        if not self._aborting and not self._parent_cancel_requested:
            # Interrupt whatever the body awaits, so that the group exits
            # promptly; __aexit__ withdraws this cancellation again.
            self._abort()
            self._parent_cancel_requested = True
            request(self._parent_task)


def _is_base_error(exc: BaseException) -> bool:
    # Tasks propagate every exception except these two, which stop the loop.
    return isinstance(exc, (SystemExit, KeyboardInterrupt))
