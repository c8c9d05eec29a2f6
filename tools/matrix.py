"""Run the whole test suite on every CPython 3.8-3.15 found on this machine, on PyPy and on Pyodide.

One virtual environment per interpreter under ``.venvs/`` (``$EXCEPTSTAR_VENVS``
to put them elsewhere), exceptstar installed into it (editable) with the test
tools, then pytest; as many interpreters at once as there are cores.  The
newest and the oldest interpreter also get the linters and type checkers
(``mypy --strict``, ``ruff`` and basedpyright in ``tests/test_lint.py``,
``test_typing.py``, ``test_tool_configs.py``, told by
``EXCEPTSTAR_REQUIRE_LINT`` that skipping for a missing tool is a failure).
Only the environments of the interpreters asked for are built, plus those the
tests use as a reference.

Native CPython 3.14 and 3.15 come from Debian sid when pyenv and PATH have none:
``tools/sid.py`` makes a minimal sid root once per machine (root and Debian packages
only) and the environments of those two are made and run inside it, at the same
paths.  The newest native interpreter is the tests' reference.

PyPy 3.9 (Debian 12's ``pypy3``, installed with apt-get where it is missing) and PyPy 3.11
(the sid root's) are in the default run with the tests marked ``pypy_full_only`` left out
(counted as deselected in their summary line): the whole suite on both would take the
matrix past its half hour.  Named (``--only pypy3.9``), a PyPy runs everything.

Pyodide is a platform of its own (CPython 3.14 compiled to WebAssembly, the npm
package ``pyodide`` run by Node.js; listed as ``pyodide``): the package is
installed into ``.venvs/`` with npm, the test extra's pure-Python wheels with
the host's pip, and pytest runs in it (``tools/pyodide.mjs``).  Pyodide has no
subprocesses, threads or sockets: the tests marked ``needs_processes`` are
skipped there, everything else runs.

Prints each step as it starts, one summary line per interpreter and a closing
``N passed, N failed`` line.  Exits non-zero when any interpreter fails, or
when no interpreter below 3.11 or none from 3.11 on is found: the project
exists to bridge the two.

    python3 tools/matrix.py [--only 3.10] [--only pypy3.9] [--only pyodide] [--jobs N] [pytest args...]
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Callable, NamedTuple, TextIO, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tools"))
import sid  # noqa: E402
from tests.support.interpreters import find_interpreters  # noqa: E402

VENVS = Path(os.environ.get("EXCEPTSTAR_VENVS") or ROOT / ".venvs").resolve()
# The pyproject.toml extras installed everywhere, and those only the newest interpreter adds.
# Packages for some versions only belong in an extra behind environment markers (as IPython
# is for 3.8-3.10); a new kind of environment is a new extra named here.
EXTRAS = ["test"]
# The oldest and the newest interpreter check the package; the newest also builds the documentation
# (the 3.10 and 3.13 environments build it with the heavy extra's Sphinx).
LINT_EXTRAS = ["lint"]
NEWEST_EXTRAS = ["docs"]
# Heavy third parties (Sphinx, PyInstaller): one interpreter with a pure except* (3.10) and
# the native one with the same tools that it is compared with (3.13).
HEAVY_EXTRAS = {(3, 10): ["heavy"], (3, 13): ["heavy"]}
# Environments that tests run by path rather than through native_python(): the third-party
# tools' native runs (rich, loguru, Dask, the backport...) use .venvs/py313, runnable from the
# host (the sid root's environments run only inside it).
NAMED_BY_TESTS = ["3.13"]
PYODIDE = "pyodide"
PYPY_PACKAGES = ["pypy3", "pypy3-venv", "pypy3-dev"]
PYODIDE_VERSION = "314.0.7"
PYODIDE_RUNNER = ROOT / "tools" / "pyodide.mjs"
# The test extra's packages that Pyodide can run: pure-Python wheels.  Trio refuses the
# platform at import, uvloop is compiled, IPython is for 3.8-3.10; their tests skip themselves.
PYODIDE_PACKAGES = ["pytest>=7", "hypothesis>=6", "exceptiongroup>=1.2", "anyio>=4", "coverage>=7.6",
                    "pytest-cov>=5", "rich>=13", "structlog>=24", "loguru>=0.7", "sentry-sdk>=2"]
# fd-level capture dup()s onto Pyodide's stdout device, which its file system cannot close.
PYODIDE_PYTEST_ARGS = ["--capture=sys"]
HEARTBEAT = 60.0

Version = Tuple[int, int]


def name(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


class Target(NamedTuple):
    """One column of the matrix: ``label`` is what ``--only`` takes and the logs are named by."""

    label: str
    version: Version
    exe: str
    kind: str  # "host": an interpreter of this machine; "sid": the sid root's wrapper; PYODIDE
    implementation: str = "CPython"

    @property
    def title(self) -> str:
        return f"{self.implementation} {name(self.version)}" + {"host": "", "sid": " (native, Debian sid)",
                                                                  PYODIDE: " (Pyodide)"}[self.kind]

    @property
    def venv(self) -> Path:
        prefix = "pypy" if self.implementation == "PyPy" else "py"
        return VENVS / (f"{prefix}{self.version[0]}{self.version[1]}" + ("-pyodide" if self.kind == PYODIDE else ""))

    def command(self, python: Path) -> list[str]:
        """How the host runs ``python``, an interpreter of this target's environment."""
        return [str(sid.wrapper("in-sid")), str(python)] if self.kind == "sid" else [str(python)]


def shown(path: Path) -> str:
    return os.path.relpath(path, ROOT) if ROOT in path.parents else str(path)


class Progress:
    """Flushed, time-stamped step lines, and every minute a line saying what is still running."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.lock = threading.Lock()
        self.running: dict[str, tuple[str, float, Path | None]] = {}
        self.stopped = threading.Event()
        threading.Thread(target=self._heartbeat, daemon=True).start()

    def clock(self, since: float | None = None) -> str:
        seconds = int(time.monotonic() - (self.start if since is None else since))
        return f"{seconds // 60}:{seconds % 60:02d}"

    def print(self, text: str) -> None:
        with self.lock:
            print(text, flush=True)

    def step(self, label: str, what: str, log: Path | None = None) -> None:
        self.running[label] = (what, time.monotonic(), log)
        self.print(f"[{self.clock()}] {label}: {what}" + (f" (log {shown(log)})" if log else ""))

    def done(self, label: str) -> None:
        self.running.pop(label, None)

    def _heartbeat(self) -> None:
        # A pytest run is minutes of silence otherwise; its log tells how far it is.
        while not self.stopped.wait(HEARTBEAT):
            parts = []
            for label, (what, since, log) in sorted(self.running.copy().items()):
                percent = re.findall(r"\[\s*(\d+)%\]", log.read_text(errors="replace")) if log and log.exists() else []
                parts.append(f"{label} {what} {self.clock(since)}" + (f" {percent[-1]}%" if percent else ""))
            if parts:
                self.print(f"[{self.clock()}] still running: " + "; ".join(parts))


@functools.lru_cache(maxsize=None)
def node() -> str | None:
    """Node.js 18+ (Pyodide's oldest), or None."""
    exe = shutil.which("node")
    if exe is None:
        return None
    try:
        version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    match = re.match(r"v(\d+)\.", version)
    return exe if match and int(match.group(1)) >= 18 else None


def requirements_stamp(version: Version) -> str:
    """What the environment's contents depend on: pyproject.toml less its [tool.*] tables, and the
    version (the editable install's metadata names it)."""
    text = (ROOT / "pyproject.toml").read_text()
    packaging = re.sub(r"(?ms)^\[tool\..*?(?=^\[(?!tool\.)|\Z)", "", text)
    packaging += (ROOT / "src" / "exceptstar" / "_version.py").read_text()
    return hashlib.sha256((packaging + repr(version)).encode()).hexdigest()


def bundled_pip_too_old(venv: Path) -> bool:
    # Editable installs from pyproject.toml alone (PEP 660) need pip 21.3; the pip that venv
    # bundles is older only on old patch releases, so the others skip the upgrade's seconds.
    for dist in venv.glob("lib/python3.*/site-packages/pip-*.dist-info"):
        return tuple(int(x) for x in re.findall(r"\d+", dist.name)[:2]) < (21, 3)
    return True


def pyodide_dir() -> Path:
    return VENVS / f"pyodide-{PYODIDE_VERSION}" / "node_modules" / "pyodide"


def logged(out: TextIO) -> Callable[..., None]:
    """A runner of commands whose line and output go to the build log ``out``; a failure raises."""
    def run(*cmd: str) -> None:
        out.write(f"$ {' '.join(cmd)}\n")
        out.flush()
        subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=True)

    return run


def ensure_pyodide(target: Target, progress: Progress) -> Path:
    """Pyodide's npm package and a folder of the wheels (exceptstar editable among them): the site folder."""
    site, version, label = target.venv, target.version, target.label
    stamp_file = site / ".exceptstar-stamp"
    stamp = requirements_stamp(version) + PYODIDE_VERSION + " ".join(PYODIDE_PACKAGES)
    if (pyodide_dir() / "pyodide.mjs").exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        progress.step(label, f"environment {shown(site)} up to date")
        return site
    log = VENVS / f"build-{label}.log"
    start = time.monotonic()
    progress.step(label, f"installing Pyodide {PYODIDE_VERSION} with npm into {shown(pyodide_dir().parent.parent)}",
                  log)
    if site.exists():
        shutil.rmtree(site)
    with log.open("w") as out:
        run = logged(out)
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm not found (Pyodide is installed with it)")
        prefix = pyodide_dir().parent.parent
        prefix.mkdir(parents=True, exist_ok=True)
        run(npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--no-save",
            f"pyodide@{PYODIDE_VERSION}")
        pip = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-compile",
               "--target", str(site)]
        progress.step(label, "installing pure-Python wheels for Pyodide with pip", log)
        run(*pip, "--only-binary=:all:", "--platform", "any", "--python-version", name(version),
            "--implementation", "py", "--abi", "none", *PYODIDE_PACKAGES)
        run(*pip, "--no-deps", "-e", str(ROOT))
    stamp_file.write_text(stamp)
    progress.step(label, f"{shown(site)} built in {time.monotonic() - start:.0f} s")
    return site


def ensure_venv(target: Target, lint: bool, progress: Progress) -> Path:
    """Create or refresh the environment; reinstall only when pyproject.toml or the extras changed."""
    if target.kind == PYODIDE:
        return ensure_pyodide(target, progress)
    venv, version, label = target.venv, target.version, target.label
    python = venv / "bin" / "python"
    stamp_file = venv / ".exceptstar-stamp"
    extras = EXTRAS + (LINT_EXTRAS if lint else []) + HEAVY_EXTRAS.get(version, []) + (
        NEWEST_EXTRAS if lint and version >= (3, 11) else [])
    # Extras past "test" are named in the stamp ("+lint", as before), so adding one rebuilds;
    # so is the kind, so an environment made by another interpreter of the same version is made anew.
    stamp = requirements_stamp(version) + "".join(f"+{extra}" for extra in extras[1:]) + (
        f" {target.kind}" if target.kind != "host" else "")
    if python.is_symlink() and stamp_file.exists() and stamp_file.read_text() == stamp:
        progress.step(label, f"environment {shown(venv)} up to date")
        return python
    log = VENVS / f"build-{label}.log"
    start = time.monotonic()
    progress.step(label, f"creating {shown(venv)}")
    if venv.exists():
        shutil.rmtree(venv)
    with log.open("w") as out:
        run = logged(out)
        run(target.exe, "-m", "venv", str(venv))
        pip = [*target.command(python), "-m", "pip", "install", "--disable-pip-version-check"]
        if bundled_pip_too_old(venv):
            progress.step(label, "upgrading pip", log)
            run(*pip, "--upgrade", "pip")
        progress.step(label, f"installing exceptstar[{','.join(extras)}]", log)
        # PyPI has newer releases of some test tools (Hypothesis) for PyPy as sources that need a
        # Rust toolchain and the network to build: PyPy takes the newest wheel instead.
        binary = ["--prefer-binary"] if target.implementation == "PyPy" else []
        # psutil 7 (for the Jupyter kernel) calls PyErr_FormatV, which PyPy 3.9's C API lacks.
        pins = ["psutil<7"] if target.implementation == "PyPy" and target.version < (3, 10) else []
        run(*pip, *binary, "-e", f"{ROOT}[{','.join(extras)}]", *pins)
    stamp_file.write_text(stamp)
    progress.step(label, f"{shown(venv)} built in {time.monotonic() - start:.0f} s")
    return python


SUMMARY = re.compile(r"(\d+) (passed|failed|errors?|skipped|deselected|xfailed|xpassed)")
# What the default run leaves out on PyPy (pyproject.toml says which tests carry the mark, and why).
PYPY_SUBSET = ["-m", "not pypy_full_only"]


def run_pytest(target: Target, python: Path, lint: bool, extra: list[str], log: Path, subset: bool) -> dict[str, int]:
    env = dict(os.environ)
    env.pop("EXCEPTSTAR_PURE", None)
    env.pop("PYTHONPATH", None)
    if lint:
        env["EXCEPTSTAR_REQUIRE_LINT"] = "1"
    pyodide = target.kind == PYODIDE
    args = ["-m", "pytest", "-q", "-rfEs", "--tb=short", *(PYODIDE_PYTEST_ARGS if pyodide else []),
            *(PYPY_SUBSET if subset else []), *extra]
    # For Pyodide, `python` is the site folder that ensure_pyodide made.
    cmd = ([str(node()), str(PYODIDE_RUNNER), str(pyodide_dir()), str(python), str(ROOT), *args] if pyodide
           else [*target.command(python), *args])
    with log.open("w") as out:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    tail = log.read_text().strip().splitlines()[-1:] or [""]
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "deselected": 0}
    for number, word in SUMMARY.findall(tail[0]):
        key = "errors" if word.startswith("error") else word
        if key in counts:
            counts[key] += int(number)
    counts["returncode"] = proc.returncode
    return counts


class Matrix:
    """The selected targets' runs, each waiting only for the environments it needs."""

    def __init__(self, targets: dict[str, Target], lint: set[str], extra: list[str], named: list[str]) -> None:
        self.targets = targets
        self.lint = lint
        self.extra = extra
        # PyPys not named with --only run the default run's subset.
        self.subset = {label for label, target in targets.items()
                       if target.implementation == "PyPy" and label not in named}
        self.progress = Progress()
        self.builds: dict[str, Future[Path]] = {}
        self.passed = self.failed = 0
        self.failures: list[str] = []

    def build(self, label: str) -> Path:
        try:
            return ensure_venv(self.targets[label], label in self.lint, self.progress)
        finally:
            self.progress.done(label)

    def test(self, label: str, needs: list[str]) -> None:
        start = time.monotonic()
        target = self.targets[label]
        lint = label in self.lint
        log = VENVS / f"pytest-{label}.log"
        counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "deselected": 0, "returncode": 1}
        broken = [needed for needed in [label, *needs] if self.builds[needed].exception() is not None]
        if broken:
            log = VENVS / f"build-{broken[0]}.log"
            self.progress.print(f"[{self.progress.clock()}] {label}: building the {broken[0]} "
                                f"environment failed: {self.builds[broken[0]].exception()}")
        else:
            self.progress.step(label, "pytest running" + (" with mypy and ruff" if lint else ""), log)
            counts = run_pytest(target, self.builds[label].result(), lint, self.extra, log, label in self.subset)
            self.progress.done(label)
        failed = counts["failed"] + counts["errors"]
        ok = counts["returncode"] == 0 and failed == 0 and counts["passed"] > 0
        with self.progress.lock:
            if not ok:
                self.failures.append(label)
                failed = max(failed, 1)
                print(log.read_text(errors="replace")[-6000:] if log.exists() else f"(no {shown(log)})")
            self.passed += counts["passed"]
            self.failed += failed
            print(f"{target.title}: {'ok  ' if ok else 'FAIL'} "
                  f"{counts['passed']} passed, {failed} failed, "
                  f"{counts['skipped']} skipped"
                  + (f", {counts['deselected']} deselected (pypy_full_only)" if label in self.subset else "")
                  + f" ({time.monotonic() - start:.0f} s; log {shown(log)})", flush=True)

    def run(self, selected: list[str], references: list[str], jobs: int) -> None:
        # Builds are queued before every test, references first, so a test that waits for
        # one never holds back the worker that would build it; the slowest runs start first.
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for label in dict.fromkeys([*references, *selected]):
                self.builds[label] = pool.submit(self.build, label)
            tests = [pool.submit(self.test, label, references) for label in selected]
            try:
                for future in tests:
                    future.result()
            except KeyboardInterrupt:
                # The running steps got the signal too; the queued ones must not start.
                for future in tests:
                    future.cancel()
                for build in self.builds.values():
                    build.cancel()
                raise
        self.progress.stopped.set()


def find_pypys() -> dict[Version, str]:
    """PyPy 3.9 (Debian 12's ``pypy3``, installed with apt-get where it is missing) and PyPy 3.11
    (the sid root's), by the Python version each implements."""
    # The headers too: the test extra has packages that PyPI has as source only for PyPy (psutil).
    if sid.usable() and (shutil.which("pypy3") is None or not list(Path("/usr/include").glob("pypy3*/Python.h"))):
        print("matrix: installing Debian's pypy3 (and its venv and headers) with apt-get", flush=True)
        for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", *PYPY_PACKAGES]):
            subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    found: dict[Version, str] = {}
    for exe in (shutil.which("pypy3"), str(sid.wrapper("pypy3.11"))):
        if exe is None or not Path(exe).exists():
            continue
        try:
            out = subprocess.run([exe, "-c", "import sys; print(*sys.version_info[:2])"], capture_output=True,
                                 text=True, timeout=60).stdout.split()
        except (OSError, subprocess.TimeoutExpired):
            continue
        if len(out) == 2:
            found.setdefault((int(out[0]), int(out[1])), exe)
    return found


def sid_failure() -> str | None:
    """Why native CPython 3.14 and 3.15 are missing where the sid root can be made (root, Debian), or None.

    They are the tests' reference: without them every comparison would be with an older CPython and
    fail, so the matrix stops at once and says why, the build log's end included.  A root made by an
    earlier run is checked too, and its wrappers written again: a fix to them reaches every machine."""
    if not sid.usable():
        return None
    if not {(3, 14), (3, 15)} <= find_interpreters().keys():
        print("matrix: native CPython 3.14 and 3.15 from a Debian sid root (tools/sid.py; made once per machine)",
              flush=True)
    log = VENVS / "build-sid.log"
    log.unlink(missing_ok=True)  # an earlier build's log would explain nothing of this run
    folder = sid.ensure(say=lambda what: print(f"matrix: sid: {what}", flush=True), log=log)
    problem = "the root could not be made" if folder is None else sid.check(ROOT)
    find_interpreters.cache_clear()
    if problem is None and {(3, 14), (3, 15)} <= find_interpreters().keys():
        return None
    tail = log.read_text(errors="replace").splitlines()[-25:] if log.exists() else []
    return "\n".join([f"matrix: no native CPython 3.14 and 3.15: {problem or 'not found after the build'}",
                      *(f"  {shown(log)}: {line}" for line in tail)])


def find_targets() -> dict[str, Target]:
    """Every CPython 3.8-3.15 found (the sid root made first where it can be), and Pyodide where Node.js is."""
    targets = {}
    for version, exe in sorted(find_interpreters().items()):
        kind = "sid" if Path(exe).parent == sid.BIN else "host"
        targets[name(version)] = Target(name(version), version, exe, kind)
    for version, exe in sorted(find_pypys().items()):
        kind = "sid" if Path(exe).parent == sid.BIN else "host"
        targets[f"pypy{name(version)}"] = Target(f"pypy{name(version)}", version, exe, kind, "PyPy")
    if node():
        targets[PYODIDE] = Target(PYODIDE, (3, 14), PYODIDE, PYODIDE)
    return targets


def main() -> int:
    # No abbreviations: every argument that is not ours goes to pytest untouched.
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     allow_abbrev=False)
    parser.add_argument("--only", action="append", default=[], metavar="3.X",
                        help="run only these targets (3.X, pypy3.X or pyodide; repeatable); the others' environments "
                             "are not built")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="targets tested at once (default: one per core, %(default)s here)")
    args, extra = parser.parse_known_args()

    print("matrix: looking for CPython 3.8-3.15 (pyenv, PATH, a Debian sid root) and Pyodide (Node.js)", flush=True)
    VENVS.mkdir(parents=True, exist_ok=True)
    failure = sid_failure()
    if failure:
        print(failure, flush=True)
        return 2
    targets = find_targets()
    found = [target.label + (" (sid)" if target.kind == "sid" else "") for target in targets.values()]
    print(f"matrix: found {' '.join(found) or 'none'}", flush=True)
    natives = [target.version for target in targets.values()
               if target.kind != PYODIDE and target.implementation == "CPython"]
    if not any(v < (3, 11) for v in natives) or not any(v >= (3, 11) for v in natives):
        print("matrix: need at least one CPython below 3.11 and one from 3.11 on")
        return 2
    unknown = [label for label in args.only if label not in targets]
    if unknown:
        print(f"matrix: --only {' '.join(unknown)}: no such interpreter found")
        return 2
    # The longest runs first, so that the last to finish is a short one: the PyPys, then the
    # environments that also lint or carry the heavy third parties, then the rest; Pyodide last.
    lint = {name(min(natives)), name(max(natives))}
    heavy = {name(version) for version in HEAVY_EXTRAS}
    selected = sorted((label for label in targets if not args.only or label in args.only),
                      key=lambda label: (targets[label].implementation != "PyPy", label not in lint | heavy,
                                         targets[label].kind == PYODIDE))
    references = [label for label in NAMED_BY_TESTS if label in targets]
    also = [label for label in references if label not in selected]
    jobs = max(1, min(args.jobs, len(selected) + len(also)))
    print(f"matrix: testing {' '.join(selected)}"
          + (f" (building {' '.join(also)} too: the tests compare with {'them' if len(also) > 1 else 'it'})"
             if also else "")
          + f", {jobs} at once; environments and logs in {shown(VENVS)}", flush=True)

    # The newest checks the package and the typing tests' 3.10+ targets (lint, above); the oldest
    # has the last mypy that accepts 3.8 targets (newer releases refuse them).
    matrix = Matrix(targets, lint, extra, args.only)
    try:
        matrix.run(selected, references, jobs)
    except KeyboardInterrupt:
        print("matrix: interrupted", flush=True)
        return 130
    print(f"{matrix.passed} passed, {matrix.failed} failed")
    return 1 if matrix.failures else 0


if __name__ == "__main__":
    sys.exit(main())
