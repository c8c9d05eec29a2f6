"""What every case script shares: the sides, the timing loop and the output protocol.

A case script is run by ``bench/run.py`` once per side, in a fresh process of the
benchmark's own environment, as ``python bench/case_X.py --side S [--quick]
[--profile ROW]``.  It prints one JSON object: ``{"rows": {row: result}}``,
where a result is ``{"seconds": median, "runs": [...], "number": n}`` (and a
``"note"`` when the script describes the work done) or ``{"unavailable": reason}``.
With ``--profile ROW`` it prints a cProfile excerpt of that row instead.  With
``--count ROW --number N`` it prints nothing and only runs: that row's loop once
(the warm-up), then N times with garbage collection off, for
``bench/_instructions.py`` to count the instructions of under callgrind (N=0 is
the baseline); the script may skip building the other rows (``wanted()``).

Sides: ``exceptstar`` is this library (the pure classes: on 3.11+ the harness
sets ``EXCEPTSTAR_PURE=1``); ``peer`` is the ``exceptiongroup`` backport on
3.8-3.10 and the interpreter's own types and statement on 3.11+.  The two
sides never share a process: the backport patches ``traceback`` and
``sys.excepthook`` when imported, and a case must not pay for the other side's
imports.

The loop is timeit's: garbage collection off while timing, the number of
iterations grown until one timing lasts long enough, then several repeats.
All the repeats are reported: the harness runs each script several times,
alternating the sides, and keeps the median of every repeat of every process
(timings differ more between processes than within one, on a shared VM).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, Tuple, Type, Union

    # A loop runs the measured operation n times.
    Loop = Callable[[int], object]
    # A row is a loop, or the reason it cannot be measured (yet) on this side.
    Row = Union[Loop, str]
    Rows = Dict[str, Row]

NATIVE = sys.version_info >= (3, 11)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SIDES = ("exceptstar", "peer")

# The row that ``--count`` counts, while the script builds its rows (``wanted()``).
COUNTING: str | None = None

# Row -> a short description of the work done (e.g. the size of an output), which the
# report compares between the sides so that a figure is never for less work.
NOTES: Dict[str, str] = {}


def group_types(side: str) -> Tuple[Type[BaseException], Type[BaseException]]:
    """(BaseExceptionGroup, ExceptionGroup) of one side."""
    if side == "exceptstar":
        import exceptstar

        if not exceptstar.PURE:
            raise SystemExit("the exceptstar side must run the pure classes (EXCEPTSTAR_PURE=1)")
        return exceptstar.BaseExceptionGroup, exceptstar.ExceptionGroup
    if NATIVE:
        import builtins

        return builtins.BaseExceptionGroup, builtins.ExceptionGroup  # type: ignore[attr-defined]
    import exceptiongroup

    return exceptiongroup.BaseExceptionGroup, exceptiongroup.ExceptionGroup


def api(name: str) -> Any:
    """A public name of exceptstar (its lazy attributes are typed ``object``)."""
    import exceptstar

    return getattr(exceptstar, name)


def missing_api(module: str, name: str) -> str:
    """Why an exceptstar feature cannot be measured, or "" when it can."""
    import exceptstar

    try:
        getattr(exceptstar, name)
    except (AttributeError, ImportError) as exc:
        return f"not available yet: exceptstar.{name} ({module}: {type(exc).__name__}: {exc})"
    return ""


# CPU time of this thread, not wall time: on a machine shared with other work
# (2 cores, test suites running beside) the time spent waiting for a core would
# otherwise dominate the spread between runs.
_clock = time.thread_time


def _time_once(loop: Loop, number: int) -> float:
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        start = _clock()
        loop(number)
        return _clock() - start
    finally:
        if was_enabled:
            gc.enable()


def measure(loop: Loop, quick: bool) -> Dict[str, object]:
    """Median seconds per operation over several autoranged repeats."""
    target = 0.03 if quick else 0.1
    repeats = 3 if quick else 5
    loop(1)  # warm-up: first-call costs (lazy imports, caches) are not the steady state
    number = 1
    while True:
        elapsed = _time_once(loop, number)
        if elapsed >= target:
            break
        # Aim a little past the target from what one timing showed, as timeit's
        # autorange does in steps, but without its many short rounds.
        grow = target * 1.2 / elapsed if elapsed > 0 else 10.0
        number = max(number + 1, int(number * min(grow, 10.0)))
    runs = [elapsed / number] + [_time_once(loop, number) / number for _ in range(repeats - 1)]
    return {"seconds": statistics.median(runs), "runs": runs, "number": number}


def measure_processes(sample: Callable[[], float], runs: int) -> Dict[str, object]:
    """For cases timed in whole child processes: one warm-up (it writes any
    bytecode cache and fills the OS's file cache), then the median of ``runs``."""
    sample()
    times = [sample() for _ in range(runs)]
    return {"seconds": statistics.median(times), "runs": times, "number": 1}


def wanted(row: str) -> bool:
    """Whether to build ``row``: a script skips the costly set-up of the rows a ``--count`` of another leaves out."""
    return COUNTING is None or row == COUNTING


def run_counted(rows: Rows, counted: str, number: int) -> None:
    """The work ``--count`` asks for: the row warmed up, then its loop ``number`` times (0: the baseline)."""
    loop = rows[counted]
    if isinstance(loop, str):
        raise SystemExit(f"{counted} cannot be counted: {loop}")
    loop(1)
    gc.collect()
    gc.disable()
    loop(number)


def profile(loop: Loop, seconds: float = 0.5, top: int = 18) -> str:
    """cProfile's busiest entries (by own time) while the loop runs for about ``seconds``."""
    import cProfile
    import io
    import pstats

    loop(1)
    number = 1
    while True:
        start = time.perf_counter()
        loop(number)
        if time.perf_counter() - start >= seconds / 10:
            break
        number *= 2
    profiler = cProfile.Profile()
    profiler.enable()
    loop(number * 10)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    text = _shorten(out.getvalue())
    lines = text.splitlines()
    # Drop pstats' preamble up to the column headings; keep the per-call table.
    for i, line in enumerate(lines):
        if "ncalls" in line:
            lines = lines[i:]
            break
    return "\n".join([f"{number * 10} iterations; {_shares(stats)}", "", *lines]).rstrip() + "\n"


def _shorten(text: str) -> str:
    return text.replace(ROOT + os.sep, "").replace(sys.prefix + os.sep, "<venv>/")


def _shares(stats: Any) -> str:
    """The three functions with the most own time, as shares of the whole."""
    entries = stats.stats  # {(file, line, name): (cc, nc, tottime, cumtime, callers)}
    total = sum(entry[2] for entry in entries.values()) or 1.0
    busiest = sorted(entries.items(), key=lambda item: item[1][2], reverse=True)[:3]
    parts = [f"{entry[2] / total:.0%} in {_shorten(f'{key[0]}:{key[1]}({key[2]})')}"
             for key, entry in busiest]
    return "own time: " + ", ".join(parts)


def arguments() -> argparse.Namespace:
    """The protocol's arguments: ``--side S [--quick] [--profile ROW | --count ROW --number N]``."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--side", choices=SIDES, required=True)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--profile", metavar="ROW")
    parser.add_argument("--count", metavar="ROW")
    parser.add_argument("--number", type=int, default=0)
    return parser.parse_args()


def main(build: Callable[[str], Rows]) -> None:
    """Parse the protocol's arguments, build the side's rows, measure or profile them."""
    global COUNTING
    args = arguments()
    COUNTING = args.count
    rows = build(args.side)
    if args.count is not None:
        run_counted(rows, args.count, args.number)
        return
    if args.profile:
        row = rows.get(args.profile)
        if row is None or isinstance(row, str):
            print(f"(no profile: {row or 'no such row'})")
        else:
            print(profile(row), end="")
        return
    results: Dict[str, Dict[str, object]] = {}
    for name, row in rows.items():
        results[name] = {"unavailable": row} if isinstance(row, str) else measure(row, args.quick)
        if name in NOTES:
            results[name]["note"] = NOTES[name]
    json.dump({"rows": results}, sys.stdout)
    print()

