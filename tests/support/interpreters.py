"""The CPython and PyPy interpreters on this machine: the one place that finds them.

Used by the tests (their native reference), ``tools/matrix.py`` and
``bench/run.py``; standard library only, and valid on 3.8.
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

# Pyodide and WASI run no other process: no reference interpreter there.
CAN_SPAWN = sys.platform not in ("emscripten", "wasi")
PYENV_ROOT = Path(os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv"))
MINORS = range(8, 16)
# tools/sid.py's wrappers of the Debian sid root's interpreters (3.14, 3.15, PyPy 3.11).
SID_BIN = Path(os.environ.get("EXCEPTSTAR_SID") or "/var/cache/exceptstar") / "bin"


def version_key(path: str) -> list[int]:
    """Sort key of a pyenv path by the version in its ``versions/X.Y.Z`` folder."""
    match = re.search(r"versions/(\d+)\.(\d+)\.(\d+)", path)
    return [int(x) for x in match.groups()] if match else [0]


@functools.lru_cache(maxsize=None)
def find_interpreters() -> dict[tuple[int, int], str]:
    """Newest patch release of each CPython 3.8-3.15: pyenv, then the sid root, then PATH (first wins)."""
    found: dict[tuple[int, int], str] = {}
    for minor in MINORS:
        candidates = sorted(glob.glob(str(PYENV_ROOT / "versions" / f"3.{minor}.*" / "bin" / f"python3.{minor}")),
                            key=version_key)
        # A pyenv "system" shim would answer for whatever is global; only real binaries count.
        on_path = shutil.which(f"python3.{minor}")
        if on_path and "shims" not in on_path:
            candidates.insert(0, on_path)
        sid = SID_BIN / f"python3.{minor}"
        if sid.exists():
            candidates.insert(0, str(sid))
        for exe in reversed(candidates):
            try:
                out = subprocess.run(
                    [exe, "-c", "import sys, platform; print(platform.python_implementation(), *sys.version_info[:2])"],
                    capture_output=True, text=True, timeout=30,
                ).stdout.split()
            except (OSError, subprocess.TimeoutExpired):
                continue
            if out == ["CPython", "3", str(minor)]:
                found[(3, minor)] = exe
                break
    return found


@functools.lru_cache(maxsize=None)
def find_pypys() -> dict[tuple[int, int], str]:
    """PyPy 3.9 (``pypy3`` on PATH: Debian 12's) and PyPy 3.11 (the sid root's), by the version each implements."""
    found: dict[tuple[int, int], str] = {}
    for exe in (shutil.which("pypy3"), str(SID_BIN / "pypy3.11")):
        if exe is None or not Path(exe).exists():
            continue
        try:
            out = subprocess.run([exe, "-c", "import sys, platform; print(platform.python_implementation(), "
                                  "*sys.version_info[:2])"], capture_output=True, text=True, timeout=60).stdout.split()
        except (OSError, subprocess.TimeoutExpired):
            continue
        if len(out) == 3 and out[0] == "PyPy":
            found.setdefault((int(out[1]), int(out[2])), exe)
    return found


def pypys_to_ask() -> dict[tuple[int, int], str]:
    """The PyPys whose runs the cross-interpreter checks (the README's commands, the demo, the
    differences' reproducers) ask from this run: none but from the newest CPython on this side
    of the sid root, where the PyPys on the same side are asked.  So each PyPy is asked once per
    matrix: Debian 12's 3.9 from the host's newest (it cannot run inside the root), the root's
    3.11 from native 3.15 inside it.
    """
    if sys.implementation.name != "cpython":
        return {}
    here = [version for version, exe in find_interpreters().items() if Path(exe).parent != SID_BIN]
    if not here or sys.version_info[:2] != max(here):
        return {}
    return {version: exe for version, exe in find_pypys().items() if Path(exe).parent != SID_BIN}


def host_path(exe: str, path: str) -> Path:
    """Where this process finds ``path``, a path that interpreter ``exe`` printed of its own files.

    The sid root's interpreters see the root as ``/`` (the host's own folders are bound at
    their paths, so only the root's files need its prefix).
    """
    inside = Path(path)
    if Path(exe).parent == SID_BIN and not inside.exists():
        return SID_BIN.parent / "sid" / inside.relative_to("/")
    return inside


def seen_by(exe: str, path: Path) -> str:
    """``path`` of this process as interpreter ``exe`` names it: ``host_path`` the other way."""
    root = SID_BIN.parent / "sid"
    if Path(exe).parent == SID_BIN and root in path.parents:
        return "/" + str(path.relative_to(root))
    return str(path)


def make_venv(exe: str, folder: Path) -> str:
    """A virtual environment of interpreter ``exe`` in ``folder``: the path of a python this process can run.

    A sid root interpreter's environment runs inside the root only (its ``python`` links to the
    root's binary), so this process gets a script beside it that enters the root first.
    """
    subprocess.run([exe, "-m", "venv", str(folder)], check=True, capture_output=True, timeout=300)
    python = folder / "bin" / "python"
    if Path(exe).parent != SID_BIN:
        return str(python)
    host = folder / "bin" / "host-python"
    host.write_text(f'#!/bin/sh\nexec {SID_BIN / "in-sid"} {python} "$@"\n')
    host.chmod(0o755)
    return str(host)


@functools.lru_cache(maxsize=None)
def native_python() -> str | None:
    """The newest native CPython found (3.15 here), else the running one if it is 3.11+: the tests' reference.

    The bare interpreter, not an environment: the tests put ``src`` on its
    ``PYTHONPATH`` themselves.  None where no process can be started.
    """
    if not CAN_SPAWN:
        return None
    natives = [version for version in find_interpreters() if version >= (3, 11)]
    if natives:
        return find_interpreters()[max(natives)]
    return sys.executable if sys.version_info >= (3, 11) else None
