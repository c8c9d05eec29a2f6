"""Programs run with the third parties that raise groups (the backport, pytest, anyio, Trio).

``ours`` runs a program here, through ``python -m exceptstar run`` before 3.11
(so that it may use ``except*`` and 3.11's names), plainly from 3.11 on;
``native`` runs it in the reference environment, a 3.11+ virtual environment
of this checkout that has the same third parties installed (the bare
interpreter has none of them).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from support.processes import ROOT, SRC


def reference_python(*modules: str) -> str | None:
    """The newest 3.11+ environment under ``.venvs`` in which ``modules`` import, if any."""
    for name in ("py313", "py312", "py311"):
        exe = ROOT / ".venvs" / name / "bin" / "python"
        if exe.exists() and subprocess.run([str(exe), "-c", "import " + ", ".join(("sys", *modules))],
                                           capture_output=True).returncode == 0:
            return str(exe)
    return None


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EXCEPTSTAR_")}
    env["PYTHONPATH"] = str(SRC)
    env.update(extra)
    return env


def ours(program: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    runner = ["-m", "exceptstar", "run"] if sys.version_info < (3, 11) else []
    return subprocess.run([sys.executable, *runner, str(program), *args], capture_output=True, text=True,
                          cwd=str(program.parent), env=environment(**env), timeout=300)


def native(exe: str, program: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([exe, str(program), *args], capture_output=True, text=True, cwd=str(program.parent),
                          env=environment(), timeout=300)


def plain(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``code`` run with ``python -c`` here, nothing installed first."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment(**env),
                          timeout=300)
