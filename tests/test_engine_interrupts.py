"""An exception arriving while the ``except*`` machinery runs loses nothing (issue 11, item 1).

Natively the machinery is C: a signal handler's ``KeyboardInterrupt`` can
only land in the user's code, and in a handler it travels on together with
the rest of the group.  exceptstar's machinery is Python, so the interrupt
can land inside it; it must then be treated as raised at that point: the
unhandled rest of the group propagates with it, no scaffolding name stays
behind, and no frame of exceptstar's shows.

Each check runs in a child with the transformation on (``EXCEPTSTAR_PURE=1``
on 3.11+): a tracer raises ``KeyboardInterrupt`` at every single event
(call, line, return) of exceptstar's frames in turn, and a timer signal at
spread-out moments; every outcome is checked.  Where CPython has an
equivalent point (the end of the statement: the interrupt as raised by the
last handler), the outcome is compared with native 3.13's.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Dict, List

import pytest
from support.processes import TESTS, run_native, run_python

# Before 3.11 the interpreter also runs signal handlers where 3.11+ never
# does: on entering any except block (so also on the jump from the body into
# the statement's handler, as for a plain ``except``), on a taken conditional
# jump (3.10), between almost any two instructions (3.8, 3.9).  An interrupt
# landing there, in the scaffolding's own instructions rather than in
# exceptstar's code, can propagate alone (and leave the scaffolding's names);
# no guard can cover those points without costing a nested block per level
# (see _rewrite).  Only there.  PyPy (3.11 too) runs them between any two
# instructions as well, at its periodic check.
OLD_SIGNAL_POINTS = sys.version_info < (3, 11) or sys.implementation.name == "pypy"
PYPY = sys.implementation.name == "pypy"


def after_the_statement(outcome: Dict[str, Any]) -> bool:
    """Whether a timer's interrupt came once the statement had raised its whole outcome.

    PyPy runs a signal's handler at its next periodic check, which may come after the
    statement has ended (the handler's frame, where it "landed", says nothing then):
    the interrupt then carries the statement's outcome, every unhandled leaf, as its
    context, as on CPython when it lands in the caller's code.  Nothing is lost.
    """
    return (outcome["outcome"] == "KeyboardInterrupt()" and {"TypeError(2)"} <= set(outcome["carried"])
            and all(p.startswith(("lost", "our frames")) for p in outcome["problems"]))

CHILD = r'''
import json, signal, sys
import exceptstar
from exceptstar import _frames
from exceptstar._engine import Star
sys.path.insert(0, sys.argv.pop())  # the tests' folder
from support.interrupts import leaves, problems

STATEMENT = """
try:
    raise ExceptionGroup("eg", [ValueError(1), TypeError(2), ExceptionGroup("in", [OSError(3), ValueError(4)])])
except* ValueError as e:
    log.append(e)
except* OSError:
    raise KeyError(5)
except* ZeroDivisionError:
    pass
"""
IN_FUNCTION = "def f(log):\n" + "".join("    " + line + "\n" for line in STATEMENT.splitlines()) + "f(log)\n"
CODES = {"module": exceptstar.compile(STATEMENT, "prog.py", "exec"),
         "function": exceptstar.compile(IN_FUNCTION, "prog.py", "exec")}

def context_chain(exc):
    found = []
    while exc.__context__ is not None and exc.__context__ not in found:
        exc = exc.__context__
        found.append(exc)
    return found


def stop_timer():
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_REAL, 0)


def run(kind, arm):
    """Run the statement once; ``arm()`` starts the interruption. What happened, as a dict."""
    namespace = {"log": []}
    result = None
    try:
        arm()
        try:
            exec(CODES[kind], namespace)
        except BaseException as exc:
            result = exc
        finally:
            sys.settrace(None)
            stop_timer()
    except KeyboardInterrupt:
        pass  # landed outside the statement: the outcome is the plain one
    handled = [leaf for part in namespace["log"] for leaf in leaves(part)]
    # Landing before the group was raised (no result at all, or no context) loses nothing.
    before = result is None or (repr(result) == "KeyboardInterrupt()" and result.__context__ is None)
    found = problems(result, handled, before)
    left = sorted(name for name in namespace if name.startswith("__es_"))
    if left:
        found.append("names left " + repr(left))
    # The leaves the interrupt carries as its context: the whole outcome, when it came after the statement.
    carried = [leaf for link in context_chain(result) for leaf in leaves(link)] if result is not None else []
    return {"outcome": repr(result), "problems": found, "carried": carried}


def by_tracer(kind):
    """Inject at the n-th event of exceptstar's frames, for every n until a run ends first."""
    outcomes = []
    n = 0
    while True:
        state = {"count": 0, "fired": None}

        def local(frame, event, arg):
            if state["fired"] is None:
                if state["count"] == n:
                    state["fired"] = frame.f_code.co_name + ":" + event
                    raise KeyboardInterrupt
                state["count"] += 1
            return local

        def tracer(frame, event, arg):
            # From the first match() on (Star() runs no Python code): what runs before is the body's.
            if frame.f_code is Star.match.__code__:
                state["armed"] = True
            if state.get("armed") and _frames.is_own(type("tb", (), {"tb_frame": frame})):
                return local(frame, event, arg)
            return None

        outcome = run(kind, lambda: sys.settrace(tracer))
        if state["fired"] is None:
            return outcomes, n
        outcome["at"] = state["fired"]
        outcomes.append(outcome)
        n += 1


def by_signal(kind, runs):
    """A timer signal whose handler raises KeyboardInterrupt, at spread-out moments."""
    import time
    start = time.perf_counter()
    for _ in range(50):
        run(kind, lambda: None)
    span = (time.perf_counter() - start) / 50
    fired = []

    def handler(signum, frame):
        fired.append(frame.f_code.co_filename)
        raise KeyboardInterrupt

    signal.signal(signal.SIGALRM, handler)
    outcomes = []
    for i in range(runs):
        delay = span * 1.5 * i / runs
        count = len(fired)
        outcome = run(kind, lambda: signal.setitimer(signal.ITIMER_REAL, max(delay, 1e-6)))
        outcome["landed"] = fired[-1] if len(fired) > count else None
        outcomes.append(outcome)
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    return outcomes, len(fired)


mode = sys.argv[1]
if mode == "tracer":
    print(json.dumps({kind: by_tracer(kind) for kind in CODES}))
elif mode == "signal":
    print(json.dumps({kind: by_signal(kind, int(sys.argv[2])) for kind in CODES}))
else:  # one point with a native equivalent: the end of the statement, after the last handler
    source = "try:\n    raise ExceptionGroup('eg', [ValueError(1), TypeError(2)])\nexcept* ValueError:\n    pass\n"
    code = exceptstar.compile(source, "prog.py", "exec")

    def tracer(frame, event, arg):
        if frame.f_code.co_name == "outcome" and event == "call":
            raise KeyboardInterrupt
        return None

    namespace = {}
    sys.settrace(tracer)
    try:
        exec(code, namespace)
    except BaseException as exc:
        sys.settrace(None)
        print(json.dumps([repr(exc), repr(exc.exceptions[1].__traceback__.tb_frame.f_code.co_filename),
                          sorted(k for k in namespace if k.startswith("__es_"))]))
'''

NATIVE_END = r'''
import json
namespace = {}
try:
    exec(compile("try:\n    raise ExceptionGroup('eg', [ValueError(1), TypeError(2)])\nexcept* ValueError:\n"
                 "    raise KeyboardInterrupt\n", "prog.py", "exec"), namespace)
except BaseException as exc:
    print(json.dumps([repr(exc), repr(exc.exceptions[1].__traceback__.tb_frame.f_code.co_filename), []]))
'''


def child(*args: str) -> Any:
    proc = run_python(sys.executable, CHILD, pure=True, args=(*args, str(TESTS)), timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.needs_processes
def test_a_tracer_interrupt_anywhere_in_the_machinery_loses_nothing() -> None:
    results = child("tracer")
    for kind, (outcomes, events) in results.items():
        assert events > 20, kind  # the machinery did run: every one of its events was a point
        bad: List[Dict[str, Any]] = [o for o in outcomes if o["problems"]]
        assert not bad, (kind, bad[:5])
        # The interrupt always travels with the unhandled rest: never alone.
        assert all("KeyboardInterrupt()" in o["outcome"] and "TypeError(2)" in o["outcome"] for o in outcomes), kind


@pytest.mark.skipif(not hasattr(__import__("signal"), "setitimer"), reason="needs signal.setitimer")
def test_a_timer_interrupt_at_any_moment_loses_nothing() -> None:
    results = child("signal", "400")
    for kind, (outcomes, fired) in results.items():
        assert fired > 0, kind
        bad = [o for o in outcomes if o["problems"]
               and not (OLD_SIGNAL_POINTS and o["landed"] == "prog.py"
                        and all(p.startswith(("lost", "names left")) for p in o["problems"]))
               and not (PYPY and after_the_statement(o))]
        assert not bad, (kind, bad[:5])


@pytest.mark.needs_processes
def test_an_interrupt_at_the_end_goes_with_the_rest_as_raised_by_the_last_handler() -> None:
    got = child("end")
    native = run_native(NATIVE_END)
    assert native.returncode == 0, native.stderr
    assert got == json.loads(native.stdout)
    assert got[0] == "BaseExceptionGroup('', [KeyboardInterrupt(), ExceptionGroup('eg', [TypeError(2)])])"


@pytest.mark.skipif(sys.version_info[:2] != (3, 10) or PYPY,
                    reason="3.10 runs signal handlers on a taken conditional jump; elsewhere they run elsewhere")
def test_the_way_to_what_propagates_takes_no_conditional_jump() -> None:
    # Between the last clause's match and outcome(), a statement with a rest to propagate runs
    # scaffolding that no guard covers: a signal handler there would raise alone, and the rest and
    # what the handlers raised would be lost.  So the way there takes no conditional jump.
    import dis

    import exceptstar

    namespace: Dict[str, Any] = {}
    exec(exceptstar.compile(
        "def statement():\n"
        "    try:\n"
        "        raise ExceptionGroup('eg', [ValueError(1), TypeError(2), OSError(3)])\n"
        "    except* TypeError:\n"
        "        pass\n"
        "    except* ValueError:\n"
        "        raise KeyError('from the handler')\n", "<statement>", "exec"), namespace)
    code = namespace["statement"].__code__
    conditional = {instruction.offset for instruction in dis.get_instructions(code)
                   if "JUMP_IF" in instruction.opname or instruction.opname == "JUMP_IF_NOT_EXC_MATCH"}
    events: List[Any] = []

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code is code:
            frame.f_trace_opcodes = True
            if event == "opcode":
                events.append(frame.f_lasti)
            return tracer
        if event == "call" and frame.f_code.co_name in ("match", "outcome"):
            events.append(frame.f_code.co_name)
        return None

    sys.settrace(tracer)
    try:
        namespace["statement"]()
    except BaseException as error:
        propagated = error
    finally:
        sys.settrace(None)
    assert type(propagated).__name__ == "ExceptionGroup"
    assert [type(e).__name__ for e in propagated.exceptions] == ["KeyError", "ExceptionGroup"]
    start = len(events) - 1 - events[::-1].index("match")
    end = events.index("outcome", start)
    offsets = [event for event in events[start + 1:end] if isinstance(event, int)]
    taken = [(here, there) for here, there in zip(offsets, offsets[1:]) if here in conditional and there != here + 2]
    assert offsets and not taken


GUARDED_CALLS = r'''
import dis, json
import exceptstar

SOURCE = """
def f(log):
    try:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    except* ValueError as e:
        try:
            raise KeyError(3)
        except* KeyError:
            log.append(1)
    except* TypeError:
        log.append(2)
"""
namespace = {}
exec(exceptstar.compile(SOURCE, "prog.py", "exec"), namespace)
code = namespace["f"].__code__
instructions = list(dis.get_instructions(code))
entries = dis.Bytecode(code).exception_entries


def handler_of(offset):
    # The innermost handler: 3.11+'s table gives each instruction one entry.
    return next((entry.target for entry in entries if entry.start <= offset < entry.end), None)


def sorts(target):
    # A guard's handler hands what it caught to the engine (`interrupted`) before anything re-raises it.
    for instruction in instructions:
        if instruction.offset >= target:
            if instruction.opname == "RERAISE":
                return False
            if instruction.argval == "interrupted":
                return True
    return False


calls, loaded = [], None
for instruction in instructions:
    if instruction.opname in ("LOAD_ATTR", "LOAD_METHOD"):
        loaded = instruction.argval
    elif instruction.opname.startswith("CALL") and loaded in ("Star", "match", "outcome"):
        calls.append((loaded, instruction.offset))
        loaded = None
print(json.dumps([[name, sorts(handler_of(offset)) if handler_of(offset) is not None else False]
                  for name, offset in calls]))
'''


@pytest.mark.needs_processes
@pytest.mark.skipif(sys.version_info < (3, 11) or PYPY, reason="reads 3.11+'s exception table")
def test_every_call_into_the_engine_is_guarded() -> None:
    # 3.11+ run a signal handler as a call returns, in the caller, before its result is stored: a call
    # into the engine outside a guard (Star()'s too, though it runs no Python code) would let an
    # interrupt there propagate alone, and the group be lost.
    proc = run_python(sys.executable, GUARDED_CALLS, pure=True)
    assert proc.returncode == 0, proc.stderr
    calls = json.loads(proc.stdout)
    assert sorted(name for name, _ in calls) == ["Star", "Star", "match", "match", "match", "outcome", "outcome"]
    assert all(guarded for _, guarded in calls), calls
