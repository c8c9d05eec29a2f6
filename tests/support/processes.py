"""Running code in another interpreter: the one way the tests ask one.

Every child gets exceptstar from the source tree and, with ``pure``,
``EXCEPTSTAR_PURE=1`` (never an inherited one).  ``call`` is the same run
for a function of this package, with its argument and result as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from support.interpreters import native_python

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
TESTS = ROOT / "tests"


# Where the running interpreter is 3.11+, exceptstar's own side runs pure.
PURE_HERE = sys.version_info >= (3, 11)

# Lines for a child program (``run_python``/``run_native``) that compiles
# ``except*`` source with ``compile_star``: exceptstar's compile and classes
# where they are needed (before 3.11, or pure), the built-ins elsewhere.
COMPILE_STAR = """\
import os, sys
if os.environ.get("EXCEPTSTAR_PURE") or sys.version_info < (3, 11):
    import exceptstar
    from exceptstar import BaseExceptionGroup, ExceptionGroup
    compile_star = exceptstar.compile
else:
    compile_star = compile
"""


def child_env(pure: bool) -> dict[str, str]:
    """This process's environment for a child: exceptstar from ``src``, pure only if asked."""
    env = dict(os.environ, PYTHONPATH=str(SRC))
    env.pop("EXCEPTSTAR_PURE", None)
    if pure:
        env["EXCEPTSTAR_PURE"] = "1"
    return env


def exceptstar(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m exceptstar ARGS`` with the running interpreter (pure on 3.11+)."""
    return subprocess.run([sys.executable, "-m", "exceptstar", *args], cwd=cwd, input=stdin,
                          capture_output=True, text=True, env=child_env(PURE_HERE), timeout=120)


def python(exe: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``exe ARGS``, the plain interpreter to compare ``exceptstar run`` with."""
    return subprocess.run([exe, *args], cwd=cwd, capture_output=True, text=True,
                          env=child_env(False), timeout=120)


def run_python(exe: str, code: str, *, pure: bool = False, args: tuple[str, ...] = (),
               env: dict[str, str] | None = None, stdin: str | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``code`` (``-c``, then ``args``) in interpreter ``exe`` with exceptstar importable from ``src``."""
    full_env = child_env(pure)
    full_env.update(env or {})
    return subprocess.run([exe, "-c", code, *args], input=stdin, capture_output=True, text=True,
                          env=full_env, timeout=timeout)


def run_native(code: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``run_python`` in the reference interpreter (the newest 3.11+)."""
    exe = native_python()
    assert exe is not None, "no CPython 3.11+ on this machine"
    return run_python(exe, code, **kwargs)


def ours_and_newest(code: str) -> tuple[Any, Any]:
    """The JSON that ``code`` prints under exceptstar here (pure on 3.11+: 3.15's rules) and in the
    newest native CPython (this interpreter where there is none to start)."""
    ours = run_python(sys.executable, code, pure=True)
    assert ours.returncode == 0, ours.stderr
    newest = run_python(native_python() or sys.executable, code)
    assert newest.returncode == 0, newest.stderr
    return json.loads(ours.stdout), json.loads(newest.stdout)


def call(exe: str, function: str, argument: Any, *, pure: bool = False, timeout: float = 300) -> Any:
    """``support.<module>.<name>(argument)`` run in ``exe``, for ``function`` ``"<module>.<name>"``."""
    module, name = function.rsplit(".", 1)
    code = (f"import json, sys; sys.path.insert(0, {str(TESTS)!r}); from support.{module} import {name}; "
            f"print(json.dumps({name}(json.loads(sys.stdin.read()))))")
    proc = run_python(exe, code, pure=pure, stdin=json.dumps(argument), timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
