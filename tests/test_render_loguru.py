"""loguru shows a group's members on 3.8-3.10 as the same loguru version does on native 3.11+.

One program logs a nested group (members with their own tracebacks and notes,
the outer group with a ``__context__``) through ``logger.exception`` and
``logger.opt(exception=...)``, with ``backtrace`` off and on.  It runs here in
each import order, with and without the ``exceptiongroup`` backport (loguru
imports it on 3.8-3.10), and on native 3.13 with the same loguru: the outputs
are equal, paths aside.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import child_env
from support.render_native import SCENARIO, pinned, reference_with

# The renderer's own pure-Python code, the same on PyPy as on the CPython of its version,
# which runs this module in full: left out of the matrix's default PyPy run.
pytestmark = pytest.mark.pypy_full_only

PROGRAM = """\
import sys
order, backport = sys.argv[1], sys.argv[2]
if backport == "absent":
    sys.modules["exceptiongroup"] = None  # as where the backport is not installed
if order == "exceptstar first":
    import exceptstar
from loguru import logger
if order == "loguru first":
    import exceptstar
if sys.version_info < (3, 11):
    from exceptstar import ExceptionGroup


""" + SCENARIO + """

logger.remove()
for backtrace in ([False] if order == "run" else [False, True]):
    logger.add(sys.stdout, colorize=False, backtrace=backtrace, diagnose=False, format="{message}")
    try:
        scenario()
    except Exception:
        logger.exception("exception (backtrace={})", backtrace)
    try:
        scenario()
    except Exception as error:
        logger.opt(exception=error).error("opt")
    logger.remove()
"""


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    reference, env = reference_with("loguru")
    folder = tmp_path_factory.mktemp("native")
    (folder / "prog.py").write_text(PROGRAM)
    out = {}
    for order in ("exceptstar first", "run"):
        proc = subprocess.run([reference, "prog.py", order, "present"], cwd=folder, capture_output=True,
                              text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        out[order] = proc.stdout.replace(f"{folder}/", "")  # 3.8 names the script as given
    return out


def ours(tmp_path: Path, order: str, backport: str, **env: str) -> str:
    (tmp_path / "prog.py").write_text(PROGRAM)
    command = [sys.executable, *(["-m", "exceptstar", "run"] if order == "run" else []), "prog.py", order, backport]
    proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env={**child_env(False), **env})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.replace(f"{tmp_path}/", "")


@pytest.mark.needs_processes
@pytest.mark.parametrize("backport", ["present", "absent"])
@pytest.mark.parametrize("order", ["exceptstar first", "loguru first", "run"])
def test_as_native(tmp_path: Path, native: dict[str, str], order: str, backport: str) -> None:
    expected = native["run" if order == "run" else "exceptstar first"]
    assert ours(tmp_path, order, backport) == expected
    assert expected.count("note on OSError") == (2 if order == "run" else 4)  # members, with their notes


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="loguru knows the built-in groups there")
def test_turned_off_without_the_backport_shows_no_member(tmp_path: Path, native: dict[str, str]) -> None:
    output = ours(tmp_path, "exceptstar first", "absent", EXCEPTSTAR_NO_LOGURU="1")
    assert "note on OSError" not in output and "ExceptionGroup: outer" in output


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="nothing is patched there: loguru's own test runs")
@pytest.mark.parametrize("backport", ["present", "absent"])
def test_oldest_with_groups_as_native(tmp_path: Path, backport: str) -> None:
    # loguru 0.7.2 is the first version that shows a group's members (0.7.1 has no group branch).
    reference, env = pinned("loguru", "0.7.2")
    (tmp_path / "prog.py").write_text(PROGRAM)
    outputs = []
    for command in ([reference, "prog.py", "exceptstar first", "present"],
                    [sys.executable, "prog.py", "exceptstar first", backport],
                    [sys.executable, "prog.py", "loguru first", backport],
                    [reference, "prog.py", "run", "present"],
                    [sys.executable, "-m", "exceptstar", "run", "prog.py", "run", backport]):
        proc = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout.replace(f"{tmp_path}/", ""))
    assert outputs[0].count("note on OSError") == 4 and outputs[3].count("note on OSError") == 2
    assert outputs[1] == outputs[0] and outputs[2] == outputs[0]
    assert outputs[4] == outputs[3]
