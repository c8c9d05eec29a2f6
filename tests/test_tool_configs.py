"""``config`` and ``show`` against the real tools, on a project that targets 3.8 and uses except*.

Each tool must refuse the project as it is (so the test shows the problem is
real) and accept it with exactly the settings ``python -m exceptstar config``
prints, pasted in as docs/howto/linters.md says.  The tools are those of the linting
environments (the ``lint`` extra); elsewhere the tests skip, unless
EXCEPTSTAR_REQUIRE_LINT says they must run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.interpreters import find_interpreters
from support.linters import tool
from support.processes import child_env

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


def test_pyright(project: Path) -> None:
    pyright = tool("basedpyright")
    settings = {"pythonVersion": "3.8", "include": ["src"], "typeCheckingMode": "standard"}
    (project / "pyrightconfig.json").write_text(json.dumps(settings))
    command = [pyright, "--pythonpath", sys.executable]
    refused = run(command, project)
    assert refused.returncode == 1
    assert "jobs.py" in refused.stdout, refused.stdout

    config = exceptstar("config", "pyright", "src", cwd=project)
    settings.update(json.loads(config[config.index("{"):]))
    (project / "pyrightconfig.json").write_text(json.dumps(settings))
    accepted = run(command, project)
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


def test_config_finds_the_files_as_check_does(project: Path) -> None:
    (project / "src" / "app" / "README.txt").write_text("except* in prose")
    (project / ".venv").mkdir()
    (project / ".venv" / "vendored.py").write_text(JOBS)
    config = exceptstar("config", "pyright", cwd=project)
    assert json.loads(config[config.index("{"):]) == {"ignore": ["src/app/jobs.py"]}


def test_config_without_star_files(tmp_path: Path) -> None:
    (tmp_path / "plain.py").write_text("x = 1\n")
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "config", "ruff", str(tmp_path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout == ""
    assert "no file uses except*" in proc.stderr


def test_config_unknown_tool(project: Path) -> None:
    proc = run([sys.executable, "-m", "exceptstar", "config", "pylint"], project)
    assert proc.returncode == 2
    assert "unknown tool 'pylint'" in proc.stderr


def test_show_maps_lines(project: Path) -> None:
    shown = exceptstar("show", "src/app/jobs.py", cwd=project).splitlines()
    # What runs: the handler became a call of the engine, and its body keeps its line.
    assert any(line.split("|", 1)[1].strip() == "failed = len(group.exceptions)"
               and line.split("|", 1)[0].strip() == "11" for line in shown), shown
    assert any("__es_star_1__.match(ValueError)" in line for line in shown), shown
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
