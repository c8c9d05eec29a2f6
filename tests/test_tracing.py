"""What a global tracer (debugger, coverage, ``sys.settrace``) sees of exceptstar (issue 11, item 11).

Natively ``except*`` is C: a tracer sees the user's frame only.  Through
exceptstar it also sees the engine's frames (Python code, unavoidable), but
never the import of ctypes that the first handled group triggers, and the
tracer is still the one installed afterwards, with the user's lines traced
as natively.
"""

from __future__ import annotations

import json
import sys

import pytest
from support.interpreters import find_interpreters
from support.processes import COMPILE_STAR, run_native, run_python

PROGRAM = r'''
import collections, json, os, sys
''' + COMPILE_STAR + r'''
SOURCE = """
def f():
    try:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    except* ValueError:
        x = 1
    except* TypeError:
        y = 2
    return 3
"""
namespace = {}
exec(compile_star(SOURCE, "prog.py", "exec"), namespace)
calls = collections.Counter()
lines = set()


def tracer(frame, event, arg):
    calls[os.path.basename(os.path.dirname(frame.f_code.co_filename)) or frame.f_code.co_filename] += 1

    def local(frame, event, arg):
        if event == "line" and frame.f_code.co_filename == "prog.py":
            lines.add(frame.f_lineno)
        return local
    return local


sys.settrace(tracer)
namespace["f"]()  # the first handled group of the process
still = sys.gettrace() is tracer
sys.settrace(None)
print(json.dumps({"lines": sorted(lines), "still": still, "ctypes": calls["ctypes"],
                  "importlib": sum(n for name, n in calls.items() if "importlib" in name)}))
'''


@pytest.mark.needs_processes
def test_the_first_handled_group_imports_ctypes_untraced() -> None:
    here = run_python(sys.executable, PROGRAM, pure=True)
    assert here.returncode == 0, here.stderr
    got = json.loads(here.stdout)
    native = run_native(PROGRAM)
    assert native.returncode == 0, native.stderr
    expected = json.loads(native.stdout)
    assert got["lines"] == expected["lines"]
    assert got["still"] is True
    assert (got["ctypes"], got["importlib"]) == (0, 0)


MODULE_LINES = r'''
import json, os, sys
''' + COMPILE_STAR + r'''
# The module's first lines hold code that never runs: lines no tracer may see.
SOURCE = """\
\"\"\"doc\"\"\"
if False:
    never = 1
    never = 2
    never = 3
    never = 4
    never = 5
    never = 6
x = 1
try:
    raise ExceptionGroup("eg", [ValueError(1)])
except* ValueError:
    y = 2
"""
code = compile_star(SOURCE, "prog.py", "exec")
lines = []


def tracer(frame, event, arg):
    if frame.f_code.co_filename == "prog.py" and event == "line":
        lines.append(frame.f_lineno)
    return tracer


sys.settrace(tracer)
exec(code, {})
sys.settrace(None)
print(json.dumps(sorted(set(lines))))
'''


@pytest.mark.needs_processes
def test_module_level_lines_are_the_users() -> None:
    here = run_python(sys.executable, MODULE_LINES, pure=True)
    assert here.returncode == 0, here.stderr
    native = run_native(MODULE_LINES)
    assert native.returncode == 0, native.stderr
    assert not set(json.loads(native.stdout)) & set(range(3, 9))
    assert json.loads(here.stdout) == json.loads(native.stdout)


# Programs whose line events, in order, are compared: where a starred try ends a
# module or a function, where its last clause runs or not, where a handler body
# raises, with `else`/`finally`, nested, in a loop, after a docstring and a
# `from __future__` import, and a module that only names ExceptionGroup.
EVENT_PROGRAMS = {
    "mod_last_not_run": """\
try:
    raise ExceptionGroup('eg', [OSError(1)])
except* OSError:
    print('caught')
except* ValueError:
    print('never')
""",
    "mod_last_ran": """\
try:
    raise ExceptionGroup('eg', [OSError(1)])
except* ValueError:
    print('never')
except* OSError:
    print('caught')
""",
    "mod_followed": """\
try:
    raise ExceptionGroup('eg', [OSError(1)])
except* OSError:
    print('caught')
except* ValueError:
    print('never')
x = 1
""",
    "mod_one_clause_not_run": """\
try:
    raise ExceptionGroup('eg', [OSError(1)])
except* ValueError:
    print('never')
""",
    "func_last_not_run": """\
def f():
    try:
        raise ExceptionGroup('eg', [OSError(1)])
    except* OSError:
        print('caught')
    except* ValueError:
        print('never')
f()
""",
    "func_last_ran": """\
def f():
    try:
        raise ExceptionGroup('eg', [OSError(1)])
    except* ValueError:
        print('never')
    except* OSError:
        print('caught')
f()
""",
    "func_no_raise": """\
def f():
    try:
        pass
    except* OSError:
        print('caught')
f()
""",
    "func_one_not_run": """\
def f():
    try:
        raise ExceptionGroup('eg', [OSError(1)])
    except* ValueError:
        print('never')
try:
    f()
except* OSError:
    pass
""",
    "loop_last_not_run": """\
for i in range(2):
    try:
        raise ExceptionGroup('eg', [OSError(1)])
    except* OSError:
        print('caught')
    except* ValueError:
        print('never')
""",
    "last_body_raises": """\
def f():
    try:
        raise ExceptionGroup('eg', [OSError(1)])
    except* ValueError:
        print('never')
    except* OSError:
        raise KeyError(2)
try:
    f()
except Exception:
    pass
""",
    "first_body_raises": """\
def f():
    try:
        raise ExceptionGroup('eg', [OSError(1), ValueError(3)])
    except* OSError:
        raise KeyError(2)
    except* ValueError:
        print('v')
try:
    f()
except Exception:
    pass
""",
    "else_finally": """\
def f():
    try:
        x = 1
    except* OSError:
        print('no')
    else:
        x = 2
    finally:
        x = 3
    return x
f()
""",
    "return_in_try": """\
def f():
    try:
        return 1
    except* OSError:
        print('no')
f()
""",
    "nested": """\
def f():
    try:
        raise ExceptionGroup('eg', [OSError(1), ValueError(2)])
    except* OSError:
        try:
            raise ExceptionGroup('in', [KeyError(1)])
        except* KeyError:
            pass
    except* ValueError:
        pass
f()
""",
    "naked": """\
try:
    raise OSError(1)
except* OSError as e:
    y = e
""",
    "unhandled": """\
def f():
    try:
        raise ExceptionGroup('eg', [OSError(1), KeyError(2)])
    except* OSError:
        pass
try:
    f()
except* KeyError:
    pass
""",
    "docstring_future": """\
\"\"\"doc\"\"\"
from __future__ import annotations

import sys
try:
    raise ExceptionGroup('eg', [OSError(1)])
except* OSError:
    pass
""",
    "comment_first": """\
# comment

x = 1
try:
    pass
except* OSError:
    pass
x = 2
""",
    "names_only": """\
x = ExceptionGroup('a', [ValueError(1)])
y = 2
""",
}

LINE_EVENTS = r'''
import contextlib, io, json, sys
''' + COMPILE_STAR + r'''
events = {}
for name, source in json.loads(sys.stdin.read()).items():
    code = compile_star(source, "p.py", "exec")
    seen = events[name] = []

    def tracer(frame, event, arg):
        if frame.f_code.co_filename == "p.py" and event == "line":
            seen.append(frame.f_lineno)
        return tracer

    with contextlib.redirect_stdout(io.StringIO()):
        sys.settrace(tracer)
        try:
            exec(code, {"__name__": "p"})
        except BaseException:
            pass
        sys.settrace(None)
print(json.dumps(events))
'''


def test_line_events_are_311s() -> None:
    """The line events of the transformed code, in order, are native 3.11's on 3.10.

    3.10's line tables (PEP 626) can say "no line", so the machinery between the
    user's lines reports nothing and each line event is where 3.11 reports one:
    a debugger steps, and trace counts, as on 3.11.  3.8/3.9 cannot say it; there
    (and with the pure classes on 3.11+) the lines reported are the same set.
    """
    reference = find_interpreters().get((3, 11))
    if reference is None:
        pytest.skip("no CPython 3.11 on this machine")
    native = run_python(reference, LINE_EVENTS, stdin=json.dumps(EVENT_PROGRAMS))
    assert native.returncode == 0, native.stderr
    here = run_python(sys.executable, LINE_EVENTS, pure=True, stdin=json.dumps(EVENT_PROGRAMS))
    assert here.returncode == 0, here.stderr
    expected, got = json.loads(native.stdout), json.loads(here.stdout)
    assert expected["mod_last_not_run"] == [1, 2, 3, 4, 5, 5]  # the never-run body (line 6) is absent
    if sys.version_info[:2] == (3, 10):
        assert got == expected
    else:
        assert {name: sorted(set(lines)) for name, lines in got.items()} == \
            {name: sorted(set(lines)) for name, lines in expected.items()}
