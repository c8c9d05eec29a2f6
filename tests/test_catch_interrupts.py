"""An interrupt landing anywhere in ``catch()``'s machinery loses nothing.

``test_engine_interrupts`` does this for the transformed ``except*``, whose
guards are in the user's frame.  ``catch()``'s machinery is all exceptstar's:
``__exit__``/``__aexit__``, the generators that call the handlers, the engine.
A tracer raises ``KeyboardInterrupt`` at each event (call, line, return,
exception) of exceptstar's frames in turn, once the with statement's
``__exit__`` is called; the interrupt must then be treated as a handler's
exception raised at that point: it propagates with every leaf no handler
took, none twice, none both handled and propagated, and with no frame of
exceptstar's.

Nothing can guard the first events of ``__exit__`` (its call, its first
lines) or its last, once the outcome is made: an interrupt there leaves the
with statement as from any ``__exit__``, with the whole group, untouched, or
the whole outcome as its ``__context__``.
"""

from __future__ import annotations

import gc
import sys
from types import FrameType
from typing import Any, Callable, Dict, List, Optional

import pytest
from support.interrupts import leaves, problems

from exceptstar import ExceptionGroup, _catch, _frames, catch

Tracer = Callable[[FrameType, str, Any], Optional[Callable[..., Any]]]
# The leaves of the group, of what catch() propagates, and of what its handlers take.
ORIGINAL = ["ValueError(1)", "TypeError(2)", "OSError(3)", "ValueError(4)"]
OUTCOME = ["KeyError(5)", "TypeError(2)"]
SETTLED = ["ValueError(1)", "ValueError(4)"]
# Where the tracer starts: PyPy 3.9 traces no event of __exit__ and __aexit__ (hidden frames, see _catch._PYPY).
ENTRIES = {_catch.catch.__exit__.__code__, _catch.catch.__aexit__.__code__, _catch.catch._outcome.__code__,
           _catch.CaughtStar.__init__.__code__}


def on_os_error(group: BaseException) -> None:
    raise KeyError(5)


async def on_os_error_async(group: BaseException) -> None:
    raise KeyError(5)


def nested(log: List[BaseException]) -> None:
    with catch({ValueError: log.append, OSError: on_os_error, ZeroDivisionError: log.append}):
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2), ExceptionGroup("in", [OSError(3), ValueError(4)])])


def flat(log: List[BaseException]) -> None:
    # A flat group of exceptstar's under built-in keys: catch()'s own inline split on 3.8-3.10.
    with catch({ValueError: log.append, OSError: on_os_error, ZeroDivisionError: log.append}):
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2), OSError(3), ValueError(4)])


async def nested_async(log: List[BaseException]) -> None:
    async with catch({ValueError: log.append, OSError: on_os_error_async, ZeroDivisionError: log.append}):
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2), ExceptionGroup("in", [OSError(3), ValueError(4)])])


def awaited(log: List[BaseException]) -> None:
    coroutine = nested_async(log)
    try:
        coroutine.send(None)
    except StopIteration:
        pass


PROGRAMS = {"nested": nested, "flat": flat, "async": awaited}


def tracer(events: List[str], land_at: int) -> Tracer:
    """Counts the events of exceptstar's frames from ``__exit__``'s call on in ``events``; raises at number
    ``land_at`` (-1: never)."""

    armed = []

    def local(frame: FrameType, event: str, arg: Any) -> Tracer | None:
        if land_at < 0 or len(events) <= land_at:
            events.append(f"{frame.f_code.co_name}:{event}:{frame.f_lineno}")
            if len(events) - 1 == land_at:
                raise KeyboardInterrupt
        return local

    def global_(frame: FrameType, event: str, arg: Any) -> Tracer | None:
        if frame.f_code in ENTRIES:
            armed.append(True)
        if armed and _frames.is_own(type("tb", (), {"tb_frame": frame})):
            return local(frame, event, arg)
        return None

    return global_


def run(program: Callable[[List[BaseException]], None], land_at: int) -> Dict[str, Any]:
    """Run ``program`` once, an interrupt at event ``land_at``: what came out, and what is wrong with it."""
    log: List[BaseException] = []
    events: List[str] = []
    result: BaseException | None = None
    old = sys.gettrace()
    sys.settrace(tracer(events, land_at))
    try:
        program(log)
    except BaseException as exc:
        result = exc
    finally:
        sys.settrace(old)
    assert sys.exc_info() == (None, None, None)
    handled = [leaf for part in log for leaf in leaves(part)]
    at = events[land_at] if 0 <= land_at < len(events) else None
    # The interrupt alone, with the group's leaves or the outcome's in its context: see test_ below.
    alone = repr(result) == "KeyboardInterrupt()" and result.__context__ is not None  # type: ignore[union-attr]
    context = result.__context__ if alone else None  # type: ignore[union-attr]
    if isinstance(context, _catch._Settle):  # where __exit__ keeps a block of its own (PyPy): it is entered first
        context = context.__context__
    untouched = alone and leaves(context) == ORIGINAL and not handled  # type: ignore[arg-type]
    settled = alone and leaves(context) == OUTCOME and sorted(handled) == SETTLED  # type: ignore[arg-type]
    return {"at": at, "outcome": repr(result), "problems": problems(result, handled, untouched or settled),
            "untouched": untouched, "settled": settled, "events": len(events)}


@pytest.mark.skipif(sys.gettrace() is not None, reason="a tracer of its own (coverage, a debugger) runs")
# An awaitable a handler returned and an interrupt then left unawaited: its part counts as handled.
@pytest.mark.filterwarnings("ignore:coroutine '.*' was never awaited:RuntimeWarning")
@pytest.mark.parametrize("kind", PROGRAMS)
def test_a_tracer_interrupt_anywhere_in_catch_loses_nothing(kind: str) -> None:
    program = PROGRAMS[kind]
    run(program, -1)  # the files of this test remembered as not ours: the same events every run after
    plain = run(program, -1)
    assert plain["outcome"].startswith("ExceptionGroup('', [KeyError(5), ExceptionGroup('eg', [TypeError(2)")
    assert plain["events"] > 20, plain
    outcomes = []
    for n in range(plain["events"]):
        outcomes.append(run(program, n))
        if n % 20 == 0:
            gc.collect()  # the interrupts' cycles (their frames), not left for a later test, which counts its own
    # And what the last runs left: PyPy finalizes an unawaited coroutine only as it collects, which must be
    # under this test's filter, not at the end of the session (its warning printed after pytest's summary).
    gc.collect()
    gc.collect()  # PyPy: what the first collection's finalizers freed
    if sys.version_info < (3, 10):
        # CPython 3.8 and 3.9 clear what a tracer raises at a for loop's exception event as the loop ends (its
        # iterator's StopIteration): that interrupt never was.
        outcomes = [o for o in outcomes if not (":exception:" in o["at"] and o["outcome"] == plain["outcome"])]
    if sys.implementation.name == "pypy":
        # A tracer's exception at the return event of a frame that an exception leaves replaces that exception,
        # on every interpreter; PyPy gives it the context the caller handles, here the group: what __exit__
        # raised, leaving by then, is gone with the tracer's exception, as it would be from any frame.
        outcomes = [o for o in outcomes if not (o["at"].startswith("__exit__:return") and o["problems"])]
    bad = [o for o in outcomes if o["problems"]]
    assert not bad, (len(bad), len(outcomes), bad[:8])
    # Untouched only where nothing is taken yet, before _outcome's try; settled only once the outcome is made
    # (finish() has returned or is returning).  Everywhere else, in the handlers' generators, the engine, and
    # _outcome's recovery itself, the interrupt travels with the unhandled rest, never alone.
    untouched = {o["at"].split(":")[0] for o in outcomes if o["untouched"]}
    settled = {o["at"].split(":")[0] for o in outcomes if o["settled"]}
    assert untouched <= {"__exit__", "__aexit__", "_outcome"}, untouched
    # (reraise: PyPy 3.9's set_handled, which outcome() calls last.)
    assert settled <= {"__exit__", "__aexit__", "_outcome", "finish", "_verdict", "reraise"}, settled
    whole = [o for o in outcomes if not (o["untouched"] or o["settled"])]
    assert all("KeyboardInterrupt()" in o["outcome"] and "TypeError(2)" in o["outcome"] for o in whole), kind
    assert len(whole) > 0.9 * len(outcomes), (len(whole), len(outcomes))
