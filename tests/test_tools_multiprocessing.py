"""multiprocessing with ``except*`` in the main module and in what the workers import, under ``run``.

The same program, started with fork, spawn and forkserver, runs under
``python -m exceptstar run`` here and as it is on native 3.11 (on 3.11+: the
interpreter itself): ``Process``, ``Pool`` with an initializer and
``ProcessPoolExecutor`` work, a group raised in a worker is handled by
``except*`` in the parent, and an unhandled one prints with the worker's
members in the ``_RemoteTraceback`` text, line for line as natively.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import child_env
from test_tools_runners import reference

WORKER_MODULE = """\
def classify(n):
    result = n
    try:
        if n % 2:
            raise ExceptionGroup("odd", [ValueError(n), TypeError(n)])
    except* TypeError:
        result = -n
    except* ValueError:
        pass
    return result
"""

PROGRAM = """\
import multiprocessing as mp
import sys
from concurrent.futures import ProcessPoolExecutor

import workmod


def init(tag):
    global TAG
    TAG = tag


def job(n):
    try:
        raise ExceptionGroup(f"job {n}", [KeyError(n)])
    except* KeyError:
        pass
    return workmod.classify(n) if n else TAG


def boom(n):
    raise ExceptionGroup("worker failed", [ValueError(n), ExceptionGroup("inner", [OSError(n)])])


if __name__ == "__main__":
    ctx = mp.get_context(sys.argv[1])
    process = ctx.Process(target=job, args=(3,))
    process.start()
    process.join()
    print("process", process.exitcode)
    with ctx.Pool(2, initializer=init, initargs=("pool",)) as pool:
        print("pool", pool.map(job, [0, 2, 3]))
    with ProcessPoolExecutor(2, mp_context=ctx, initializer=init, initargs=("executor",)) as executor:
        print("executor", list(executor.map(job, [0, 1])))
        try:
            executor.submit(boom, 3).result()
        except* ValueError as eg:
            print("caught", repr(eg.exceptions), type(eg.__cause__).__name__)
        except* OSError as eg:
            print("rest", repr(eg))
    with ProcessPoolExecutor(1, mp_context=ctx) as executor:
        executor.submit(boom, 5).result()
"""


def normalised(text: str) -> str:
    text = re.sub(r"\S*/lib/(?:python|pypy)3\.\d+/", "LIB/", text)
    text = re.sub(r"line \d+", "line N", text)
    # Column carets: 3.11 draws more of them than 3.10 can (its positions are the interpreter's).
    return "\n".join(line for line in text.splitlines() if not re.fullmatch(r"[ |]*[~^]+", line))


# PyPy 3.9's ProcessPoolExecutor starts no spawned worker (its _adjust_process_count
# is missing): an executor fails there under spawn and forkserver, natively too.
BROKEN_EXECUTOR = pytest.mark.skipif(sys.implementation.name == "pypy" and sys.version_info < (3, 10),
                                     reason="PyPy 3.9's ProcessPoolExecutor cannot start spawned workers")


@pytest.mark.needs_processes
@pytest.mark.parametrize("method", ["fork", pytest.param("spawn", marks=BROKEN_EXECUTOR),
                                    pytest.param("forkserver", marks=BROKEN_EXECUTOR)])
def test_start_method(tmp_path: Path, method: str) -> None:
    (tmp_path / "workmod.py").write_text(WORKER_MODULE)
    (tmp_path / "prog.py").write_text(PROGRAM)
    mine = subprocess.run([sys.executable, "-m", "exceptstar", "run", "prog.py", method], cwd=tmp_path,
                          capture_output=True, text=True, env=child_env(False), timeout=180)
    native = subprocess.run([reference(), "prog.py", method], cwd=tmp_path, capture_output=True, text=True,
                            env=child_env(False), timeout=180)
    assert mine.stdout.splitlines() == [
        "process 0", "pool ['pool', 2, -3]", "executor ['executor', -1]",
        "caught (ValueError(3),) _RemoteTraceback", "rest ExceptionGroup('worker failed', "
        "[ExceptionGroup('inner', [OSError(3)])])"], mine.stderr
    assert mine.stdout == native.stdout
    assert mine.returncode == native.returncode == 1
    # 3.8 names the script as given, 3.9+ by its absolute path (python's own difference).
    assert normalised(mine.stderr.replace(f"{tmp_path}/", "")) == normalised(native.stderr.replace(f"{tmp_path}/", ""))
    assert "| OSError: 5" in mine.stderr  # the worker's members, in the remote traceback and below


@pytest.mark.needs_processes
@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_process_and_pool_children(tmp_path: Path, method: str) -> None:
    # Where the executor cannot be tried (PyPy 3.9), the started children still are.
    (tmp_path / "workmod.py").write_text(WORKER_MODULE)
    (tmp_path / "prog.py").write_text(PROGRAM.split("    with ProcessPoolExecutor")[0])
    mine = subprocess.run([sys.executable, "-m", "exceptstar", "run", "prog.py", method], cwd=tmp_path,
                          capture_output=True, text=True, env=child_env(False), timeout=180)
    native = subprocess.run([reference(), "prog.py", method], cwd=tmp_path, capture_output=True, text=True,
                            env=child_env(False), timeout=180)
    assert mine.stdout == native.stdout == "process 0\npool ['pool', 2, -3]\n", mine.stderr
    assert mine.returncode == native.returncode == 0


def test_children_without_the_integration_fail(tmp_path: Path) -> None:
    # Not vacuous: a spawn child re-runs the main module, which 3.8-3.10 cannot compile alone.
    if sys.version_info >= (3, 11):
        pytest.skip("except* is native here")
    (tmp_path / "workmod.py").write_text(WORKER_MODULE)
    (tmp_path / "prog.py").write_text(PROGRAM)
    (tmp_path / "one.py").write_text(PROGRAM.split("    with ctx.Pool")[0])  # a Process alone: a pool would wait
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "run", "one.py", "spawn"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=180,
                          env={**child_env(False), "EXCEPTSTAR_NO_MULTIPROCESSING": "1"})
    assert "SyntaxError" in proc.stderr and proc.stdout == "process 1\n", proc.stdout + proc.stderr


INSTALLED = """\
import multiprocessing as mp
import sys

import exceptstar

if __name__ == "__main__":
    exceptstar.install()
    from concurrent.futures import ProcessPoolExecutor

    import workmod

    with ProcessPoolExecutor(2, mp_context=mp.get_context(sys.argv[1])) as executor:
        print(list(executor.map(workmod.classify, [1, 2])))
"""


@pytest.mark.needs_processes
@BROKEN_EXECUTOR
@pytest.mark.parametrize("method", ["spawn", "forkserver"])
def test_children_of_a_program_that_called_install(tmp_path: Path, method: str) -> None:
    # The children run the main module as "__mp_main__", so they skip its install(): ours is theirs.
    (tmp_path / "workmod.py").write_text(WORKER_MODULE)
    (tmp_path / "prog.py").write_text(INSTALLED)
    mine = subprocess.run([sys.executable, "prog.py", method], cwd=tmp_path, capture_output=True, text=True,
                          env=child_env(False), timeout=180)
    native = subprocess.run([reference(), "prog.py", method], cwd=tmp_path, capture_output=True, text=True,
                            env=child_env(False), timeout=180)
    assert mine.stdout == native.stdout == "[-1, 2]\n", mine.stderr
    if sys.version_info < (3, 11):
        off = subprocess.run([sys.executable, "prog.py", method], cwd=tmp_path, capture_output=True, text=True,
                             env={**child_env(False), "EXCEPTSTAR_NO_MULTIPROCESSING": "1"}, timeout=180)
        assert "BrokenProcessPool" in off.stderr, off.stdout + off.stderr
