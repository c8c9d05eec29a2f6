"""What the differential programs share: the names, and a stable way to print outcomes.

On 3.15+ the names come from asyncio (the programs run on the bare
interpreter there); before, and with EXCEPTSTAR_PURE=1, from exceptstar.asyncio
(on 3.11-3.14 its TaskGroup is asyncio's subclass with 3.15's behaviour, and
the timeouts asyncio's own).
"""

import asyncio
import os
import sys

if sys.version_info >= (3, 15) and not os.environ.get("EXCEPTSTAR_PURE"):
    from asyncio import TaskGroup, timeout, timeout_at

    def cancelling(task):
        return task.cancelling()

else:
    from exceptstar import BaseExceptionGroup
    from exceptstar.asyncio import TaskGroup, cancelling, timeout, timeout_at

__all__ = ["TaskGroup", "asyncio", "cancelling", "show", "timeout", "timeout_at"]


def show(exc, chain=True):
    """Type, message and members of an exception, and what it was raised from."""
    if isinstance(exc, BaseExceptionGroup):
        text = f"{type(exc).__name__}({exc.message!r}, [{', '.join(show(e, chain) for e in exc.exceptions)}])"
    else:
        text = f"{type(exc).__name__}({str(exc)!r})"
    if chain and exc.__cause__ is not None:
        text += f" from {show(exc.__cause__, chain)}"
    elif chain and exc.__context__ is not None and not exc.__suppress_context__:
        text += f" during {show(exc.__context__, chain)}"
    return text
