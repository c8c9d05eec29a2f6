"""Run the whole test suite on every CPython 3.8-3.13 found on this machine.

One virtual environment per interpreter under ``.venvs/``, exceptstar installed
into it (editable) with the test tools, then pytest.  The newest interpreter
also runs ``mypy --strict`` and ``ruff`` (``tests/test_lint.py``, told by
``EXCEPTSTAR_REQUIRE_LINT`` that skipping is a failure there).

Prints one summary line per interpreter and a closing ``N passed, N failed``
line.  Exits non-zero when any interpreter fails, or when no interpreter below
3.11 or none from 3.11 on is found: the project exists to bridge the two.

    python3 tools/matrix.py [-k EXPR] [--only 3.10] [pytest args...]
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENVS = ROOT / ".venvs"
MINORS = range(8, 14)


def find_interpreters() -> dict[tuple[int, int], str]:
    """Newest patch release of each supported minor version: pyenv first, then PATH."""
    found: dict[tuple[int, int], str] = {}
    pyenv_root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    for minor in MINORS:
        candidates = sorted(
            glob.glob(os.path.join(pyenv_root, "versions", f"3.{minor}.*", "bin", f"python3.{minor}")),
            key=lambda p: [int(x) for x in re.findall(r"\d+", p.split("versions")[1])[:3]],
        )
        # A pyenv "system" shim would answer for whatever is global; only real binaries count.
        on_path = shutil.which(f"python3.{minor}")
        if on_path and "shims" not in on_path:
            candidates.append(on_path)
        for exe in reversed(candidates):
            try:
                out = subprocess.run(
                    [exe, "-c", "import sys, platform; print(platform.python_implementation(), *sys.version_info[:2])"],
                    capture_output=True, text=True, timeout=30,
                ).stdout.split()
            except (OSError, subprocess.TimeoutExpired):
                continue
            if out == ["CPython", "3", str(minor)]:
                found[(3, minor)] = exe
                break
    return found


def requirements_stamp(version: tuple[int, int]) -> str:
    """What the environment's contents depend on: pyproject.toml less its [tool.*] tables."""
    text = (ROOT / "pyproject.toml").read_text()
    packaging = re.sub(r"(?ms)^\[tool\..*?(?=^\[(?!tool\.)|\Z)", "", text)
    return hashlib.sha256((packaging + repr(version)).encode()).hexdigest()


def ensure_venv(version: tuple[int, int], exe: str, lint: bool) -> Path:
    """Create or refresh the environment; reinstall only when pyproject.toml changed."""
    venv = VENVS / f"py{version[0]}{version[1]}"
    python = venv / "bin" / "python"
    stamp_file = venv / ".exceptstar-stamp"
    stamp = requirements_stamp(version) + ("+lint" if lint else "")
    if python.exists() and stamp_file.exists() and stamp_file.read_text() == stamp:
        return python
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([exe, "-m", "venv", str(venv)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    extras = "test,lint" if lint else "test"
    subprocess.run([*pip, "-e", f"{ROOT}[{extras}]"], check=True)
    stamp_file.write_text(stamp)
    return python


SUMMARY = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed)")


def run_pytest(python: Path, lint: bool, extra: list[str], log: Path) -> dict[str, int]:
    env = dict(os.environ)
    env.pop("EXCEPTSTAR_PURE", None)
    env.pop("PYTHONPATH", None)
    if lint:
        env["EXCEPTSTAR_REQUIRE_LINT"] = "1"
    cmd = [str(python), "-m", "pytest", "-q", "-rfEs", "--tb=short", *extra]
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", action="append", default=[], help="run only these versions, e.g. 3.10")
    args, extra = parser.parse_known_args()

    interpreters = find_interpreters()
    old = [v for v in interpreters if v < (3, 11)]
    new = [v for v in interpreters if v >= (3, 11)]
    if not old or not new:
        print("matrix: need at least one CPython below 3.11 and one from 3.11 on; found: "
              + (", ".join(f"{a}.{b}" for a, b in sorted(interpreters)) or "none"))
        return 2
    selected = sorted(interpreters)
    if args.only:
        selected = [v for v in selected if f"{v[0]}.{v[1]}" in args.only]
    lint_version = max(interpreters)

    VENVS.mkdir(exist_ok=True)
    # Every environment first: some tests run the newest one as their reference.
    pythons = {version: ensure_venv(version, interpreters[version], version == lint_version)
               for version in sorted(interpreters)}
    total_passed = total_failed = 0
    failures = []
    for version in selected:
        name = f"{version[0]}.{version[1]}"
        lint = version == lint_version
        start = time.monotonic()
        python = pythons[version]
        log = VENVS / f"pytest-{name}.log"
        counts = run_pytest(python, lint, extra, log)
        failed = counts["failed"] + counts["errors"]
        ok = counts["returncode"] == 0 and failed == 0 and counts["passed"] > 0
        if not ok:
            failures.append(name)
            failed = max(failed, 1)
            print(log.read_text()[-6000:])
        total_passed += counts["passed"]
        total_failed += failed
        print(f"CPython {name}: {'ok  ' if ok else 'FAIL'} {counts['passed']} passed, {failed} failed, "
              f"{counts['skipped']} skipped ({time.monotonic() - start:.0f} s; log {log.relative_to(ROOT)})",
              flush=True)
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
