"""Where the outcomes of scenarios (``support.scenarios``) come from: natively, here, or through exceptstar.

The native outcome is the expected one: on 3.12+ (with the built-in groups)
the sources run in this process; otherwise, or when this process uses the
pure classes, the newest native CPython runs them (3.15 here), which
exceptstar follows on 3.8-3.10 and in the pure classes.  (3.11 is not a
reference: its ``except*`` keeps the unsplit group for the next clause when a
clause matches nothing, where 3.12+ takes ``split``'s rest.)
"""

from __future__ import annotations

import sys
from typing import Any, List

from exceptstar import PURE
from support.interpreters import find_interpreters, native_python
from support.processes import call
from support.scenarios import run_sources


def run_here(sources: List[str]) -> List[Any]:
    return run_sources(sources)


def run_native(sources: List[str]) -> List[Any]:
    if sys.version_info >= (3, 12) and not PURE:
        return run_here(sources)
    # PyPy 3.11's own except* is no reference: catch() there follows the newest CPython's.
    exe = native_python() if PURE or sys.version_info < (3, 11) or sys.implementation.name == "pypy" else _like_311()
    assert exe is not None, "no CPython 3.11+ on this machine"
    return call(exe, "scenarios.run_sources", sources)  # type: ignore[no-any-return]


def _like_311() -> str | None:
    """3.11 with the built-ins: the newest native 3.12-3.13 here, whose except* wraps a naked
    exception without a traceback as 3.11's does (gh-128799 gave it one in 3.14 and later 3.13
    patch releases), and which takes split's rest as 3.12+ do; else the newest native."""
    found = [version for version in find_interpreters() if (3, 12) <= version < (3, 14)]
    return find_interpreters()[max(found)] if found else native_python()


def run_pure(sources: List[str]) -> List[Any]:
    """On 3.11+: the sources under EXCEPTSTAR_PURE=1, in a child of this interpreter."""
    return call(sys.executable, "scenarios.run_sources", sources, pure=True)  # type: ignore[no-any-return]


def run_transformed(sources: List[str]) -> List[Any]:
    """The sources where ``exceptstar.compile`` transforms ``except*``: here on 3.8-3.10 or when pure."""
    return run_here(sources) if PURE else run_pure(sources)


def run_newest(sources: List[str]) -> List[Any]:
    """The outcome under the newest CPython's rules, which the transformation and the pure classes follow:
    here when this process is the newest native CPython found, else in that one."""
    exe = native_python()
    if exe is None or (not PURE and sys.version_info >= (3, 15)):
        return run_here(sources)
    return call(exe, "scenarios.run_sources", sources)  # type: ignore[no-any-return]


def drop_tb_labels(node: Any) -> None:
    """Blank, in place, which traceback object each outcome names (``tb``, ``kept_tb``) at any depth:
    for the interpreters whose tracebacks differ from CPython's in a documented way."""
    if isinstance(node, dict):
        for key in ("tb", "kept_tb"):
            if key in node:
                node[key] = None
        for value in node.values():
            drop_tb_labels(value)
    elif isinstance(node, list):
        for value in node:
            drop_tb_labels(value)
