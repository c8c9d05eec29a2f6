"""The rendering tests' scenario, and their native side: a 3.11+ interpreter with the same version of a package.

The packages drop old interpreters at different times, so the newest version
that installs on 3.8 may be older than the reference environment's.  Then that
exact version is installed (``pip install --target``, once per machine, in the
temporary folder) and put first on the reference's ``PYTHONPATH``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

import pytest

from support.interpreters import native_python
from support.processes import ROOT, SRC, child_env

REQUIRED = bool(os.environ.get("EXCEPTSTAR_REQUIRE_LINT") or os.environ.get("CI"))


def version(python: str, distribution: str, env: dict[str, str] | None = None) -> str | None:
    code = f"import importlib.metadata as m; print(m.version({distribution!r}))"
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env or child_env(False))
    return proc.stdout.strip() if proc.returncode == 0 else None


def missing(what: str) -> None:
    """A package this test needs is not installed: a failure where the matrix installs it, else a skip."""
    if REQUIRED:
        pytest.fail(f"{what} is not installed in this environment")
    pytest.skip(f"{what} is not installed")


def reference(venv: str = "py313") -> str:
    """The native interpreter of the comparisons: the matrix's ``venv`` environment, or any 3.11+."""
    python = ROOT / ".venvs" / venv / "bin" / "python"
    found = str(python) if python.exists() else native_python()
    if found is None:
        pytest.skip("no CPython 3.11+ on this machine")
    return found


def reference_with(distribution: str) -> tuple[str, dict[str, str]]:
    """The reference interpreter and the environment in which it imports this interpreter's version."""
    here = version(sys.executable, distribution)
    if here is None:
        missing(distribution)
    native = reference()
    env = child_env(False)
    if version(native, distribution) == here:
        return native, env
    target = installed(native, [f"{distribution}=={here}"], deps=False)
    env = {**env, "PYTHONPATH": os.pathsep.join([str(target), str(SRC)])}
    assert version(native, distribution, env) == here
    return native, env


def pinned(distribution: str, pin: str, venv: str = "py313") -> tuple[str, dict[str, str]]:
    """The reference interpreter, and an environment in which both sides import ``distribution==pin``.

    ``pin`` (a pure-Python wheel) is imported instead of the venvs' own version.
    For the oldest version with group support on 3.11+: installed once per machine in the
    temporary folder by the reference interpreter (the ``venv`` one, when an old version does not
    run on 3.13), and put first on ``PYTHONPATH``.
    """
    if version(sys.executable, distribution) is None:
        missing(f"{distribution} (and so its dependencies)")
    if not (ROOT / ".venvs" / venv / "bin" / "python").exists():
        # Another interpreter would lack the dependencies that ``pin`` is installed without.
        pytest.skip(f"the matrix's .venvs/{venv} is not built here (tools/matrix.py builds it)")
    native = reference(venv)
    target = installed(native, [f"{distribution}=={pin}"], deps=False)
    env = {**child_env(False), "PYTHONPATH": os.pathsep.join([str(target), str(SRC)])}
    assert version(sys.executable, distribution, env) == pin == version(native, distribution, env)
    return native, env


def made_once(kind: str, key: object, make: Callable[[Path], str | None]) -> Path:
    """The folder ``make`` fills (it returns an error message or None), made once per machine per ``key``.

    Made under another name and renamed when complete, so that a test run stopped halfway, or
    another interpreter's run making the same folder at the same time, leaves no half of it.
    """
    target = Path(tempfile.gettempdir()) / f"exceptstar-{kind}-{hashlib.sha1(repr(key).encode()).hexdigest()[:12]}"
    if not target.exists():
        partial = target.with_name(f"{target.name}.{os.getpid()}")
        shutil.rmtree(partial, ignore_errors=True)
        error = make(partial)
        if error is not None:
            shutil.rmtree(partial, ignore_errors=True)
            pytest.fail(error)
        try:
            partial.rename(target)
        except OSError:  # made meanwhile by another run
            shutil.rmtree(partial, ignore_errors=True)
    return target


def installed(python: str, requirements: list[str], deps: bool) -> Path:
    """A folder of ``requirements`` for ``python`` (with their dependencies if ``deps``), made once per machine."""
    def make(folder: Path) -> str | None:
        proc = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                               *([] if deps else ["--no-deps"]), "--target", str(folder), *requirements],
                              capture_output=True, text=True)
        return None if proc.returncode == 0 else f"{requirements} for {python}: {proc.stderr[-2000:]}"

    return made_once("native", (python, requirements, deps), make)


# The program every rendering test shows: a nested group whose members have their own tracebacks
# and notes, and whose outer group has a __context__ (the programs name ExceptionGroup first).
SCENARIO = """\
def add_note(exc, note):
    if hasattr(exc, "add_note"):
        exc.add_note(note)
    else:  # 3.8-3.10, and PyPy 3.9 under run (whose BaseException takes no add_note)
        import exceptstar
        exceptstar.add_note(exc, note)


def fail(exc):
    raise exc


def collect(*excs):
    caught = []
    for exc in excs:
        try:
            fail(exc)
        except Exception as error:
            add_note(error, f"note on {type(error).__name__}")
            caught.append(error)
    return caught


def scenario():
    try:
        raise KeyError("context")
    except KeyError:
        inner = ExceptionGroup("inner", collect(OSError("disk"), TypeError("type")))
        raise ExceptionGroup("outer", [ValueError("value"), inner])
"""


def panels(program: str, command: list[str], env: dict[str, str]) -> str:
    """What ``program`` (run as ``prog.py`` by ``command``) prints in rich's panels, comparable across interpreters.

    Run in a fresh folder whose path is as long on both sides (rich wraps its panels' lines around
    it), the folder taken out (3.8 names the script as given), the lines of carets left out (a
    plain traceback's under 3.11+, the interpreter's own), runs of spaces (the panels' padding) folded.
    """
    folder = Path(tempfile.mkdtemp(prefix="exceptstar-render-"))
    try:
        (folder / "prog.py").write_text(program)
        proc = subprocess.run(command, cwd=folder, capture_output=True, text=True, env=env)
    finally:
        shutil.rmtree(folder)
    assert proc.returncode == 0, proc.stderr
    text = re.sub(r"(?m)^[ |]*[~^]+\n", "", proc.stdout.replace(f"{folder}/", ""))
    return re.sub(r" {2,}", " ", text)
