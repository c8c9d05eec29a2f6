"""What is wrong with the outcome of a statement that an interrupt hit: the checks of the interrupt tests.

The programs run one group through three handlers: ``UNMATCHED`` is what no
handler takes, ``MATCHABLE`` what one may take (handled then, even if its
handler never ran: the interrupt landed after the match), including what a
handler raises.  ``test_engine_interrupts`` imports this in its child process.
"""

from __future__ import annotations

from typing import List

from exceptstar import BaseExceptionGroup, _frames

UNMATCHED = {"TypeError(2)"}
MATCHABLE = {"ValueError(1)", "ValueError(4)", "OSError(3)", "KeyError(5)"}


def leaves(exc: BaseException) -> List[str]:
    """The reprs of ``exc``'s leaves, in order."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for member in exc.exceptions for leaf in leaves(member)]
    return [repr(exc)]


def own_frames(exc: BaseException) -> List[str]:
    """The functions of exceptstar's in the tracebacks of ``exc`` and its members."""
    found = []
    for part in [exc, *getattr(exc, "exceptions", ())]:
        tb = part.__traceback__
        while tb is not None:
            if _frames.is_own(tb):
                found.append(tb.tb_frame.f_code.co_name)
            tb = tb.tb_next
    return found


def problems(result: BaseException | None, handled: List[str], excused: bool) -> List[str]:
    """What is wrong when ``result`` propagated and the handlers took ``handled``.

    ``excused``: the interrupt landed where leaving alone loses nothing (before
    the group was raised, or with all of it in its context): then neither
    missing leaves nor exceptstar's frames count.
    """
    out = leaves(result) if result is not None else []
    found = []
    if not set(out) >= UNMATCHED and not excused:
        found.append("lost " + repr(UNMATCHED - set(out)))
    if out.count("KeyboardInterrupt()") > 1 or len(out) != len(set(out)):
        found.append("duplicated")
    unknown = set(out) - UNMATCHED - MATCHABLE - {"KeyboardInterrupt()"}
    if unknown or not set(handled) <= MATCHABLE:
        found.append("unknown " + repr(unknown))
    if set(out) & set(handled):
        found.append("both handled and propagated")
    if result is not None and not excused and own_frames(result):
        found.append("our frames " + repr(own_frames(result)))
    return found
