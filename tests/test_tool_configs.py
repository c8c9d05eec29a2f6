"""``config`` and ``show`` against the real tools, on a project that targets 3.8 and uses except*.

Each tool must refuse the project as it is (so the test shows the problem is
real) and accept it with exactly the settings ``python -m exceptstar config``
prints, pasted in as docs/howto/linters.md says.  The tools are those of the linting
environments (the ``lint`` extra); elsewhere the tests skip, unless
EXCEPTSTAR_REQUIRE_LINT says they must run.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import cpython
from support.interpreters import find_interpreters, host_path, native_python, seen_by
from support.linters import tool
from support.processes import child_env
from support.ruff_rules import gated_at_311

JOBS = '''\
from typing import List

from exceptstar import ExceptionGroup


def run(jobs: List[str]) -> int:
    failed = 0
    try:
        raise ExceptionGroup("jobs", [ValueError(job) for job in jobs])
    except* ValueError as group:
        failed = len(group.exceptions)
    return failed
'''

MAIN = '''\
from app.jobs import run


def main() -> None:
    print(run(["a", "b"]))
'''




@pytest.fixture
def project(tmp_path: Path) -> Path:
    package = tmp_path / "src" / "app"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "jobs.py").write_text(JOBS)
    (package / "main.py").write_text(MAIN)
    return tmp_path


def exceptstar(*args: str, cwd: Path) -> str:
    proc = subprocess.run([sys.executable, "-m", "exceptstar", *args], cwd=cwd,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True)


def test_ruff(project: Path) -> None:
    ruff = tool("ruff")
    settings = '[tool.ruff]\ntarget-version = "py38"\n\n[tool.ruff.lint]\nselect = ["E", "F", "UP"]\n'
    (project / "pyproject.toml").write_text(settings)
    refused = run([ruff, "check", "src"], project)
    assert refused.returncode == 1
    assert "Cannot use `except*` on Python 3.8" in refused.stdout, refused.stdout

    (project / "pyproject.toml").write_text(settings + "\n" + exceptstar("config", "ruff", "src", cwd=project))
    accepted = run([ruff, "check", "src"], project)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


# A module for 3.8 that uses except*, with code that ruff's py311 advice would change.
ADVISED = '''\
import os
from typing import List, Optional

from exceptstar import ExceptionGroup


def _fail(message: str):
    raise ValueError(message)


def pair(jobs: List[str], limits: List[int], name: Optional[str] = None) -> int:
    try:
        _fail(name or "jobs")
    except* ValueError as group:
        return len(list(zip(jobs, limits))) + len(group.exceptions)
    return 0
'''


def test_ruff_advice_runs_on_the_target(project: Path) -> None:
    ruff = tool("ruff")
    (project / "src" / "app" / "jobs.py").write_text(ADVISED)
    (project / "src" / "app" / "plain.py").write_text(ADVISED.replace("except*", "except"))
    settings = ('[tool.ruff]\ntarget-version = "py38"\n\n[tool.ruff.lint]\n'
                'select = ["E", "F", "B", "UP", "A", "ANN"]\n')
    (project / "pyproject.toml").write_text(settings + "\n" + exceptstar("config", "ruff", "src", cwd=project))
    checked = run([ruff, "check", "--output-format", "json", "src"], project)
    found: dict[str, set[tuple[str, int, str]]] = {"jobs.py": set(), "plain.py": set()}
    for item in json.loads(checked.stdout):
        found[Path(item["filename"]).name].add((item["code"], item["location"]["row"], item["message"]))
    # In jobs.py, what ruff says at py38 of the same code without except*, less
    # the rules turned off there: no zip(strict=), `X | None`, `Never`, `list[str]`.
    ignored = json.loads(next(line for line in (project / "pyproject.toml").read_text().splitlines()
                              if line.startswith("'src/app/jobs.py' = [")).split(" = ", 1)[1])
    assert ("F401", 1, "`os` imported but unused") in found["plain.py"]
    assert found["jobs.py"] == {item for item in found["plain.py"] if not item[0].startswith(tuple(ignored))}


def test_ruff_ignores_every_rule_that_advises_311_code(project: Path, tmp_path: Path) -> None:
    ruff = tool("ruff")
    config = exceptstar("config", "ruff", "src", cwd=project)
    line = next(line for line in config.splitlines() if line.startswith("'src/app/jobs.py' = ["))
    ignored = json.loads(line.split(" = ", 1)[1])
    probes = tmp_path / "probes"
    probes.mkdir()
    gated = gated_at_311(ruff, probes)
    assert {"B905", "UP006", "UP045"} <= set(gated), gated  # the derivation finds what is known
    missed = {code: why for code, why in gated.items() if not code.startswith(tuple(ignored))}
    assert not missed, missed
    # And each rule turned off by its code is one that ruff shows advising differently
    # (pyupgrade's are all off: upgrading to the target is what they do).
    assert set(ignored) - {"UP"} <= set(gated), set(ignored) - set(gated)


def test_mypy(project: Path) -> None:
    mypy = tool("mypy")
    # The oldest target this mypy accepts: 3.8 under the 3.8 interpreter's mypy, else 3.10.
    target = "3.8" if sys.version_info < (3, 9) else "3.10"
    settings = f'python_version = "{target}"\nstrict = true\nmypy_path = "src"\nfiles = ["src"]\n'
    (project / "pyproject.toml").write_text("[tool.mypy]\n" + settings)
    refused = run([mypy, "--python-executable", sys.executable], project)
    # mypy parses with its interpreter's parser: 3.8's knows no except* at all.
    assert refused.returncode != 0
    message = "invalid syntax" if sys.version_info < (3, 11) and target == "3.8" else "3.11"
    assert "jobs.py" in refused.stdout and message in refused.stdout, refused.stdout

    config = exceptstar("config", "mypy", "src", cwd=project)
    # The printed [tool.mypy] table gains the project's own settings.
    (project / "pyproject.toml").write_text(config.replace("[tool.mypy]\n", "[tool.mypy]\n" + settings))
    accepted = run([mypy, "--python-executable", sys.executable], project)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "no issues found in 3 source files" in accepted.stdout, accepted.stdout


@pytest.mark.parametrize("name", ["pyright", "basedpyright"])
def test_pyright(project: Path, name: str) -> None:
    pyright = tool("basedpyright")
    settings = {"pythonVersion": "3.8", "include": ["src"], "typeCheckingMode": "standard"}
    (project / "pyrightconfig.json").write_text(json.dumps(settings))
    command = [pyright, "--pythonpath", sys.executable]
    refused = run(command, project)
    assert refused.returncode == 1
    assert "jobs.py" in refused.stdout, refused.stdout

    config = exceptstar("config", name, "--target=3.8", "src", cwd=project)
    settings.update(json.loads(config[config.index("{"):]))
    (project / "pyrightconfig.json").write_text(json.dumps(settings))
    # Run as the printed block says, which writes the typeshed it names (tests/test_pyright.py).
    accepted = run([sys.executable, "-m", "exceptstar", "basedpyright", *command[1:]], project)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


# pylint has no per-file settings: the message is disabled in the file itself,
# on a line of its own at module level, which covers the whole module.
PYLINT_DISABLE = "# pylint: disable=using-exception-groups-in-unsupported-version\n"


def test_pylint(project: Path) -> None:
    pylint = tool("pylint")
    # The project's own noise (docstrings), and the exceptstar import that
    # shadows the 3.11+ builtin (see docs/howto/linters.md), are not what is tested here.
    settings = ('[tool.pylint.main]\npy-version = "3.8"\n\n[tool.pylint."messages control"]\n'
                'disable = ["missing-docstring", "redefined-builtin"]\n')
    (project / "pyproject.toml").write_text(settings)
    command = [pylint, "--source-roots", "src", "src"]
    refused = run(command, project)
    assert refused.returncode != 0
    if sys.version_info < (3, 11):
        # astroid parses with the interpreter's own parser, which has no except*.
        assert "jobs.py:10:11: E0001" in refused.stdout, refused.stdout
        pytest.skip("pylint cannot parse except* under 3.8-3.10: it must run on 3.11+")
    assert "W2603" in refused.stdout and "using-exception-groups" in refused.stdout, refused.stdout

    jobs = project / "src" / "app" / "jobs.py"
    jobs.write_text(PYLINT_DISABLE + jobs.read_text())
    accepted = run(command, project)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


def test_flake8(project: Path) -> None:
    flake8 = tool("flake8")
    as_is = run([flake8, "src"], project)
    if sys.version_info >= (3, 11):
        # pyflakes parses with the interpreter's parser: 3.11+ reads except*.
        assert as_is.returncode == 0, as_is.stdout + as_is.stderr
    else:
        assert as_is.returncode == 1
        assert "jobs.py:10:11: E999 SyntaxError" in as_is.stdout, as_is.stdout

    (project / ".flake8").write_text(exceptstar("config", "flake8", "src", cwd=project))
    accepted = run([flake8, "src"], project)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr


def test_black(project: Path) -> None:
    black = tool("black")
    jobs = project / "src" / "app" / "jobs.py"
    formatted = jobs.read_text()
    jobs.write_text(formatted.replace("except* ValueError as group:", "except *ValueError  as group :"))
    settings = '\ntarget-version = ["py38"]\n'
    (project / "pyproject.toml").write_text("[tool.black]" + settings)
    as_is = run([black, "src"], project)
    if sys.version_info >= (3, 11):
        # black's own parser reads except* whatever the target, and it formats it.
        assert as_is.returncode == 0, as_is.stderr
        assert jobs.read_text() == formatted
        return
    # Its safety check compares the interpreter's ASTs, which 3.8-3.10 cannot build.
    assert as_is.returncode == 123
    assert "cannot use --safe with this file" in as_is.stderr, as_is.stderr

    config = exceptstar("config", "black", "src", cwd=project)
    (project / "pyproject.toml").write_text(config.replace("[tool.black]\n", "[tool.black]" + settings))
    # Left out whether black walks the folders or is given the file (pre-commit).
    for paths in (["src"], ["src/app/jobs.py", "src/app/main.py"]):
        accepted = run([black, "--check", *paths], project)
        assert accepted.returncode == 0, accepted.stderr


@pytest.mark.needs_processes
def test_config_finds_the_files_as_check_does(project: Path) -> None:
    (project / "src" / "app" / "README.txt").write_text("except* in prose")
    (project / ".venv").mkdir()
    (project / ".venv" / "vendored.py").write_text(JOBS)
    config = exceptstar("config", "pyright", cwd=project)
    environments = json.loads(config[config.index("{"):])["executionEnvironments"]
    assert [environment["root"] for environment in environments] == ["src/app/jobs.py"]


# `except*` that is no clause: the tokens hold none, so the tools parse these files at any target.
NOT_CLAUSES = {
    "comment.py": "# retried with except* ValueError\nx = 1\n",
    "docstring.py": 'def f() -> None:\n    """Handles the group.\n\n    except* ValueError:\n    """\n',
    "strings.py": "a = 'except*'\nb = f\"{a} except *X\"\nc = b'except\\\n*'\n",
    "names.py": "exceptions = 2\nexcept_ = exceptions * 2\n",
}
# Folders that are not the project's own: what builds write, eggs, environments.
NOT_PROJECT = ["build/lib/app/jobs.py", "dist/app/jobs.py", ".tox/py38/lib/jobs.py", ".nox/tests/jobs.py",
               "app.egg-info/jobs.py", "eggs/app-1.0-py3.8.egg/app/jobs.py", "lib/site-packages/jobs.py",
               "venv/jobs.py", "env38/jobs.py", "oldenv/jobs.py", ".eggs/jobs.py", "_build/jobs.py"]


@pytest.mark.needs_processes
def test_config_lists_the_clauses_only(project: Path) -> None:
    app = project / "src" / "app"
    for name, text in NOT_CLAUSES.items():
        (app / name).write_text(text)
    for path in NOT_PROJECT:
        (project / path).parent.mkdir(parents=True, exist_ok=True)
        (project / path).write_text(JOBS)
    (project / "env38" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project / "oldenv" / "bin").mkdir()
    (project / "oldenv" / "bin" / "activate").write_text("")
    # A package of the project that is named as build output is the project's.
    (project / "src" / "build").mkdir()
    (project / "src" / "build" / "__init__.py").write_text("")
    (project / "src" / "build" / "steps.py").write_text(JOBS)
    # A clause that is one even when spelled apart, and one the parser rejects (check's to report).
    (app / "spaced.py").write_text(JOBS.replace("except* ValueError", "except \\\n    *ValueError"))
    (app / "invalid.py").write_text(JOBS.replace("except* ValueError as group", "except*"))
    # Source that does not parse: the tokens still tell a clause from a string.
    (app / "broken.py").write_text(JOBS + "(\n")
    (app / "broken_string.py").write_text(NOT_CLAUSES["docstring.py"] + "(\n")
    config = exceptstar("config", "flake8", cwd=project)
    assert config.split("extend-exclude =\n", 1)[1].split() == [
        "src/app/broken.py", "src/app/invalid.py", "src/app/jobs.py", "src/app/spaced.py", "src/build/steps.py"]
    # check walks the same files.
    proc = run([sys.executable, "-m", "exceptstar", "check", "."], project)
    reported = [line.split(":")[0] for line in proc.stdout.splitlines()]
    assert reported == ["./src/app/broken.py", "./src/app/broken_string.py", "./src/app/invalid.py"], proc.stdout


NATIVE_CLAUSES = """\
import ast, os, re, sys
root = sys.argv[1]
for folder, dirs, names in os.walk(root):
    dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "__pycache__"))
    for name in sorted(names):
        path = os.path.join(folder, name)
        source = open(path, "rb").read() if name.endswith(".py") else b""
        # Without these bytes no tokens can be `except` and `*`: only those files are parsed.
        if re.search(rb"except[ \\t\\f\\r\\n\\\\]*[*]", source):
            try:
                tree = ast.parse(source)
            except (SyntaxError, ValueError):
                continue
            if any(isinstance(node, ast.TryStar) for node in ast.walk(tree)):
                print(path)
"""


def test_config_lists_the_files_native_parses_with_except_star(tmp_path: Path) -> None:
    # The standard library of the reference 3.11+: its tests use except*, and
    # mention it in comments, docstrings and strings.  config, on this
    # interpreter, lists exactly the files whose native tree holds a TryStar.
    tests = cpython.folder()
    if tests is None:
        pytest.skip("needs a CPython 3.11+ for reference")
    exe = str(native_python())
    native = run([exe, "-c", NATIVE_CLAUSES, seen_by(exe, tests.parent)], tmp_path)
    assert native.returncode == 0, native.stderr
    listed_natively = [str(host_path(exe, line)) for line in native.stdout.splitlines()]
    config = exceptstar("config", "flake8", str(tests.parent), cwd=tmp_path)
    listed = config.split("extend-exclude =\n", 1)[1].split()
    assert sorted(listed) == sorted(listed_natively)
    assert len(listed) >= 5


# A package whose modules mention except* in words (its docstring, a comment,
# a message) beside the one that uses it, and a planted error outside it.
PACKAGE = {
    "__init__.py": '"""Retries, with except* handlers inside."""\n',
    "retry.py": JOBS,
    "notes.py": '# retry.py handles them with except* ValueError\nHELP = "see except* in retry"\n'
                'oops: int = "not an int"\n',
}


@pytest.mark.needs_processes
def test_mypy_checks_every_module(project: Path) -> None:
    package = project / "src" / "gatherkit"
    package.mkdir()
    for name, text in PACKAGE.items():
        (package / name).write_text(text)
    (package / "retry.py").write_text(JOBS.replace("    return failed", "    wrong: str = failed\n    return failed"))
    (project / "src" / "app").rename(project / "app")  # src: the one package
    target = "3.8" if sys.version_info < (3, 9) else "3.10"
    settings = f'python_version = "{target}"\nstrict = true\nmypy_path = "src"\nfiles = ["src"]\n'
    config = exceptstar("config", "mypy", str(project / "src"), cwd=project)
    (project / "pyproject.toml").write_text(config.replace("[tool.mypy]\n", "[tool.mypy]\n" + settings))
    checked = run([tool("mypy"), "--python-executable", sys.executable], project)
    # The except* module is checked too (its planted error found), with the others.
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert 'src/gatherkit/notes.py:3: error: Incompatible types in assignment' in checked.stdout, checked.stdout
    assert 'src/gatherkit/retry.py:12: error: Incompatible types in assignment' in checked.stdout, checked.stdout
    assert "Found 2 errors in 2 files (checked 3 source files)" in checked.stdout, checked.stdout


HOWTO = Path(__file__).resolve().parent.parent / "docs" / "howto"


# pyright's block names the target too: tests/test_pyright.py compares it with its page.
@pytest.mark.needs_processes
@pytest.mark.parametrize("name", ["ruff", "mypy", "flake8", "black"])
def test_docs_show_what_config_prints(project: Path, name: str) -> None:
    page = (HOWTO / "mypy.md").read_text() if name == "mypy" else (HOWTO / "linters.md").read_text()
    section = page[page.index(f"# {name}\n"):]
    shown = re.search(r"```(?:toml|json|ini)\n(.*?)```", section, re.S)
    assert shown, name
    printed = exceptstar("config", name, "src", cwd=project).splitlines(keepends=True)
    # Less the lines that say where the text goes.
    assert "".join(line for line in printed if not line.startswith(("# ", "// "))) == shown.group(1)


@pytest.mark.needs_processes
def test_config_without_star_files(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text("x = 1\n")
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "config", "ruff", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert "no file uses except*" in proc.stderr


@pytest.mark.needs_processes
def test_config_unknown_tool(project: Path) -> None:
    proc = run([sys.executable, "-m", "exceptstar", "config", "pylint"], project)
    assert proc.returncode == 2
    assert "unknown tool 'pylint'" in proc.stderr


@pytest.mark.needs_processes
def test_show_maps_lines(project: Path) -> None:
    shown = exceptstar("show", "src/app/jobs.py", cwd=project).splitlines()
    # What runs: the handler became a call of the engine, and its body keeps its line.
    assert any(line.split("|", 1)[1].strip() == "failed = len(group.exceptions)"
               and line.split("|", 1)[0].strip() == "11" for line in shown), shown
    assert any("__es_star_1__.match(ValueError, " in line for line in shown), shown
    assert not any("except*" in line for line in shown)


# More than jobs.py: nesting, f-strings, decorators, docstrings, async, the
# shapes 3.8 parses differently (subscripts) and precedence.
RICH = '''\
"""Jobs, in groups."""
import asyncio


class Runner:
    """Runs them."""

    @staticmethod
    async def run(jobs, /, *, limit=lambda n: n ** -1, **options):
        try:
            async with asyncio.timeout(1) as scope, open("log") as log:
                results = [(y := job()) for job in jobs if (y := job) is not None]
        except* (ValueError, TypeError) as group:
            try:
                raise ExceptionGroup("again", [*group.exceptions])
            except* ValueError:
                log.write(f"{group!r:>{options['width']}} {'x' if -1 ** 2 else (-1) ** 2}\\n")
        except* OSError:
            raise
        else:
            return results[1:2, ::3], results[()], {*()}, not a < b <= c
        finally:
            await scope
'''


def test_show_same_on_38_and_39(project: Path) -> None:
    # On 3.8 show writes the text with exceptstar's own unparser, on 3.9 with
    # ast.unparse: the same text, line for line.
    found = find_interpreters()
    if (3, 8) not in found or (3, 9) not in found:
        pytest.skip(f"needs CPython 3.8 and 3.9 (found {sorted(found)})")
    (project / "src" / "app" / "rich.py").write_text(RICH)
    for path in ("src/app/jobs.py", "src/app/rich.py"):
        shown = [subprocess.run([found[version], "-m", "exceptstar", "show", path], cwd=project,
                                capture_output=True, text=True, env=child_env(False))
                 for version in ((3, 8), (3, 9))]
        for proc in shown:
            assert proc.returncode == 0, proc.stderr
        assert "except*" not in shown[0].stdout and "__es_star_1__" in shown[0].stdout
        assert shown[0].stdout == shown[1].stdout
