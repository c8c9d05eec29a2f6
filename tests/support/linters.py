"""The linters and type checkers of this interpreter's environment, for the tests that run them.

They are installed (the ``lint`` extra) only in the matrix's linting
environments: elsewhere their tests skip, unless ``EXCEPTSTAR_REQUIRE_LINT``
says that this environment must have them, and then a missing tool fails.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest


def tool(name: str) -> str:
    """The path of the command ``name`` installed beside this interpreter."""
    path = shutil.which(name, path=os.path.dirname(sys.executable))
    if path is None:
        if os.environ.get("EXCEPTSTAR_REQUIRE_LINT"):
            pytest.fail(f"{name} is not installed in this environment")
        pytest.skip(f"{name} is installed only in the linting interpreters' environments")
    return path
