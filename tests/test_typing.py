"""The public API's types, as users' type checkers see them (each file of tests/typing_cases).

mypy --strict (with --warn-unreachable) and pyright (basedpyright, which runs
offline; from a 3.11+ environment, since it runs no Python) check the realistic uses at 3.8, 3.10
and 3.13 targets.  The file pins
types with ``assert_type`` and marks expected errors with ignore comments
that the checkers report when unused, so a type that regresses either way
fails here.  exceptstar is found as users find it: installed in this
environment, with its own errors silenced.

mypy 1.17 dropped 3.8 targets: the newest mypy checks 3.10 and 3.13, and the
3.8 target is checked where the matrix installs mypy under 3.8 (1.14, the last
release that runs there).  A target this mypy refuses is skipped, and so is a
target newer than this interpreter (an old mypy's typeshed lags behind it).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.linters import tool

# One file per area of the API (uses.py: the core); every file is checked at every target.
CASES = sorted((Path(__file__).resolve().parent / "typing_cases").glob("*.py"))
TARGETS = ["3.8", "3.10", "3.13"]


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.stem)
@pytest.mark.parametrize("target", TARGETS)
def test_mypy_strict(target: str, case: Path, tmp_path: Path) -> None:
    if tuple(map(int, target.split("."))) > sys.version_info[:2]:
        pytest.skip(f"{target} targets are checked by the mypy of a newer interpreter")
    # Run from an empty folder: the project's own [tool.mypy] must not apply.
    proc = subprocess.run(
        [tool("mypy"), "--strict", "--warn-unreachable", "--python-version", target,
         "--python-executable", sys.executable, "--cache-dir", str(tmp_path / "cache"), str(case)],
        cwd=tmp_path, capture_output=True, text=True,
    )
    if f"Python {target} is not supported" in proc.stderr:
        pytest.skip(f"this mypy does not check {target} targets: {proc.stderr.strip().splitlines()[-1]}")
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.parametrize("case", CASES, ids=lambda path: path.stem)
@pytest.mark.parametrize("target", TARGETS)
def test_pyright_strict(target: str, case: Path, tmp_path: Path) -> None:
    if sys.version_info < (3, 11):
        # pyright runs no Python: what it reports depends on its release and the target, not on the
        # interpreter whose environment it reads; the newest interpreter's checks every target.
        pytest.skip("pyright checks every target from the newest interpreter's environment")
    # Only pyright's own ignore comments count, so that each expected error is
    # checked by both tools; an unnecessary one is an error.
    config = {
        "pythonVersion": target,
        "typeCheckingMode": "strict",
        "enableTypeIgnoreComments": False,
        "reportUnnecessaryTypeIgnoreComment": "error",
    }
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config))
    shutil.copy(case, tmp_path / case.name)
    proc = subprocess.run(
        [tool("basedpyright"), "--pythonpath", sys.executable, case.name],
        cwd=tmp_path, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 errors" in proc.stdout, proc.stdout
