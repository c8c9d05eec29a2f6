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


def test_module_level_lines_are_the_users() -> None:
    here = run_python(sys.executable, MODULE_LINES, pure=True)
    assert here.returncode == 0, here.stderr
    native = run_native(MODULE_LINES)
    assert native.returncode == 0, native.stderr
    assert not set(json.loads(native.stdout)) & set(range(3, 9))
    assert json.loads(here.stdout) == json.loads(native.stdout)
