"""``python -m exceptstar demo``: the same output on every version but for its last line.

The demo connects, in a TaskGroup and with ``all_errors=True``, to closed ports
of 127.0.0.1, handles the refused connections with except* and prints what
propagated.  Its output here (3.8-3.10: transformed except*, exceptstar's
TaskGroup; 3.11+: native) must equal the output of the newest native CPython (3.15 here),
where all of it is native, once the port numbers (chosen at random) are set
aside; only the last line, saying how except* was provided, differs.  Every PyPy found
runs it too, once per matrix (``support.interpreters.pypys_to_ask``; PyPy 3.11 natively
and with exceptstar's transformation).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.interpreters import native_python, pypys_to_ask

SRC = Path(__file__).resolve().parent.parent / "src"


def demo(exe: str, pure: bool, cwd: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "EXCEPTSTAR"))}
    env["PYTHONPATH"] = str(SRC)
    if pure:
        env["EXCEPTSTAR_PURE"] = "1"
    proc = subprocess.run([exe, "-m", "exceptstar", "demo"], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    # The closed ports are whatever the system hands out: numbered by first appearance.
    ports: dict[str, str] = {}
    text = re.sub(r"(?<![\d.])[1-9]\d{3,4}(?![\d.])", lambda m: ports.setdefault(m[0], f"<port {len(ports)}>"),
                  proc.stdout)
    return text.splitlines()


@pytest.mark.parametrize("pure", [False, True] if sys.version_info >= (3, 11) else [False])
def test_demo_prints_as_the_newest_native(pure: bool, tmp_path: Path) -> None:
    native = native_python()
    if native is None:
        pytest.skip("no native CPython 3.11+ here")
    reference = demo(native, False, tmp_path)
    assert re.match(r"except\* was provided natively by CPython 3\.1[1-9]", reference[-1]), reference[-1]
    check(demo(sys.executable, pure, tmp_path), reference, sys.version_info < (3, 11) or pure,
          sys.implementation.name == "pypy")
    assert "except* ConnectionRefusedError handled 3 of them:" in reference
    assert "     while connecting to 127.0.0.1:8o80" in reference
    assert "    [Errno 111] Connect call failed ('127.0.0.1', <port 0>)" in reference


def check(ours: list[str], reference: list[str], transformed: bool, pypy: bool) -> None:
    if pypy:
        # PyPy's socket.gaierror says it lives in _socket, and the printed name follows __module__.
        ours = [line.replace("_socket.gaierror", "socket.gaierror") for line in ours]
    assert ours[:-1] == reference[:-1]
    assert ours[-1].startswith("except* was provided by exceptstar" if transformed else
                               "except* was provided natively")


@pytest.mark.parametrize("pure", [False, True])
def test_the_demo_on_pypy_prints_as_the_newest_native(pure: bool, tmp_path: Path) -> None:
    native = native_python()
    if native is None or not pypys_to_ask():
        pytest.skip("the PyPys are asked from the newest CPython on their side of the sid root")
    reference = demo(native, False, tmp_path)
    for version, exe in pypys_to_ask().items():
        check(demo(exe, pure, tmp_path), reference, version < (3, 11) or pure, True)
