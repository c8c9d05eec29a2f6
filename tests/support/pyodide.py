"""CPython 3.14 as Pyodide: the reference where 3.14 and 3.13 differ.

``tools/matrix.py`` installs the npm package ``pyodide`` (CPython 3.14.2
compiled to WebAssembly) under ``.venvs/``; ``run`` runs a program in it with
Node.js (``tools/pyodide.mjs``), with ``src`` and ``tests`` importable, and
returns what it printed, as ``subprocess.run`` would.  ``available`` says
whether it can here: not inside Pyodide itself (no processes), nor before the
matrix has installed it (``EXCEPTSTAR_PYODIDE`` names another install).
``call`` is ``support.processes.call`` for Pyodide: a function of this
package run there, its argument and result as JSON, through one Pyodide kept
running for the whole session (started once, seconds; each call then costs
what the function does).
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

from support.interpreters import CAN_SPAWN

ROOT = Path(__file__).resolve().parents[2]
VERSION = "314.0.7"
RUNNER = ROOT / "tools" / "pyodide.mjs"
VENVS = Path(os.environ.get("EXCEPTSTAR_VENVS") or ROOT / ".venvs").resolve()


@functools.lru_cache(maxsize=None)
def package() -> Path | None:
    """The folder of the npm package ``pyodide``, or None."""
    folder = Path(os.environ.get("EXCEPTSTAR_PYODIDE") or VENVS / f"pyodide-{VERSION}" / "node_modules" / "pyodide")
    return folder if (folder / "pyodide.mjs").exists() else None


def available() -> bool:
    return CAN_SPAWN and package() is not None and shutil.which("node") is not None


def _command(code: str, cwd: Path | None) -> list[str]:
    folder = package()
    node = shutil.which("node")
    assert folder is not None and node is not None and available(), \
        "Pyodide is not installed (python3 tools/matrix.py installs it)"
    # The matrix's site folder (pytest, Hypothesis, ...) when it is there; the code's own imports otherwise.
    site = VENVS / "py314-pyodide"
    return [node, str(RUNNER), str(folder), str(site if site.exists() else ROOT), str(cwd or ROOT),
            "--mount", str(ROOT), "--path", str(ROOT / "src"), "--path", str(ROOT / "tests"), "-c", code]


def run(code: str, *, args: tuple[str, ...] = (), stdin: str | None = None, cwd: Path | None = None,
        env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``python -c code`` in Pyodide's CPython 3.14, exceptstar and ``tests`` importable.

    Each run starts Pyodide afresh (seconds): ask it only where 3.13 and 3.14 differ.
    """
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([*_command(code, cwd), *args], input=stdin, capture_output=True, text=True,
                          env=full_env, timeout=timeout)


def output(code: str, stdin: str | None = None) -> str:
    """What ``code`` prints in CPython 3.14; the calling test is skipped where Pyodide is not installed."""
    import pytest

    if not available():
        pytest.skip("CPython 3.14 (Pyodide) is not installed here: python3 tools/matrix.py installs it")
    proc = run(code, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# One request a line, one answer a line: {"ok": result} or {"error": traceback}.
SERVER = """
import asyncio, importlib, json, sys, traceback

def run_to_completion(coroutine, **options):
    # Pyodide's event loop steps a coroutine from JavaScript, outside the except blocks
    # around asyncio.run(): sys.exc_info() inside would miss what they handle, which
    # asyncio's own loop shows. A coroutine that never suspends (the scenarios') runs
    # to its end in its first step, as a Task's first step would run it.
    try:
        coroutine.send(None)
    except StopIteration as stop:
        return stop.value
    coroutine.close()
    raise RuntimeError("the coroutine suspended: run it with Pyodide's own event loop")

asyncio.run = run_to_completion
answers, sys.stdout = sys.stdout, sys.stderr  # what the functions print goes to stderr
for line in sys.stdin:
    module, name, argument = json.loads(line)
    try:
        answer = {"ok": getattr(importlib.import_module("support." + module), name)(argument)}
    except BaseException:
        answer = {"error": traceback.format_exc()}
    answers.write(json.dumps(answer) + "\\n")
    answers.flush()
"""
_server: subprocess.Popen[str] | None = None
_lock = threading.Lock()


def call(function: str, argument: Any) -> Any:
    """``support.<module>.<name>(argument)`` run in Pyodide, for ``function`` ``"<module>.<name>"``."""
    global _server
    module, name = function.rsplit(".", 1)
    with _lock:
        if _server is None or _server.poll() is not None:
            _server = subprocess.Popen(_command(SERVER, None), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       text=True)
            atexit.register(_server.communicate)
        assert _server.stdin is not None and _server.stdout is not None
        _server.stdin.write(json.dumps([module, name, argument]) + "\n")
        _server.stdin.flush()
        line = _server.stdout.readline()
    assert line, "Pyodide stopped"
    answer = json.loads(line)
    assert "error" not in answer, answer["error"]
    return answer["ok"]
