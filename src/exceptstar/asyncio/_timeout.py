"""``timeout()``, ``timeout_at()`` and ``Timeout`` with CPython 3.13's behaviour.

The logic follows CPython 3.13's ``Lib/asyncio/timeouts.py`` (states, messages,
the ``TimeoutError`` chained from the ``CancelledError``, the ``TimeoutError``
inserted into the context chains of other exceptions); the cancellation count
lives in ``_cancel``.  Also the ``TimeoutError`` raised on 3.8-3.10,
where ``asyncio.TimeoutError`` is not yet the built-in one.
"""

import asyncio
import builtins
import enum
import sys

from exceptstar import ExceptionGroup
from exceptstar.asyncio._cancel import arrived, cancelling, request, settle

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import Any, Optional, Tuple, Type

if sys.version_info >= (3, 11):
    TimeoutError = builtins.TimeoutError
else:

    class TimeoutError(asyncio.TimeoutError, builtins.TimeoutError):
        """The timeout expired: caught by ``except TimeoutError`` and ``except asyncio.TimeoutError``.

        On 3.11+ these are one class; on 3.8-3.10 this class derives from both.
        It prints as ``TimeoutError``, as on 3.11.
        """

        __module__ = "builtins"

        def __reduce__(self) -> "Any":
            # Pickle would look the class up in builtins and find the other one.
            return (_rebuild_timeout_error, self.args, self.__dict__ or None)


def _rebuild_timeout_error(*args: object) -> BaseException:
    return TimeoutError(*args)


# Groups whose members get the TimeoutError inserted, as 3.13 does for its own.
if sys.version_info >= (3, 11) and ExceptionGroup is not builtins.ExceptionGroup:
    _GROUPS: "Tuple[type, ...]" = (ExceptionGroup, builtins.ExceptionGroup)
else:
    _GROUPS = (ExceptionGroup,)


class _State(enum.Enum):
    CREATED = "created"
    ENTERED = "active"
    EXPIRING = "expiring"
    EXPIRED = "expired"
    EXITED = "finished"


class Timeout:
    """Asynchronous context manager for cancelling overdue coroutines.

    Use `timeout()` or `timeout_at()` rather than instantiating this class directly.
    """

    def __init__(self, when: "Optional[float]") -> None:
        """Schedule a timeout that will trigger at a given loop time.

        - If `when` is `None`, the timeout will never trigger.
        - If `when < loop.time()`, the timeout will trigger on the next
          iteration of the event loop.
        """
        self._state = _State.CREATED
        self._timeout_handler: Optional[asyncio.Handle] = None
        self._task: Optional[asyncio.Task[Any]] = None
        self._when = when
        self._cancelling = 0

    def when(self) -> "Optional[float]":
        """Return the current deadline."""
        return self._when

    def reschedule(self, when: "Optional[float]") -> None:
        """Reschedule the timeout."""
        if self._state is not _State.ENTERED:
            if self._state is _State.CREATED:
                raise RuntimeError("Timeout has not been entered")
            raise RuntimeError(f"Cannot change state of {self._state.value} Timeout")

        self._when = when

        if self._timeout_handler is not None:
            self._timeout_handler.cancel()

        if when is None:
            self._timeout_handler = None
        else:
            loop = asyncio.get_running_loop()
            if when <= loop.time():
                self._timeout_handler = loop.call_soon(self._on_timeout)
            else:
                self._timeout_handler = loop.call_at(when, self._on_timeout)

    def expired(self) -> bool:
        """Is timeout expired during execution?"""
        return self._state in (_State.EXPIRING, _State.EXPIRED)

    def __repr__(self) -> str:
        info = [""]
        if self._state is _State.ENTERED:
            when = round(self._when, 3) if self._when is not None else None
            info.append(f"when={when}")
        return f"<Timeout [{self._state.value}]{' '.join(info)}>"

    async def __aenter__(self) -> "Timeout":
        if self._state is not _State.CREATED:
            raise RuntimeError("Timeout has already been entered")
        task = asyncio.current_task()
        if task is None:
            raise RuntimeError("Timeout should be used inside a task")
        self._state = _State.ENTERED
        self._task = task
        self._cancelling = cancelling(task)
        self.reschedule(self._when)
        return self

    async def __aexit__(
        self,
        exc_type: "Optional[Type[BaseException]]",
        exc_val: "Optional[BaseException]",
        exc_tb: "Optional[TracebackType]",
    ) -> "Optional[bool]":
        assert self._state in (_State.ENTERED, _State.EXPIRING)
        assert self._task is not None

        if self._timeout_handler is not None:
            self._timeout_handler.cancel()
            self._timeout_handler = None

        if exc_type is not None and issubclass(exc_type, asyncio.CancelledError):
            arrived(self._task)

        if self._state is _State.EXPIRING:
            self._state = _State.EXPIRED
            # No cancellation requested since ours: the CancelledError is
            # ours to turn into TimeoutError.
            if await settle(self._task) <= self._cancelling and exc_type is not None:
                if issubclass(exc_type, asyncio.CancelledError):
                    raise TimeoutError from exc_val
                elif exc_val is not None:
                    self._insert_timeout_error(exc_val)
                    if isinstance(exc_val, _GROUPS):
                        for exc in exc_val.exceptions:
                            self._insert_timeout_error(exc)
        elif self._state is _State.ENTERED:
            self._state = _State.EXITED

        return None

    def _on_timeout(self) -> None:
        assert self._state is _State.ENTERED
        assert self._task is not None
        request(self._task)
        self._state = _State.EXPIRING
        # Drop the reference early.
        self._timeout_handler = None

    @staticmethod
    def _insert_timeout_error(exc_val: BaseException) -> None:
        # Another exception replaced our CancelledError: put the TimeoutError
        # it stands for between the two in the context chain.
        while exc_val.__context__ is not None:
            if isinstance(exc_val.__context__, asyncio.CancelledError):
                te = TimeoutError()
                te.__context__ = te.__cause__ = exc_val.__context__
                exc_val.__context__ = te
                break
            exc_val = exc_val.__context__


def timeout(delay: "Optional[float]") -> Timeout:
    """Timeout async context manager.

    Useful in cases when you want to apply timeout logic around block
    of code or in cases when asyncio.wait_for is not suitable. For example:

    >>> async with timeout(10):  # 10 seconds timeout
    ...     await long_running_task()

    delay - value in seconds or None to disable timeout logic

    long_running_task() is interrupted by raising asyncio.CancelledError,
    the top-most affected timeout() context manager converts CancelledError
    into TimeoutError.
    """
    loop = asyncio.get_running_loop()
    return Timeout(loop.time() + delay if delay is not None else None)


def timeout_at(when: "Optional[float]") -> Timeout:
    """Schedule the timeout at absolute time.

    Like timeout() but argument gives absolute time in the same clock system
    as loop.time().

    when - a deadline when timeout occurs or None to disable timeout logic
    """
    return Timeout(when)
