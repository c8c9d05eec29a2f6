"""``TaskGroup`` with CPython 3.15's behaviour, on every version before 3.15.

The logic follows CPython 3.15's ``Lib/asyncio/taskgroups.py`` step by step
(the same states, the same order of cancellations, errors and messages):
``cancel()`` (gh-108951), a lone ``GeneratorExit`` from the body re-raised as
itself, ``__aexit__`` returning True, a task created while the group aborts
cancelled (gh-155418), an outside cancellation kept (gh-155433).  It differs
in where the cancellation count lives (``_cancel``: on 3.8-3.10 tasks have no
``cancelling()``/``uncancel()``) and in the group class it raises
(exceptstar's ``BaseExceptionGroup``).

On 3.11-3.14 (without ``EXCEPTSTAR_PURE``) the class is a subclass of
``asyncio.TaskGroup``, so that ``isinstance(group, asyncio.TaskGroup)``
holds; it defines every method asyncio's defines, so none of the private
internals that differ between 3.11, 3.12, 3.13 and 3.14 is used.
"""

import asyncio
import sys

from exceptstar import PURE, BaseExceptionGroup
from exceptstar.asyncio._cancel import arrived, cancelling, delivered, recancel, request, settle

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import Any, Callable, Coroutine, List, Optional, Set, Type, TypeVar

    _T = TypeVar("_T")

# Type checkers see one class, with the methods below, on every target.
if TYPE_CHECKING or sys.version_info < (3, 11) or PURE:
    _Base = object
else:
    _Base = asyncio.TaskGroup

# 3.14's call graph introspection (asyncio.capture_call_graph): the parent
# task awaits its children.
_add_awaited_by: "Optional[Callable[[Any, Any], None]]" = getattr(
    asyncio.futures, "future_add_to_awaited_by", None)
_discard_awaited_by: "Optional[Callable[[Any, Any], None]]" = getattr(
    asyncio.futures, "future_discard_from_awaited_by", None)


class TaskGroup(_Base):
    """Asynchronous context manager for managing groups of tasks (CPython 3.15's).

    Example use::

        async with TaskGroup() as group:
            task1 = group.create_task(some_coroutine(...))
            task2 = group.create_task(other_coroutine(...))
        print("Both tasks have completed now.")

    All tasks are awaited when the context manager exits.

    Any exceptions other than ``asyncio.CancelledError`` raised within a task
    cancel all remaining tasks and wait for them to exit; the exceptions are
    then combined and raised as an ``ExceptionGroup``.  ``cancel()`` stops the
    group's tasks and its body without an error.
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
        self._cancel_on_enter = False

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
        if self._cancel_on_enter:
            self.cancel()
        return self

    async def __aexit__(
        self,
        et: "Optional[Type[BaseException]]",
        exc: "Optional[BaseException]",
        tb: "Optional[TracebackType]",
    ) -> None:
        # True at run time: the group's own cancellation of its body is
        # suppressed.  Typed as typeshed types asyncio's, so that checkers do
        # not take every block for one that may swallow any exception.  The
        # traceback is exc's: this frame, kept by it, must not keep it.
        del tb
        try:
            # Two lines: tracebacks on 3.11-3.14 show this one, so it carries
            # no ignore comment.
            suppress = await self._aexit(et, exc)
            return suppress  # type: ignore[return-value]
        finally:
            # Exceptions and their frames form cycles: keep none of them.
            self._parent_task = None
            self._errors = None
            self._base_error = None
            exc = None

    async def _aexit(self, et: "Optional[Type[BaseException]]", exc: "Optional[BaseException]") -> bool:
        assert self._parent_task is not None and self._loop is not None and self._errors is not None
        self._exiting = True

        if exc is not None and self._is_base_error(exc) and self._base_error is None:
            self._base_error = exc

        propagate_cancellation_error: Optional[BaseException] = None
        if et is not None and issubclass(et, asyncio.CancelledError):
            propagate_cancellation_error = exc
            arrived(self._parent_task)

        # The body raised, or the parent task is being cancelled: stop the
        # children (unless a failing child or cancel() already did).
        if et is not None and not self._aborting:
            self._abort()

        # A loop, because the wait can be cancelled several times while the
        # parent task is cancelled again and again.  The last cancellation
        # seen is kept: it may not be ours (gh-155433).
        pending_cancellation_error: Optional[BaseException] = None
        while self._tasks:
            if self._on_completed_fut is None:
                self._on_completed_fut = self._loop.create_future()
            try:
                await self._on_completed_fut
            except asyncio.CancelledError as ex:
                delivered(self._parent_task)
                pending_cancellation_error = ex
                if not self._aborting:
                    # The parent task was cancelled while the body was done
                    # and the children still ran.
                    propagate_cancellation_error = ex
                    self._abort()
            self._on_completed_fut = None

        assert not self._tasks

        if self._base_error is not None:
            try:
                raise self._base_error
            finally:
                exc = None

        if self._parent_cancel_requested:
            if await settle(self._parent_task) == 0:
                # Our own cancellation of the parent is withdrawn; with no
                # other request pending, it must not propagate.
                propagate_cancellation_error = None
            elif propagate_cancellation_error is None:
                # Somebody else's request remains: it must not be lost.
                propagate_cancellation_error = pending_cancellation_error

        # Errors have priority over a cancellation.
        try:
            if propagate_cancellation_error is not None and not self._errors:
                try:
                    raise propagate_cancellation_error
                finally:
                    exc = None
        finally:
            propagate_cancellation_error = None

        if et is not None and not issubclass(et, asyncio.CancelledError):
            assert exc is not None
            self._errors.append(exc)

        if self._errors:
            # The group turns the parent's cancellation into an exception
            # group: re-arm the cancellation so that whoever requested it
            # still sees it, keeping the count as it was.
            if cancelling(self._parent_task):
                recancel(self._parent_task)
            try:
                # A lone GeneratorExit from the body is an async generator's
                # aclose(): it must reach the generator as itself.  One from a
                # child is an error like any other.
                if et is not None and issubclass(et, GeneratorExit) and len(self._errors) == 1:
                    assert exc is not None
                    raise exc
                raise BaseExceptionGroup("unhandled errors in a TaskGroup", self._errors) from None
            finally:
                exc = None

        # What deserved to propagate was raised above; the rest (the group's
        # own cancellation of its body) is suppressed.
        return True

    def create_task(self, coro: "Coroutine[Any, Any, _T]", **kwargs: "Any") -> "asyncio.Task[_T]":
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
        if sys.version_info < (3, 11) and "context" in kwargs:
            # The loops of 3.8-3.10 take no context= and raise TypeError; the
            # coroutine, never started, is closed as in the errors above.
            try:
                task = self._loop.create_task(coro, **kwargs)
            except TypeError:
                coro.close()
                raise
        else:
            task = self._loop.create_task(coro, **kwargs)
        if _add_awaited_by is not None:
            _add_awaited_by(task, self._parent_task)
        # Even a task already done (an eager task factory) is handled by the
        # callback, so that its error does not cancel the body before
        # create_task() returns (gh-128550).
        self._tasks.add(task)
        task.add_done_callback(self._on_task_done)
        # An eager task may have cancelled the group before joining it.
        if self._aborting and not task.done():
            request(task)
        try:
            return task
        finally:
            # An eager task's frames keep this one (their f_back): its
            # exception must not keep the task alive through it.
            del task

    def _is_base_error(self, exc: BaseException) -> bool:
        # Tasks propagate every exception except these two, which stop the loop.
        return isinstance(exc, (SystemExit, KeyboardInterrupt))

    def _abort(self) -> None:
        self._aborting = True
        for t in self._tasks:
            if not t.done():
                request(t)

    def _on_task_done(self, task: "asyncio.Task[Any]") -> None:
        assert self._loop is not None
        self._tasks.discard(task)
        if _discard_awaited_by is not None:
            _discard_awaited_by(task, self._parent_task)

        if self._on_completed_fut is not None and not self._tasks and not self._on_completed_fut.done():
            self._on_completed_fut.set_result(True)

        if task.cancelled():
            return

        exc = task.exception()
        if exc is None:
            return

        assert self._errors is not None and self._parent_task is not None
        self._errors.append(exc)
        if self._is_base_error(exc) and self._base_error is None:
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

    def cancel(self) -> None:
        """Cancel the task group: its tasks that are not done, and its body.

        The ``async with`` block then exits without ``asyncio.CancelledError``.
        Called before the group is entered, it cancels the group on entry (a
        ``create_task()`` before the body's first ``await`` then raises
        ``RuntimeError``).  Idempotent; allowed after the group has exited.
        """
        if not self._entered:
            self._cancel_on_enter = True
            return
        if self._exiting and not self._tasks:
            return
        if not self._aborting:
            self._abort()
            if self._parent_task is not None and not self._parent_cancel_requested:
                self._parent_cancel_requested = True
                request(self._parent_task)
