"""Outcomes of scenarios (``engine_scenarios``) here, under EXCEPTSTAR_PURE, or natively.

The native outcome is the expected one: on 3.12+ (with the built-in groups)
the native ``except*`` rendering runs in this process; otherwise, or when this
process uses the pure classes, the newest native interpreter runs it.  (3.11
is not a reference: its ``except*`` keeps the unsplit group for the next
clause when a clause matches nothing, where 3.12+ takes ``split``'s rest.)
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, List

import engine_scenarios
from support.interpreters import native_python
from support.processes import run_python

from exceptstar import PURE

HERE = Path(__file__).resolve().parent


def run_here(sources: List[str]) -> List[Any]:
    return [engine_scenarios.run_source(s) for s in sources]


def run_in(exe: str, sources: List[str], *, pure: bool) -> List[Any]:
    """Run the sources in interpreter ``exe`` (in one process), return their outcomes."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(sources, f)
    try:
        code = (f"import sys; sys.path.insert(0, {str(HERE)!r}); import engine_scenarios; "
                f"engine_scenarios.main({f.name!r})")
        proc = run_python(exe, code, pure=pure)
    finally:
        os.unlink(f.name)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def run_native(sources: List[str]) -> List[Any]:
    if sys.version_info >= (3, 12) and not PURE:
        return run_here(sources)
    exe = native_python()
    assert exe is not None, "no CPython 3.11+ on this machine"
    return run_in(exe, sources, pure=False)


def run_pure(sources: List[str]) -> List[Any]:
    """On 3.11+: the sources under EXCEPTSTAR_PURE=1, in a child of this interpreter."""
    return run_in(sys.executable, sources, pure=True)
