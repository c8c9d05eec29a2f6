"""Run the whole test suite on every CPython 3.8-3.14 found on this machine.

One virtual environment per interpreter under ``.venvs/`` (``$EXCEPTSTAR_VENVS``
to put them elsewhere), exceptstar installed into it (editable) with the test
tools, then pytest; as many interpreters at once as there are cores.  The
newest and the oldest interpreter also get the linters and type checkers
(``mypy --strict``, ``ruff`` and basedpyright in ``tests/test_lint.py``,
``test_typing.py``, ``test_tool_configs.py``, told by
``EXCEPTSTAR_REQUIRE_LINT`` that skipping for a missing tool is a failure).
Only the environments of the interpreters asked for are built, plus those the
tests use as a reference.

Without a native 3.14, CPython 3.14 is Pyodide's (CPython compiled to
WebAssembly, the npm package ``pyodide`` run by Node.js): the package is
installed into ``.venvs/`` with npm, the test extra's pure-Python wheels with
the host's pip, and pytest runs in it (``tools/pyodide.mjs``).  Pyodide has no
subprocesses, threads or sockets: the tests marked ``needs_processes`` are
skipped there, everything else runs.

Prints each step as it starts, one summary line per interpreter and a closing
``N passed, N failed`` line.  Exits non-zero when any interpreter fails, or
when no interpreter below 3.11 or none from 3.11 on is found: the project
exists to bridge the two.

    python3 tools/matrix.py [--only 3.10] [--jobs N] [pytest args...]
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
from typing import Callable, Dict, TextIO, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.support.interpreters import find_interpreters  # noqa: E402

VENVS = Path(os.environ.get("EXCEPTSTAR_VENVS") or ROOT / ".venvs").resolve()
# The pyproject.toml extras installed everywhere, and those only the newest interpreter adds.
# Packages for some versions only belong in an extra behind environment markers (as IPython
# is for 3.8-3.10); a new kind of environment is a new extra named here.
EXTRAS = ["test"]
LINT_EXTRAS = ["lint"]
# Heavy third parties (Sphinx, PyInstaller): one interpreter with a pure except* (3.10) and
# the native reference it is compared with (3.13).
HEAVY_EXTRAS = {(3, 10): ["heavy"], (3, 13): ["heavy"]}
# Environments that tests run by path rather than through native_python(): test_print_paths.py
# compares with .venvs/py313, which has the exceptiongroup backport installed.
NAMED_BY_TESTS = [(3, 13)]
# CPython 3.14 where no native one is found: Pyodide's, run by Node.js.
PYODIDE = "pyodide"
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


def title(version: Version, exe: str) -> str:
    return f"CPython {name(version)}" + (" (Pyodide)" if exe == PYODIDE else "")


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

    def step(self, version: Version, what: str, log: Path | None = None) -> None:
        self.running[name(version)] = (what, time.monotonic(), log)
        self.print(f"[{self.clock()}] {name(version)}: {what}" + (f" (log {shown(log)})" if log else ""))

    def done(self, version: Version) -> None:
        self.running.pop(name(version), None)

    def _heartbeat(self) -> None:
        # A pytest run is minutes of silence otherwise; its log tells how far it is.
        while not self.stopped.wait(HEARTBEAT):
            parts = []
            for version, (what, since, log) in sorted(self.running.copy().items()):
                percent = re.findall(r"\[\s*(\d+)%\]", log.read_text(errors="replace")) if log and log.exists() else []
                parts.append(f"{version} {what} {self.clock(since)}" + (f" {percent[-1]}%" if percent else ""))
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
    """What the environment's contents depend on: pyproject.toml less its [tool.*] tables."""
    text = (ROOT / "pyproject.toml").read_text()
    packaging = re.sub(r"(?ms)^\[tool\..*?(?=^\[(?!tool\.)|\Z)", "", text)
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


def ensure_pyodide(version: Version, progress: Progress) -> Path:
    """Pyodide's npm package and a folder of the wheels (exceptstar editable among them): the site folder."""
    site = VENVS / f"py{version[0]}{version[1]}-pyodide"
    stamp_file = site / ".exceptstar-stamp"
    stamp = requirements_stamp(version) + PYODIDE_VERSION + " ".join(PYODIDE_PACKAGES)
    if (pyodide_dir() / "pyodide.mjs").exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        progress.step(version, f"environment {shown(site)} up to date")
        return site
    log = VENVS / f"build-{name(version)}.log"
    start = time.monotonic()
    progress.step(version, f"installing Pyodide {PYODIDE_VERSION} with npm into {shown(pyodide_dir().parent.parent)}",
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
        progress.step(version, "installing pure-Python wheels for Pyodide with pip", log)
        run(*pip, "--only-binary=:all:", "--platform", "any", "--python-version", name(version),
            "--implementation", "py", "--abi", "none", *PYODIDE_PACKAGES)
        run(*pip, "--no-deps", "-e", str(ROOT))
    stamp_file.write_text(stamp)
    progress.step(version, f"{shown(site)} built in {time.monotonic() - start:.0f} s")
    return site


def ensure_venv(version: Version, exe: str, lint: bool, progress: Progress) -> Path:
    """Create or refresh the environment; reinstall only when pyproject.toml or the extras changed."""
    if exe == PYODIDE:
        return ensure_pyodide(version, progress)
    venv = VENVS / f"py{version[0]}{version[1]}"
    python = venv / "bin" / "python"
    stamp_file = venv / ".exceptstar-stamp"
    extras = EXTRAS + (LINT_EXTRAS if lint else []) + HEAVY_EXTRAS.get(version, [])
    # Extras past "test" are named in the stamp ("+lint", as before), so adding one rebuilds.
    stamp = requirements_stamp(version) + "".join(f"+{extra}" for extra in extras[1:])
    if python.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        progress.step(version, f"environment {shown(venv)} up to date")
        return python
    log = VENVS / f"build-{name(version)}.log"
    start = time.monotonic()
    progress.step(version, f"creating {shown(venv)}")
    if venv.exists():
        shutil.rmtree(venv)
    with log.open("w") as out:
        run = logged(out)
        run(exe, "-m", "venv", str(venv))
        pip = [str(python), "-m", "pip", "install", "--disable-pip-version-check"]
        if bundled_pip_too_old(venv):
            progress.step(version, "upgrading pip", log)
            run(*pip, "--upgrade", "pip")
        progress.step(version, f"installing exceptstar[{','.join(extras)}]", log)
        run(*pip, "-e", f"{ROOT}[{','.join(extras)}]")
    stamp_file.write_text(stamp)
    progress.step(version, f"{shown(venv)} built in {time.monotonic() - start:.0f} s")
    return python


SUMMARY = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)")


def run_pytest(python: Path, lint: bool, extra: list[str], log: Path, pyodide: bool = False) -> dict[str, int]:
    env = dict(os.environ)
    env.pop("EXCEPTSTAR_PURE", None)
    env.pop("PYTHONPATH", None)
    if lint:
        env["EXCEPTSTAR_REQUIRE_LINT"] = "1"
    args = ["-m", "pytest", "-q", "-rfEs", "--tb=short", *(PYODIDE_PYTEST_ARGS if pyodide else []), *extra]
    # For Pyodide, `python` is the site folder that ensure_pyodide made.
    cmd = ([str(node()), str(PYODIDE_RUNNER), str(pyodide_dir()), str(python), str(ROOT), *args] if pyodide
           else [str(python), *args])
    with log.open("w") as out:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    tail = log.read_text().strip().splitlines()[-1:] or [""]
    counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0}
    for number, word in SUMMARY.findall(tail[0]):
        key = "errors" if word.startswith("error") else word
        if key in counts:
            counts[key] += int(number)
    counts["returncode"] = proc.returncode
    return counts


class Matrix:
    """The selected interpreters' runs, each waiting only for the environments it needs."""

    def __init__(self, interpreters: dict[Version, str], lint_versions: set[Version], extra: list[str]) -> None:
        self.interpreters = interpreters
        self.lint_versions = lint_versions
        self.extra = extra
        self.progress = Progress()
        self.builds: dict[Version, Future[Path]] = {}
        self.passed = self.failed = 0
        self.failures: list[str] = []

    def build(self, version: Version) -> Path:
        try:
            return ensure_venv(version, self.interpreters[version], version in self.lint_versions, self.progress)
        finally:
            self.progress.done(version)

    def test(self, version: Version, needs: list[Version]) -> None:
        start = time.monotonic()
        lint = version in self.lint_versions
        log = VENVS / f"pytest-{name(version)}.log"
        counts = {"passed": 0, "failed": 0, "errors": 0, "skipped": 0, "returncode": 1}
        broken = [needed for needed in [version, *needs] if self.builds[needed].exception() is not None]
        if broken:
            log = VENVS / f"build-{name(broken[0])}.log"
            self.progress.print(f"[{self.progress.clock()}] {name(version)}: building the {name(broken[0])} "
                                f"environment failed: {self.builds[broken[0]].exception()}")
        else:
            self.progress.step(version, "pytest running" + (" with mypy and ruff" if lint else ""), log)
            counts = run_pytest(self.builds[version].result(), lint, self.extra, log,
                                pyodide=self.interpreters[version] == PYODIDE)
            self.progress.done(version)
        failed = counts["failed"] + counts["errors"]
        ok = counts["returncode"] == 0 and failed == 0 and counts["passed"] > 0
        with self.progress.lock:
            if not ok:
                self.failures.append(name(version))
                failed = max(failed, 1)
                print(log.read_text(errors="replace")[-6000:] if log.exists() else f"(no {shown(log)})")
            self.passed += counts["passed"]
            self.failed += failed
            print(f"{title(version, self.interpreters[version])}: {'ok  ' if ok else 'FAIL'} "
                  f"{counts['passed']} passed, {failed} failed, "
                  f"{counts['skipped']} skipped ({time.monotonic() - start:.0f} s; log {shown(log)})", flush=True)

    def run(self, selected: list[Version], references: list[Version], jobs: int) -> None:
        # Builds are queued before every test, references first, so a test that waits for
        # one never holds back the worker that would build it.
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            for version in dict.fromkeys([*references, *selected]):
                self.builds[version] = pool.submit(self.build, version)
            tests = [pool.submit(self.test, version, references) for version in selected]
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


def main() -> int:
    # No abbreviations: every argument that is not ours goes to pytest untouched.
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                                     allow_abbrev=False)
    parser.add_argument("--only", action="append", default=[], metavar="3.X",
                        help="run only these versions (repeatable); the others' environments are not built")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="interpreters tested at once (default: one per core, %(default)s here)")
    args, extra = parser.parse_known_args()

    print("matrix: looking for CPython 3.8-3.14 (pyenv, then PATH; else 3.14 as Pyodide with Node.js)", flush=True)
    interpreters: Dict[Version, str] = find_interpreters()
    found = [name(v) for v in sorted(interpreters)]
    if (3, 14) not in interpreters and node():
        interpreters[(3, 14)] = PYODIDE
        found.append("3.14 (Pyodide)")
    print(f"matrix: found {' '.join(found) or 'none'}", flush=True)
    found = [name(v) for v in sorted(interpreters)]
    if not any(v < (3, 11) for v in interpreters) or not any(v >= (3, 11) for v in interpreters):
        print("matrix: need at least one CPython below 3.11 and one from 3.11 on")
        return 2
    unknown = [v for v in args.only if v not in found]
    if unknown:
        print(f"matrix: --only {' '.join(unknown)}: no such interpreter found")
        return 2
    selected = [v for v in sorted(interpreters) if not args.only or name(v) in args.only]
    # Pyodide's 3.14 is the tests' reference where 3.14 and 3.13 differ (tests/support/pyodide.py).
    references = [v for v in NAMED_BY_TESTS if v in interpreters] + [v for v in interpreters
                                                                     if interpreters[v] == PYODIDE]
    also = [name(v) for v in references if v not in selected]
    jobs = max(1, min(args.jobs, len(selected) + len(also)))
    print(f"matrix: testing {' '.join(name(v) for v in selected)}"
          + (f" (building {' '.join(also)} too: the tests compare with {'them' if len(also) > 1 else 'it'})"
             if also else "")
          + f", {jobs} at once; environments and logs in {shown(VENVS)}", flush=True)

    VENVS.mkdir(parents=True, exist_ok=True)
    # The newest checks the package and the typing tests' 3.10+ targets; the oldest
    # has the last mypy that accepts 3.8 targets (newer releases refuse them).
    native = [v for v in interpreters if interpreters[v] != PYODIDE]
    matrix = Matrix(interpreters, {min(native), max(native)}, extra)
    try:
        matrix.run(selected, references, jobs)
    except KeyboardInterrupt:
        print("matrix: interrupted", flush=True)
        return 130
    print(f"{matrix.passed} passed, {matrix.failed} failed")
    return 1 if matrix.failures else 0


if __name__ == "__main__":
    sys.exit(main())
