"""3.11 code runs unchanged in every module under ``exceptstar run``, ``install()`` and pytest.

A module without ``except*`` raises ``ExceptionGroup``, adds notes and calls
``sys.exception()`` as on 3.11; compared with native 3.11+.  Before 3.11 the
patch of ``BaseException`` is checked for what could go wrong: reference
counts, subclasses made before and after, pickling, ``dir()``; and the class
pickles exactly as the native one does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.interop import environment, native, ours, plain, reference_python
from support.processes import run_native

# PyPy's built-in types take no new attribute: before 3.11 exceptstar cannot give
# every exception an ``add_note`` method there (``exceptstar.add_note(exc, note)``
# does what it does); PyPy 3.11 has its own.
NO_ADD_NOTE_METHOD = sys.implementation.name == "pypy" and sys.version_info < (3, 11)
NO_ADD_NOTE_REASON = ("PyPy's BaseException is immutable: no add_note method before 3.11 "
                      "(exceptstar.add_note instead), and this program calls exc.add_note")

PLAIN_MODULE = '''
import sys

def fail():
    err = ValueError("v")
    err.add_note("a note, added in a module without except*")
    raise ExceptionGroup("from a plain module", [err, BaseExceptionGroup("b", [KeyError("k")])])

def current():
    try:
        raise OSError("o")
    except OSError:
        return repr(sys.exception())
'''

MAIN = '''
import pickle, sys
import plain

print(plain.current(), sys.exception())
try:
    plain.fail()
except* ValueError as e:
    print("handled", repr(e), e.exceptions[0].__notes__, sys.exception() is e)
except* KeyError as e:
    print("handled", repr(e))
print([pickle.dumps(cls, protocol) for cls in (ExceptionGroup, BaseExceptionGroup) for protocol in range(6)])
print(all(pickle.loads(pickle.dumps(cls)) is cls for cls in (ExceptionGroup, BaseExceptionGroup)))
e = KeyError(1)
e.add_note("n")
print(pickle.loads(pickle.dumps(e)).__notes__, "add_note" in dir(e), "add_note" in dir(BaseException))
'''


def write(tmp_path: Path) -> Path:
    (tmp_path / "plain.py").write_text(PLAIN_MODULE, encoding="utf-8")
    main = tmp_path / "main.py"
    main.write_text(MAIN, encoding="utf-8")
    return main


@pytest.mark.needs_processes
@pytest.mark.skipif(NO_ADD_NOTE_METHOD, reason=NO_ADD_NOTE_REASON)
def test_plain_modules_see_311_names(tmp_path: Path) -> None:
    main = write(tmp_path)
    result = ours(main)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "OSError('o') None"
    reference = reference_python()
    if reference is None:
        pytest.skip("no 3.11+ environment to compare with")
    expected = native(reference, main)
    assert result.stdout == expected.stdout


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="the names are native there")
def test_install_gives_the_names_and_opt_out_does_not(tmp_path: Path) -> None:
    write(tmp_path)
    code = (f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import exceptstar; exceptstar.install()\n"
            "import plain\ntry:\n    plain.fail()\nexcept Exception as e:\n    print(repr(e), plain.current())\n")
    if not NO_ADD_NOTE_METHOD:
        proc = plain(code)
        assert proc.stdout.strip() == ("ExceptionGroup('from a plain module', [ValueError('v'), "
                                       "ExceptionGroup('b', [KeyError('k')])]) OSError('o')"), proc.stderr
        proc = plain(code, EXCEPTSTAR_NO_BUILTINS="1")
        assert "AttributeError: 'ValueError' object has no attribute 'add_note'" in proc.stderr
    # A plain import binds only the classes' names, where they say they live.
    probe = ("import builtins, sys, exceptstar\nprint(getattr(builtins, 'ExceptionGroup', None) is "
             "exceptstar.ExceptionGroup, getattr(builtins, 'BaseExceptionGroup', None) is "
             "exceptstar.BaseExceptionGroup, hasattr(sys, 'exception'), hasattr(ValueError, 'add_note'))")
    proc = plain(probe)
    assert proc.stdout.strip() == "True True False False", proc.stderr
    proc = plain(probe, EXCEPTSTAR_NO_BUILTINS="1")
    assert proc.stdout.strip() == "False False False False", proc.stderr
    # Someone else's name is left alone.
    proc = plain("import builtins\nbuiltins.ExceptionGroup = 'theirs'\nimport exceptstar\n"
                 "print(builtins.ExceptionGroup, builtins.BaseExceptionGroup is exceptstar.BaseExceptionGroup)")
    assert proc.stdout.strip() == "theirs True", proc.stderr


PICKLE_CLASSES = '''
import multiprocessing, pickle, sys
import exceptstar

CLASSES = (exceptstar.ExceptionGroup, exceptstar.BaseExceptionGroup)


def echo(value):
    return value


if __name__ == "__main__":
    print([pickle.dumps(cls, protocol) for cls in CLASSES for protocol in range(6)])
    print(all(pickle.loads(pickle.dumps(cls, protocol)) is cls for cls in CLASSES for protocol in range(6)))
    # A spawned child (a fresh interpreter) unpickles what it is sent after
    # importing this main module, exceptstar with it.
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        cls, group = pool.apply(echo, ((exceptstar.ExceptionGroup, exceptstar.ExceptionGroup("g", [KeyError(1)])),))
    print(cls is exceptstar.ExceptionGroup, repr(group), type(group) is cls)
'''


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="the classes are the built-ins there")
def test_a_plain_import_pickles_the_classes_as_native(tmp_path: Path) -> None:
    main = tmp_path / "pickle_classes.py"
    main.write_text(PICKLE_CLASSES, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(main)], capture_output=True, text=True, cwd=str(tmp_path),
                          env=environment(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[1:] == ["True", "True ExceptionGroup('g', [KeyError(1)]) True"]
    reference = reference_python()
    if reference is None:
        pytest.skip("no 3.11+ environment to compare the bytes with")
    expected = native(reference, main)
    assert expected.returncode == 0, expected.stderr
    assert lines[0] == expected.stdout.splitlines()[0]
    # Without the names, pickle says why.
    proc = subprocess.run([sys.executable, str(main)], capture_output=True, text=True, cwd=str(tmp_path),
                          env=environment(EXCEPTSTAR_NO_BUILTINS="1"), timeout=300)
    assert ("attribute lookup ExceptionGroup on builtins failed" in proc.stderr  # CPython's pickle
            or "it's not found as builtins.ExceptionGroup" in proc.stderr)  # PyPy's, pure Python


SAFETY = '''
import gc, json, pickle, sys
import exceptstar
from exceptstar import _py311

class Before(OSError):
    __slots__ = ()

class Plain(Exception):
    pass

early = Before(1)
out = {"before": hasattr(early, "add_note")}
dir_before = set(dir(BaseException))
pickled_before = [pickle.dumps(ValueError("x"), p) for p in range(6)]
refs = (sys.getrefcount(BaseException), sys.getrefcount(ValueError), sys.getrefcount(_py311.add_note))
_py311.provide()
_py311.provide()  # a second call changes nothing
out["refcount deltas"] = [sys.getrefcount(BaseException) - refs[0], sys.getrefcount(ValueError) - refs[1],
                          sys.getrefcount(_py311.add_note) - refs[2]]
out["dir delta"] = sorted(set(dir(BaseException)) - dir_before)
out["pickles unchanged"] = pickled_before == [pickle.dumps(ValueError("x"), p) for p in range(6)]
out["ctypes imported"] = "ctypes" in sys.modules

class After(KeyError):
    pass

notes = []
for exc in (early, Plain(), After(), OSError(2), KeyboardInterrupt(), SystemExit(3), ExceptionGroup("g", [Plain()])):
    exc.add_note("n")
    notes.append([type(exc).__name__, exc.__notes__, "add_note" in dir(exc)])
out["notes"] = notes
e = Plain()
before = sys.getrefcount(e)
for _ in range(1000):
    e.add_note("x")
out["no leak per call"] = sys.getrefcount(e) - before
clone = pickle.loads(pickle.dumps(e))
out["notes pickle"] = len(clone.__notes__)
errors = []
for bad in ((1, "x"), (ValueError(), 1)):
    try:
        BaseException.add_note(*bad)
    except TypeError as error:
        errors.append(str(error))
out["errors"] = errors
print(json.dumps(out))
'''


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="BaseException is patched on 3.8-3.10 only")
@pytest.mark.skipif(NO_ADD_NOTE_METHOD, reason="PyPy's BaseException is immutable: never patched there")
def test_patching_base_exception_is_safe() -> None:
    proc = plain(SAFETY)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out == {
        "before": False,
        # gc is imported first; the dict owns one reference to the function.
        "refcount deltas": [0, 0, 1],
        # The attribute cache is cleared without ctypes, whose import costs a start about 2 ms.
        "ctypes imported": False,
        "dir delta": ["add_note"],
        "pickles unchanged": True,
        "notes": [[name, ["n"], True] for name in
                  ("Before", "Plain", "After", "OSError", "KeyboardInterrupt", "SystemExit", "ExceptionGroup")],
        "no leak per call": 0,
        "notes pickle": 1000,
        # In the newest CPython's words.
        "errors": run_native("""
for bad in ((1, "x"), (ValueError(), 1)):
    try:
        BaseException.add_note(*bad)
    except TypeError as error:
        print(error)
""").stdout.splitlines(),
    }
