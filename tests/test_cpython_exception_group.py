"""CPython's own test_exception_group.py, against exceptstar's classes.

Every native CPython's copy from 3.14 on runs (3.14's and 3.15's here): on
3.8-3.10 against the pure classes, in process; on 3.11+ in a subprocess with
EXCEPTSTAR_PURE=1, and the running interpreter's own copy once natively, as a
check that the harness itself passes the real thing.  The pure classes follow
the newest CPython: a test of an older copy whose expectation the newest
changed is listed in ``SUPERSEDED``, and one that no pure class can pass on
this interpreter in ``impossible_here``.  A listed test must fail: one that
starts passing is reported too.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from support import cpython
from support.processes import TESTS, run_python

import exceptstar

SUITES = cpython.suites("test_exception_group.py", since=(3, 14))

SUPERSEDED = {
    (3, 14): {
        "StrAndReprTests.test_repr_raises":
            "3.14's message for a sequence whose __repr__ returns no str; 3.15's names the method",
    },
}
IMPOSSIBLE_BEFORE_3_15 = {
    "InstanceCreation.test_no_memory":
        "_testcapi.call_with_nomemory, the C helper that makes every allocation fail, is 3.15's",
}
IMPOSSIBLE_BEFORE_3_11 = {
    "TestExceptionGroupTypeHierarchy.test_exception_is_not_generic_type":
        "Exception[OSError] fails with the interpreter's own message, which names 'type', "
        "not 'Exception', before 3.11; no library can change how a built-in class subscripts",
}
IMPOSSIBLE_BEFORE_3_9 = {
    "TestExceptionGroupTypeHierarchy.test_exception_group_is_generic_type":
        "types.GenericAlias does not exist before 3.9",
}


def expected_failures(suite: tuple[int, int], running: tuple[int, int]) -> dict[str, str]:
    """The tests of ``suite``'s copy that the pure classes fail on an interpreter of version ``running``."""
    reasons: dict[str, str] = {}
    if suite < max(SUITES):
        reasons.update(SUPERSEDED.get(suite, {}))
    if running < (3, 15):
        reasons.update(IMPOSSIBLE_BEFORE_3_15)
    if running < (3, 11):
        reasons.update(IMPOSSIBLE_BEFORE_3_11)
    if running < (3, 9):
        reasons.update(IMPOSSIBLE_BEFORE_3_9)
    return reasons


def _name(version: tuple[int, int]) -> str:
    return f"{version[0]}.{version[1]}"


MODULES = {version: cpython.load(path) for version, path in SUITES.items()} if exceptstar.PURE else {}
CASES = [(version, test_id) for version, module in MODULES.items() for test_id in cpython.test_ids(module)]


@pytest.mark.skipif(sys.version_info >= (3, 11) and not exceptstar.PURE,
                    reason="on 3.11+ the pure run happens in a subprocess, see below")
@pytest.mark.parametrize(("suite", "test_id"), CASES or [((0, 0), "<missing>")],
                         ids=[f"{_name(version)}-{test_id}" for version, test_id in CASES] or None)
def test_cpython(suite: tuple[int, int], test_id: str) -> None:
    module = MODULES.get(suite)
    if module is None:
        pytest.skip("no CPython 3.14+ test folder on this machine")
    result = cpython.run_one(module, test_id)
    assert result.testsRun == 1
    reason = expected_failures(suite, sys.version_info[:2]).get(test_id)
    if reason is None:
        assert result.wasSuccessful(), cpython.describe(result)
        assert not result.skipped, result.skipped
    else:
        assert not result.wasSuccessful(), f"listed as failing ({reason}) but passed"


RUN_ALL = """
import json, sys
sys.path.insert(0, {tests!r})
from support import cpython
import exceptstar
module = cpython.load({path!r})
out = {{}}
for test_id in cpython.test_ids(module):
    r = cpython.run_one(module, test_id)
    out[test_id] = [r.wasSuccessful(), len(r.skipped), cpython.describe(r)]
print(json.dumps({{"pure": exceptstar.PURE, "results": out}}))
"""


def run_suite(path: Path, pure: bool) -> dict[str, list[object]]:
    proc = run_python(sys.executable, RUN_ALL.format(tests=str(TESTS), path=str(path)), pure=pure)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report["pure"] is pure
    results: dict[str, list[object]] = report["results"]
    assert len(results) >= 40
    return results


@pytest.mark.needs_processes
@pytest.mark.skipif(sys.version_info < (3, 11), reason="the in-process run above covers 3.8-3.10")
@pytest.mark.parametrize("suite", sorted(SUITES) or [(0, 0)], ids=[_name(v) for v in sorted(SUITES)] or None)
def test_cpython_suite_pure_on_3_11_plus(suite: tuple[int, int]) -> None:
    if suite not in SUITES:
        pytest.skip("no CPython 3.14+ test folder on this machine")
    results = run_suite(SUITES[suite], pure=True)
    failed = {name: text for name, (ok, skipped, text) in results.items() if not ok or skipped}
    expected = expected_failures(suite, sys.version_info[:2])
    unexpected = {name: text for name, text in failed.items() if name not in expected}
    assert unexpected == {}
    assert set(expected) & set(results) - set(failed) == set(), "listed as failing but passed"


@pytest.mark.needs_processes
@pytest.mark.skipif(sys.version_info < (3, 11), reason="the built-in groups are 3.11's")
def test_cpython_suite_native() -> None:
    # This interpreter's own copy against its own built-ins: the harness must pass it whole.
    own = cpython.folder(sys.executable)
    if own is None or not (own / "test_exception_group.py").exists():
        pytest.skip("this interpreter has no test folder of its own")
    results = run_suite(own / "test_exception_group.py", pure=False)
    assert {name: text for name, (ok, skipped, text) in results.items() if not ok or skipped} == {}
