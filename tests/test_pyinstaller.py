"""``python -m exceptstar pyinstaller``: an app whose modules use ``except*`` freezes and runs, without its sources.

The frozen app prints what the same program prints on native 3.11 and
exits as it does; the bundle holds no source of the app's modules.  Plain
PyInstaller's analysis on 3.8-3.10 finds such a module invalid (the reason
for the command).  Plain ``pyinstaller`` builds a working app where
exceptstar is installed, whether the app imports exceptstar or is one run by
``python -m exceptstar run`` (exceptstar's hooks run in its process), and
stops with a non-zero status when a script itself uses ``except*``: never a
silent loss.  A build takes tens of seconds: three builds on 3.8-3.10 (two on
3.11+), and one that stops early.
PyInstaller is heavy: the matrix installs it in the 3.10 and 3.13
environments only.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.heavy import require
from support.processes import child_env
from test_tools_runners import reference

require("PyInstaller", what="PyInstaller is")

APP = {
    "lib/__init__.py": "",
    "lib/jobs.py": (
        "def run_jobs():\n    handled = []\n    try:\n"
        "        raise ExceptionGroup('jobs failed', [ValueError('bad input'), OSError('disk')])\n"
        "    except* ValueError as eg:\n        handled.append(repr(eg.exceptions))\n"
        "    except* OSError as eg:\n        handled.append(repr(eg.exceptions))\n    return handled\n"
    ),
    # Neither imports exceptstar: the frozen app needs nothing of the program.
    "main.py": (
        "import lib.jobs\n\nprint(lib.jobs.run_jobs())\ntry:\n"
        "    raise ExceptionGroup('left', [KeyError('unhandled'), TypeError('handled')])\n"
        "except* TypeError as eg:\n    print(repr(eg))\n"
    ),
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
    assert frozen.stdout == native.stdout == (
        "[\"(ValueError('bad input'),)\", \"(OSError('disk'),)\"]\nExceptionGroup('left', [TypeError('handled')])\n")
    assert frozen.returncode == native.returncode == 1
    # The frozen traceback is native's (PyInstaller names the script relatively), then its own closing line.
    assert frozen.stderr.splitlines()[:-1] == native.stderr.replace(f"{tmp_path}/", "").splitlines()
    shipped = {path.name for path in (tmp_path / "dist").rglob("*.py")}
    assert not shipped & {"jobs.py", "main.py"}


ANALYSIS = """\
import sys
from PyInstaller.lib.modulegraph.modulegraph import ModuleGraph
graph = ModuleGraph(path=[".", *sys.path])
graph.import_hook("lib.jobs")
print(type(graph.find_node("lib.jobs")).__name__)
"""


def test_plain_pyinstaller_leaves_the_module_out(tmp_path: Path) -> None:
    # The reason for the command, without a second build: PyInstaller's analysis finds the module
    # invalid on 3.8-3.10 (a build then leaves it out, and the app fails with ModuleNotFoundError).
    for name in ("lib/__init__.py", "lib/jobs.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(APP[name])
    proc = subprocess.run([sys.executable, "-c", ANALYSIS], cwd=tmp_path, capture_output=True, text=True,
                          env=child_env(False), timeout=60)
    assert proc.stdout == ("InvalidSourceModule\n" if sys.version_info < (3, 11) else "SourceModule\n"), proc.stderr


def test_pyinstaller_errors_reach_the_user_as_pyinstallers_own(tmp_path: Path) -> None:
    (tmp_path / "main.spec").write_text("")
    runs = [subprocess.run([*command, "--onefile", "main.spec"], cwd=tmp_path, capture_output=True, text=True,
                           env=child_env(False), timeout=60)
            for command in ([sys.executable, "-m", "exceptstar", "pyinstaller"], [sys.executable, "-m", "PyInstaller"])]
    ours, theirs = ((proc.returncode, [line for line in proc.stderr.splitlines() if " INFO: " not in line])
                    for proc in runs)
    assert ours == theirs
    assert theirs[0] == 1 and "makespec options not valid when a .spec file is given" in theirs[1]


# The app imports exceptstar (as one must to run except* under plain python on 3.8-3.10); lib.helper is
# imported by lib.jobs alone, so only an analysis of the transformed lib.jobs finds it.
IMPORTING_APP = {
    # A package whose __init__ uses except* too: PyInstaller keeps such a package's node, without code.
    "lib/__init__.py": "try:\n    READY = True\nexcept* ValueError:\n    READY = False\n",
    "lib/helper.py": "def shown(group):\n    return [repr(e) for e in group.exceptions]\n",
    "lib/jobs.py": (
        "from lib.helper import shown\n\n\ndef run_jobs():\n    handled = []\n    try:\n"
        "        raise ExceptionGroup('jobs failed', [ValueError('bad input'), OSError('disk')])\n"
        "    except* ValueError as eg:\n        handled.append(shown(eg))\n"
        "    except* OSError as eg:\n        handled.append(shown(eg))\n    return handled\n"
    ),
    "main.py": "import exceptstar\n\nexceptstar.install()\nimport lib.jobs\n\nprint(lib.READY, lib.jobs.run_jobs())\n",
}


# The same app run by `python -m exceptstar run main.py`: it never imports exceptstar itself.
RUN_APP = {**IMPORTING_APP, "main.py": "import lib.jobs\n\nprint(lib.READY, lib.jobs.run_jobs())\n"}


@pytest.mark.parametrize("app", [
    IMPORTING_APP,
    pytest.param(RUN_APP, marks=pytest.mark.skipif(sys.version_info >= (3, 11), reason="the same app natively")),
], ids=["imports exceptstar", "never imports exceptstar"])
def test_plain_pyinstaller_builds_a_working_app(tmp_path: Path, app: dict[str, str]) -> None:
    for name, text in app.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    proc = subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN", "--onedir",
                           "--distpath", "dist", "--workpath", "build", "main.py"], cwd=tmp_path, capture_output=True,
                          text=True, env=child_env(False), timeout=600)
    assert proc.returncode == 0, proc.stderr
    frozen = subprocess.run([str(tmp_path / "dist" / "main" / "main")], cwd=tmp_path, capture_output=True,
                            text=True, timeout=60)
    native = subprocess.run([reference(), "main.py"], cwd=tmp_path, capture_output=True, text=True,
                            env=child_env(False), timeout=60)
    assert (frozen.returncode, frozen.stdout, frozen.stderr) == (native.returncode, native.stdout, native.stderr) == (
        0, "True [[\"ValueError('bad input')\"], [\"OSError('disk')\"]]\n", "")


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="3.11+ compiles except* natively")
def test_plain_pyinstaller_stops_on_a_script_that_uses_except_star(tmp_path: Path) -> None:
    # The script is compiled before any hook runs: the build fails (no app), as a SyntaxError.
    (tmp_path / "main.py").write_text("import exceptstar\ntry:\n    pass\nexcept* ValueError:\n    pass\n")
    proc = subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN", "--onedir",
                           "--distpath", "dist", "--workpath", "build", "main.py"], cwd=tmp_path, capture_output=True,
                          text=True, env=child_env(False), timeout=600)
    assert proc.returncode == 1 and "SyntaxError" in proc.stderr
    assert not (tmp_path / "dist" / "main").exists()
