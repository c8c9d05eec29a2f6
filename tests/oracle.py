"""The real interpreters and CPython's own tests, as the tests' oracle.

Nothing here is copied from CPython: the native interpreters on this machine
are found and run, and CPython's test files are imported from the standard
library folder where they are installed.
"""

from __future__ import annotations

import functools
import glob
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PYENV_ROOT = Path(os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv"))



def _version_key(path: str) -> list[int]:
    match = re.search(r"versions/(\d+)\.(\d+)\.(\d+)", path)
    return [int(x) for x in match.groups()] if match else [0]


@functools.lru_cache(maxsize=None)
def native_python() -> str | None:
    """The newest CPython 3.11+ on the machine: the reference for every behaviour."""
    if sys.version_info >= (3, 11):
        candidates = [sys.executable]
    else:
        candidates = []
    found = sorted(glob.glob(str(PYENV_ROOT / "versions" / "3.1[1-9].*" / "bin" / "python3")), key=_version_key)
    candidates = found[::-1] + candidates
    for exe in candidates:
        if Path(exe).exists():
            return exe
    return None


@functools.lru_cache(maxsize=None)
def cpython_test_dir() -> Path | None:
    """The ``test`` package folder of the newest 3.11+ standard library installed here."""
    found = sorted(glob.glob(str(PYENV_ROOT / "versions" / "3.1[1-9].*" / "lib" / "python3.*" / "test")),
                   key=_version_key)
    return Path(found[-1]) if found else None


def run_python(exe: str, code: str, *, pure: bool = False, args: tuple[str, ...] = (),
               env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in interpreter ``exe`` with exceptstar importable from the source tree."""
    full_env = dict(os.environ)
    full_env.pop("EXCEPTSTAR_PURE", None)
    full_env["PYTHONPATH"] = str(SRC)
    if pure:
        full_env["EXCEPTSTAR_PURE"] = "1"
    full_env.update(env or {})
    return subprocess.run([exe, "-c", code, *args], capture_output=True, text=True, env=full_env,
                          timeout=timeout)


def run_native(code: str, **kwargs: object) -> subprocess.CompletedProcess[str]:
    exe = native_python()
    assert exe is not None, "no CPython 3.11+ on this machine"
    return run_python(exe, code, **kwargs)  # type: ignore[arg-type]


def assert_leaves_no_cycles(call: Callable[[], object]) -> None:
    """Run ``call`` (whatever it raises is ignored) and check it left nothing for the cycle collector."""
    import gc

    def once() -> None:
        try:
            call()
        except BaseException:
            pass

    once()  # first-use caches (ctypes bindings, imports) are not the call's garbage
    gc.collect()
    gc.disable()
    try:
        once()
        assert gc.collect() == 0
    finally:
        gc.enable()
