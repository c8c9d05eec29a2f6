"""A typed library that uses ``except*``, built into wheels, and a user module that imports it.

The library ``gatherkit`` (``retry``, ``fanout`` and ``validate`` use
``except*``; ``plain`` names it only in a comment and a string) is built with
``python -m build`` by setuptools or hatchling with exceptstar in its
``build-system.requires``.  Its users' environments are virtual environments
made once per machine (in the temporary folder, keyed by the interpreter,
the requirements and this checkout): one per interpreter with the mypy that
runs there, exceptstar installed from this checkout (the library's dependency).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from support.interpreters import make_venv
from support.processes import ROOT
from support.render_native import made_once

LIBRARY = {
    "src/gatherkit/py.typed": "",
    "src/gatherkit/__init__.py": '''\
"""gatherkit: retries and fan-outs that report every failure."""

import exceptstar

exceptstar.install()  # the modules below use except* on 3.8-3.10 too

from gatherkit.fanout import Fanout, gather_all  # noqa: E402
from gatherkit.retry import DEFAULT_ATTEMPTS, RetryError, retry  # noqa: E402
from gatherkit.validate import Problem, validate  # noqa: E402

__all__ = ["DEFAULT_ATTEMPTS", "Fanout", "Problem", "RetryError", "gather_all", "retry", "validate"]
''',
    "src/gatherkit/retry.py": '''\
"""Calling a function again while it fails with OSErrors."""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from exceptstar import ExceptionGroup

T = TypeVar("T")
DEFAULT_ATTEMPTS = 3


class RetryError(Exception):
    """Every attempt failed: the group each attempt raised."""

    def __init__(self, attempts: Sequence[ExceptionGroup[OSError]]) -> None:
        super().__init__(f"{len(attempts)} attempts failed")
        self.attempts = list(attempts)


def retry(func: Callable[[], T], attempts: int = DEFAULT_ATTEMPTS) -> T:
    """``func()``, called again while it raises OSErrors."""
    failures: list[ExceptionGroup[OSError]] = []
    for _ in range(attempts):
        try:
            return func()
        except* OSError as group:
            failures.append(group)
    raise RetryError(failures)
''',
    "src/gatherkit/fanout.py": '''\
"""Running callables and raising their failures together."""

from __future__ import annotations

from typing import Callable, Generic, Iterable, TypeVar

from exceptstar import BaseExceptionGroup, ExceptionGroup

R = TypeVar("R")


class Fanout(Generic[R]):
    def __init__(self, tasks: Iterable[Callable[[], R]]) -> None:
        self.tasks = list(tasks)
        self.results: list[R] = []
        self.interrupted: BaseExceptionGroup[KeyboardInterrupt] | None = None

    def run(self) -> list[R]:
        errors: list[Exception] = []
        for task in self.tasks:
            try:
                self.results.append(task())
            except Exception as error:
                errors.append(error)
        if errors:
            raise ExceptionGroup("tasks failed", errors)
        return self.results

    def run_collecting(self) -> list[R]:
        """The results of the tasks that did not fail; the failures kept in ``errors``."""
        self.errors = None
        try:
            self.run()
        except* Exception as group:
            self.errors = group
        return self.results

    def run_until_interrupted(self) -> list[R]:
        try:
            self.run()
        except* KeyboardInterrupt as group:
            self.interrupted = group
        return self.results


def gather_all(tasks: Iterable[Callable[[], R]]) -> tuple[list[R], ExceptionGroup[ValueError | TypeError] | None]:
    fanout = Fanout(tasks)
    failed = None
    try:
        fanout.run()
    except* (ValueError, TypeError) as group:
        failed = group
    return fanout.results, failed
''',
    "src/gatherkit/validate.py": '''\
"""Checking records, every problem reported at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from exceptstar import ExceptionGroup

__all__ = ["MAX_FIELDS", "Problem", "validate"]

MAX_FIELDS = 32


@dataclass(frozen=True)
class Problem:
    field: str
    message: str


def _check(record: Mapping[str, object]) -> None:
    errors = [ValueError(f"{key}: empty") for key, value in record.items() if value == ""]
    if errors:
        raise ExceptionGroup("invalid record", errors)


def validate(record: Mapping[str, object]) -> list[Problem]:
    problems: list[Problem] = []
    try:
        _check(record)
    except* ValueError as group:
        problems.extend(Problem(str(error).split(":")[0], str(error)) for error in group.exceptions)
    return problems
''',
    "src/gatherkit/plain.py": '''\
"""Describing groups (the other modules use except*; this one only names it)."""


def describe(group: BaseException) -> str:
    # except* ValueError: would catch the ValueErrors of a group
    return "except* " + type(group).__name__
''',
}
# The modules whose tokens hold an except* clause: the ones that get a stub.
STARRED = ["gatherkit/fanout.py", "gatherkit/retry.py", "gatherkit/validate.py"]

PYPROJECT = {
    "setuptools": '''\
[build-system]
requires = ["setuptools>=64", "exceptstar"]
build-backend = "setuptools.build_meta"

[project]
name = "gatherkit"
version = "1.0"
requires-python = ">=3.8"
dependencies = ["exceptstar"]
''',
    "hatchling": '''\
[build-system]
requires = ["hatchling", "exceptstar"]
build-backend = "hatchling.build"

[project]
name = "gatherkit"
version = "1.0"
requires-python = ">=3.8"
dependencies = ["exceptstar"]

[tool.hatch.build.targets.wheel.hooks.exceptstar]
''',
}

# A user's module with no exceptstar setting: a reveal_type for every public name, and planted errors.
USER = '''\
from gatherkit import DEFAULT_ATTEMPTS, Fanout, Problem, RetryError, gather_all, retry, validate
from gatherkit.plain import describe
from gatherkit.validate import MAX_FIELDS


def fetch() -> bytes:
    return b"data"


reveal_type(retry)
reveal_type(DEFAULT_ATTEMPTS)
reveal_type(RetryError)
reveal_type(Fanout)
reveal_type(gather_all)
reveal_type(validate)
reveal_type(Problem)
reveal_type(MAX_FIELDS)
reveal_type(describe)

data: bytes = retry(fetch)
text: str = retry(fetch)
retry(fetch, attempts="3")
retry(fetch, tries=2)
error = RetryError([])
reveal_type(error.attempts)
reveal_type(error.attempts[0].exceptions)
fanout = Fanout([fetch])
reveal_type(fanout.results)
reveal_type(fanout.interrupted)
reveal_type(fanout.run_until_interrupted())
reveal_type(fanout.errors)
fanout.errors.exceptions
results, failed = gather_all([fetch])
reveal_type(results)
reveal_type(failed)
if failed is not None:
    failed.exceptions[0].errno
reveal_type(validate({"a": ""})[0].field)
validate(["a"])
Problem("a")
describe("not an exception")
'''


def write_library(folder: Path, backend: str) -> Path:
    for name, text in {**LIBRARY, "pyproject.toml": PYPROJECT[backend]}.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def venv(python: str, requirements: list[str]) -> str:
    """The interpreter of a virtual environment of ``python`` with ``requirements``, made once per machine.

    Only ``python -m`` is run in it: the scripts' first lines may name the folder it was made in.
    """
    def make(folder: Path) -> str | None:
        proc = subprocess.run([make_venv(python, folder), "-m", "pip", "install", "-q",
                               "--disable-pip-version-check", *requirements], capture_output=True, text=True)
        return None if proc.returncode == 0 else f"{requirements} for {python}: {proc.stderr[-3000:]}"

    folder = made_once("downstream", (python, requirements, str(ROOT)), make) / "bin"
    return str(folder / "host-python" if (folder / "host-python").exists() else folder / "python")


def build(python: str, project: Path) -> tuple[Path, Path]:
    """The wheel and the sdist of ``project``, built by ``python -m build`` (its environment has the backends)."""
    proc = subprocess.run([python, "-m", "build", "--no-isolation", "--outdir", str(project / "dist"), str(project)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (wheel,) = (project / "dist").glob("*.whl")
    (sdist,) = (project / "dist").glob("*.tar.gz")
    return wheel, sdist


def install(python: str, wheel: Path) -> Path:
    """Install ``wheel`` (without its dependencies) into ``python``'s environment; its site-packages."""
    proc = subprocess.run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                           "--force-reinstall", str(wheel)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    return Path(site)


def normalized(output: str, site: Path) -> str:
    """A checker's report with what differs by construction made equal: the folder of the
    installed library, the stub's suffix (its lines are the module's), and the module of the
    group classes (on a 3.8-3.10 target exceptstar's generic declarations of the built-ins;
    mypy 1 names the built-ins' module, mypy 2 only others)."""
    output = output.replace(str(site), "<site-packages>").replace(str(site.resolve()), "<site-packages>")
    output = re.sub(r"(gatherkit[/\\]\w+)\.pyi\b", r"\1.py", output)
    return re.sub(r"\b(?:builtins|exceptstar\._group_types)\.((?:Base)?ExceptionGroup)\b", r"\1", output)
