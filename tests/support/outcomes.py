"""Where the outcomes of scenarios (``support.scenarios``) come from: natively, here, or through exceptstar.

The native outcome is the expected one: on 3.12+ (with the built-in groups)
the sources run in this process; otherwise, or when this process uses the
pure classes, the newest CPython runs them: 3.14 as Pyodide where it is
installed (``support.pyodide``) and exceptstar follows 3.14 (3.8-3.10, the
pure classes), else the newest native interpreter.  (3.11 is not a
reference: its ``except*`` keeps the unsplit group for the next clause when a
clause matches nothing, where 3.12+ takes ``split``'s rest.)
"""

from __future__ import annotations

import sys
from typing import Any, List

from exceptstar import PURE
from support import pyodide
from support.interpreters import native_python
from support.processes import call
from support.scenarios import run_sources


def run_here(sources: List[str]) -> List[Any]:
    return run_sources(sources)


def run_native(sources: List[str]) -> List[Any]:
    if sys.version_info >= (3, 12) and not PURE:
        return run_here(sources)
    if (PURE or sys.version_info < (3, 11)) and pyodide.available():
        # The newest CPython: where 3.14 differs from 3.13.0 (a wrapped naked exception's
        # traceback), exceptstar follows 3.14 on 3.8-3.10 and with the pure classes (on
        # 3.11 with the built-ins, the interpreter's own except*, which 3.13.0 shares).
        return pyodide.call("scenarios.run_sources", sources)  # type: ignore[no-any-return]
    exe = native_python()
    assert exe is not None, "no CPython 3.11+ on this machine"
    return call(exe, "scenarios.run_sources", sources)  # type: ignore[no-any-return]


def run_native_child(sources: List[str]) -> List[Any]:
    """The sources in the newest native CPython 3.11+ on this machine (never Pyodide)."""
    if sys.version_info >= (3, 11) and not PURE:
        return run_here(sources)
    exe = native_python()
    if exe is None:
        import pytest

        pytest.skip("no native CPython 3.11+ on this machine")
    return call(exe, "scenarios.run_sources", sources)  # type: ignore[no-any-return]


def run_pure(sources: List[str]) -> List[Any]:
    """On 3.11+: the sources under EXCEPTSTAR_PURE=1, in a child of this interpreter."""
    return call(sys.executable, "scenarios.run_sources", sources, pure=True)  # type: ignore[no-any-return]


def run_transformed(sources: List[str]) -> List[Any]:
    """The sources where ``exceptstar.compile`` transforms ``except*``: here on 3.8-3.10 or when pure."""
    return run_here(sources) if PURE else run_pure(sources)


def run_newest(sources: List[str]) -> List[Any]:
    """The outcome under the newest CPython's rules, which the transformation and the pure classes follow:
    here on 3.14+ with the built-ins, else 3.14 as Pyodide where it is installed, else ``run_native``."""
    if sys.version_info >= (3, 14) and not PURE:
        return run_here(sources)
    if pyodide.available():
        return pyodide.call("scenarios.run_sources", sources)  # type: ignore[no-any-return]
    return run_native(sources)
