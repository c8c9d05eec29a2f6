"""mypy --strict and ruff over the package: run where the matrix installs them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tool(name: str) -> str:
    path = shutil.which(name, path=os.path.dirname(sys.executable))
    if path is None:
        if os.environ.get("EXCEPTSTAR_REQUIRE_LINT"):
            pytest.fail(f"{name} is not installed in this environment")
        pytest.skip(f"{name} is installed only in the linting interpreter's environment")
    return path


def test_mypy_strict() -> None:
    if sys.version_info < (3, 10):
        # The 3.8 environment has mypy for tests/test_typing.py's 3.8 target; its
        # older typeshed is not the one the package is kept clean against.
        pytest.skip("the package is checked by the mypy of a newer interpreter")
    proc = subprocess.run([tool("mypy"), "--strict"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff() -> None:
    proc = subprocess.run([tool("ruff"), "check", "src", "tests", "tools", "bench"], cwd=ROOT,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
