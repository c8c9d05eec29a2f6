"""The programs in ``asyncio_programs/``: the same output with exceptstar as on native 3.13.

Each program uses TaskGroup / timeout (and ``except*``) as a 3.11+ program
does, importing them from asyncio where it has them and from
exceptstar.asyncio otherwise.  It runs on the bare CPython 3.13 (no
exceptstar anywhere) and here through ``python -m exceptstar run``: on
3.8-3.10, and on 3.11+ with ``EXCEPTSTAR_PURE=1`` (exceptstar's TaskGroup and
timeout over tasks that count their own cancellations).  Standard output and
error and the exit status must be the same.  Every run is under a timeout.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "asyncio_programs"
SRC = HERE.parent / "src"
PYENV_ROOT = Path(os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv"))


def native_313() -> str | None:
    found = sorted(glob.glob(str(PYENV_ROOT / "versions" / "3.13.*" / "bin" / "python3.13")))
    return found[-1] if found else None


def run(cmd: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=PROGRAMS, capture_output=True, text=True, env=env, timeout=120)


# The programs are .txt files: 3.8-3.10 (and the linters, set for 3.8) cannot parse except*.
# connections.txt takes arguments: test_socket.py runs it.
@pytest.mark.parametrize("program", sorted(p.name for p in PROGRAMS.glob("*.txt") if p.name != "connections.txt"))
def test_same_output_as_native_313(program: str) -> None:
    native = native_313()
    if native is None:
        pytest.skip("no CPython 3.13 under pyenv")
    bare = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "EXCEPTSTAR"))}
    reference = run([native, program], bare)
    assert reference.returncode == 0, reference.stderr
    ours = run([sys.executable, "-m", "exceptstar", "run", program],
               dict(bare, PYTHONPATH=str(SRC), **({} if sys.version_info < (3, 11) else {"EXCEPTSTAR_PURE": "1"})))
    assert (ours.stdout, ours.stderr, ours.returncode) == (reference.stdout, reference.stderr, reference.returncode)
    assert reference.stdout.count("\n") > 10
