"""structlog's dict tracebacks of a group have ``is_group`` and the members on 3.8-3.10, as on 3.11+.

One program renders a nested group (members with tracebacks and notes, the
outer group with a ``__context__``) through ``dict_tracebacks``
(``ExceptionRenderer(ExceptionDictTransformer())``) and
``ExceptionDictTransformer`` directly, and through ``ConsoleRenderer`` with
the plain and the rich traceback formatter; the JSON and the text equal what
the same structlog version gives on native 3.13, in each import order and
under ``run`` (file names aside: the interpreters' paths).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import child_env
from support.render_native import SCENARIO, panels, pinned, reference_with

# The renderer's own pure-Python code, the same on PyPy as on the CPython of its version,
# which runs this module in full: left out of the matrix's default PyPy run.
pytestmark = pytest.mark.pypy_full_only

PROGRAM = """\
import json
import sys

order = sys.argv[1]
if order == "exceptstar first":
    import exceptstar
import structlog
from structlog.tracebacks import ExceptionDictTransformer
if order == "structlog first":
    import exceptstar
if sys.version_info < (3, 11):
    from exceptstar import ExceptionGroup


""" + SCENARIO + """

def strip(value):
    # Paths and versions are the interpreter's; the structure is structlog's.
    if isinstance(value, dict):
        return {key: strip(item) for key, item in value.items() if key != "filename"}
    if isinstance(value, list):
        return [strip(item) for item in value]
    return value


records = []
renderer = structlog.processors.ExceptionRenderer(ExceptionDictTransformer(show_locals=False))
structlog.configure(processors=[renderer, lambda _l, _m, event: records.append(event) or ""],
                    logger_factory=structlog.ReturnLoggerFactory())
try:
    scenario()
except Exception:
    structlog.get_logger().exception("failed")
    direct = ExceptionDictTransformer(show_locals=False, use_rich=False)(sys.exc_info())
    print(json.dumps(strip(direct), indent=1, sort_keys=True))
print(json.dumps(strip(records), indent=1, sort_keys=True))
"""


def render(command: list[str], folder: Path, env: dict[str, str]) -> str:
    (folder / "prog.py").write_text(PROGRAM)
    proc = subprocess.run(command, cwd=folder, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


CONSOLE = """\
import json
import os
import sys

order = sys.argv[1]
if order == "exceptstar first":
    import exceptstar
import structlog
from structlog.tracebacks import ExceptionDictTransformer
if order == "structlog first":
    import exceptstar
if sys.version_info < (3, 11):
    from exceptstar import ExceptionGroup


""" + SCENARIO + """

from structlog.dev import ConsoleRenderer, RichTracebackFormatter, plain_traceback

for formatter in (plain_traceback, RichTracebackFormatter(width=100, color_system=None, show_locals=False)):
    renderer = ConsoleRenderer(colors=False, exception_formatter=formatter)
    try:
        scenario()
    except Exception:
        print(renderer(None, "error", {"event": "failed", "exc_info": True, "timestamp": "t"}))
"""


@pytest.fixture(scope="module")
def native_console() -> str:
    reference, env = reference_with("structlog")
    return panels(CONSOLE, [reference, "prog.py", "exceptstar first"], env)


@pytest.mark.needs_processes
@pytest.mark.parametrize("order", ["exceptstar first", "structlog first", "run"])
def test_console_renderer_as_native(native_console: str, order: str) -> None:
    # ConsoleRenderer with the plain traceback formatter and with rich's.
    command = [sys.executable, *(["-m", "exceptstar", "run"] if order == "run" else []), "prog.py", order]
    assert panels(CONSOLE, command, child_env(False)) == native_console
    assert native_console.count("Sub-exception #") == 4


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> str:
    reference, env = reference_with("structlog")
    return render([reference, "prog.py", "exceptstar first"], tmp_path_factory.mktemp("native"), env)


@pytest.mark.needs_processes
@pytest.mark.parametrize("order", ["exceptstar first", "structlog first", "run"])
def test_dict_tracebacks_as_native(tmp_path: Path, native: str, order: str) -> None:
    command = [sys.executable, *(["-m", "exceptstar", "run"] if order == "run" else []), "prog.py", order]
    assert render(command, tmp_path, child_env(False)) == native
    assert native.count('"is_group": true') == 4  # the outer and inner group, twice


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="structlog opens its group branch itself there")
def test_turned_off_no_group(tmp_path: Path, native: str) -> None:
    output = render([sys.executable, "prog.py", "exceptstar first"], tmp_path,
                    {**child_env(False), "EXCEPTSTAR_NO_STRUCTLOG": "1"})
    assert '"is_group": true' not in output


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="nothing is patched there: structlog's own branch runs")
def test_oldest_with_groups_as_native(tmp_path: Path) -> None:
    # structlog 25.4.0 is the first version whose dict tracebacks have is_group and the members.
    reference, env = pinned("structlog", "25.4.0")
    for name in ("native", "exceptstar-first", "structlog-first", "run"):
        (tmp_path / name).mkdir()
    native = render([reference, "prog.py", "exceptstar first"], tmp_path / "native", env)
    assert native.count('"is_group": true') == 4
    for order in ("exceptstar first", "structlog first", "run"):
        command = [sys.executable, *(["-m", "exceptstar", "run"] if order == "run" else []), "prog.py", order]
        assert render(command, tmp_path / order.replace(" ", "-"), env) == native


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="nothing is patched there: structlog's own branch runs")
def test_oldest_console_renderer_as_native() -> None:
    reference, env = pinned("structlog", "25.4.0")
    native = panels(CONSOLE, [reference, "prog.py", "exceptstar first"], env)
    assert native.count("Sub-exception #") == 4
    for order in ("exceptstar first", "structlog first", "run"):
        command = [sys.executable, *(["-m", "exceptstar", "run"] if order == "run" else []), "prog.py", order]
        assert panels(CONSOLE, command, env) == native
