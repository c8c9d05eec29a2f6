"""A small project measured by coverage.py, here and on native 3.11+ with the same coverage.

The project (``write``) is a module with branches, partial branches,
``# pragma: no cover`` exclusions, nested ``except*``, ``except*`` at module
level, in methods and in an async function; a main script that itself uses
``except*``; a module that is never imported (reports read it all the same);
and a test file for ``pytest --cov``.  ``measure`` runs ``coverage run`` on
the main script and then every report; ``native`` does the same on the
reference interpreter (3.11+) with *this* interpreter's coverage package, so
that both sides are the same version of coverage (the oracle's tracer is
then coverage's Python one: its C tracer is built for this interpreter only).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path
from typing import Any, NoReturn

import pytest

from support.interpreters import find_interpreters, native_python
from support.processes import child_env

JOBS = '''\
"""Jobs: a module that handles groups with except*."""
import asyncio

LIMIT = 3

try:
    raise ExceptionGroup("boot", [KeyError("k")])
except* KeyError:
    BOOTED = True


def run(items):
    done = []
    for item in items:
        try:
            if item < 0:
                raise ExceptionGroup("neg", [ValueError(item)])
            elif item == 0:
                raise ExceptionGroup("zero", [ZeroDivisionError(), TypeError()])
            done.append(item)
        except* ValueError as e:
            done.append(-1)
        except* ZeroDivisionError:
            done.append(0)
        except* TypeError:
            pass
    return done


def nested(flag):
    try:
        try:
            raise ExceptionGroup("a", [OSError(1), KeyError(2)])
        except* OSError:
            if flag:
                raise ExceptionGroup("b", [ValueError(3)])
    except* KeyError:
        result = "key"
    except* ValueError:
        result = "value"
    else:  # pragma: no cover
        result = "none"
    finally:
        final = True
    return result


class Worker:
    def __init__(self, name):
        self.name = name

    def work(self, n):
        try:
            if n:
                raise ExceptionGroup("w", [RuntimeError(n)])
        except* RuntimeError as eg:
            got = (
                self.name,
                len(eg.exceptions),
            )
        else:
            got = None
        return got

    def never(self):  # pragma: no cover
        try:
            pass
        except* Exception:
            pass


async def fetch(x):
    try:
        await asyncio.sleep(0)
        if x:
            raise ExceptionGroup("f", [LookupError(x)])
    except* LookupError:
        got = "lookup"
    else:
        got = "ok"
    return got


def partial(x):
    try:
        if x > 0:
            raise ExceptionGroup("p", [ValueError(x)])
    except* ValueError:
        while x > 5:
            x -= 1
    return x


def last(x):
    # Last in its function, and its last clause never runs.
    try:
        if x:
            raise ExceptionGroup("l", [OSError(x)])
    except* OSError:
        handled = True
    except* KeyError:
        handled = False


# Last in the module, and its last clause never runs.
try:
    raise ExceptionGroup("end", [OSError(1)])
except* OSError:
    ENDED = True
except* KeyError:
    ENDED = False
'''

# The calls the main script and the test file make, in the same order: the
# module's figures are the same under both.
CALLS = '''\
    assert jobs.run([1, -1, 0, 2]) == [1, -1, 0, 2]
    assert (jobs.nested(True), jobs.nested(False)) == ("value", "key")
    worker = jobs.Worker("w")
    assert (worker.work(1), worker.work(0)) == (("w", 1), None)
    assert asyncio.run(jobs.fetch(1)) == "lookup"
    assert jobs.partial(2) == 2
    assert jobs.last(1) is None
'''

MAIN = '''\
import asyncio
import jobs

try:
''' + CALLS + '''\
except* AssertionError:  # pragma: no cover
    raise SystemExit("wrong results")
except* OSError:
    pass
print("done")
'''

UNUSED = '''\
def never_imported(x):
    try:
        x()
    except* ValueError:
        return_value = 1
    except* (TypeError, KeyError) as e:
        if e:
            return_value = 2
    return return_value
'''

TEST_JOBS = '''\
import asyncio
import jobs


def test_jobs():
    try:
''' + textwrap.indent(CALLS, "    ") + '''\
    except* OSError:
        pass
'''

# coverage's settings, without and with the plugin (the form ``config coverage`` prints).
PLAIN = "[run]\nsource = .\n"
PLUGGED = PLAIN + "plugins = exceptstar\n"

# Run in each process: every report of the data, and what they wrote.
REPORTS = r'''
import io, json, os, re, sys, contextlib
from coverage.cmdline import main
rc, data, out = sys.argv[1:4]
results = {}
for name, args in [("json", ["json", "-o", out + ".json"]), ("lcov", ["lcov", "-o", out + ".lcov"]),
                   ("xml", ["xml", "-o", out + ".xml"]), ("html", ["html", "-d", out + "-html"])]:
    status = main([*args, "--rcfile=" + rc, "--data-file=" + data, "-q"])
    results[name + "_status"] = status
text = io.StringIO()
with contextlib.redirect_stdout(text):
    results["report_status"] = main(["report", "-m", "--rcfile=" + rc, "--data-file=" + data])
results["report"] = text.getvalue()
print(json.dumps(results))
'''


# coverage's static analysis of the module, with the settings coverage finds (or none).
ANALYSIS = ("import coverage, json, sys\n"
            "cov = coverage.Coverage(config_file=sys.argv[1:] != ['False'], data_file=None)\n"
            "_, statements, excluded, _, _ = cov.analysis2('jobs.py')\n"
            "print(json.dumps([statements, excluded]))\n")


def require(module: str) -> None:
    """Skip unless ``module`` is installed here; fail instead where the environment must have it."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        missing(f"{module} is not installed in this environment")


def missing(what: str) -> NoReturn:
    """Skip for a missing tool, or fail where the environments must have it (the matrix's linting
    environments, CI)."""
    if os.environ.get("EXCEPTSTAR_REQUIRE_LINT") or os.environ.get("CI"):
        pytest.fail(what)
    pytest.skip(what)


def write(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in [("jobs.py", JOBS), ("main.py", MAIN), ("unused.py", UNUSED), ("test_jobs.py", TEST_JOBS),
                       ("plain.rc", PLAIN), ("plugged.rc", PLUGGED)]:
        (folder / name).write_text(text)
    return folder


def native_env(folder: Path) -> dict[str, str]:
    """The reference interpreter's environment: this interpreter's coverage package, no exceptstar."""
    import coverage

    link = folder.parent / f"coverage-{os.getpid()}"
    link.mkdir(exist_ok=True)
    if not (link / "coverage").exists():
        (link / "coverage").symlink_to(Path(coverage.__file__).parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("EXCEPTSTAR_", "COVERAGE_"))}
    env.update(PYTHONPATH=str(link), PYTHONDONTWRITEBYTECODE="1")
    return env


def here_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in child_env(False).items() if not k.startswith("COVERAGE_")}
    env.update(extra)
    return env


def coverage(python: str, folder: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-m", "coverage", *args], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)


def measure(python: str, folder: Path, name: str, rc: str, env: dict[str, str], branch: bool,
            program: tuple[str, ...] = ("main.py",)) -> dict[str, Any]:
    """``coverage run`` of the main script into ``name``.data, then every report of it (as ``name``.*)."""
    run = coverage(python, folder, "run", *(["--branch"] if branch else []), f"--rcfile={rc}",
                   f"--data-file={name}.data", *program, env=env)
    assert run.returncode == 0 and "done" in run.stdout, run.stderr
    return reports(python, folder, name, rc, env)


def reports(python: str, folder: Path, name: str, rc: str, env: dict[str, str]) -> dict[str, Any]:
    proc = subprocess.run([python, "-c", REPORTS, rc, f"{name}.data", name], cwd=folder, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    results: dict[str, Any] = json.loads(proc.stdout)
    results["stderr"] = proc.stderr
    results["json"] = json.loads((folder / f"{name}.json").read_text())
    results["lcov"] = (folder / f"{name}.lcov").read_text()
    results["xml"] = (folder / f"{name}.xml").read_text()
    results["html"] = {path.name: (folder / f"{name}-html" / path.name).read_text()
                       for path in sorted((folder / f"{name}-html").glob("*.html"))}
    return results


def traced_native() -> str | None:
    """The newest native CPython on which coverage measures as it does on 3.8-3.10: with a tracer.

    From 3.14 coverage measures branches with sys.monitoring, whose events place the exit of a
    loop that ends an ``except*`` handler elsewhere (jobs.py's 89->91 reported as not taken,
    natively, with or without exceptstar): a difference of the tool's measurement between
    interpreters, not one exceptstar can or should make on 3.8-3.10.
    """
    found = [version for version in find_interpreters() if (3, 11) <= version < (3, 14)]
    return find_interpreters()[max(found)] if found else native_python()


def native(folder: Path, name: str, branch: bool) -> dict[str, Any]:
    exe = traced_native()
    assert exe is not None, "no CPython 3.11+ on this machine"
    return measure(exe, folder, name, "plain.rc", native_env(folder), branch)


def native_analysis(folder: Path) -> Any:
    """``ANALYSIS`` of the project's module on the reference interpreter, with no settings."""
    exe = traced_native()
    assert exe is not None, "no CPython 3.11+ on this machine"
    proc = subprocess.run([exe, "-c", ANALYSIS, "False"], cwd=folder, env=native_env(folder), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def comparable(results: dict[str, Any]) -> dict[str, Any]:
    """The reports less what names the run: the JSON's meta (version, timestamp), the XML's and
    HTML's timestamps and the data files' names."""
    report = dict(results["json"])
    report.pop("meta")
    stamp = re.compile(r'timestamp="\d+"|created at [^<"]*|\d{4}-\d\d-\d\d \d\d:\d\d [+-]\d{4}')
    return {
        "json": report,
        "lcov": results["lcov"],
        "xml": stamp.sub("", results["xml"]),
        "html": {name: stamp.sub("", text) for name, text in results["html"].items()},
        "report": results["report"],
        "status": [results[key] for key in sorted(results) if key.endswith("_status")],
    }
