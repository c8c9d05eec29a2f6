"""The README's examples do what it says they do.

Every ```python block whose first line names a file (``# script.py``) is
written out as that file; every ``$ python -m exceptstar ...`` line of a
```console block that shows output is then run on those files and must print
exactly that output (``$ echo $?`` lines check the exit status); test files
shown for pytest must pass under pytest.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import ROOT, SRC

PURE = sys.version_info >= (3, 11)
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, re.S)
FILES = {match.group(1): code for kind, code in BLOCKS if kind == "python"
         for match in [re.match(r"# ([\w/]+\.py)\b", code)] if match and "/" not in match.group(1)}


def _env() -> dict[str, str]:
    env = dict(os.environ, PYTHONPATH=str(SRC))
    env.pop("EXCEPTSTAR_PURE", None)
    if PURE:
        env["EXCEPTSTAR_PURE"] = "1"
    return env


def _sessions() -> list[tuple[str, list[str]]]:
    """(command, output lines) for each documented command that shows its output."""
    sessions: list[tuple[str, list[str]]] = []
    for kind, code in BLOCKS:
        if kind != "console":
            continue
        for chunk in re.split(r"(?m)^(?=\$ )", code):
            command, *output = chunk.rstrip("\n").split("\n")
            if command.startswith("$ ") and output:
                sessions.append((command[2:], output))
    return sessions


def test_examples_named_as_files_exist() -> None:
    assert {"script.py", "test_things.py", "jobs.py"} <= set(FILES)


@pytest.mark.needs_processes
def test_documented_commands_print_what_is_shown(tmp_path: Path) -> None:
    for name, code in FILES.items():
        (tmp_path / name).write_text(code)
    checked = 0
    status = None
    for command, output in _sessions():
        if command == "echo $?":
            assert [str(status)] == output
            continue
        if not command.startswith("python -m exceptstar ") or "demo" in command:
            continue  # the demo's output varies with its ports and the interpreter
        args = command.split()[1:]
        proc = subprocess.run([sys.executable, *args], cwd=tmp_path, capture_output=True, text=True,
                              env=_env(), timeout=60)
        assert (proc.stdout + proc.stderr).splitlines() == output, command
        status = proc.returncode
        checked += 1
    assert checked >= 2


@pytest.mark.needs_processes
def test_pytest_examples_pass(tmp_path: Path) -> None:
    names = [name for name in FILES if name.startswith("test_")]
    for name in names:
        (tmp_path / name).write_text(FILES[name])
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "exceptstar", "-p", "no:cacheprovider",
                           *names], cwd=tmp_path, capture_output=True, text=True, env=_env(), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
