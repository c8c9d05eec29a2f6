"""pyright and basedpyright on a project that targets 3.9 and uses except*, against the same tool at 3.11.

The project has planted errors inside handlers, outside them, in a module with
``except*`` (``jobs.py``), one without (``plain.py``) and a caller of the first
(``main.py``); every planted line carries a ``# plant: NAME`` tag.  Three runs of
one tool (the same binary), on the same files:

- the route: the settings ``config`` prints, the tool run as ``python -m
  exceptstar pyright|basedpyright`` at the 3.9 target;
- the oracle: the tool at a 3.11 target with a native 3.11+ interpreter and
  its own typeshed, no exceptstar setting;
- the target: the tool at the 3.9 target, the ``except*`` files ignored.

The route reports in ``jobs.py`` what the oracle reports there (the handlers'
types, every error that depends on them), what the target reports for the
target-only lines (``tomllib``), and in the other modules what the target
reports.  What it cannot report (docs/howto/pyright.md says why) is pinned: the syntax
the runtime union of 3.10 and the module's own version checks, read as
3.11 code in ``jobs.py``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.interpreters import native_python
from support.linters import tool
from support.processes import SRC, exceptstar

from exceptstar._integrations import pyright as pyright_module

JOBS = '''\
import sys
import tomllib  # plant: tomllib
from typing import List, Union

from exceptstar import BaseExceptionGroup, ExceptionGroup


def keep(group: ExceptionGroup[ValueError]) -> None: ...


def needs_type_errors(group: ExceptionGroup[TypeError]) -> None: ...


def run(jobs: List[str]) -> int:
    failed = 0
    try:
        raise ExceptionGroup("jobs", [ValueError(job) for job in jobs])
    except* ValueError as group:
        reveal_type(group)  # plant: reveal-value
        reveal_type(group.exceptions)  # plant: reveal-members
        failed = len(group.exceptions)
        keep(group)  # plant: same-class
        needs_type_errors(group)  # plant: wrong-member
        oops: int = "not an int"  # plant: handler-assignment
        group.nope  # plant: handler-attribute
        rest = group.split(KeyError)  # plant: split
        reveal_type(rest)  # plant: reveal-split
    except* KeyboardInterrupt as stop:
        reveal_type(stop)  # plant: reveal-base
        base: BaseExceptionGroup[KeyboardInterrupt] = stop  # plant: base-assignment
    except* (TypeError, OSError) as either:
        reveal_type(either)  # plant: reveal-tuple
    except* ExceptionGroup:  # plant: group-in-star
        pass
    outside: str = 1  # plant: outside
    return failed


def later(value: Union[int, str]) -> int:
    match value:  # plant: match
        case 1:
            return 1
    return 0


Alias = int | str  # plant: union

if sys.version_info < (3, 10):
    gated: int = "checked below 3.10 only"  # plant: version-gated
'''

PLAIN = '''\
import sys
import tomllib  # plant: tomllib
from typing import Union

from exceptstar import ExceptionGroup, catch


def handler(group: ExceptionGroup[ValueError]) -> None:
    reveal_type(group.exceptions)  # plant: reveal-members
    wrong: int = group  # plant: plain-assignment


def work() -> None:
    with catch({ValueError: handler}):
        raise ExceptionGroup("x", [ValueError()])
    undefined_name  # plant: undefined


def later(value: Union[int, str]) -> int:
    match value:  # plant: match
        case 1:
            return 1
    return 0


Alias = int | str  # plant: union

if sys.version_info < (3, 10):
    gated: int = "checked below 3.10 only"  # plant: version-gated
'''

MAIN = '''\
from app.jobs import run


def main() -> None:
    reveal_type(run)  # plant: reveal-caller
    text: str = run(["a"])  # plant: caller
'''

# Checked as 3.11 code in jobs.py, so the 3.9 target's objections are not reported there.
AS_311 = {"match", "union", "version-gated"}
# The target's own, reported in jobs.py as in plain.py.
TARGET_ONLY = {"tomllib"}

Diagnostic = tuple  # (file, tag, severity, rule, message)


def project(root: Path) -> Path:
    package = root / "src" / "app"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "jobs.py").write_text(JOBS)
    (package / "plain.py").write_text(PLAIN)
    (package / "main.py").write_text(MAIN)
    return root


def tags(path: Path) -> dict[int, str]:
    found = {}
    for number, line in enumerate(path.read_text().splitlines()):
        match = re.search(r"# plant: (\S+)", line)
        if match:
            found[number] = match.group(1)
    return found


def diagnostics(command: list[str], root: Path) -> tuple[int, set[Diagnostic]]:
    env = dict(os.environ, PYRIGHT_PYTHON_IGNORE_WARNINGS="1")
    proc = subprocess.run([*command, "--outputjson"], cwd=root, capture_output=True, text=True, env=env,
                          timeout=600)
    # basedpyright may print a line about its baseline first.
    assert "{" in proc.stdout, proc.stdout + proc.stderr
    found = set()
    for item in json.loads(proc.stdout[proc.stdout.index("{"):])["generalDiagnostics"]:
        path = Path(item["file"])
        line = item["range"]["start"]["line"]
        found.add((path.name, tags(path).get(line), item["severity"], item.get("rule"), item["message"]))
    return proc.returncode, found


def only(found: set[Diagnostic], name: str, wanted: set[str] | None = None,
         but: frozenset[str] | set[str] = frozenset()) -> set[Diagnostic]:
    return {d for d in found if d[0] == name and (wanted is None or d[1] in wanted) and d[1] not in but}


def settings(**more: object) -> dict[str, object]:
    # The project's own settings; strict, so that every unknown type is an error.
    return {"include": ["src"], "typeCheckingMode": "strict", "reportUnusedExpression": "error", **more}


def run_all(name: str, tmp_path: Path) -> tuple[int, set[Diagnostic], set[Diagnostic], set[Diagnostic]]:
    command = tool(name)
    native = native_python()
    if native is None:
        pytest.skip("needs a CPython 3.11+ for the oracle")
    route_root = project(tmp_path / "route")
    printed = exceptstar("config", name, "--target=3.9", "src", cwd=route_root)
    assert printed.returncode == 0, printed.stderr
    block = json.loads(printed.stdout[printed.stdout.index("{"):])
    (route_root / "pyrightconfig.json").write_text(json.dumps(settings(**block)))
    status, route = diagnostics([sys.executable, "-m", "exceptstar", name, "--pythonpath", sys.executable],
                                route_root)

    oracle_root = project(tmp_path / "oracle")
    # exceptstar from the source tree, as a native interpreter with it installed would see it.
    (oracle_root / "pyrightconfig.json").write_text(json.dumps(settings(
        pythonVersion="3.11", extraPaths=["src", str(SRC)])))
    _, oracle = diagnostics([command, "--pythonpath", native], oracle_root)

    target_root = project(tmp_path / "target")
    (target_root / "pyrightconfig.json").write_text(json.dumps(settings(
        pythonVersion="3.9", ignore=["src/app/jobs.py"])))
    _, target = diagnostics([command, "--pythonpath", sys.executable], target_root)
    return status, route, oracle, target


Runs = tuple  # (the route's status, route, oracle, target)


@pytest.fixture(scope="module", params=["pyright", "basedpyright"])
def runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return run_all(request.param, tmp_path_factory.mktemp(request.param))


def test_route_reports_what_the_tool_reports_at_311(runs: Runs) -> None:
    status, route, oracle, target = runs
    # The tool's own status: 1 for the planted errors.
    assert status == 1
    # Every diagnostic in jobs.py is on a planted line: no syntax error, no unknown handler type.
    assert not {d for d in only(route, "jobs.py") if d[1] is None}, only(route, "jobs.py")
    # The except* module: as at 3.11, but for the target-only lines and the 3.10 syntax.
    assert only(route, "jobs.py", but=TARGET_ONLY | AS_311) == only(oracle, "jobs.py", but=TARGET_ONLY | AS_311)
    strip = {(d[1], d[2], d[3], d[4]) for d in only(target, "plain.py", TARGET_ONLY)}
    assert {(d[1], d[2], d[3], d[4]) for d in only(route, "jobs.py", TARGET_ONLY)} == strip
    # The handlers' names as at 3.11, and the planted errors reported.
    reveals = {d[1]: d[4] for d in only(route, "jobs.py") if d[2] == "information"}
    assert reveals["reveal-value"] == 'Type of "group" is "ExceptionGroup[ValueError]"'
    assert reveals["reveal-tuple"] == 'Type of "either" is "ExceptionGroup[TypeError | OSError]"'
    # The README's remark: ExceptionGroup for a BaseException too, as the tool says at 3.11.
    assert reveals["reveal-base"] == 'Type of "stop" is "ExceptionGroup[KeyboardInterrupt]"'
    reported = {d[1] for d in only(route, "jobs.py") if d[2] == "error"}
    assert {"wrong-member", "handler-assignment", "handler-attribute", "group-in-star", "outside"} <= reported
    # exceptstar's classes are the builtins' there, as at run time.
    assert "same-class" not in reported
    assert {d[3] for d in only(route, "jobs.py", {"base-assignment"})} <= {"reportUnusedVariable"}
    # Everything else keeps the target.
    assert only(route, "plain.py") == only(target, "plain.py")
    assert {"match", "union", "version-gated", "undefined", "plain-assignment"} <= {
        d[1] for d in only(route, "plain.py")}
    # The caller sees run's real type.
    assert only(route, "main.py") == only(oracle, "main.py")


def test_what_is_checked_as_311_code(runs: Runs) -> None:
    # The README's "not reported": 3.10's syntax, runtime unions and the
    # module's own version checks in an except* module, which the tool checks
    # as 3.11 code there.
    _, route, oracle, target = runs

    def said(found: set[Diagnostic], name: str) -> set[tuple[str, str]]:
        return {(d[1], d[4]) for d in only(found, name, AS_311)}

    objections = said(target, "plain.py") - said(oracle, "plain.py")
    assert {tag for tag, _ in objections} == AS_311, objections
    assert said(route, "plain.py") == said(target, "plain.py")
    assert not objections & said(route, "jobs.py")
    assert said(route, "jobs.py") == said(oracle, "jobs.py")


@pytest.mark.parametrize("name", ["pyright", "basedpyright"])
def test_without_the_route(name: str, tmp_path: Path) -> None:
    # The problem is real: at the target, the plain tool refuses except* and
    # cannot type the handlers' names.
    root = project(tmp_path)
    (root / "pyrightconfig.json").write_text(json.dumps(settings(pythonVersion="3.9")))
    _, found = diagnostics([tool(name), "--pythonpath", sys.executable], root)
    messages = {d[4] for d in only(found, "jobs.py")}
    assert 'Exception group syntax ("except*") requires Python 3.11 or newer' in messages
    assert 'Type of "group" is "Unknown"' in messages


@pytest.mark.needs_processes
def test_docs_block_is_what_config_prints(tmp_path: Path) -> None:
    section = (SRC.parent / "docs" / "howto" / "pyright.md").read_text()
    shown = json.loads(section[section.index("```json\n") + 8:section.index("```\n", section.index("```json"))])
    root = project(tmp_path)
    printed = exceptstar("config", "pyright", "--target=3.9", "src", cwd=root)
    assert json.loads(printed.stdout[printed.stdout.index("{"):]) == shown
    assert "python -m exceptstar config pyright --target=3.9 src" in section


def test_wrapper_passes_status_and_arguments(tmp_path: Path) -> None:
    tool("basedpyright")
    root = project(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "basedpyright", "--version"], cwd=root,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith("basedpyright "), proc.stdout + proc.stderr
    # No exceptstar folder named: nothing written.
    assert not (root / ".exceptstar").exists()
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "basedpyright", "--no-such-option"], cwd=root,
                          capture_output=True, text=True)
    direct = subprocess.run([tool("basedpyright"), "--no-such-option"], cwd=root, capture_output=True, text=True)
    assert proc.returncode == direct.returncode != 0


def test_wrapper_writes_the_folder_from_the_tool_it_runs(tmp_path: Path) -> None:
    command = tool("basedpyright")
    root = project(tmp_path)
    printed = exceptstar("config", "basedpyright", "--target=3.9", "src", cwd=root)
    block = json.loads(printed.stdout[printed.stdout.index("{"):])
    (root / "pyproject.toml").write_text(f'[tool.basedpyright]\ntypeshedPath = "{block["typeshedPath"]}"\n')
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "basedpyright", "--version"], cwd=root / "src",
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    folder = root / ".exceptstar" / "typeshed-3.9"
    stamp = json.loads((folder / "exceptstar-typeshed.json").read_text())
    assert (folder / "stubs").is_dir()
    assert "tomllib: 3.12-" in (folder / "stdlib" / "VERSIONS").read_text()
    assert "from exceptstar._group_types import BaseExceptionGroup" in (folder / "stdlib" / "builtins.pyi").read_text()
    assert (root / ".exceptstar" / ".gitignore").read_text().endswith("*\n")
    # Made from the basedpyright that ran.
    assert Path(stamp["source"]).resolve() == Path(
        pyright_module.bundled_typeshed("basedpyright", command)).resolve()
