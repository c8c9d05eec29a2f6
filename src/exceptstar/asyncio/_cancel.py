"""Cancellation counting (``Task.cancelling()`` / ``uncancel()``) for tasks that lack it.

3.11 gave ``asyncio.Task`` a count of pending cancellation requests: ``cancel()``
adds one, ``uncancel()`` removes one (and, since 3.13, withdraws a cancellation
not yet delivered when the count reaches 0, gh-116720).  ``TaskGroup`` and
``timeout()`` rely on it to tell their own cancellations from everybody
else's.  Tasks with those methods (3.11+, or any task class that has them)
count for themselves; on 3.11 and 3.12 ``settle()`` still withdraws a
re-armed cancellation as 3.13 does.

The C ``_asyncio.Task`` of 3.8-3.10 has no counter, no instance ``__dict__``,
and a read-only ``_must_cancel``; and it must not be replaced (code holding
``asyncio.current_task()`` must keep seeing the same object).  So the count is
kept beside the task, in a weak map, and counts:

- every request made by exceptstar's ``TaskGroup`` and ``Timeout`` (they call
  ``request()`` instead of ``task.cancel()``);
- a request from outside when a ``CancelledError`` reaches one of them while
  the count is 0 (``arrived()``): that is where 3.11's ``TaskGroup`` notices
  that its parent is being cancelled;
- a request from outside delivered into the ``TaskGroup``'s own wait for its
  children when no request of ours was pending (``delivered()``), even while
  ours are counted: 3.15's ``TaskGroup`` must not drop it;
- a request from outside that is still pending when we make ours
  (``_must_cancel`` already set, or the future the task waits on cancelled),
  or that comes after ours before the task wakes up (a probe queued ahead of
  the task's wake-up sees ``_must_cancel``).

An outside request that the task swallows before it reaches one of exceptstar's
context managers is not seen, and two outside requests delivered as one
``CancelledError`` count once: that is where the count can be lower than
3.13's.
"""

import asyncio
import weakref

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Optional

    Task = asyncio.Task[Any]


class _Count:
    """What 3.11 keeps in the task: the requests, plus what delivery needs."""

    __slots__ = ("recancel", "requests", "serial", "waiter")

    def __init__(self) -> None:
        self.requests = 0
        # Gives the future the task waited on when we last requested (None
        # when it was not waiting); while the task still waits on it, that
        # request is not delivered.  None: nothing of ours is pending.
        self.waiter: Optional[Callable[[], object]] = None
        # Bumped by each request of ours, so that a probe can tell whether the
        # pending cancellation it sees is somebody else's.
        self.serial = 0
        # Set while a cancellation of ours made when the task was not waiting
        # (re-armed by TaskGroup's uncancel(); cancel(), or TaskGroup.cancel()
        # from its body) may still be pending in its _must_cancel.
        self.recancel = False


_COUNTS: "weakref.WeakKeyDictionary[Task, _Count]" = weakref.WeakKeyDictionary()


def _native(task: "Task") -> bool:
    return hasattr(task, "uncancel") and hasattr(task, "cancelling")


def _count(task: "Task") -> _Count:
    count = _COUNTS.get(task)
    if count is None:
        count = _COUNTS[task] = _Count()
    return count


def _pending(task: "Task") -> bool:
    """A cancellation requested but not yet delivered into the coroutine."""
    return bool(getattr(task, "_must_cancel", False))


def _not_waiting() -> None:
    """What ``_Count.waiter`` gives after a request made while the task was not waiting."""
    return None


def _cancelled_waiter(waiter: "Any") -> bool:
    """The future the task waits on was cancelled: by ``task.cancel()``, unless it is a task.

    A plain future (``sleep()``'s, a lock's, a queue's) is cancelled by the
    task's ``cancel()``; another task awaited may have been cancelled by its
    own canceller, which is no request to this one.
    """
    return waiter is not None and waiter.cancelled() and not isinstance(waiter, asyncio.Task)


def cancelling(task: "Task") -> int:
    """``task.cancelling()``: the number of pending cancellation requests."""
    if _native(task):
        return int(task.cancelling())  # type: ignore[attr-defined]
    count = _COUNTS.get(task)
    return count.requests if count is not None else 0


def uncancel(task: "Task") -> int:
    """``task.uncancel()``: one request fewer; returns how many remain.

    On a task without the method, a cancellation that is already armed for the
    task's next ``await`` cannot be withdrawn from here (3.13 withdraws it when
    the count reaches 0); exceptstar's own context managers do it (``settle``).
    """
    if _native(task):
        return int(task.uncancel())  # type: ignore[attr-defined]
    count = _COUNTS.get(task)
    if count is None:
        return 0
    if count.requests > 0:
        count.requests -= 1
    return count.requests


def request(task: "Task") -> None:
    """``task.cancel()`` made by a TaskGroup or a Timeout, counted."""
    if task.done():
        return  # cancel() would return False and count nothing
    count = _count(task)
    waiter = getattr(task, "_fut_waiter", None)
    if waiter is None:
        # The task is running (``TaskGroup.cancel()`` from its body) or about
        # to: the cancellation waits in _must_cancel, which ``settle()`` may
        # have to withdraw.
        count.recancel = True
    if _native(task):
        task.cancel()
        return
    ours_pending = count.waiter is not None and count.waiter() is waiter
    if not ours_pending and (_pending(task) or _cancelled_waiter(waiter)):
        count.requests += 1  # someone else's request, not yet delivered
    count.requests += 1
    count.serial += 1
    count.waiter = weakref.ref(waiter) if waiter is not None else _not_waiting
    if waiter is not None and not waiter.done():
        # Our cancel() cancels the future the task waits on, and that
        # schedules the task's wake-up; a probe queued first runs just before
        # it.  Any later cancel() finds that future done and sets
        # _must_cancel instead, which the wake-up would consume unseen.
        serial = count.serial

        def probe() -> None:
            if count.serial == serial and _pending(task) and not task.done():
                count.requests += 1

        task.get_loop().call_soon(probe)
    task.cancel()


def arrived(task: "Task") -> None:
    """A ``CancelledError`` reached a TaskGroup or a Timeout of ``task``.

    With no request counted, it comes from a request made elsewhere (another
    task, ``asyncio.wait_for``, ``asyncio.run`` closing), which 3.11 would
    have counted when it was made.
    """
    count = _count(task)
    # Whatever was armed has been delivered.
    count.recancel = False
    count.waiter = None
    if count.requests == 0 and not _native(task):
        count.requests = 1


def delivered(task: "Task") -> None:
    """A ``CancelledError`` was thrown into a TaskGroup's own ``await`` in ``task``.

    Unlike ``arrived()`` (an exception that may have passed through another
    of exceptstar's context managers), this is one delivery: unless a request
    of ours was waiting to be delivered, it is somebody else's, counted now
    even when ours are counted too (3.15's TaskGroup keeps it, gh-155433).
    """
    count = _count(task)
    ours = count.recancel or count.waiter is not None
    count.recancel = False
    count.waiter = None
    if not ours and not _native(task):
        count.requests += 1


def recancel(task: "Task") -> None:
    """3.13's ``task.uncancel(); task.cancel()`` from inside the running task.

    The count stays as it is, and the cancellation is armed again for the
    task's next ``await``.
    """
    count = _count(task)
    count.serial += 1
    count.recancel = True
    if _native(task):
        task.uncancel()  # type: ignore[attr-defined]
    task.cancel()


async def settle(task: "Task") -> int:
    """``uncancel()`` from one of exceptstar's context managers, as 3.13 does it.

    When the count reaches 0 while a cancellation of ours armed in a task that
    was not waiting (``recancel()``, or ``request()`` from the task's own
    code) is still pending, 3.13 withdraws it (gh-116720); 3.8-3.12 tasks
    keep it.
    Their ``_must_cancel`` is read-only: the only way to clear it is to let it
    cancel a future of ours, so the task yields once.
    """
    remaining = uncancel(task)
    count = _COUNTS.get(task)
    if remaining or count is None or not count.recancel or not _pending(task):
        return remaining
    count.recancel = False
    count.serial += 1
    serial = count.serial
    outside = False
    loop = task.get_loop()
    waiter = loop.create_future()

    def probe() -> None:
        # Queued before the task yields `waiter`, so it runs before the
        # wake-up: a request made meanwhile is somebody else's.
        nonlocal outside
        outside = count.serial == serial and _pending(task)

    loop.call_soon(probe)
    try:
        await waiter  # the pending cancellation cancels `waiter` and is spent
    except asyncio.CancelledError:
        pass
    if outside:
        # Deliver it after all, counted once (a native task counted it already).
        if _native(task):
            task.uncancel()  # type: ignore[attr-defined]
        else:
            count.requests += 1
        task.cancel()
    return cancelling(task)
