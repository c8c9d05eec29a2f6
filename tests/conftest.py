"""The ``needs_processes`` marker: tests that start a process, a thread or a socket.

Pyodide (CPython 3.14 compiled to WebAssembly, run by Node.js) is in the matrix, and
has none of the three; there the marked tests are skipped, with the reason,
and every other test runs.  Anywhere else the marker changes nothing.  So does
``needs_asyncio_loop``: tests of asyncio's own loop and tasks (or of anyio and
Trio running their loops), which Pyodide replaces with its WebLoop.
"""

from __future__ import annotations

import sys
from typing import List

import pytest

NO_PROCESSES = sys.platform in ("emscripten", "wasi")
REASON = "needs a subprocess, a thread or a socket, which Pyodide (CPython 3.14 in WebAssembly) has not"
LOOP_REASON = "needs asyncio's own event loop, where Pyodide (in the matrix) runs its WebLoop"


def pytest_collection_modifyitems(items: List[pytest.Item]) -> None:
    if not NO_PROCESSES:
        return
    for item in items:
        if item.get_closest_marker("needs_processes") is not None:
            item.add_marker(pytest.mark.skip(reason=REASON))
        elif item.get_closest_marker("needs_asyncio_loop") is not None:
            item.add_marker(pytest.mark.skip(reason=LOOP_REASON))
