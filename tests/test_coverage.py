"""coverage.py and ``except*`` (issue 19, part 1): every report as on native 3.11+.

The same project (``support.coverage_project``) is measured here with the
plugin (``plugins = exceptstar``) and on the reference interpreter without it,
both with this interpreter's coverage: the JSON, LCOV, XML, HTML and text
reports must be equal, with and without branch coverage; data from both
combine into the same reports.  On 3.11+ the same comparison shows that the
plugin changes no figure.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict

import pytest
from support import coverage_project as project
from support.interpreters import native_python
from support.processes import exceptstar

Results = Dict[str, Any]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project.require("coverage")
    if native_python() is None:
        pytest.skip("no CPython 3.11+ on this machine")
    return project.write(tmp_path_factory.mktemp("coverage") / "project")


@pytest.fixture(scope="module")
def runs(folder: Path) -> Callable[[str, bool], Results]:
    """``runs(side, branch)``: the project measured once per side ("ours", "native") and mode."""
    done: dict[tuple[str, bool], Results] = {}

    def get(side: str, branch: bool) -> Results:
        if (side, branch) not in done:
            name = f"{side}-{'branch' if branch else 'lines'}"
            done[side, branch] = (project.native(folder, name, branch) if side == "native" else
                                  project.measure(sys.executable, folder, name, "plugged.rc", project.here_env(),
                                                  branch))
        return done[side, branch]

    return get


@pytest.fixture(scope="module")
def native_analysis(folder: Path) -> Any:
    """coverage's statements and exclusions in the module, on the reference interpreter."""
    analysis = project.native_analysis(folder)
    assert analysis[0] and analysis[1]
    return analysis


@pytest.mark.parametrize("branch", [False, True], ids=["lines", "branches"])
def test_reports_equal_native(runs: Callable[[str, bool], Results], branch: bool) -> None:
    ours, native = runs("ours", branch), runs("native", branch)
    assert ours["stderr"] == native["stderr"] == ""
    expected = project.comparable(native)
    # The native report is the oracle only if it measured something real.
    assert expected["json"]["files"]["jobs.py"]["summary"]["missing_lines"] > 0
    assert expected["json"]["files"]["jobs.py"]["excluded_lines"]
    assert project.comparable(ours) == expected


def test_combined_with_native_data(folder: Path, runs: Callable[[str, bool], Results]) -> None:
    """One CI job per version, then ``coverage combine``, reported on either interpreter."""
    runs("ours", True)
    native = runs("native", True)
    for name, python, env, rc in [("combined-here", sys.executable, project.here_env(), "plugged.rc"),
                                  ("combined-native", project.traced_native(), project.native_env(folder), "plain.rc")]:
        assert python is not None
        combine = project.coverage(python, folder, "combine", "--keep", f"--rcfile={rc}", f"--data-file={name}.data",
                                   "ours-branch.data", "native-branch.data", env=env)
        assert combine.returncode == 0, combine.stderr
        combined = project.reports(python, folder, name, rc, env)
        assert project.comparable(combined) == project.comparable(native), name


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="3.11+ coverage reads except* itself")
def test_without_the_plugin_the_reports_fail(folder: Path, runs: Callable[[str, bool], Results]) -> None:
    runs("ours", False)
    proc = project.coverage(sys.executable, folder, "report", "--rcfile=plain.rc", "--data-file=ours-lines.data",
                            env=project.here_env())
    assert proc.returncode == 1
    assert "Couldn't parse" in proc.stdout + proc.stderr


def test_pytest_cov(folder: Path, runs: Callable[[str, bool], Results]) -> None:
    """``pytest --cov`` with the plugin in coverage's settings: a test file and the module it tests use except*."""
    project.require("pytest_cov")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=.", "--cov-branch",
                           "--cov-config=plugged.rc", "--cov-report=json:pytest-cov.json", "test_jobs.py"],
                          cwd=folder, env=project.here_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout
    report = json.loads((folder / "pytest-cov.json").read_text())
    native = runs("native", True)["json"]
    assert report["files"]["jobs.py"] == native["files"]["jobs.py"]
    assert report["files"]["unused.py"] == native["files"]["unused.py"]


@pytest.mark.parametrize("settings", ["pyproject.toml", ".coveragerc", "setup.cfg", "tox.ini"])
def test_config_coverage_in_each_settings_file(folder: Path, native_analysis: Any, settings: str) -> None:
    """What ``python -m exceptstar config coverage`` prints, in each file coverage reads."""
    printed = exceptstar("config", "coverage", cwd=folder)
    assert printed.returncode == 0, printed.stderr
    toml, _, ini = printed.stdout.partition("\n\n")
    text = {"pyproject.toml": toml, ".coveragerc": ini,
            "setup.cfg": ini.replace("[run]", "[coverage:run]"), "tox.ini": ini.replace("[run]", "[coverage:run]")}
    place = folder.parent / f"settings-{settings}"
    place.mkdir()
    (place / "jobs.py").write_text(project.JOBS)
    (place / settings).write_text(text[settings])
    proc = subprocess.run([sys.executable, "-c", project.ANALYSIS], cwd=place, env=project.here_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == native_analysis


def test_coverage_api_under_run(folder: Path, native_analysis: Any) -> None:
    """A program run with ``python -m exceptstar run`` (a global ``install()``) may use coverage's API with
    no settings at all: coverage is adapted when it is imported."""
    place = folder.parent / "api"
    place.mkdir()
    (place / "jobs.py").write_text(project.JOBS)
    (place / "api.py").write_text(project.ANALYSIS)
    proc = exceptstar("run", "api.py", "False", cwd=place)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == native_analysis


@pytest.mark.skipif(sys.version_info < (3, 12), reason="coverage's sys.monitoring core needs 3.12+")
def test_sysmon_core(folder: Path, runs: Callable[[str, bool], Results]) -> None:
    """With the plugin set, COVERAGE_CORE=sysmon runs (the plugin traces nothing) and counts the same."""
    ours = project.measure(sys.executable, folder, "sysmon", "plugged.rc", project.here_env(COVERAGE_CORE="sysmon"),
                           False)
    assert project.comparable(ours) == project.comparable(runs("native", False))


PACKAGE_INIT = """\
try:
    raise ExceptionGroup("init", [OSError(1)])
except* OSError:
    READY = True
"""
PACKAGE_MAIN = """\
import pkg

try:
    raise ExceptionGroup("main", [KeyError(1)])
except* KeyError:
    print("done", pkg.READY)
except* OSError:
    print("never")
"""


def test_run_dash_m_of_a_module_whose_package_uses_except_star(folder: Path) -> None:
    """``coverage run -m pkg.mod``: runpy imports ``pkg`` (which uses except*) after the plugin has loaded."""
    place = folder.parent / "dash-m"
    (place / "pkg").mkdir(parents=True)
    (place / "pkg" / "__init__.py").write_text(PACKAGE_INIT)
    (place / "pkg" / "mod.py").write_text(PACKAGE_MAIN)
    for name, text in (("plain.rc", project.PLAIN), ("plugged.rc", project.PLUGGED)):
        (place / name).write_text(text)
    exe = project.traced_native()
    assert exe is not None
    native = project.measure(exe, place, "native", "plain.rc", project.native_env(place), True, ("-m", "pkg.mod"))
    ours = project.measure(sys.executable, place, "ours", "plugged.rc", project.here_env(), True, ("-m", "pkg.mod"))
    assert project.comparable(ours) == project.comparable(native)
    assert native["json"]["files"]["pkg/mod.py"]["missing_lines"] == [8]
