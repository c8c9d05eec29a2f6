"""sentry-sdk's events carry every exception of a group on 3.8-3.10, as the same sentry-sdk does on 3.11+.

One program captures a nested group (members with tracebacks and notes, the
outer group with a ``__context__``) three ways: ``capture_exception``, the
logging integration and the excepthook integration, through a transport that
keeps the events in the process.  The events' exception entries (type, value,
mechanism with ``is_exception_group``/``parent_id``/``source``, frames) are
compared with native 3.13's, in each import order and under ``run``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.processes import child_env
from support.render_native import SCENARIO, pinned, reference_with, version

PROGRAM = """\
import json
import logging
import sys

order = sys.argv[1]
if order == "exceptstar first":
    import exceptstar
import sentry_sdk
from sentry_sdk.integrations.excepthook import ExcepthookIntegration
from sentry_sdk.integrations.logging import LoggingIntegration
from sentry_sdk.transport import Transport
if order == "sentry first":
    import exceptstar
if sys.version_info < (3, 11):
    from exceptstar import ExceptionGroup

EVENTS = []


class Capture(Transport):
    def capture_event(self, event):  # sentry-sdk 1.x hands an event over here
        EVENTS.append(event)

    def capture_envelope(self, envelope):
        for item in envelope.items:
            event = item.get_event()
            if event is not None:
                EVENTS.append(event)


""" + SCENARIO + """

sentry_sdk.init(dsn="http://key@127.0.0.1/1", transport=Capture, default_integrations=False,
                integrations=[LoggingIntegration(event_level=logging.ERROR), ExcepthookIntegration()])
try:
    scenario()
except Exception as error:
    sentry_sdk.capture_exception(error)
try:
    scenario()
except Exception:
    logging.getLogger("app").exception("logged")
try:
    scenario()
except Exception:
    sys.excepthook(*sys.exc_info())  # what the interpreter calls for an uncaught exception
sentry_sdk.flush()


def shape(frame):
    return {key: frame.get(key) for key in ("function", "lineno", "context_line")}


print(json.dumps([[{"type": value.get("type"), "value": value.get("value"), "mechanism": value.get("mechanism"),
                    "frames": [shape(f) for f in (value.get("stacktrace") or {}).get("frames", [])]}
                   for value in event["exception"]["values"]] for event in EVENTS], indent=1, sort_keys=True))
"""


def events(command: list[str], folder: Path, env: dict[str, str]) -> Any:
    (folder / "prog.py").write_text(PROGRAM)
    proc = subprocess.run(command, cwd=folder, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def native(tmp_path_factory: pytest.TempPathFactory) -> Any:
    reference, env = reference_with("sentry-sdk")
    return events([reference, "prog.py", "exceptstar first"], tmp_path_factory.mktemp("native"), env)


@pytest.mark.needs_processes
@pytest.mark.parametrize("order", ["exceptstar first", "sentry first", "run"])
def test_events_as_native(tmp_path: Path, native: Any, order: str) -> None:
    command = [sys.executable, *(["-m", "exceptstar", "run"] if order == "run" else []), "prog.py", order]
    assert events(command, tmp_path, child_env(False)) == native
    assert [len(event) for event in native] == [6, 6, 6]  # context, outer, value, inner, two members


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="sentry-sdk finds the built-in class there")
def test_turned_off_sentry_first_sees_no_group(tmp_path: Path, native: Any) -> None:
    found = events([sys.executable, "prog.py", "sentry first"], tmp_path,
                   {**child_env(False), "EXCEPTSTAR_NO_SENTRY": "1"})
    assert not any((value["mechanism"] or {}).get("is_exception_group") for event in found for value in event)
    assert found != native
    # sentry-sdk 3 walks any ``exceptions`` attribute, so it lists the members even unpatched, each
    # as a plain exception; 2.x stops at the group and its context.
    entries = 6 if int(str(version(sys.executable, "sentry-sdk")).split(".")[0]) >= 3 else 2
    assert [len(event) for event in found] == [entries] * 3


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="nothing is patched there: sentry-sdk finds the built-in class")
@pytest.mark.parametrize("order", ["exceptstar first", "sentry first", "run"])
def test_oldest_with_groups_as_native(tmp_path: Path, order: str) -> None:
    # sentry-sdk 1.26.0 is the first version that reports a group's members; it fails on 3.13
    # (copy() of a frame's locals), so its native side is 3.11.
    reference, env = pinned("sentry-sdk", "1.26.0", "py311")
    (tmp_path / "native").mkdir()
    native = events([reference, "prog.py", "exceptstar first"], tmp_path / "native", env)
    assert all(len(event) > 2 and any((value["mechanism"] or {}).get("is_exception_group") for value in event)
               for event in native)  # members reported (1.26 lists 8 entries where 2.75 lists 6)
    command = [sys.executable, *(["-m", "exceptstar", "run"] if order == "run" else []), "prog.py", order]
    assert events(command, tmp_path, env) == native
