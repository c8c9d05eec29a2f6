"""CPython's own test files, from the standard libraries of the interpreters here.

``folder`` finds them where an interpreter installed them, the newest 3.11+
by default (never copied); ``suites`` gives each native version's copy of one
file.  ``load`` runs one against exceptstar: the file is
executed in a module whose builtins carry exceptstar's active group classes,
so the test bodies see them wherever they say ``ExceptionGroup``.  Its
``test.support`` imports are answered by the running interpreter's own
``test.support`` where it has the helper, and otherwise by a replacement
computed here: 3.8-3.10's ``test.support`` predates most of them.
"""

from __future__ import annotations

import builtins
import functools
import sys
import types
import unittest
from pathlib import Path
from typing import Any, Callable, Dict

from support.interpreters import SID_BIN, find_interpreters, native_python
from support.processes import run_python


@functools.lru_cache(maxsize=None)
def folder(exe: str | None = None) -> Path | None:
    """The ``test`` package folder of ``exe``'s standard library (the reference interpreter's), as seen here."""
    exe = exe or native_python()
    if exe is None:
        return None
    proc = run_python(exe, "import os, test; print(os.path.dirname(test.__file__))")
    if proc.returncode != 0:
        return None
    path = Path(proc.stdout.strip())
    if not path.exists() and Path(exe).parent == SID_BIN:
        # A wrapper runs its interpreter inside the sid root: from the host, its
        # own folders are under the root.
        path = SID_BIN.parent / "sid" / path.relative_to(path.anchor)
    return path if path.is_dir() else None


def suites(filename: str, since: tuple[int, int]) -> Dict[tuple[int, int], Path]:
    """Each native CPython's own ``filename`` (a test file), from version ``since`` on."""
    found = {}
    for version, exe in sorted(find_interpreters().items()):
        tests = folder(exe) if version >= since else None
        if tests is not None and (tests / filename).exists():
            found[version] = tests / filename
    return found


def _c_recursion_limit() -> int:
    import exceptstar
    from exceptstar import _split

    if exceptstar.PURE:
        # The pure classes walk groups in loops and refuse what 3.13's C
        # recursion limit refuses: groups nested deeper than MAX_DEPTH.
        return _split.MAX_DEPTH + 3
    try:
        import _testcapi

        return max(int(_testcapi.Py_C_RECURSION_LIMIT), sys.getrecursionlimit())
    except (ImportError, AttributeError):  # pragma: no cover - 3.11+ builds have it
        return sys.getrecursionlimit() + 100


def _nomemtest(test: Callable[..., Any]) -> Callable[..., Any]:
    # 3.15's decorator: the test is CPython's (as every interpreter here is) and skipped without _testcapi.
    @functools.wraps(test)
    def internal(*args: Any, **kwargs: Any) -> Any:
        try:
            import _testcapi  # noqa: F401
        except ImportError:  # pragma: no cover - every pyenv build ships it
            raise unittest.SkipTest("No module named '_testcapi'") from None
        return test(*args, **kwargs)

    return internal


def _run_with_limited_c_stack(depth: int = 150_000, size: int = 8 << 20) -> Callable[..., Any]:
    # 3.14's decorator runs the test on a thread with a C stack of ``size``, so
    # that C recursion fails alike everywhere; where it is missing (3.8-3.13) the
    # classes under test are the pure ones, whose walks are loops: no C stack to limit.
    return lambda test: test


SUPPORT_FALLBACKS: Dict[str, Callable[..., Any]] = {
    "get_c_recursion_limit": _c_recursion_limit,
    "exceeds_recursion_limit": lambda: _c_recursion_limit() * 3,
    "nomemtest": _nomemtest,
    "run_with_limited_c_stack": _run_with_limited_c_stack,
    "skip_emscripten_stack_overflow": lambda: unittest.skipIf(sys.platform == "emscripten",
                                                              "Exhausts stack on Emscripten"),
    "skip_wasi_stack_overflow": lambda: unittest.skipIf(sys.platform == "wasi", "Exhausts stack on WASI"),
}


class _TestCase(unittest.TestCase):
    """``unittest.TestCase`` with the assertions 3.14 added, for the suites' use on older interpreters."""

    def assertIsSubclass(self, cls: Any, superclass: Any, msg: Any = None) -> None:
        if not issubclass(cls, superclass):
            self.fail(self._formatMessage(msg, f"{cls!r} is not a subclass of {superclass!r}"))

    def assertNotHasAttr(self, obj: Any, name: str, msg: Any = None) -> None:
        if hasattr(obj, name):
            self.fail(self._formatMessage(msg, f"{obj!r} has unexpected attribute {name!r}"))


def _unittest_module() -> types.ModuleType:
    # The real module, with a TestCase that has what this interpreter's lacks.
    shim = types.ModuleType("unittest")
    shim.__getattr__ = lambda name: getattr(unittest, name)  # type: ignore[method-assign]
    if not hasattr(unittest.TestCase, "assertIsSubclass"):
        shim.TestCase = _TestCase  # type: ignore[attr-defined]
    return shim


def _support_module() -> types.ModuleType:
    shim = types.ModuleType("test.support")
    try:
        import test.support as real
    except ImportError:  # pragma: no cover - every pyenv build ships it
        real = None

    def lookup(name: str) -> Any:
        if name in SUPPORT_FALLBACKS and (real is None or not hasattr(real, name)):
            return SUPPORT_FALLBACKS[name]
        return getattr(real, name)

    shim.__getattr__ = lookup  # type: ignore[method-assign]
    return shim


def load(filename: str | Path, extra_builtins: Dict[str, Any] | None = None) -> types.ModuleType | None:
    """A CPython test module with exceptstar's classes as builtins, or None if absent.

    ``filename`` is a name in the reference interpreter's test folder, or a path.
    """
    tests = folder()
    path = Path(filename) if Path(filename).is_absolute() else (tests / filename if tests else None)
    if path is None or not path.exists():
        return None
    import exceptstar

    support = _support_module()
    unittest_shim = _unittest_module()
    real_import = builtins.__import__

    def importer(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if name == "test.support" and fromlist:
            return support
        if name == "unittest" and not fromlist and level == 0:
            return unittest_shim
        return real_import(name, globals, locals, fromlist, level)

    namespace_builtins = dict(vars(builtins))
    namespace_builtins.update(
        __import__=importer,
        BaseExceptionGroup=exceptstar.BaseExceptionGroup,
        ExceptionGroup=exceptstar.ExceptionGroup,
        **(extra_builtins or {}),
    )
    module = types.ModuleType(path.stem)
    module.__file__ = str(path)
    module.__dict__["__builtins__"] = namespace_builtins
    # PyPy ignores a ``__builtins__`` that is not the builtins module: there the
    # classes are globals of the module (which shadow builtins alike), and its
    # imports are answered by the importer installed for the time the file runs.
    module.__dict__.update((name, value) for name, value in namespace_builtins.items()
                           if name != "__import__" and getattr(builtins, name, importer) is not value)
    code = compile(path.read_text(encoding="utf-8"), str(path), "exec")
    builtins.__import__ = importer
    try:
        exec(code, module.__dict__)
    finally:
        builtins.__import__ = real_import
    return module


def test_ids(module: types.ModuleType | None) -> list[str]:
    if module is None:
        return []
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    ids: list[str] = []

    def walk(s: unittest.TestSuite) -> None:
        for item in s:
            if isinstance(item, unittest.TestSuite):
                walk(item)
            else:
                ids.append(item.id().split(".", 1)[1])

    walk(suite)
    return ids


def run_one(module: types.ModuleType, test_id: str) -> unittest.TestResult:
    case = unittest.defaultTestLoader.loadTestsFromName(test_id, module)
    result = unittest.TestResult()
    case.run(result)
    return result


def describe(result: unittest.TestResult) -> str:
    return "\n".join(text for _, text in result.errors + result.failures)
