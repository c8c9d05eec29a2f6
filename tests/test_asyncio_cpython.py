"""CPython 3.15's own TaskGroup and timeout tests, run against exceptstar.asyncio.

``test_asyncio/test_taskgroups.py`` and ``test_asyncio/test_timeouts.py`` are
read from CPython 3.15's standard library where that interpreter installed them
(``support.cpython.folder``: in the Debian sid root, seen from the host or
from inside; never copied) and run in a subprocess of the interpreter under
test, 3.8-3.14:

- ``ours``: on 3.8-3.10, exceptstar's TaskGroup and timeouts; on 3.11-3.14,
  ``exceptstar.asyncio.TaskGroup`` as users get it (the subclass of
  ``asyncio.TaskGroup`` with 3.15's behaviour; the timeouts there are
  asyncio's own, so only ``test_taskgroups.py`` runs);
- ``pure``: on 3.11-3.14, ``EXCEPTSTAR_PURE=1`` (exceptstar's implementations
  with its pure groups, over tasks that count natively).

``except*`` in them goes through ``exceptstar.compile``.  On 3.15+
``exceptstar.asyncio.TaskGroup`` is asyncio's own: nothing to test.

What the harness substitutes, because it belongs to the 3.15 environment the
tests assume rather than to what is tested:

- the files' ``asyncio`` is a copy of the running interpreter's module with
  ``TaskGroup``, ``timeout``, ``timeout_at``, ``Timeout`` (and
  ``asyncio.taskgroups.TaskGroup``) replaced by exceptstar's, ``EventLoop``
  (3.13) the selector loop (or uvloop's), and ``events._set_event_loop_policy``
  (3.14) the public setter where it is missing;
- ``task.cancelling()`` / ``task.uncancel()`` calls become
  ``exceptstar.asyncio.cancelling(task)`` / ``uncancel(task)`` (a rewrite of the
  syntax tree: 3.8-3.10 tasks cannot have the methods, and are not replaced);
  ``task.cancel()`` is left alone and reaches the real task;
- ``test.test_asyncio.utils.await_without_task`` (3.11+) is given to older
  interpreters, re-implemented below;
- on 3.11 and 3.12, ``unittest.IsolatedAsyncioTestCase`` creates its loop
  with the class's ``loop_factory``, as 3.13's does (that is how the eager
  suite gets its task factory);
- before 3.14, the file's ``no_other_refs()`` (what ``gc.get_referrers()``
  finds holding a test's local: the coroutine since gh-124392) is what the
  running interpreter has there.

The same suites also run on uvloop where it is installed, in the ``ours`` mode: exceptstar's own
implementation meets uvloop's loop there on 3.8-3.10, so ``pure`` on 3.11+ adds only the newer
asyncio underneath, which the ``pure`` run on asyncio's loop covers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
from support.cpython import folder
from support.interpreters import find_interpreters

SRC = Path(__file__).resolve().parent.parent / "src"


def _test_dir() -> Path | None:
    """``test/test_asyncio`` of CPython 3.15 (the sid root's, seen from here), if it is installed."""
    exe = find_interpreters().get((3, 15))
    tests = folder(exe) if exe is not None else None
    return tests / "test_asyncio" if tests is not None else None


# Whole test classes that cannot run before a version, and why.
EAGER = "test_taskgroups.TestEagerTaskTaskGroup"
SKIPPED_CLASSES: dict[str, tuple[tuple[int, int], str]] = {
    EAGER: ((3, 12), "eager task factories (asyncio.eager_task_factory) are 3.12's"),
}

# Tests that cannot pass, and why: each needs something of a newer interpreter
# (its tasks, its event loop) that cannot be provided without replacing it.
_THROW_CONTEXT = (
    "3.8's coroutine.throw() does not chain the thrown exception to the one being handled "
    "(bpo-29587, fixed in 3.9): the CancelledError that any 3.8 task throws into a coroutine "
    "inside a finally or except block has no __context__, which this test checks")
OLD = sys.version_info < (3, 11)
PYPY311 = sys.implementation.name == "pypy" and sys.version_info >= (3, 11)
def _throw_context_missing() -> bool:
    return _before_3_9() or PYPY311


_THROW_CONTEXT += (
    "; PyPy 3.11's throw() into a finally block run by a propagating exception gives the thrown "
    "exception no __context__ either (asyncio's own timeout too)")


def _before_3_9() -> bool:
    return sys.version_info < (3, 9)


def _loop_create_task_keeps_task() -> bool:
    """The loop's ``create_task`` keeps the task in its frame (gh-128552 fixed it there too)."""
    import asyncio
    import inspect
    import re

    return not re.search(r"^\s*del task$", inspect.getsource(asyncio.BaseEventLoop.create_task), re.MULTILINE)


def _loop_create_task_names_late() -> bool:
    """The loop names a task from a task factory after creating it, so after an eager start (gh-128308)."""
    import asyncio

    seen = []

    async def record() -> None:
        seen.append(asyncio.current_task().get_name())  # type: ignore[union-attr]

    async def main() -> None:
        # Tasks start eagerly only on a running loop.
        loop = asyncio.get_running_loop()
        loop.set_task_factory(asyncio.eager_task_factory)  # type: ignore[attr-defined]
        await loop.create_task(record(), name="probe")

    asyncio.run(main())
    return seen != ["probe"]


EAGER_NOW = sys.version_info >= (3, 12)
PYPY = sys.implementation.name == "pypy"
_PYPY_REFERRERS = ("asserts what gc.get_referrers() finds holding the exception, CPython's refcounting view: "
                   "PyPy's collector keeps frames and other objects alive until a collection, which it lists")
_PYPY_REFERRER_TESTS = {f"test_taskgroups.{case}.test_exception_refcycles_{name}"
                        for case in ("TestTaskGroup", "TestEagerTaskTaskGroup")
                        for name in ("base_error", "direct", "errors", "parent_task", "parent_task_wr",
                                     "propagate_cancellation_error")}
EXCLUDED: dict[str, tuple[Callable[[], bool], str]] = {
    # test id: (whether it fails on this interpreter, reason)
    # (First: an entry below for the same test says more.)
    **{name: (lambda: PYPY, _PYPY_REFERRERS) for name in _PYPY_REFERRER_TESTS},
    "test_taskgroups.TestTaskGroup.test_taskgroup_task_context": (lambda: OLD,
        "create_task(context=...) needs 3.11's Task(context=): 3.8-3.10's loop.create_task "
        "has no context parameter (a task copies the current context), so it raises TypeError"),
    "test_taskgroups.TestTaskGroup.test_error_and_cancel": (lambda: OLD,
        "asserts t.cancelling() == 1 right after an outside t.cancel(): 3.8-3.10's Task.cancel() "
        "counts nothing, and exceptstar sees an outside request only when it reaches a TaskGroup "
        "or timeout (the rest of this test, what the task does afterwards, is the differential "
        "program error_and_outside_cancel.txt)"),
    "test_taskgroups.TestTaskGroup.test_taskgroup_cancel_keeps_outer_cancellation": (lambda: OLD,
        "asserts the outer task.cancel('message') reaches the awaiter with its message: 3.8 has no "
        "cancel(msg), and on 3.9-3.10 awaiting a cancelled task raises a CancelledError without it "
        "(bpo-45390, 3.11), with or without a TaskGroup; that the outer cancellation is kept is the "
        "differential program cancel.txt"),
    "test_taskgroups.TestTaskGroup.test_exception_refcycles_propagate_cancellation_error": (lambda: OLD or PYPY,
        "on 3.8-3.10 a CancelledError thrown into a task's coroutine stays referenced by a 1-tuple "
        "that gc.get_referrers() finds (a plain task.cancel() caught in the coroutine, with no "
        "TaskGroup or timeout, shows the same)"),
    "test_taskgroups.TestEagerTaskTaskGroup.test_exception_refcycles_parent_task": (
        lambda: EAGER_NOW and _loop_create_task_keeps_task(),
        "the loop's create_task() keeps the eager task in its frame, which the task's exception "
        "keeps through the f_back of its frames (gh-128552 fixed asyncio's create_task in 3.14)"),
    "test_taskgroups.TestEagerTaskTaskGroup.test_exception_refcycles_parent_task_wr": (
        lambda: EAGER_NOW and _loop_create_task_keeps_task(),
        "the loop's create_task() keeps the eager task in its frame, which the task's exception "
        "keeps through the f_back of its frames (gh-128552 fixed asyncio's create_task in 3.14)"),
    "test_taskgroups.TestEagerTaskTaskGroup.test_name": (
        lambda: EAGER_NOW and _loop_create_task_names_late(),
        "the loop's create_task() sets the name after the task factory returns, when an eager task "
        "has already run (gh-128308, 3.14: the name is passed to the factory)"),
    "test_timeouts.TimeoutTests.test_timeout_exception_context": (_throw_context_missing, _THROW_CONTEXT),
    "test_timeouts.TimeoutTests.test_foreign_exception_on_timeout_2": (_throw_context_missing, _THROW_CONTEXT),
    "test_timeouts.TimeoutTests.test_nested_timeout_in_finally": (_throw_context_missing, _THROW_CONTEXT),
    "test_timeouts.TimeoutTests.test_timeout_taskgroup": (_throw_context_missing, _THROW_CONTEXT),
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
testdir, loop_kind, files, skipped_classes = sys.argv[1], sys.argv[2], sys.argv[3].split(","), json.loads(sys.argv[4])
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
view.EventLoop = uvloop.Loop if loop_kind == "uvloop" else asyncio.SelectorEventLoop
if not hasattr(asyncio.events, "_set_event_loop_policy"):
    events = types.ModuleType("asyncio.events")
    events.__dict__.update(vars(asyncio.events))
    events._set_event_loop_policy = asyncio.set_event_loop_policy
    view.events = events
if loop_kind == "uvloop":
    # The files reset the policy when they finish; keep uvloop's.
    view.set_event_loop_policy = lambda policy: None
    view.events = types.ModuleType("asyncio.events")
    view.events.__dict__.update(vars(asyncio.events))
    view.events._set_event_loop_policy = lambda policy: None

if (3, 11) <= sys.version_info < (3, 13):
    def _setupAsyncioRunner(self):
        self._asyncioRunner = asyncio.Runner(debug=True, loop_factory=getattr(self, "loop_factory", None))
    unittest.IsolatedAsyncioTestCase._setupAsyncioRunner = _setupAsyncioRunner

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

def tests_of(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from tests_of(test)
        else:
            yield test

report = {"run": 0, "failed": {}, "skipped": [], "not_run": [], "transformed": [],
          "taskgroup": ours.TaskGroup.__module__, "native_base": isinstance(ours.TaskGroup(), asyncio.TaskGroup)
          if hasattr(asyncio, "TaskGroup") else False}
for filename in files:
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
    # PyPy ignores a __builtins__ that is not the builtins module: there the
    # group names are the module's globals, and its own imports go through the
    # importer for the time its body runs.
    module.__dict__.update(ExceptionGroup=exceptstar.ExceptionGroup, BaseExceptionGroup=exceptstar.BaseExceptionGroup)
    def scoped(name, globals=None, locals=None, fromlist=(), level=0, own=module.__dict__):
        return (importer if globals is own else real_import)(name, globals, locals, fromlist, level)
    builtins.__import__ = scoped
    try:
        exec(code, module.__dict__)
    finally:
        builtins.__import__ = real_import
    if "no_other_refs" in module.__dict__ and sys.version_info < (3, 14):
        # What gc.get_referrers() finds holding a local of the running test:
        # the coroutine from 3.14 (gh-124392, the files' function), nothing on
        # 3.11-3.13, the frame object on 3.8-3.10.
        module.no_other_refs = ((lambda: []) if sys.version_info >= (3, 11) else (lambda: [sys._getframe(1)]))
    report["transformed"].append(uses_runtime(code) if b"except*" in source else None)
    suite = unittest.TestSuite()
    for test in tests_of(unittest.defaultTestLoader.loadTestsFromModule(module)):
        if test.id().rsplit(".", 1)[0] in skipped_classes:
            report["not_run"].append(test.id())
        else:
            suite.addTest(test)
    result = unittest.TextTestRunner(verbosity=0, stream=sys.stderr).run(suite)
    report["run"] += result.testsRun
    for test, text in result.failures + result.errors:
        report["failed"][test.id().split(" ")[0]] = text.strip().splitlines()[-1]
    report["skipped"] += [test.id() for test, _ in result.skipped]
print(json.dumps(report))
"""

MODES = ["ours"] + (["pure"] if sys.version_info >= (3, 11) else [])


def _run(loop_kind: str, mode: str) -> dict[str, object]:
    if sys.version_info >= (3, 15) and mode == "ours":
        pytest.skip("exceptstar.asyncio.TaskGroup is asyncio's own from 3.15")
    test_dir = _test_dir()
    if test_dir is None or not (test_dir / "test_taskgroups.py").exists():
        pytest.skip("no CPython 3.15 with its standard library's tests (libpython3.15-testsuite) on this machine")
    env = dict(os.environ, PYTHONPATH=str(SRC))
    env.pop("EXCEPTSTAR_PURE", None)
    if mode == "pure":
        env["EXCEPTSTAR_PURE"] = "1"
    files = ["test_taskgroups.py"]
    if sys.version_info < (3, 11) or mode == "pure":
        files.append("test_timeouts.py")
    skipped = [name for name, (since, _) in SKIPPED_CLASSES.items() if sys.version_info < since]
    if loop_kind == "uvloop" and sys.version_info < (3, 14) and EAGER not in skipped:
        # Before 3.14 the eager suite cannot start on uvloop: its
        # Loop.create_task() passes eager_start= to 3.12/3.13's eager task
        # factory, which takes no such argument (TypeError in every setUp).
        skipped.append(EAGER)
    proc = subprocess.run([sys.executable, "-c", RUNNER, str(test_dir), loop_kind, ",".join(files),
                           json.dumps(skipped)], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-5000:]
    report: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    report["stderr"] = proc.stderr
    report["files"] = files
    report["skipped_classes"] = skipped
    return report


def _check(report: dict[str, object], loop_kind: str, mode: str) -> None:
    failed = report["failed"]
    assert isinstance(failed, dict)
    if loop_kind == "uvloop":
        for name in UVLOOP_RACES:
            failed.pop(name, None)
    # What is tested is the class users get (a subclass of asyncio's on 3.11-3.14).
    assert report["taskgroup"] == "exceptstar.asyncio._taskgroup"
    assert report["native_base"] == (sys.version_info >= (3, 11) and mode == "ours")
    # 3.15's test_taskgroups.py has 65 tests in each of its two classes;
    # test_timeouts.py has 34.
    per_class = 65
    expected_run = per_class * (2 - len(report["skipped_classes"]))  # type: ignore[arg-type]
    if "test_timeouts.py" in report["files"]:  # type: ignore[operator]
        expected_run += 34
    assert report["run"] == expected_run, report["stderr"][-3000:]  # type: ignore[index]
    assert len(report["not_run"]) == per_class * len(report["skipped_classes"])  # type: ignore[arg-type]
    # test_taskgroups.py's except* ran on exceptstar's engine where the groups are exceptstar's.
    assert report["transformed"][0] is (sys.version_info < (3, 11) or mode == "pure")
    expected = {name for name, (fails, _) in EXCLUDED.items() if fails()}
    # The eager suite runs every test of the plain one.
    expected |= {name.replace(".TestTaskGroup.", ".TestEagerTaskTaskGroup.") for name in expected
                 if ".TestTaskGroup." in name and EAGER not in report["skipped_classes"]}  # type: ignore[operator]
    if "test_timeouts.py" not in report["files"]:  # type: ignore[operator]
        expected = {name for name in expected if not name.startswith("test_timeouts.")}
    expected = {name for name in expected if name.rsplit(".", 1)[0] not in report["skipped_classes"]}  # type: ignore[operator]
    if PYPY:
        # What PyPy's collector still holds when a test looks varies: these may pass there too.
        expected = {name for name in expected if name not in _PYPY_REFERRER_TESTS or name in failed}
    unexpected = {name: line for name, line in failed.items() if name not in expected}
    assert not unexpected, report["stderr"]
    # An exclusion must still be needed: it documents a real limit.
    assert set(failed) == expected, report["stderr"]


@pytest.mark.parametrize("mode", MODES)
def test_cpython_taskgroup_and_timeout_suites(mode: str) -> None:
    _check(_run("asyncio", mode), "asyncio", mode)


def test_cpython_taskgroup_and_timeout_suites_on_uvloop() -> None:
    pytest.importorskip("uvloop")
    _check(_run("uvloop", "ours"), "uvloop", "ours")
