"""``python -m exceptstar pyinstaller``: an app whose modules use ``except*`` freezes and runs, without its sources.

The frozen app prints what the same program prints on native 3.11 and
exits as it does; the bundle holds no source of the app's modules.  Plain
PyInstaller on 3.8-3.10 leaves such a module out (the reason for the
command).  PyInstaller is heavy: the matrix installs it in the 3.10 and 3.13
environments only.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import child_env
from test_tools_runners import reference

REQUIRED = sys.version_info[:2] in ((3, 10), (3, 13)) and bool(os.environ.get("EXCEPTSTAR_REQUIRE_LINT")
                                                              or os.environ.get("CI"))
try:
    import PyInstaller  # noqa: F401
except ImportError:
    if REQUIRED:
        raise
    pytest.skip("PyInstaller is installed in the 3.10 and 3.13 environments", allow_module_level=True)

APP = {
    "lib/__init__.py": "import exceptstar\n\nexceptstar.install(__name__)\n",
    "lib/jobs.py": (
        "def run_jobs():\n    handled = []\n    try:\n"
        "        raise ExceptionGroup('jobs failed', [ValueError('bad input'), OSError('disk')])\n"
        "    except* ValueError as eg:\n        handled.append(repr(eg.exceptions))\n"
        "    except* OSError as eg:\n        handled.append(repr(eg.exceptions))\n    return handled\n"
    ),
    "main.py": "import lib.jobs\n\nprint(lib.jobs.run_jobs())\nraise ExceptionGroup('left', [KeyError('unhandled')])\n",
}


def build(root: Path, *command: str) -> subprocess.CompletedProcess[str]:
    for name, text in APP.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return subprocess.run([*command, "--noconfirm", "--log-level", "WARN", "--onedir", "--distpath", "dist",
                           "--workpath", "build", "main.py"], cwd=root, capture_output=True, text=True,
                          env=child_env(False), timeout=600)


def test_frozen_app_runs_as_the_program_does_natively(tmp_path: Path) -> None:
    proc = build(tmp_path, sys.executable, "-m", "exceptstar", "pyinstaller")
    assert proc.returncode == 0, proc.stderr
    frozen = subprocess.run([str(tmp_path / "dist" / "main" / "main")], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    native = subprocess.run([reference(), "main.py"], cwd=tmp_path, capture_output=True, text=True,
                            env=child_env(False), timeout=60)
    assert frozen.stdout == native.stdout == "[\"(ValueError('bad input'),)\", \"(OSError('disk'),)\"]\n"
    assert frozen.returncode == native.returncode == 1
    # The frozen traceback is native's (PyInstaller names the script relatively), then its own closing line.
    assert frozen.stderr.splitlines()[:-1] == native.stderr.replace(f"{tmp_path}/", "").splitlines()
    shipped = {path.name for path in (tmp_path / "dist").rglob("*.py")}
    assert not shipped & {"jobs.py", "main.py"}


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="except* is native: plain PyInstaller bundles it")
def test_plain_pyinstaller_leaves_the_module_out(tmp_path: Path) -> None:
    proc = build(tmp_path, sys.executable, "-m", "PyInstaller")
    assert proc.returncode == 0, proc.stderr
    frozen = subprocess.run([str(tmp_path / "dist" / "main" / "main")], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    assert "ModuleNotFoundError: No module named 'lib.jobs'" in frozen.stderr
