"""An interrupt landing anywhere in ``collapse()``'s own code loses nothing.

A tracer raises ``KeyboardInterrupt`` at each line event of ``_collapse``'s
frames in turn, while a group of one error leaves a ``with collapse():``
block (the common case, whose handled exception is set inline on 3.8-3.10):
the interrupt reaches the caller, and the group (so its one error) is
reachable from it through ``__context__``, wherever it landed; the handled
exception afterwards is what it was before.  (The scenario runs while a KeyError is handled: the one error
gets that as its context, so the group is named in its note.)
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any, Callable, List, Optional

import pytest

from exceptstar import ExceptionGroup, _collapse, collapse

OURS = _collapse.__file__
# What runs before the block (its __enter__ a Python method in earlier versions): nothing is pending yet.
BEFORE = ("__init__", "__enter__")
Tracer = Callable[[FrameType, str, Any], Optional[Callable[..., Any]]]


def fail() -> None:
    raise ValueError("the one")


def body() -> None:
    try:
        fail()
    except ValueError as exc:
        raise ExceptionGroup("one failed", [exc]) from None


def tracer(events: List[int], land_at: int) -> Tracer:
    """Counts the line events of ``_collapse``'s frames once the block has left in ``events``; raises at number
    ``land_at`` (-1: never)."""

    def local(frame: FrameType, event: str, arg: Any) -> Tracer | None:
        if event == "line":
            events.append(frame.f_lineno)
            if len(events) - 1 == land_at:
                raise KeyboardInterrupt(f"at line {frame.f_lineno}")
        return local

    def global_(frame: FrameType, event: str, arg: Any) -> Tracer | None:
        return local if frame.f_code.co_filename == OURS and frame.f_code.co_name not in BEFORE else None

    return global_


def run(land_at: int) -> tuple[BaseException, List[BaseException], List[int]]:
    """The exception that leaves the block, the groups raised in it, the line events seen."""
    events: List[int] = []
    groups: List[BaseException] = []
    old = sys.gettrace()
    sys.settrace(tracer(events, land_at))
    try:
        with collapse():
            try:
                body()
            except ExceptionGroup as group:
                groups.append(group)
                raise
    except BaseException as exc:
        out = exc
    finally:
        sys.settrace(old)
    return out, groups, events


def context_chain(exc: BaseException | None) -> List[BaseException]:
    chain = []
    while exc is not None and exc not in chain:
        chain.append(exc)
        exc = exc.__context__
    return chain


def while_handled(land_at: int) -> tuple[BaseException, List[BaseException], List[int]]:
    """``run(land_at)`` while a KeyError is handled, which is handled again after it."""
    try:
        raise KeyError("handled before")
    except KeyError as before:
        outcome = run(land_at)
        assert sys.exc_info()[1] is before
    return outcome


@pytest.mark.skipif(sys.gettrace() is not None, reason="a tracer of its own (coverage, a debugger) runs")
def test_an_interrupt_at_any_line_keeps_the_group() -> None:
    while_handled(-1)  # the files of this test remembered as not ours: the same events every run after
    out, groups, events = while_handled(-1)
    assert isinstance(out, ValueError) and out is groups[0].exceptions[0]  # type: ignore[attr-defined]
    assert len(events) > 5, events  # __exit__'s lines and _one_of's
    for land_at in range(len(events)):
        out, groups, seen = while_handled(land_at)
        assert len(seen) == land_at + 1 and isinstance(out, KeyboardInterrupt), (land_at, seen[-1], out)
        # Nothing pending is lost: the group, or once collapse has chosen it, the one error (which has its
        # own context here, the handled KeyError, and names the group in a note) is in the interrupt's chain.
        chain = context_chain(out)
        leaf = groups[0].exceptions[0]  # type: ignore[attr-defined]
        assert groups[0] in chain or leaf in chain, (land_at, seen[-1], chain)
