"""CPython 3.13's own TaskGroup and timeout tests, run against exceptstar.asyncio.

``test_asyncio/test_taskgroups.py`` and ``test_asyncio/test_timeouts.py`` are
read from CPython 3.13's standard library under pyenv (never copied) and
run in a subprocess: on 3.8-3.10, and on 3.11+ with ``EXCEPTSTAR_PURE=1`` (where
exceptstar.asyncio is exceptstar's implementation with its pure groups, over
tasks that count natively).  ``except*`` in them goes through
``exceptstar.compile``.

What the harness substitutes, because it belongs to the 3.11+ environment the
tests assume rather than to what is tested:

- the files' ``asyncio`` is a copy of the running interpreter's module with
  ``TaskGroup``, ``timeout``, ``timeout_at``, ``Timeout`` (and
  ``asyncio.taskgroups.TaskGroup``) replaced by exceptstar's;
- ``task.cancelling()`` / ``task.uncancel()`` calls become
  ``exceptstar.asyncio.cancelling(task)`` / ``uncancel(task)`` (a rewrite of the
  syntax tree: 3.8-3.10 tasks cannot have the methods, and are not replaced);
  ``task.cancel()`` is left alone and reaches the real task;
- ``test.test_asyncio.utils.await_without_task`` (3.11+) is given to older
  interpreters, re-implemented below.

The same suites also run on uvloop where it is installed.
"""

from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PYENV_ROOT = Path(os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv"))

OLD = sys.version_info < (3, 11)

# Tests that cannot pass, and why: each needs something of the 3.9+ or 3.11+
# interpreter that cannot be provided without replacing the task.
_THROW_CONTEXT = (
    "3.8's coroutine.throw() does not chain the thrown exception to the one being handled "
    "(bpo-29587, fixed in 3.9): the CancelledError that any 3.8 task throws into a coroutine "
    "inside a finally or except block has no __context__, which this test checks")
EXCLUDED: dict[str, tuple[tuple[int, int], str]] = {
    # test id: (first version where it passes, reason)
    "test_taskgroups.TestTaskGroup.test_taskgroup_task_context": ((3, 11),
        "create_task(context=...) needs 3.11's Task(context=): 3.8-3.10's loop.create_task "
        "has no context parameter (a task copies the current context), so it raises TypeError"),
    "test_taskgroups.TestTaskGroup.test_error_and_cancel": ((3, 11),
        "asserts t.cancelling() == 1 right after an outside t.cancel(): 3.8-3.10's Task.cancel() "
        "counts nothing, and exceptstar sees an outside request only when it reaches a TaskGroup "
        "or timeout (the rest of this test, what the task does afterwards, is the differential "
        "program error_and_outside_cancel.txt)"),
    "test_timeouts.TimeoutTests.test_timeout_exception_context": ((3, 9), _THROW_CONTEXT),
    "test_timeouts.TimeoutTests.test_foreign_exception_on_timeout_2": ((3, 9), _THROW_CONTEXT),
    "test_timeouts.TimeoutTests.test_nested_timeout_in_finally": ((3, 9), _THROW_CONTEXT),
    "test_timeouts.TimeoutTests.test_timeout_taskgroup": ((3, 9), _THROW_CONTEXT),
}

# On uvloop, two timers due at the same loop time can fire in different
# iterations (it rounds each delay to milliseconds from its own clock reading):
# then the task wakes between them, and the inner timeout has not expired.
# Native 3.13 on uvloop does the same (3 runs in 300 of the scenario, against
# 2 in 300 for exceptstar on 3.8), so this test may fail there either way.
UVLOOP_RACES = {"test_timeouts.TimeoutTests.test_nested_timeouts"}

RUNNER = r"""
import ast, asyncio, builtins, json, os, sys, types, unittest
sys.dont_write_bytecode = True  # never write into another interpreter's stdlib
testdir, loop_kind = sys.argv[1], sys.argv[2]
import exceptstar, exceptstar.asyncio as ours

if loop_kind == "uvloop":
    import uvloop
    asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())

view = types.ModuleType("asyncio")
view.__dict__.update(vars(asyncio))
for name in ("TaskGroup", "timeout", "timeout_at", "Timeout"):
    setattr(view, name, getattr(ours, name))
view.taskgroups = types.SimpleNamespace(TaskGroup=ours.TaskGroup)
view.timeouts = types.SimpleNamespace(Timeout=ours.Timeout, timeout=ours.timeout, timeout_at=ours.timeout_at)
if loop_kind == "uvloop":
    # The files reset the policy when they finish; keep uvloop's.
    view.set_event_loop_policy = lambda policy: None

async def await_without_task(coro):
    # 3.11's test.test_asyncio.utils helper: run a coroutine from a callback.
    exc = None
    def func():
        nonlocal exc
        try:
            for _ in coro.__await__():
                pass
        except BaseException as err:
            exc = err
    asyncio.get_running_loop().call_soon(func)
    await asyncio.sleep(0)
    if exc is not None:
        raise exc

utils = types.ModuleType("test.test_asyncio.utils")
utils.await_without_task = await_without_task
real_import = builtins.__import__

def importer(name, globals=None, locals=None, fromlist=(), level=0):
    if name == "asyncio" and level == 0:
        return view
    if name == "test.test_asyncio.utils" and fromlist:
        return utils
    return real_import(name, globals, locals, fromlist, level)

class Counters(ast.NodeTransformer):
    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr in ("cancelling", "uncancel")
                and not node.args and not node.keywords):
            new = ast.Call(func=ast.Name(id="_es_" + func.attr, ctx=ast.Load()), args=[func.value], keywords=[])
            return ast.copy_location(new, node)
        return node

def uses_runtime(code):
    # Transformed except* calls exceptstar's engine through this builtin name.
    return "__exceptstar__" in code.co_names or any(
        uses_runtime(c) for c in code.co_consts if isinstance(c, types.CodeType))

report = {"run": 0, "failed": {}, "skipped": [], "transformed": []}
for filename in ("test_taskgroups.py", "test_timeouts.py"):
    path = os.path.join(testdir, filename)
    with open(path, "rb") as f:
        source = f.read()
    tree = exceptstar.compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    tree = ast.fix_missing_locations(Counters().visit(tree))
    code = exceptstar.compile(tree, path, "exec", dont_inherit=True)
    module = types.ModuleType(filename[:-3])
    module.__file__ = path
    module_builtins = dict(vars(builtins), __import__=importer,
                           ExceptionGroup=exceptstar.ExceptionGroup,
                           BaseExceptionGroup=exceptstar.BaseExceptionGroup)
    module.__dict__.update(__builtins__=module_builtins, _es_cancelling=ours.cancelling,
                           _es_uncancel=ours.uncancel)
    exec(code, module.__dict__)
    report["transformed"].append(uses_runtime(code) if b"except*" in source else None)
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    result = unittest.TextTestRunner(verbosity=0, stream=sys.stderr).run(suite)
    report["run"] += result.testsRun
    for test, text in result.failures + result.errors:
        report["failed"][test.id().split(" ")[0]] = text.strip().splitlines()[-1]
    report["skipped"] += [test.id() for test, _ in result.skipped]
print(json.dumps(report))
"""


def _test_dir() -> Path | None:
    """``test/test_asyncio`` of the newest CPython 3.13 installed under pyenv."""
    found = sorted(glob.glob(str(PYENV_ROOT / "versions" / "3.13.*" / "lib" / "python3.13" / "test" / "test_asyncio")),
                   key=lambda p: [int(x) for x in p.split("versions/")[1].split("/")[0].split(".")])
    return Path(found[-1]) if found else None


def _run(loop_kind: str) -> dict[str, object]:
    testdir = _test_dir()
    if testdir is None or not (testdir / "test_taskgroups.py").exists():
        pytest.skip("no CPython 3.13 standard library with its asyncio tests on this machine")
    env = dict(os.environ, PYTHONPATH=str(SRC))
    env.pop("EXCEPTSTAR_PURE", None)
    if not OLD:
        env["EXCEPTSTAR_PURE"] = "1"
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(testdir), loop_kind], capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-5000:]
    report: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    report["stderr"] = proc.stderr
    return report


def _check(report: dict[str, object], loop_kind: str) -> None:
    failed = report["failed"]
    assert isinstance(failed, dict)
    if loop_kind == "uvloop":
        for name in UVLOOP_RACES:
            failed.pop(name, None)
    expected = {name for name, (since, _) in EXCLUDED.items() if sys.version_info < since}
    # 73 tests in 3.13's test_taskgroups.py and test_timeouts.py together.
    assert report["run"] >= 70
    assert report["transformed"] == [True, None]  # test_timeouts.py has no except*
    unexpected = {name: line for name, line in failed.items() if name not in expected}
    assert not unexpected, report["stderr"]
    # An exclusion must still be needed: it documents a real limit.
    assert set(failed) == expected, report["stderr"]


def test_cpython_taskgroup_and_timeout_suites() -> None:
    _check(_run("asyncio"), "asyncio")


def test_cpython_taskgroup_and_timeout_suites_on_uvloop() -> None:
    pytest.importorskip("uvloop")
    _check(_run("uvloop"), "uvloop")
