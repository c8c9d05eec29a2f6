"""The engine's rebuilding of what propagates, against CPython's own executable spec.

CPython 3.12+ ships ``Test_PyUnstable_Exc_PrepReraiseStar`` in
``test/test_capi/test_exceptions.py``: cases of ``_PyExc_PrepReraiseStar``
called through ``_testcapi.unstable_exc_prep_reraise_star``.  That TestCase
is loaded from where it is installed and run with the ``_testcapi`` function
replaced by ``exceptstar._engine.prep_reraise_star``, in a 3.12+ interpreter,
once with the built-in groups and once with exceptstar's pure classes (the
test module then builds its groups with them).  ``test_invalid_args`` is left
out: it checks the C API's argument validation, which the engine, fed by
``Star`` only, does not have.
"""

from __future__ import annotations

import json
import sys

import pytest
from support.interpreters import native_python
from support.processes import run_python

RUNNER = r'''
import json, sys, unittest
from unittest import mock

import exceptstar
from exceptstar import _engine
from test.support import testcase
from test.test_capi import test_exceptions as capi_tests

mode = sys.argv[1]
if exceptstar.PURE:
    # The test module and its mixin look these names up in their globals first.
    for module in (capi_tests, testcase):
        module.ExceptionGroup = exceptstar.ExceptionGroup
        module.BaseExceptionGroup = exceptstar.BaseExceptionGroup

if mode == "engine":
    replacement = _engine.prep_reraise_star
else:  # a wrong implementation: proves that the replacement is what runs
    def replacement(orig, excs):
        return None

case = capi_tests.Test_PyUnstable_Exc_PrepReraiseStar
names = [n for n in unittest.defaultTestLoader.getTestCaseNames(case) if n != "test_invalid_args"]
suite = unittest.TestSuite(case(n) for n in names)
with mock.patch.object(capi_tests._testcapi, "unstable_exc_prep_reraise_star", replacement):
    result = unittest.TextTestRunner(stream=sys.stderr, verbosity=2).run(suite)
print(json.dumps({"run": result.testsRun, "failures": len(result.failures),
                  "errors": len(result.errors), "names": names}))
'''


def interpreter() -> str:
    if sys.version_info >= (3, 12):
        return sys.executable
    exe = native_python()
    if exe is None:
        pytest.skip("no CPython 3.12+ here")
    probe = run_python(exe, "import sys; print(sys.version_info >= (3, 12))")
    if probe.stdout.strip() != "True":
        pytest.skip("the newest CPython here predates 3.12")
    return exe


def run(mode: str, pure: bool) -> dict[str, object]:
    proc = run_python(interpreter(), RUNNER, pure=pure, args=(mode,))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])  # type: ignore[no-any-return]


@pytest.mark.needs_processes
@pytest.mark.parametrize("pure", [False, True], ids=["builtin-groups", "pure-groups"])
def test_cpython_cases_pass(pure: bool) -> None:
    summary = run("engine", pure)
    assert summary["run"] == len(summary["names"]) >= 4  # type: ignore[arg-type]
    assert summary["failures"] == summary["errors"] == 0, summary


@pytest.mark.needs_processes
def test_cpython_cases_detect_a_wrong_implementation() -> None:
    summary = run("wrong", False)
    assert summary["failures"] + summary["errors"] >= 3, summary  # type: ignore[operator]
