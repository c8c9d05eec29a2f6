"""The programs in ``asyncio_programs/``: the same output with exceptstar as on the newest native CPython.

Each program uses TaskGroup / timeout (and ``except*``) as a 3.15 program
does, importing them from asyncio on 3.15+ and from exceptstar.asyncio
otherwise.  It runs on the bare reference interpreter
(``support.interpreters.native_python()``, 3.15 here; no exceptstar anywhere)
and here through ``python -m exceptstar run``: on 3.8-3.10 (exceptstar's
TaskGroup and timeouts), on 3.11-3.14 as users get it (the subclass of
``asyncio.TaskGroup`` with 3.15's behaviour) and with ``EXCEPTSTAR_PURE=1``
(exceptstar's TaskGroup and timeouts over tasks that count their own
cancellations).  Standard output and error and the exit status must be the
same.  Every run is under a timeout.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.interpreters import native_python

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "asyncio_programs"
SRC = HERE.parent / "src"

# Programs that need something of the interpreter under test, and why.
NEEDS = {
    "eager.txt": ((3, 12), "eager task factories (asyncio.eager_task_factory) are 3.12's"),
}
# On 3.11 and 3.12 exceptstar.asyncio.timeout is asyncio's own (exceptstar's
# is compared in the pure mode there).
OWN_TIMEOUTS_DIFFER = {
    "timeouts.txt": "asyncio's own timeout() of 3.11 and 3.12 does not put its TimeoutError in the context "
                    "of an exception raised while the expired block exits (gh-96037, 3.13)",
}
# What PyPy's own asyncio does otherwise, with or without exceptstar.
PYPY_DIFFERS = {
    "swallow.txt": "on PyPy an exception a task raises after its except block swallowed a cancellation "
                   "has the CancelledError as its __context__ (asyncio's own tasks too; None on CPython)",
}
MODES = ["ours"] + (["pure"] if sys.version_info >= (3, 11) else [])


def run(cmd: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=PROGRAMS, capture_output=True, text=True, env=env, timeout=120)


# The programs are .txt files: 3.8-3.10 (and the linters, set for 3.8) cannot parse except*.
# connections.txt takes arguments: test_socket.py runs it.
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("program", sorted(p.name for p in PROGRAMS.glob("*.txt") if p.name != "connections.txt"))
def test_same_output_as_native(program: str, mode: str) -> None:
    native = native_python()
    if native is None:
        pytest.skip("no native CPython 3.11+ to compare with")
    if sys.implementation.name == "pypy" and program in PYPY_DIFFERS:
        pytest.skip(PYPY_DIFFERS[program])
    if program in NEEDS and sys.version_info < NEEDS[program][0]:
        pytest.skip(NEEDS[program][1])
    if mode == "ours" and program in OWN_TIMEOUTS_DIFFER and (3, 11) <= sys.version_info < (3, 13):
        pytest.skip(OWN_TIMEOUTS_DIFFER[program])
    if mode == "ours" and sys.version_info >= (3, 15):
        pytest.skip("exceptstar.asyncio.TaskGroup is asyncio's own from 3.15")
    bare = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "EXCEPTSTAR"))}
    reference = run([native, program], bare)
    assert reference.returncode == 0, reference.stderr
    ours = run([sys.executable, "-m", "exceptstar", "run", program],
               dict(bare, PYTHONPATH=str(SRC), **({"EXCEPTSTAR_PURE": "1"} if mode == "pure" else {})))
    assert (ours.stdout, ours.stderr, ours.returncode) == (reference.stdout, reference.stderr, reference.returncode)
    assert reference.stdout.count("\n") > 10
