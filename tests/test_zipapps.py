"""Apps in one file whose modules use ``except*``: zipapp, shiv and pex, run as native 3.13 runs the same app.

The app (exceptstar bundled inside, nothing from the environment) handles
part of a group with ``except*`` in two of its modules and leaves the rest
unhandled: its output, the printed traceback (source lines read from inside
the zip file or from where shiv and pex extract it) and exit status must be
those of the same app built by the same tool on native 3.13 (3.8-3.10 draw
no carets: those lines are left out, and so are the folders that differ).
``coldstart`` names the zipapp's modules, which zipimport never caches (and
none once ``compileall -b`` wrote ``mod.pyc`` beside them before zipping,
which a start then runs without transforming), and none after a first start
of the shiv and pex apps, which run from where they are extracted.  On
3.11+ the native app alone is checked.  shiv and pex are installed in the
3.10 and 3.13 environments only.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.heavy import require
from support.processes import ROOT, SRC

require("pex", "shiv", what="shiv and pex are")

APP = {
    "app/__init__.py": "",
    # The entry point holds no except*: it installs the hook, then imports the modules that use it.
    "app/start.py": "def main():\n    import exceptstar\n\n    exceptstar.install()\n    from app import cli\n\n"
                    "    cli.main()\n",
    "app/jobs.py": (
        "def run_jobs():\n    try:\n"
        "        raise ExceptionGroup('jobs failed', [ValueError('bad input'), OSError('disk'), KeyError('k')])\n"
        "    except* ValueError as eg:\n        print('jobs handled', repr(eg))\n"
    ),
    "app/cli.py": (
        "from app import jobs\n\n\ndef main():\n    try:\n        jobs.run_jobs()\n"
        "    except* OSError as eg:\n        eg.exceptions[0].add_note('seen by the cli')\n"
        "        print('cli handled', repr(eg))\n        raise\n"
    ),
}
NATIVE_ENV = ROOT / ".venvs" / "py313" / "bin"


def build(tool: str, bin_dir: Path, root: Path) -> list[str]:
    """Build the app with ``tool`` of the environment in ``bin_dir``; the command that runs it."""
    sources = root / "sources"
    for name, text in APP.items():
        (sources / name).parent.mkdir(parents=True, exist_ok=True)
        (sources / name).write_text(text)
    shutil.copytree(SRC / "exceptstar", sources / "exceptstar", ignore=shutil.ignore_patterns("__pycache__"))
    python = str(bin_dir / "python")
    target = root / ("app.pex" if tool == "pex" else "app.pyz")
    commands = {
        "zipapp": [python, "-m", "zipapp", str(sources), "-m", "app.start:main", "-o", str(target)],
        "shiv": [str(bin_dir / "shiv"), "--site-packages", str(sources), "-e", "app.start:main", "-o", str(target),
                 "--root", str(root / "shiv-root")],
        "pex": [str(bin_dir / "pex"), "-D", str(sources), "-e", "app.start:main", "-o", str(target)],
    }
    proc = subprocess.run(commands[tool], cwd=root, capture_output=True, text=True, env=env(root), timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return [python, str(target)]


def env(root: Path) -> dict[str, str]:
    environ = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "EXCEPTSTAR_"))}
    environ["PEX_ROOT"] = str(root / "pex-root")
    return environ


def run(command: list[str], root: Path) -> tuple[int, str]:
    proc = subprocess.run(command, cwd=root, capture_output=True, text=True, env=env(root), timeout=120)
    lines: list[str] = []
    source, shown = "", False  # the indentation of a frame's source lines; whether the first is to be kept
    for line in (proc.stdout + proc.stderr).replace(str(root), "ROOT").splitlines():
        frame = re.match(r'([ |]*)File "', line)
        if frame:
            source = frame.group(1) + "  "
            # runpy's frames are the standard library's (frozen on 3.11+, without their source line).
            shown = "runpy" not in line
            if shown:
                lines.append(line)
        elif source and line.startswith(source):
            # The source line, once: 3.13 shows the rest of a statement over several lines, 3.11 does not.
            if shown and not re.fullmatch(r"[ |]*[~^]+", line):
                lines.append(line)
            shown = False
        else:
            source = ""
            if not re.fullmatch(r"[ |]*[~^]+", line):
                lines.append(line)
    # Where each tool keeps the app (the zip itself, shiv's and pex's extraction folders).
    return proc.returncode, re.sub(r'File "[^"]*?/(app/\w+\.py|__main__\.py)"', r'File "\1"', "\n".join(lines))


def native_bin() -> Path:
    if sys.version_info >= (3, 11):
        return Path(sys.executable).parent
    if not NATIVE_ENV.exists():
        pytest.skip("no 3.13 environment with shiv and pex to compare with")
    return NATIVE_ENV


EXPECTED = """\
jobs handled ExceptionGroup('jobs failed', [ValueError('bad input')])
cli handled ExceptionGroup('jobs failed', [OSError('disk')])
  + Exception Group Traceback (most recent call last):"""


@pytest.mark.parametrize("tool", ["zipapp", "shiv", "pex"])
def test_app_runs_as_on_native(tmp_path: Path, tool: str) -> None:
    theirs = run(build(tool, native_bin(), tmp_path / "native"), tmp_path / "native")
    assert theirs[0] == 1 and theirs[1].startswith(EXPECTED), theirs[1]
    assert "    | seen by the cli" in theirs[1] and 'File "app/jobs.py", line 3, in run_jobs' in theirs[1]
    if sys.version_info < (3, 11):
        ours = run(build(tool, Path(sys.executable).parent, tmp_path / "ours"), tmp_path / "ours")
        assert ours == theirs
        if tool != "zipapp":
            # shiv and pex run the app from where they extract it: the first start left the hook's cache there.
            extracted = tmp_path / "ours" / ("shiv-root" if tool == "shiv" else "pex-root")
            proc = subprocess.run([sys.executable, "-m", "exceptstar", "coldstart", str(extracted)],
                                  capture_output=True, text=True, env=dict(env(tmp_path), PYTHONPATH=str(SRC)),
                                  timeout=60)
            assert (proc.returncode, proc.stdout) == (
                0, "exceptstar coldstart: every module that uses except* has valid transformed bytecode\n")
            assert list(extracted.rglob("jobs.*.exceptstar-*.pyc"))


# Runs a zipapp as `python app.pyz` does, then says whether this start transformed anything.
TRANSFORMED = """\
import runpy, sys
try:
    runpy.run_path(sys.argv[1], run_name="__main__")
finally:
    print("transformed:", "exceptstar._compiler.rewrite" in sys.modules)
"""


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="3.11+: except* is native")
def test_coldstart_names_the_zipapps_modules_and_compileall_b_fixes_them(tmp_path: Path) -> None:
    def check(app: str) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
        cold = subprocess.run([sys.executable, "-m", "exceptstar", "coldstart", app], capture_output=True,
                              text=True, env=dict(env(tmp_path), PYTHONPATH=str(SRC)), timeout=60)
        started = subprocess.run([sys.executable, "-c", TRANSFORMED, app], capture_output=True, text=True,
                                 env=env(tmp_path), timeout=60)
        return cold, started

    app = build("zipapp", Path(sys.executable).parent, tmp_path)[1]
    cold, started = check(app)
    assert cold.returncode == 1 and started.stdout.endswith("transformed: True\n")
    assert cold.stdout.splitlines()[:2] == [f"{app}/app/{name}.py: in a zip file, where source modules are "
                                            "never cached" for name in ("cli", "jobs")]
    assert cold.stdout.splitlines()[-1].endswith(" -m exceptstar compileall -q -b FOLDER")
    # The fix it names: the legacy mod.pyc beside each module, written before zipping.
    sources = tmp_path / "sources"
    for command in ([sys.executable, "-m", "exceptstar", "compileall", "-q", "-b", str(sources / "app")],
                    [sys.executable, "-m", "zipapp", str(sources), "-m", "app.start:main", "-o", "fixed.pyz"]):
        assert subprocess.run(command, cwd=tmp_path, env=dict(env(tmp_path), PYTHONPATH=str(SRC))).returncode == 0
    fixed = str(tmp_path / "fixed.pyz")
    cold, fixed_start = check(fixed)
    assert (cold.returncode, cold.stdout) == (
        0, "exceptstar coldstart: every module that uses except* has valid transformed bytecode\n")
    assert fixed_start.stdout.replace("transformed: False", "transformed: True") == started.stdout
    # zipimport keeps a pyc's own file name (the file system's loader fixes it): where it was compiled.
    assert fixed_start.stderr.replace(fixed, app).replace(str(sources), app) == started.stderr
