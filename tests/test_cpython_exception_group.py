"""CPython's own test_exception_group.py, against exceptstar's classes.

On 3.8-3.10 these are the pure classes; on 3.11+ the suite runs in a
subprocess with EXCEPTSTAR_PURE=1 (and once natively, as a check that the
harness itself passes the real thing).  Each test that no pure class can pass
on this interpreter is listed below with the reason, and must fail: a listed
test that starts passing is reported too.
"""

from __future__ import annotations

import json
import sys

import pytest
from support import cpython
from support.processes import TESTS, run_python

import exceptstar

IMPOSSIBLE_BEFORE_3_11 = {
    "TestExceptionGroupTypeHierarchy.test_exception_is_not_generic_type":
        "Exception[OSError] fails with the interpreter's own message, which names 'type', "
        "not 'Exception', before 3.11; no library can change how a built-in class subscripts",
}
IMPOSSIBLE_BEFORE_3_9 = {
    "TestExceptionGroupTypeHierarchy.test_exception_group_is_generic_type":
        "types.GenericAlias does not exist before 3.9",
}


def impossible_here() -> dict[str, str]:
    reasons: dict[str, str] = {}
    if sys.version_info < (3, 11):
        reasons.update(IMPOSSIBLE_BEFORE_3_11)
    if sys.version_info < (3, 9):
        reasons.update(IMPOSSIBLE_BEFORE_3_9)
    return reasons


MODULE = cpython.load("test_exception_group.py") if exceptstar.PURE else None
IDS = cpython.test_ids(MODULE)


@pytest.mark.skipif(sys.version_info >= (3, 11) and not exceptstar.PURE,
                    reason="on 3.11+ the pure run happens in a subprocess, see below")
@pytest.mark.parametrize("test_id", IDS or ["<missing>"])
def test_cpython(test_id: str) -> None:
    if MODULE is None:
        pytest.skip("no 3.11+ standard library test folder on this machine")
    result = cpython.run_one(MODULE, test_id)
    assert result.testsRun == 1
    reason = impossible_here().get(test_id)
    if reason is None:
        assert result.wasSuccessful(), cpython.describe(result)
        assert not result.skipped, result.skipped
    else:
        assert not result.wasSuccessful(), f"listed as impossible ({reason}) but passed"


RUN_ALL = """
import json, sys
sys.path.insert(0, {tests!r})
from support import cpython
import exceptstar
module = cpython.load("test_exception_group.py")
out = {{}}
for test_id in cpython.test_ids(module):
    r = cpython.run_one(module, test_id)
    out[test_id] = [r.wasSuccessful(), len(r.skipped), cpython.describe(r)]
print(json.dumps({{"pure": exceptstar.PURE, "results": out}}))
"""


@pytest.mark.needs_processes
@pytest.mark.skipif(sys.version_info < (3, 11), reason="the in-process run above covers 3.8-3.10")
@pytest.mark.parametrize("pure", [True, False], ids=["pure", "native"])
def test_cpython_suite_on_3_11_plus(pure: bool) -> None:
    test_dir = cpython.folder()
    if not pure and (test_dir is None or not str(test_dir).startswith(sys.base_prefix)):
        # The built-ins of an older 3.11/3.12 differ from the newest test file's
        # (e.g. 3.13's predicate rule); the native check is of the harness itself.
        pytest.skip("the native run checks the harness with the interpreter the tests come from")
    proc = run_python(sys.executable, RUN_ALL.format(tests=str(TESTS)), pure=pure)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout.splitlines()[-1])
    assert report["pure"] is pure
    results = report["results"]
    assert len(results) >= 40
    failed = {name: text for name, (ok, skipped, text) in results.items() if not ok or skipped}
    assert failed == {}
