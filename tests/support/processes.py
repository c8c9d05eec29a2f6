"""Running code in another interpreter: the one way the tests ask one.

Every child gets exceptstar from the source tree and, with ``pure``,
``EXCEPTSTAR_PURE=1`` (never an inherited one).  ``call`` is the same run
for a function of this package, with its argument and result as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from support.interpreters import native_python

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
TESTS = ROOT / "tests"


def run_python(exe: str, code: str, *, pure: bool = False, args: tuple[str, ...] = (),
               env: dict[str, str] | None = None, stdin: str | None = None,
               timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``code`` (``-c``, then ``args``) in interpreter ``exe`` with exceptstar importable from ``src``."""
    full_env = dict(os.environ)
    full_env.pop("EXCEPTSTAR_PURE", None)
    full_env["PYTHONPATH"] = str(SRC)
    if pure:
        full_env["EXCEPTSTAR_PURE"] = "1"
    full_env.update(env or {})
    return subprocess.run([exe, "-c", code, *args], input=stdin, capture_output=True, text=True,
                          env=full_env, timeout=timeout)


def run_native(code: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``run_python`` in the reference interpreter (the newest 3.11+)."""
    exe = native_python()
    assert exe is not None, "no CPython 3.11+ on this machine"
    return run_python(exe, code, **kwargs)


def call(exe: str, function: str, argument: Any, *, pure: bool = False, timeout: float = 300) -> Any:
    """``support.<module>.<name>(argument)`` run in ``exe``, for ``function`` ``"<module>.<name>"``."""
    module, name = function.rsplit(".", 1)
    code = (f"import json, sys; sys.path.insert(0, {str(TESTS)!r}); from support.{module} import {name}; "
            f"print(json.dumps({name}(json.loads(sys.stdin.read()))))")
    proc = run_python(exe, code, pure=pure, stdin=json.dumps(argument), timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)
