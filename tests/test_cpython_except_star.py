"""CPython's own except* tests, run against the transformation.

``test_except_star.py`` and ``ExceptStarTestCases`` of
``test_exception_variations.py`` are imported from the newest 3.11+ standard
library on the machine (never copied), through exceptstar's import hook: on
3.8-3.10 because the interpreter cannot compile them, on 3.11+ with
``EXCEPTSTAR_PURE=1`` so that the transformation replaces the native syntax.

What the harness adapts, because it belongs to the tests' 3.11+ environment
rather than to ``except*``: ``sys.exception()`` (3.11+ API) is provided from
``sys.exc_info()``; ``test.support.testcase`` (the mixin the tests use, which
names ``ExceptionGroup`` without being transformed) is loaded from the same
folder with the active ``ExceptionGroup`` (under an empty ``test.support`` on
PyPy, whose stdlib has none); and the tests' calls of the built-in
``compile`` on except* source go to ``exceptstar.compile``, the documented
drop-in.
"""

from __future__ import annotations

import json
import sys

import pytest
from support import cpython
from support.processes import run_python

# Tests that cannot pass, with the reason. None so far.
KNOWN_FAILURES: dict[str, str] = {}

RUNNER = r"""
import importlib.util, json, os, sys, unittest
sys.dont_write_bytecode = True  # never write into another interpreter's stdlib
testdir = sys.argv[1]
import exceptstar
if not hasattr(sys, "exception"):
    sys.exception = lambda: sys.exc_info()[1]
try:
    import test.support
except ImportError:  # PyPy's stdlib has no test.support: the mixin below is all the tests take from it
    import types
    sys.modules["test.support"] = types.ModuleType("test.support")
spec = importlib.util.spec_from_file_location(
    "test.support.testcase", os.path.join(testdir, "support", "testcase.py"))
support = importlib.util.module_from_spec(spec)
support.ExceptionGroup = exceptstar.ExceptionGroup
spec.loader.exec_module(support)
sys.modules["test.support.testcase"] = support
exceptstar.install("test_except_star", "test_exception_variations")
sys.path.insert(0, testdir)
import test_except_star, test_exception_variations
del sys.path[0]
test_except_star.compile = exceptstar.compile
modules = (test_except_star, test_exception_variations)
loader = unittest.TestLoader()
suite = unittest.TestSuite([
    loader.loadTestsFromModule(test_except_star),
    loader.loadTestsFromTestCase(test_exception_variations.ExceptStarTestCases),
])
result = unittest.TextTestRunner(verbosity=0, stream=sys.stderr).run(suite)
print(json.dumps({
    "run": result.testsRun,
    "failed": sorted({t.id().split(" ")[0] for t, _ in result.failures + result.errors}),
    "loaders": [type(m.__loader__).__name__ for m in modules],
    "transformed": [
        "__exceptstar__" in m.ExceptStarTestCases.test_try_except_else_finally.__code__.co_names
        if m is test_exception_variations else
        "__exceptstar__" in m.TestExceptStarSplitSemantics.doSplitTestNamed.__code__.co_names
        for m in modules],
}))
"""


def test_cpython_except_star_suites() -> None:
    testdir = cpython.folder()
    if testdir is None:
        pytest.skip("no CPython 3.11+ standard library on this machine")
    proc = run_python(sys.executable, RUNNER, pure=sys.version_info >= (3, 11), args=(str(testdir),))
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["loaders"] == ["ExceptStarLoader", "ExceptStarLoader"]
    assert report["transformed"] == [True, True]
    # 59 tests in test_except_star, 15 in ExceptStarTestCases (3.13's files).
    assert report["run"] >= 70
    unexpected = [name for name in report["failed"] if name.split(".")[-1] not in KNOWN_FAILURES]
    assert not unexpected, proc.stderr
