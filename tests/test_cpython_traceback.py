"""CPython's own group and note tests from ``test_traceback.py``, run against our formatter.

The tests are imported from the newest 3.11+ standard library on the machine
(``support.cpython.folder()``), never copied.  They run in that interpreter
with ``EXCEPTSTAR_PURE=1``, with the built-in group names and the
``traceback`` functions pointed at exceptstar's, so every group they build is
one of our pure classes and every traceback they check is printed by
exceptstar's ``TracebackException``.

Which tests: every test of the classes of ``test_traceback.py`` that format
through the ``traceback`` module or ``TracebackException`` -- the group and
note tests (what exceptstar adds), and with them the rest of those classes, which
check that our ``TracebackException`` is still a faithful one for plain
exceptions (syntax errors, suggestions, limits, carets, chains, colours).  The tests
that depend on CPython internals are listed in ``EXCLUDED`` with the reason.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Dict, List

import pytest
from support import cpython
from support.interpreters import native_python
from support.processes import run_python

# Class defining the tests -> the concrete class that runs them through the
# traceback module (the C-printer twins, CExcReportingTests and the like, are
# not ours to run).
CLASSES = {
    "TracebackCases": "TracebackCases",
    "TracebackFormatMixin": "TestTracebackFormat",
    "BaseExceptionReportingTests": "PyExcReportingTests",
    "TracebackErrorLocationCaretTestBase": "PurePythonTracebackErrorCaretTests",
    "SuggestionFormattingTestBase": "PurePythonSuggestionFormattingTests",
    "TestTracebackException": "TestTracebackException",
    "TestTracebackException_ExceptionGroups": "TestTracebackException_ExceptionGroups",
    "LimitTests": "LimitTests",
    "TestColorizedTraceback": "TestColorizedTraceback",
}

EXCLUDED = {
    "TestTracebackFormat.test_exception_group_deep_recursion_capi":
        "prints through _testcapi.exception_print, CPython's C printer",
    "TracebackCases.test_signatures":
        "compares str(inspect.signature(...)) of the functions: ours accept the same "
        "arguments but carry type annotations, which the signature string shows",
}

RUNNER = r"""
import builtins, io, json, sys, traceback, unittest
import exceptstar
from exceptstar._printing import formatting

assert exceptstar.PURE
assert formatting.TracebackException.__module__ == "exceptstar._printing.pure_traceback"
builtins.BaseExceptionGroup = exceptstar.BaseExceptionGroup
builtins.ExceptionGroup = exceptstar.ExceptionGroup
for name in ("TracebackException", "format_exception", "format_exception_only",
             "print_exception", "print_exc", "format_exc"):
    setattr(traceback, name, getattr(formatting, name))

if sys.argv[2:] == ["own search"]:
    # Our search for near misses, which interpreters before 3.15 use, in place of 3.15's.
    from exceptstar._printing import suggestions
    suggestions._NEWEST = False

from test import test_traceback

names = json.loads(sys.argv[1])
results = {}
for name in names:
    suite = unittest.defaultTestLoader.loadTestsFromName(name, test_traceback)
    result = unittest.TestResult()
    suite.run(result)
    problems = result.failures + result.errors
    if problems:
        results[name] = "".join(text for _, text in problems)
    elif result.skipped:
        results[name] = "skipped: " + "; ".join(reason for _, reason in result.skipped)
    elif result.testsRun != 1:
        results[name] = f"ran {result.testsRun} tests"
    else:
        results[name] = "ok"
print(json.dumps(results))
"""


def _selected() -> List[str]:
    folder = cpython.folder()
    if folder is None:
        return []
    source = (folder / "test_traceback.py").read_text(encoding="utf-8")
    names = []
    current = None
    for line in source.splitlines():
        match = re.match(r"class (\w+)", line)
        if match:
            current = match.group(1)
            continue
        match = re.match(r"    def (test_\w+)", line)
        if match and current in CLASSES:
            names.append(f"{CLASSES[current]}.{match.group(1)}")
    return names


SELECTED = _selected()


@pytest.fixture(scope="module")
def results() -> Dict[str, str]:
    exe = native_python()
    assert exe is not None
    to_run = [name for name in SELECTED if name not in EXCLUDED]
    proc = run_python(exe, RUNNER, pure=True, args=(json.dumps(to_run),), timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_selection_is_not_empty() -> None:
    if cpython.folder() is None:
        pytest.skip("no CPython 3.11+ standard library on this machine")
    # Each kind of test that matters here is there: groups, notes, TracebackException.
    assert sum("PyExcReportingTests.test_exception_group" in name for name in SELECTED) >= 8
    assert sum("note" in name for name in SELECTED) >= 4
    assert sum(name.startswith("TestTracebackException_ExceptionGroups") for name in SELECTED) >= 7
    assert sum("TracebackCases.test_format_exception_group" in name for name in SELECTED) >= 10


@pytest.mark.parametrize("name", SELECTED)
def test_cpython(name: str, results: Dict[str, str]) -> None:
    if name in EXCLUDED:
        pytest.skip(EXCLUDED[name])
    outcome = results[name]
    if outcome.startswith("skipped: "):
        pytest.skip(outcome)
    assert outcome == "ok", outcome


@pytest.mark.needs_processes
def test_our_near_miss_search_passes_the_suggestion_tests() -> None:
    exe = native_python()
    assert exe is not None
    names = [name for name in SELECTED if name.startswith("PurePythonSuggestionFormattingTests.")]
    if not names:
        pytest.skip("no CPython 3.11+ standard library on this machine")
    proc = run_python(exe, RUNNER, pure=True, args=(json.dumps(names), "own search"), timeout=300)
    assert proc.returncode == 0, proc.stderr
    outcomes = json.loads(proc.stdout.strip().splitlines()[-1])
    assert {name: text for name, text in outcomes.items() if text != "ok"} == {}


@pytest.mark.needs_processes
def test_runs_on_this_interpreter_too() -> None:
    # The formatter run above is the pure-Python one; here the same code path
    # (our TracebackException) is the one this interpreter uses when pure.
    code = (
        "import exceptstar\n"
        "eg = exceptstar.ExceptionGroup('A', [ValueError('B')])\n"
        "print(''.join(exceptstar.format_exception_only(eg, show_group=True)), end='')\n"
    )
    proc = run_python(sys.executable, code, pure=True)
    assert proc.stdout == "ExceptionGroup: A (1 sub-exception)\n   ValueError: B\n", proc.stderr
