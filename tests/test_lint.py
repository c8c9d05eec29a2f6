"""mypy --strict and ruff over the package: run where the matrix installs them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.linters import tool

ROOT = Path(__file__).resolve().parent.parent




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
