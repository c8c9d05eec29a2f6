"""create_connection(all_errors=True): exceptstar.socket's and exceptstar.asyncio's, against the newest native CPython.

``asyncio_programs/connections.txt`` connects to closed ports of 127.0.0.1 (and
to a name that resolves to two of them) through ``socket.create_connection``,
``loop.create_connection`` and ``asyncio.open_connection``; it prints every
error of each attempt, with its type, errno and message.  The bare newest native CPython
running the native functions and this interpreter running exceptstar's must
print the same.  On 3.12+, where exceptstar's names are the native ones, its
own implementation runs instead.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from support.interpreters import native_python

import exceptstar
import exceptstar.asyncio as ea
import exceptstar.socket as es

HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "asyncio_programs" / "connections.txt"
SRC = HERE.parent / "src"


def free_ports(count: int) -> list[int]:
    """Ports of 127.0.0.1 that were free a moment ago."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


def run_program(exe: str, mode: str, ports: list[int], env: dict[str, str]) -> str:
    proc = subprocess.run([exe, str(PROGRAM), mode, *map(str, ports)], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    return proc.stdout


def test_same_errors_as_the_newest_native() -> None:
    native = native_python()
    if native is None:
        pytest.skip("no native CPython 3.11+ here")
    ports = free_ports(3)
    bare = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "EXCEPTSTAR"))}
    reference = run_program(native, "native", ports, bare)
    assert reference.count("ExceptionGroup('create_connection failed'") == 8
    # From 3.12 on the public names are the interpreter's own functions (and
    # 3.12's words its bind errors differently): there exceptstar's own
    # implementation is what is compared.
    mode = "ours" if sys.version_info < (3, 12) else "internal"
    assert run_program(sys.executable, mode, ports, dict(bare, PYTHONPATH=str(SRC))) == reference


@pytest.mark.needs_processes
def test_group_class_and_cycles() -> None:
    port = free_ports(1)[0]
    with pytest.raises(exceptstar.ExceptionGroup) as info:
        es.create_connection(("127.0.0.1", port), all_errors=True)
    group = info.value
    assert type(group.exceptions[0]) is ConnectionRefusedError
    # The frames of the failed attempt no longer hold the list of errors.
    del info
    frame_locals = group.exceptions[0].__traceback__.tb_frame.f_locals  # type: ignore[union-attr]
    assert frame_locals["exceptions"] == []


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the loop's own create_connection from 3.12 on: "
                    "uvloop's has no all_errors")
def test_loop_connection_on_uvloop() -> None:
    uvloop = pytest.importorskip("uvloop")
    port = free_ports(1)[0]

    async def main() -> BaseException:
        try:
            await ea.create_connection(asyncio.Protocol, "127.0.0.1", port, all_errors=True)
        except BaseException as exc:
            return exc
        raise AssertionError("connected to a closed port")

    loop = uvloop.new_event_loop()
    try:
        exc = loop.run_until_complete(asyncio.wait_for(main(), 20))
    finally:
        loop.close()
    assert isinstance(exc, exceptstar.ExceptionGroup) and str(exc).startswith("create_connection failed")
    assert [type(e) for e in exc.exceptions] == [ConnectionRefusedError]
