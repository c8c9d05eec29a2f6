"""The README's examples and claims hold.

Every ```python block whose first line names a file (``# script.py``, ``# pkg/mod.py``)
is written out as that file; every ``$ python -m exceptstar ...`` line of a ```console
block that shows output is then run on those files and must print exactly that output.
The two dependency lines mean what the README says on this interpreter, and its library
pattern runs with exceptstar where it is needed and without it where it is not.  The
commands also run on every PyPy found, once per matrix (``support.interpreters.pypys_to_ask``).
The documentation pages are checked the same way by tests/test_docs.py.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from support.interpreters import pypys_to_ask
from support.processes import ROOT, SRC, child_env

PURE = sys.version_info >= (3, 11)
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(\w+)\n(.*?)```", README, re.S)
FILES = {match.group(1): code for kind, code in BLOCKS if kind == "python"
         for match in [re.match(r"# ([\w/]+\.py)\b", code)] if match}


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


def test_readme_fits_on_a_screen() -> None:
    assert len(README.splitlines()) <= 160
    assert "python3 tools/matrix.py\n" in README and ".venv/bin/python -m exceptstar demo" in README


def test_examples_named_as_files_exist() -> None:
    assert {"script.py", "mylib/__init__.py"} <= set(FILES)


@pytest.mark.needs_processes
def test_documented_commands_print_what_is_shown(tmp_path: Path) -> None:
    (tmp_path / "script.py").write_text(FILES["script.py"])
    checked = 0
    for command, output in _sessions():
        assert command.startswith("python -m exceptstar "), command
        proc = subprocess.run([sys.executable, *command.split()[1:]], cwd=tmp_path, capture_output=True, text=True,
                              env=child_env(PURE), timeout=60)
        assert (proc.stdout + proc.stderr).splitlines() == output, command
        checked += 1
    assert checked >= 1


def pypys() -> dict[tuple[int, int], str]:
    found = pypys_to_ask()
    if not found:
        pytest.skip("the PyPys are asked from the newest CPython on their side of the sid root")
    return found


@pytest.mark.needs_processes
@pytest.mark.parametrize("pure", [False, True])
def test_documented_commands_print_what_is_shown_on_pypy(tmp_path: Path, pure: bool) -> None:
    # PyPy 3.9 transforms either way; PyPy 3.11 runs its own except*, or exceptstar's when pure.
    (tmp_path / "script.py").write_text(FILES["script.py"])
    for version, exe in pypys().items():
        for command, output in _sessions():
            proc = subprocess.run([exe, *command.split()[1:]], cwd=tmp_path, capture_output=True, text=True,
                                  env=child_env(pure), timeout=120)
            assert (proc.stdout + proc.stderr).splitlines() == output, (version, command)


def test_the_pypy_rows_say_what_each_pypy_uses() -> None:
    rows = {row.split(" | ")[0].lstrip("| "): row for row in README.splitlines() if row.startswith("| PyPy ")}
    code = ("import asyncio, builtins, exceptstar, exceptstar.asyncio\n"
            "ours, theirs = exceptstar.asyncio.TaskGroup, getattr(asyncio, 'TaskGroup', ())\n"
            "print(exceptstar.PURE, exceptstar.ExceptionGroup is builtins.ExceptionGroup,"
            " ours is not theirs and issubclass(ours, theirs))\n")
    for (major, minor), exe in pypys().items():
        row = rows[f"PyPy {major}.{minor}"]
        proc = subprocess.run([exe, "-c", code], capture_output=True, text=True, env=child_env(False), timeout=120)
        pure, in_builtins, subclass = proc.stdout.split()
        assert in_builtins == "True", proc.stderr
        # The pure classes and the transformation, or PyPy's own with 3.15's TaskGroup above asyncio's.
        assert (pure, subclass) == (("True", "False") if "pure classes" in row else ("False", "True"))
        assert ("transformed" in row) == (pure == "True") and ("PyPy's own" in row) == (pure == "False")


def test_dependency_lines_install_where_the_readme_says() -> None:
    lines = [re.fullmatch(r'dependencies = \["(.*)"\]\n', code) for kind, code in BLOCKS if kind == "toml"]
    plain, marked = (Requirement(match.group(1)) for match in lines if match)
    assert plain.name == marked.name == "exceptstar"
    assert plain.marker is None
    assert marked.marker is not None and marked.marker.evaluate() == (sys.version_info < (3, 11))


@pytest.mark.needs_processes
@pytest.mark.skipif(sys.version_info < (3, 11), reason="the README's claim is about 3.11+")
def test_without_a_marker_exceptstar_gets_out_of_the_way_on_311() -> None:
    # TaskGroup: asyncio's own on 3.15+, else a subclass of it with 3.15's cancel().
    code = ("import asyncio, builtins, sys, exceptstar, exceptstar.asyncio\n"
            "ours = exceptstar.asyncio.TaskGroup\n"
            "print(exceptstar.ExceptionGroup is builtins.ExceptionGroup,"
            " ours is asyncio.TaskGroup if sys.version_info >= (3, 15) else"
            " ours is not asyncio.TaskGroup and issubclass(ours, asyncio.TaskGroup) and callable(ours.cancel))\n")
    env = dict(os.environ, PYTHONPATH=str(SRC))
    env.pop("EXCEPTSTAR_PURE", None)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert proc.stdout.split() == ["True", "True"], proc.stderr


@pytest.mark.needs_processes
def test_the_library_pattern_runs_with_and_without_exceptstar(tmp_path: Path) -> None:
    (tmp_path / "mylib").mkdir()
    (tmp_path / "mylib" / "__init__.py").write_text(FILES["mylib/__init__.py"])
    (tmp_path / "mylib" / "core.py").write_text(
        "def retry(job):\n    failed = 0\n    try:\n        job()\n    except* OSError as group:\n"
        "        failed = len(group.exceptions)\n    return failed\n")
    program = ("from mylib import retry\n"
               "def job():\n    raise ExceptionGroup('x', [OSError(1), OSError(2)])\n"
               "print(retry(job), 'exceptstar' in __import__('sys').modules)\n")
    env = dict(os.environ, PYTHONPATH=str(SRC))
    env.pop("EXCEPTSTAR_PURE", None)
    # -E -s -S: no PYTHONPATH, no site-packages, as where the marker left exceptstar out (3.11+).
    isolated = ["-E", "-s", "-S"] if sys.version_info >= (3, 11) else []
    proc = subprocess.run([sys.executable, *isolated, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=60)
    assert proc.stdout.split() == ["2", str(sys.version_info < (3, 11))], proc.stderr
