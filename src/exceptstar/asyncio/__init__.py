"""``exceptstar.asyncio``: what raises exception groups in asyncio, as the newest CPython has it.

- ``TaskGroup``: CPython 3.15's (with ``cancel()``), on every version;
- ``timeout``, ``timeout_at``, ``Timeout`` (3.11) and the ``TimeoutError``
  that ``timeout()`` raises;
- ``cancelling(task)`` and ``uncancel(task)``: 3.11's ``Task.cancelling()`` and
  ``Task.uncancel()`` as functions, for tasks that lack the methods;
- ``open_connection`` and ``create_connection`` (on the running loop) with
  ``all_errors`` (3.12).

``TaskGroup`` is asyncio's own from 3.15 (``exceptstar.asyncio.TaskGroup is
asyncio.TaskGroup``); on 3.11-3.14 it is exceptstar's subclass of
``asyncio.TaskGroup`` with 3.15's behaviour.  The timeouts are asyncio's own
from 3.11.  With ``EXCEPTSTAR_PURE=1`` exceptstar's implementations are used
on every version, with its pure-Python groups.  The connection functions are
the native ones from 3.12 on.  Nothing imports this module but the user:
``import exceptstar`` stays cheap.

The implementation is private: ``_taskgroup`` (3.15's, step by step),
``_timeout`` (3.13's, step by step), ``_cancel`` (the cancellation counts kept
beside a task) and ``_connect`` (connections trying every address).  They
import the core only.
"""

import sys

from exceptstar import PURE
from exceptstar.asyncio._cancel import cancelling, uncancel

__all__ = [
    "TaskGroup",
    "Timeout",
    "TimeoutError",
    "cancelling",
    "create_connection",
    "open_connection",
    "timeout",
    "timeout_at",
    "uncancel",
]

if sys.version_info >= (3, 15) and not PURE:
    from asyncio import TaskGroup
else:
    from exceptstar.asyncio._taskgroup import TaskGroup

if sys.version_info >= (3, 11) and not PURE:
    from asyncio import Timeout, timeout, timeout_at
    from builtins import TimeoutError
else:
    from exceptstar.asyncio._timeout import Timeout, TimeoutError, timeout, timeout_at

if sys.version_info >= (3, 12):
    import asyncio as _asyncio
    from asyncio import open_connection

    TYPE_CHECKING = False
    if TYPE_CHECKING:  # pragma: no cover
        from typing import Any, Optional, Tuple

    async def create_connection(
        protocol_factory: "Any", host: "Optional[str]" = None, port: "Optional[Any]" = None, **kwds: "Any"
    ) -> "Tuple[_asyncio.BaseTransport, _asyncio.BaseProtocol]":
        """``loop.create_connection(...)`` on the running loop (which has ``all_errors``)."""
        return await _asyncio.get_running_loop().create_connection(protocol_factory, host, port, **kwds)
else:
    from exceptstar.asyncio._connect import create_connection, open_connection
