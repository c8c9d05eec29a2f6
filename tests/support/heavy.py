"""The heavy third parties (PyInstaller, Nuitka, shiv, pex, Dask), installed in some environments only.

A test module that needs one calls ``require`` at import: where the matrix
installs the package (the ``heavy`` extra) and says so (CI, or
``EXCEPTSTAR_REQUIRE_LINT``), a missing package is an error; elsewhere the
module is skipped.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Tuple

import pytest

HEAVY: Tuple[Tuple[int, int], ...] = ((3, 10), (3, 13))


def require(*modules: str, versions: Tuple[Tuple[int, int], ...] = HEAVY, what: str) -> None:
    """Import ``modules``; skip the calling test module where they are not installed and need not be."""
    required = sys.version_info[:2] in versions and bool(os.environ.get("EXCEPTSTAR_REQUIRE_LINT")
                                                         or os.environ.get("CI"))
    try:
        for module in modules:
            importlib.import_module(module)
    except ImportError:
        if required:
            raise
        where = " and ".join(f"{major}.{minor}" for major, minor in versions)
        pytest.skip(f"{what} installed in the {where} environment{'s' if len(versions) > 1 else ''}",
                    allow_module_level=True)
