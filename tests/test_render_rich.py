"""rich shows a group's members on 3.8-3.10 as the same rich version does on native 3.11+.

One program renders a nested group (members with tracebacks and notes, the
outer group with a ``__context__``) through ``Traceback.from_exception``,
``Traceback()``, ``RichHandler(rich_tracebacks=True)`` and
``rich.traceback.install()``, on a plain console 100 columns wide; the text
equals native 3.13's with the same rich, in each import order and under
``run``.  What rich does on 3.11+ too (a group's context not shown, the top
exception's notes on every stack) is part of what is compared.
"""

from __future__ import annotations

import sys

import pytest
from support.processes import child_env
from support.render_native import SCENARIO, panels, pinned, reference_with

# The renderer's own pure-Python code, the same on PyPy as on the CPython of its version,
# which runs this module in full: left out of the matrix's default PyPy run.
pytestmark = pytest.mark.pypy_full_only

PROGRAM = """\
import logging
import sys

order = sys.argv[1]
if order == "exceptstar first":
    import exceptstar
from rich.console import Console
from rich.logging import RichHandler
from rich.traceback import Traceback
if order == "rich first":
    import exceptstar
if sys.version_info < (3, 11):
    from exceptstar import ExceptionGroup


""" + SCENARIO + """

console = Console(width=100, color_system=None, force_terminal=False, file=sys.stdout)
try:
    scenario()
except Exception as error:
    console.print(Traceback.from_exception(type(error), error, error.__traceback__))
    console.print(Traceback())
handler = RichHandler(console=console, rich_tracebacks=True, show_time=False, show_path=False)
logger = logging.getLogger("app")
logger.addHandler(handler)
try:
    scenario()
except Exception:
    logger.exception("logged")
import rich.traceback

rich.traceback.install(console=console)
try:
    scenario()
except Exception:
    sys.excepthook(*sys.exc_info())  # what the interpreter calls for an uncaught exception
"""


@pytest.fixture(scope="module")
def native() -> str:
    reference, env = reference_with("rich")
    return panels(PROGRAM, [reference, "prog.py", "exceptstar first"], env)


@pytest.mark.needs_processes
@pytest.mark.parametrize("order", ["exceptstar first", "rich first", "run"])
def test_as_native(native: str, order: str) -> None:
    command = [sys.executable, *(["-m", "exceptstar", "run"] if order == "run" else []), "prog.py", order]
    assert panels(PROGRAM, command, child_env(False)) == native
    assert native.count("Sub-exception #") == 16  # each of four renderings: 2 + 2 members


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="rich shows the built-in groups there")
def test_turned_off_no_member(native: str) -> None:
    off = {**child_env(False), "EXCEPTSTAR_NO_RICH": "1"}
    output = panels(PROGRAM, [sys.executable, "prog.py", "exceptstar first"], off)
    assert "Sub-exception" not in output


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="nothing is patched there: rich's own branch runs")
def test_oldest_with_groups_as_native() -> None:
    # rich 14.0.0 is the first version that shows a group's members (on 3.11+).
    reference, env = pinned("rich", "14.0.0")
    native = panels(PROGRAM, [reference, "prog.py", "exceptstar first"], env)
    assert native.count("Sub-exception #") == 16
    for order in ("exceptstar first", "rich first", "run"):
        command = [sys.executable, *(["-m", "exceptstar", "run"] if order == "run" else []), "prog.py", order]
        assert panels(PROGRAM, command, env) == native
