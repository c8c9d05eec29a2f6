"""``collapse()`` in small programs, described as JSON: what leaves the block, here and natively.

``observe(names)`` runs the named scenarios and describes what each raised:
its type and text, the (function, line) entries of its traceback in this
file, its notes, and its cause and context described the same way (one
level).  Run in this interpreter and in a 3.11+ one
(``support.processes.call``), the descriptions must be equal.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Dict, List

# exceptstar's classes: the built-ins on 3.11+ unless EXCEPTSTAR_PURE=1 (then the pure ones, which it collapses).
from exceptstar import BaseExceptionGroup


def fail(exc: BaseException) -> None:
    raise exc


def child_group(*errors: BaseException) -> None:
    caught = []
    for error in errors:
        try:
            fail(error)
        except BaseException as exc:
            caught.append(exc)
    raise BaseExceptionGroup("children", caught)


def with_one() -> None:
    from exceptstar import collapse

    with collapse():
        child_group(ValueError("one"))


def with_context() -> None:
    from exceptstar import collapse

    error = ValueError("with context")
    error.__context__ = KeyError("own")
    with collapse(ignore=asyncio.CancelledError):
        try:
            child_group(error)
        except BaseExceptionGroup as inner:
            raise BaseExceptionGroup("outer", [inner, asyncio.CancelledError()]) from None


def with_cause() -> None:
    from exceptstar import collapse

    try:
        fail(OSError("the cause"))
    except OSError as cause:
        error = ValueError("caused")
        error.__cause__ = cause
    with collapse(ignore=asyncio.CancelledError):
        child_group(asyncio.CancelledError(), error)


def two_errors() -> None:
    from exceptstar import collapse

    with collapse():
        child_group(ValueError(1), KeyError(2))


def decorated() -> None:
    from exceptstar import collapse

    @collapse()
    def function() -> None:
        child_group(TypeError("decorated"))

    function()


def task_group() -> None:
    import exceptstar.asyncio
    from exceptstar import collapse

    async def child() -> None:
        await asyncio.sleep(0)
        fail(ValueError("child"))

    async def main() -> None:
        async with collapse(ignore=asyncio.CancelledError), exceptstar.asyncio.TaskGroup() as tg:
            tg.create_task(asyncio.sleep(3600))
            tg.create_task(child())

    asyncio.run(main())


SCENARIOS: Dict[str, Callable[[], None]] = {f.__name__: f for f in (
    with_one, with_context, with_cause, two_errors, decorated, task_group)}


def describe(exc: BaseException | None, depth: int = 1) -> Any:
    if exc is None:
        return None
    frames: List[Any] = []
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == __file__:
            frames.append([tb.tb_frame.f_code.co_name, tb.tb_lineno])
        tb = tb.tb_next
    described = {"type": type(exc).__name__, "str": str(exc), "frames": frames,
                 "notes": getattr(exc, "__notes__", None), "suppress": exc.__suppress_context__,
                 "members": [describe(m, 0) for m in getattr(exc, "exceptions", ())]}
    if depth:
        described["cause"] = describe(exc.__cause__, depth - 1)
        described["context"] = describe(exc.__context__, depth - 1)
    return described


def without_lines(described: Any) -> Any:
    """``described`` with function names only in its frames."""
    if isinstance(described, list):
        return [without_lines(item) for item in described]
    if isinstance(described, dict):
        return {key: [name for name, _line in value] if key == "frames" else without_lines(value)
                for key, value in described.items()}
    return described


def observe(names: List[str]) -> Any:
    found = {}
    for name in names:
        try:
            SCENARIOS[name]()
        except BaseException as exc:
            found[name] = describe(exc)
        else:
            found[name] = None
    return found
