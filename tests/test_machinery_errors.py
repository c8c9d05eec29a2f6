"""Errors from exceptstar's machinery look like CPython's (issue 11, item 5).

A ``split()`` override returning a non-exception must not surface one of
exceptstar's internal errors, and an error raised while a pure group is built
must show the user's frames only, as C's checks do.  Each program runs
natively (3.13) and through exceptstar (pure classes, transformed
``except*``); the outcomes are compared.
"""

from __future__ import annotations

import json
import sys

import pytest
from support.processes import COMPILE_STAR, run_native, run_python

PRELUDE = r'''
import json, os, sys, traceback
''' + COMPILE_STAR + r'''
out = {}


def frames(exc):
    return [entry.name for entry in traceback.extract_tb(exc.__traceback__)]
'''

BROKEN_SPLIT = PRELUDE + r'''
SOURCE = """
class PartFive(ExceptionGroup):
    def split(self, condition):
        return (5, None)


class RestFive(ExceptionGroup):
    def split(self, condition):
        return (None, 5)


def part_five(seen):
    try:
        raise PartFive("x", [ValueError(1)])
    except* ValueError as e:
        seen.append(repr(e))


def rest_five(seen):
    try:
        raise RestFive("x", [ValueError(1)])
    except* ValueError as e:
        seen.append(repr(e))
"""
namespace = {}
exec(compile_star(SOURCE, "prog.py", "exec"), namespace)
for name in ("part_five", "rest_five"):
    seen = []
    try:
        namespace[name](seen)
        out[name] = ["nothing", seen]
    except BaseException as error:
        # Only the type: CPython's SystemError names its own source file, and
        # has neither a traceback nor a sane __context__ (the 5, as handled).
        out[name] = [type(error).__name__, seen]
print(json.dumps(out))
'''

CONSTRUCTION = PRELUDE + r'''
CASES = {
    "empty": lambda: ExceptionGroup("x", []),
    "not a sequence": lambda: ExceptionGroup("x", 5),
    "message": lambda: ExceptionGroup(5, [ValueError()]),
    "arguments": lambda: ExceptionGroup("x"),
    "item": lambda: ExceptionGroup("x", [ValueError(), 5]),
    "nesting": lambda: ExceptionGroup("x", [KeyboardInterrupt()]),
    "subclass nesting": lambda: type("G", (ExceptionGroup,), {})("x", [KeyboardInterrupt()]),
}


def build(case):
    return CASES[case]()


for case in CASES:
    try:
        raise KeyError("handled")
    except KeyError:
        try:
            build(case)
        except BaseException as error:
            out[case] = [repr(error), frames(error), repr(error.__context__)]
    out[case + ", then"] = repr(sys.exc_info()[1])
print(json.dumps(out))
'''


def outcomes(program: str) -> object:
    here = run_python(sys.executable, program, pure=True)
    assert here.returncode == 0, here.stderr
    native = run_native(program)
    assert native.returncode == 0, native.stderr
    got = json.loads(here.stdout)
    assert got == json.loads(native.stdout)
    return got


@pytest.mark.needs_processes
def test_a_split_returning_a_non_exception_gives_what_cpython_gives() -> None:
    got = outcomes(BROKEN_SPLIT)
    assert got["part_five"] == ["nothing", ["5"]]  # the handler ran with it, no internal error
    assert got["rest_five"][0] == "SystemError"


@pytest.mark.needs_processes
def test_errors_building_a_group_show_only_the_callers_frames() -> None:
    got = outcomes(CONSTRUCTION)
    assert got["empty"][1] == ["<module>", "build", "<lambda>"]
    assert got["empty"][2] == "KeyError('handled')"


ALONE = PRELUDE + r'''
SOURCE = """
class SplitFails(ExceptionGroup):
    def split(self, condition):
        raise OSError("split")


class DeriveFails(ExceptionGroup):
    def derive(self, excs):
        raise OSError("derive")


def run(make, types):
    try:
        raise make()
    except* types:
        pass
"""
CASES = {
    "types expression": "try:\n    raise ExceptionGroup('eg', [ValueError(1)])\nexcept* Undefined:\n    pass\n",
    "split": "try:\n    raise SplitFails('eg', [ValueError(1), TypeError(2)])\nexcept* ValueError:\n    pass\n",
    "derive": "try:\n    raise DeriveFails('eg', [ValueError(1), TypeError(2)])\nexcept* ValueError:\n    raise\n",
    "bad types": "try:\n    raise ExceptionGroup('eg', [ValueError(1)])\nexcept* 5:\n    pass\n",
}
for name, case in CASES.items():
    namespace = {}
    exec(compile_star(SOURCE, "prog.py", "exec"), namespace)
    try:
        exec(compile_star(case, "case.py", "exec"), namespace)
        out[name] = "nothing"
    except BaseException as error:
        out[name] = [repr(error), repr(error.__context__), frames(error),
                     sorted(key for key in namespace if key.startswith("__es_"))]
print(json.dumps(out))
'''


@pytest.mark.needs_processes
def test_errors_of_the_clauses_own_code_propagate_alone_as_natively() -> None:
    got = outcomes(ALONE)
    assert got["types expression"][0] == "NameError(\"name 'Undefined' is not defined\")"
    assert all(outcome[3] == [] for outcome in got.values())  # no name left behind
