"""IPython's traceback display and ipykernel's error reply on 3.8-3.10, as the same versions show them on native 3.11+.

A shell (``InteractiveShell.run_cell``) and a kernel (started and driven by
``jupyter_client``, as a notebook does) run the rendering scenario: a nested
group whose members have tracebacks and notes and whose outer group has a
``__context__``, then a plain exception with a note.  What they print, and the
kernel's messages (the ``execute_reply`` and every ``stream``/``error`` on the
IOPub channel), equal native 3.13's with the same IPython, ipykernel and
jupyter_client, in each import order and under ``run``.

The versions differ in kind, and both kinds are compared: IPython 8.12 shows a
group through its own view, the group's line alone, on 3.11+ as well; from 8.15
on IPython hands a group to ``traceback.print_exc`` on stderr (no ``error``
message, an empty ``traceback`` in the kernel's reply), finding it with the
``exceptiongroup`` backport's class, which is exceptstar's once both are imported.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from support.processes import SRC, child_env
from support.render_native import SCENARIO, installed, missing, reference, version

# The renderer's own pure-Python code, the same on PyPy as on the CPython of its version,
# which runs this module in full: left out of the matrix's default PyPy run.
pytestmark = pytest.mark.pypy_full_only

DISTRIBUTIONS = ("ipython", "ipykernel", "jupyter_client")

# The cells, shared by the shell and the kernel.  exceptstar is imported before IPython, in a cell
# or as a configured extension; on native 3.13 it does nothing.
SETUP_CELL = """\
try:
    import exceptstar
except ImportError:
    pass
else:
    get_ipython().run_line_magic("load_ext", "exceptstar")
"""
CELLS = [
    SETUP_CELL,
    SCENARIO,
    "scenario()\n",
    "error = ValueError('plain')\nadd_note(error, 'a note')\nraise error\n",
]

SHELL = """\
import json
import sys

if sys.argv[1] == "exceptstar first":
    import exceptstar
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
shell.run_line_magic("colors", "nocolor")
for cell in json.loads(sys.stdin.read()):
    shell.run_cell(cell)
"""

KERNEL = """\
import json
import sys

from jupyter_client.manager import start_new_kernel

extensions = ["--InteractiveShellApp.extensions=exceptstar"] if sys.argv[1] == "as an extension" else []
manager, client = start_new_kernel(kernel_name="python3", extra_arguments=extensions)
try:
    shown = []
    for cell in ["%colors nocolor"] + json.loads(sys.stdin.read()):
        msg_id = client.execute(cell)
        # The reply to this cell: a kernel may send other shell replies first (a late
        # kernel_info_reply of the start), which belong to no cell.
        while True:
            answer = client.get_shell_msg(timeout=120)
            if answer["parent_header"].get("msg_id") == msg_id:
                reply = answer["content"]
                break
        messages = []
        while True:
            message = client.get_iopub_msg(timeout=120)
            if message["parent_header"].get("msg_id") != msg_id:
                continue
            if message["msg_type"] == "status" and message["content"]["execution_state"] == "idle":
                break
            if message["msg_type"] in ("stream", "error"):
                messages.append([message["msg_type"], message["content"]])
        shown.append({"reply": {key: reply.get(key) for key in ("status", "ename", "evalue", "traceback")},
                      "iopub": messages})
    print(json.dumps(shown, indent=1))
finally:
    client.stop_channels()
    manager.shutdown_kernel(now=True)
"""


def comparable(text: str) -> str:
    """Installation folders, kernel process ids and the lines of carets (3.11+ draws them) left out."""
    text = re.sub(r"[^\s\"']*/site-packages/", "", text)
    text = re.sub(r"[^\s\"']*/exceptstar-native-[^/]*/", "", text)
    text = re.sub(r"ipykernel_\d+", "ipykernel_N", text)
    return re.sub(r"(?m)^[ |]*[~^]+(\\n|\n)", "", re.sub(r"\\n[ |]*[~^]+(?=\\n)", "", text))


def native_side(pins: dict[str, str | None]) -> tuple[str, dict[str, str]]:
    """Native 3.13 importing exactly these versions (with their dependencies)."""
    if None in pins.values():
        missing(f"one of {pins}")
    native = reference()
    target = installed(native, [f"{name}=={pin}" for name, pin in pins.items()], deps=True)
    env = {**child_env(False), "PYTHONPATH": os.pathsep.join([str(target), str(SRC)])}
    for name, pin in pins.items():
        assert version(native, name, env) == pin, name
    return native, env


def show(command: list[str], env: dict[str, str]) -> str:
    with tempfile.TemporaryDirectory(prefix="exceptstar-ipython-") as folder:
        (Path(folder) / "prog.py").write_text(SHELL if command[-1] == "shell" else KERNEL)
        proc = subprocess.run(command, cwd=folder, input=json.dumps(CELLS), capture_output=True, text=True,
                              env={**env, "TERM": "dumb"}, timeout=300)
    assert proc.returncode == 0, proc.stderr
    if command[-1] == "kernel":
        # The kernel's output is in the messages; the client's own stderr is jupyter_client's
        # chatter at exit, which varies from run to run.
        return comparable(proc.stdout)
    return comparable(proc.stdout + "\n--- stderr ---\n" + proc.stderr)


SHELL_ORDERS = ["exceptstar first", "IPython first", "run"]
KERNEL_ORDERS = ["in a cell", "as an extension"]


@pytest.fixture(scope="module")
def native() -> dict[str, str]:
    pytest.importorskip("IPython", reason="IPython and ipykernel are installed by the test matrix on 3.8-3.10")
    reference, env = native_side({name: version(sys.executable, name) for name in DISTRIBUTIONS})
    shown = {"shell": show([reference, "prog.py", "exceptstar first", "shell"], env)}
    for order in KERNEL_ORDERS:
        shown[order] = show([reference, "prog.py", order, "kernel"], env)
    return shown


def ours(order: str, kind: str) -> str:
    runner = ["-m", "exceptstar", "run"] if order == "run" else []
    return show([sys.executable, *runner, "prog.py", order, kind], child_env(False))


@pytest.mark.parametrize("order", SHELL_ORDERS)
def test_shell_as_native(native: dict[str, str], order: str) -> None:
    assert ours(order, "shell") == native["shell"]
    assert native["shell"].count("ExceptionGroup: outer (2 sub-exceptions)") == 1
    assert "a note" in native["shell"]


@pytest.mark.parametrize("order", KERNEL_ORDERS)
def test_kernel_reply_as_native(native: dict[str, str], order: str) -> None:
    got = ours(order, "kernel")
    assert got == native[order]
    cells = json.loads(got)
    assert [cell["reply"]["status"] for cell in cells] == ["ok", "ok", "ok", "error", "error"]
    assert cells[3]["reply"]["ename"] == "ExceptionGroup"


def test_members_shown_where_ipython_shows_them(native: dict[str, str]) -> None:
    # IPython 8.15+ prints a group in full; 8.12 (the last for 3.8) shows the group's line alone.
    full = version(sys.executable, "ipython") != "8.12.3"
    assert ("ValueError: value" in native["shell"]) == full
    assert ("note on OSError" in native["in a cell"]) == full


# The first IPython that shows a group's members (through ``traceback.print_exc``); it needs 3.9.
OLDEST_WITH_GROUPS = "8.15.0"


@pytest.mark.skipif(sys.version_info < (3, 9) or sys.version_info >= (3, 11),
                    reason="IPython 8.15 needs 3.9; on 3.11+ nothing of exceptstar's is involved")
def test_oldest_with_groups_as_native() -> None:
    pytest.importorskip("IPython", reason="IPython is installed by the test matrix on 3.8-3.10")
    reference, native_env = native_side({"ipython": OLDEST_WITH_GROUPS})
    here = installed(sys.executable, [f"ipython=={OLDEST_WITH_GROUPS}"], deps=True)
    env = {**child_env(False), "PYTHONPATH": os.pathsep.join([str(here), str(SRC)])}
    assert version(sys.executable, "ipython", env) == OLDEST_WITH_GROUPS
    native = show([reference, "prog.py", "exceptstar first", "shell"], native_env)
    assert "ValueError: value" in native and "note on OSError" in native
    for order in SHELL_ORDERS:
        runner = ["-m", "exceptstar", "run"] if order == "run" else []
        assert show([sys.executable, *runner, "prog.py", order, "shell"], env) == native


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="nothing of exceptstar's is involved there")
def test_turned_off_with_the_backport_left_alone(native: dict[str, str]) -> None:
    if "ValueError: value" not in native["shell"]:
        pytest.skip("this IPython shows no member of a group on 3.11+ either")
    off = show([sys.executable, "prog.py", "exceptstar first", "shell"],
               {**child_env(False), "EXCEPTSTAR_NO_BACKPORT": "1"})
    # IPython then finds no group of the backport's class: its own view, the group's line alone.
    assert "ExceptionGroup: outer (2 sub-exceptions)" in off
    assert "ValueError: value" not in off
