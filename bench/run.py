"""Run the benchmarks on every CPython 3.8-3.15 and PyPy found here and write ``bench/RESULTS.md``.

    python3 bench/run.py [--quick] [--only 3.10] [--only pypy3.9] [--case groups] [--output FILE]

For each interpreter: its own environment under ``.venvs/bench-pyXY`` (``bench-pypyXY``;
exceptstar installed editable from this checkout, plus the ``exceptiongroup`` backport),
then every case script of ``bench/`` run once per side in fresh processes (see
``bench/_timing.py`` for the protocol and the timing loop).  The peer is the
backport on 3.8-3.10 and the interpreter's own types and ``except*`` on 3.11+,
where exceptstar runs with ``EXCEPTSTAR_PURE=1``.  Each row is checked against
the issue's targets; for every missed one a cProfile excerpt of the exceptstar
side is written below the tables.

Native 3.14 and 3.15 and PyPy 3.11 are the Debian sid root's (``tools/sid.py``'s
wrappers; their environments are run inside the root), PyPy 3.9 is ``pypy3`` on
PATH (Debian 12's).  PyPy runs the cases of the groups, the engine, the leaves and
the transformed module's imports (the others measure CPython's tools, or need
``-X importtime``, which PyPy lacks), with no targets: the issue sets them for CPython.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Dict, List, NamedTuple, Tuple

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT))
from tests.support.interpreters import find_interpreters, find_pypys, make_venv  # noqa: E402

sys.path.insert(0, str(BENCH))
import _instructions  # noqa: E402

VENVS = ROOT / ".venvs"
PEER_PACKAGES = ["exceptiongroup", "coverage", "rich", "structlog", "loguru", "sentry-sdk", "mypy", "pyright",
                 "basedpyright"]
# PyPy's environments get the backport only: the other peers serve cases PyPy does not run.
PYPY_PACKAGES = ["exceptiongroup"]
PYPY_SCRIPTS = ["case_groups.py", "case_handle.py", "case_leaves.py", "case_module.py"]
SIDES = ("exceptstar", "peer")
Version = Tuple[int, int]


class Interpreter(NamedTuple):
    name: str  # as --only spells it: "3.10", "pypy3.9"
    version: Version
    exe: str
    pypy: bool = False

    @property
    def title(self) -> str:
        return "PyPy" if self.pypy else "CPython"


class Row(NamedTuple):
    key: str
    script: str
    label: str
    peer: str  # what the peer column measured: a key of peer_label()
    min_version: Version = (3, 8)


ROWS = [
    Row("construct", "case_groups.py", "1. construct ExceptionGroup of 1000 ValueErrors", "types"),
    Row("construct_small", "case_groups.py",
        "1. construct 4 small groups (1, 2, 5, 10 ValueErrors)", "types"),
    Row("construct_distinct", "case_groups.py",
        "1. construct a group of 10,000 members of 10,000 distinct classes", "types"),
    Row("split_flat", "case_groups.py", "2. split(ValueError), flat group of 1000", "types"),
    Row("subgroup_flat", "case_groups.py", "2. subgroup(ValueError), flat group of 1000", "types"),
    Row("split_nested", "case_groups.py", "3. split(ValueError), 50-deep nested group", "types"),
    Row("split_deep", "case_groups.py", "3. split(TypeError), 1,200-deep nested group", "types"),
    Row("split_deep_4x", "case_groups.py", "3. split(TypeError), 4,800-deep nested group",
        "types"),
    Row("except_star_naked", "case_handle.py",
        "4. transformed except* ValueError, naked ValueError", "handler"),
    Row("except_star_group", "case_handle.py",
        "4. transformed except* ValueError / TypeError, 3-leaf group (each clause matches part)",
        "handler"),
    Row("except_star_deep", "case_handle.py",
        "4. transformed except* ValueError / TypeError, 1,200-deep group", "handler"),
    Row("catch_naked", "case_handle.py", "4. exceptstar.catch(), naked ValueError", "handler"),
    Row("catch_group", "case_handle.py",
        "4. exceptstar.catch() ValueError / TypeError, 3-leaf group", "handler"),
    Row("format", "case_format.py", "5. format_exception, 100-leaf group with tracebacks", "format"),
    Row("import", "case_import.py", "6. import (cumulative, -X importtime)", "import"),
    Row("import_native", "case_import.py", "6. import, exceptstar with the built-in types", "import",
        (3, 11)),
    Row("transform", "case_module.py",
        "7. transform a 5000-line module with 200 except* (GC off)", "compile"),
    Row("transform_500", "case_module.py",
        "7. transform + compile a 10,000-line module with 500 except*, GC on", "compile"),
    Row("transform_one", "case_module.py",
        "7. the same module with one except*, GC on", "compile"),
    Row("transform_lookalike", "case_module.py",
        "7. that module with except* also in a comment and a string, GC on", "compile"),
    Row("transform_500_text", "case_module.py",
        "7. compile() of the 500-except* module's rewritten text (the scaffolding's floor), GC on",
        "compile"),
    Row("scan", "case_module.py",
        "7. tokenizer-level scan (`check`) of the 500-except* module", "tokenize"),
    Row("uncached_import_500", "case_module.py",
        "7. import of the 500-except* module with no bytecode cache (install(), GC on)", "uncached"),
    Row("uncached_import_one", "case_module.py",
        "7. import of the one-except* module with no bytecode cache (install(), GC on)", "uncached"),
    Row("cached_import", "case_module.py", "7. cached import of that module (install())", "plain"),
    Row("cached_import_hooked_plain", "case_module.py",
        "7. cached import of the plain module, install() active", "plain"),
    Row("first_import", "case_package.py",
        "8. first (uncached) import of a 200-module package using except*", "package"),
    Row("first_import_every", "case_package.py",
        "8. first (uncached) import of that package, every function using except*", "package"),
    Row("run_script", "case_package.py",
        "8. `python -m exceptstar run` a 5,000-line script (process CPU)", "script"),
    Row("coverage_run", "case_coverage.py", "9. coverage run of case 8's package and script, with the plugin",
        "coverage"),
    Row("coverage_report", "case_coverage.py", "9. coverage json of that run (coverage reads the 200 modules)",
        "coverage"),
    Row("leaves", "case_leaves.py",
        "10. leaf_exceptions(), raised group of 10 raised subgroups of 100 raised leaves", "walk"),
    Row("collapse", "case_leaves.py",
        "10. collapse() around a raised group of one error, caught outside", "unwrap"),
    *(Row(f"render_import_{package}", "case_render.py",
          f"11. import {module} (cumulative, -X importtime), after import exceptstar", "alone")
      for package, module in (("rich", "rich.traceback"), ("structlog", "structlog"),
                               ("sentry_sdk", "sentry_sdk"), ("loguru", "loguru"))),
    *(Row(f"render_log_{package}", "case_render.py", f"11. {what}, no exception, after import exceptstar",
          "alone")
      for package, what in (("structlog", "structlog log call"), ("loguru", "loguru log call"),
                            ("rich", "logging call through rich's RichHandler"))),
    Row("cold_start", "case_coldstart.py",
        "12. a 20-module program (2,800 lines, 240 except*) started with no cache, no writes "
        "(process CPU)", "coldstart"),
    Row("mypy_cold", "case_mypy.py", "13. mypy, empty cache, of case 8's package (the plugin)", "mypy"),
    Row("mypy_warm", "case_mypy.py", "13. mypy again, from its cache", "mypy"),
    # The tools run on node: one interpreter measures them.
    *(Row(f"{tool}_route", "case_typecheck.py",
          f"14. {tool} of case 8's package at a 3.9 target, through `python -m exceptstar {tool}` (process tree CPU)",
          "typecheck", (3, 13))
      for tool in ("pyright", "basedpyright")),
]
SCRIPTS = list(dict.fromkeys(row.script for row in ROWS))


def peer_label(kind: str, version: Version, backport: str) -> str:
    native = version >= (3, 11)
    labels = {
        "types": "built-in types" if native else f"exceptiongroup {backport}",
        "handler": "native except*" if native else f"exceptiongroup {backport} catch()",
        "format": "traceback.format_exception" if native else "exceptiongroup.format_exception",
        "import": f"import exceptiongroup {backport}",
        "compile": "native compile()" if native else "compile() of the plain module",
        "plain": "cached import, plain module, no hook",
        "uncached": "import with no cache, native" if native else "import with no cache, plain module",
        "tokenize": "tokenize.generate_tokens alone",
        "package": "the plain twin, no exceptstar",
        "script": "`python plain.py`",
        "coverage": "plain coverage, the plain twin",
        "walk": "hand-written recursive walk (leaves only, no tracebacks)",
        "unwrap": "except BaseExceptionGroup + unwrap by hand (Starlette's recipe)",
        "alone": "the same without exceptstar",
        "mypy": "plain mypy, the plain twin",
        "typecheck": "the plain tool at a 3.11 target, same files",
        "coldstart": "the plain twin, compiled at every start",
    }
    return labels[kind]


class Target(NamedTuple):
    limit: float  # largest acceptable ratio exceptstar/peer, or seconds when absolute
    absolute: bool
    text: str
    works: bool = False  # met when the exceptstar side runs at all (limit unused)


def target(key: str, version: Version, pypy: bool = False) -> Target | None:
    """The issues' targets, as a bound on exceptstar/peer (or on exceptstar's seconds); none on PyPy.

    Issue 37's where it set them (the engine on 3.8-3.10, the dense cold starts), earlier ones elsewhere.
    """
    if pypy:
        return None
    native = version >= (3, 11)
    if key == "construct" and not native:
        return Target(1 / 5, False, "≥ 5x faster")
    if key == "construct_small" and not native:
        return Target(1 / 2, False, "≥ 2x faster")
    if key == "construct_distinct":
        return Target(3.0, False, "≤ 3x native") if native else Target(1.0, False, "≤ 1x backport")
    if key in ("split_deep", "split_deep_4x", "except_star_deep"):
        return Target(0.0, False, "works (no RecursionError)", works=True)
    if key == "except_star_group" and native:
        return Target(3.0, False, "≤ 3x native")
    if key in ("except_star_group", "catch_group"):
        return None if native else Target(1 / 3, False, "≥ 3x faster")
    if key == "collapse" and not native:
        return Target(1.5, False, "≤ 1.5x by hand")
    if key == "leaves" and not native:
        return Target(4.0, False, "≤ 4x by hand")
    if key in ("transform_500", "uncached_import_500", "cold_start"):
        return Target(2.0, False, "≤ 2.0x")
    if key in ("transform_one", "transform_lookalike"):
        return Target(1.25, False, "≤ 1.25x")
    if key == "uncached_import_one":
        return Target(1.1, False, "≤ 1.1x")
    if key == "scan":
        return Target(1.5, False, "≤ 1.5x tokenize (linear)")
    if key in ("first_import", "first_import_every"):
        return Target(1.5, False, "≤ 1.5x")
    if key == "run_script":
        return Target(1.2, False, "≤ 1.2x")
    if key in ("split_flat", "subgroup_flat"):
        return Target(4.0, False, "≤ 4x native") if native else Target(1 / 6, False, "≥ 6x faster")
    if key == "except_star_naked":
        return Target(3.0, False, "≤ 3x native") if native else Target(1 / 5, False, "≥ 5x faster")
    if key == "format":
        return Target(1.2, False, "≤ 1.2x native") if native else Target(1.0, False, "≤ 1x backport")
    if key == "import" and version == (3, 10):
        return Target(3e-3, True, "< 3 ms")
    if key == "cached_import":
        return Target(1.1, False, "≤ 1.1x plain")
    if key.startswith("render_"):
        return Target(1.1, False, "≤ 1.1x (nothing when no group is shown)")
    return None


# ---------------------------------------------------------------------------- environments


def ensure_venv(interpreter: Interpreter) -> Path:
    """The benchmark's own environment; rebuilt only when pyproject.toml or the peers change.

    A sid root interpreter's environment runs inside the root: the path returned is then
    ``make_venv``'s script that enters it."""
    version = interpreter.version
    venv = VENVS / f"bench-{'pypy' if interpreter.pypy else 'py'}{version[0]}{version[1]}"
    packages = PYPY_PACKAGES if interpreter.pypy else PEER_PACKAGES
    host_python = venv / "bin" / "host-python"
    stamp_file = venv / ".bench-stamp"
    stamp = hashlib.sha256(
        (ROOT / "pyproject.toml").read_bytes() + repr((version, interpreter.exe, packages)).encode()
    ).hexdigest()
    if stamp_file.exists() and stamp_file.read_text() == stamp:
        return host_python if host_python.exists() else venv / "bin" / "python"
    log(f"creating {venv.relative_to(ROOT)}")
    if venv.exists():
        shutil.rmtree(venv)
    python = Path(make_venv(interpreter.exe, venv))
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                    "-e", str(ROOT), *packages], check=True)
    stamp_file.write_text(stamp)
    return python


def clean_env() -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PYTHON") and k != "EXCEPTSTAR_PURE"}
    return env


def side_env(side: str, version: Version) -> Dict[str, str]:
    env = clean_env()
    if side == "exceptstar" and version >= (3, 11):
        env["EXCEPTSTAR_PURE"] = "1"
    return env


def describe(python: Path) -> Dict[str, str]:
    code = (
        "import json, platform, sys, importlib.metadata as m\n"
        "pypy = getattr(sys, 'pypy_version_info', None)\n"
        "print(json.dumps({'python': platform.python_version(), "
        "'pypy': '.'.join(map(str, pypy[:3])) if pypy else '', "
        # exceptstar's own version, not its installed metadata: an editable install keeps the version it was
        # installed at, and the code that runs is the checkout's.
        "'exceptiongroup': m.version('exceptiongroup'), "
        "'exceptstar': __import__('exceptstar._version', fromlist=['_']).__version__}))"
    )
    proc = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True,
                          env=clean_env())
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------- running


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


Result = Dict[str, object]


def run_script(python: Path, script: str, side: str, version: Version, quick: bool,
               profile: str | None = None) -> Tuple[Dict[str, Result], str]:
    """One case script on one side: its rows' results, and stderr (or the profile text)."""
    cmd = [str(python), str(BENCH / script), "--side", side]
    if quick:
        cmd.append("--quick")
    if profile:
        cmd += ["--profile", profile]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600,
                              env=side_env(side, version))
    except subprocess.TimeoutExpired:
        return {}, f"{script} --side {side}: timed out"
    if profile:
        return {}, proc.stdout + (proc.stderr if proc.returncode else "")
    if proc.returncode != 0:
        return {}, f"{script} --side {side} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
    lines = proc.stdout.strip().splitlines()
    return json.loads(lines[-1])["rows"], proc.stderr


class VersionResults(NamedTuple):
    version: Version
    pypy: bool
    info: Dict[str, str]
    cells: Dict[str, Dict[str, Result]]  # row key -> side -> result
    errors: List[str]
    profiles: Dict[str, str]
    scripts: List[str]


def bench_version(interpreter: Interpreter, quick: bool, rounds: int, profile: bool, count: bool,
                  scripts: List[str]) -> VersionResults:
    version = interpreter.version
    python = ensure_venv(interpreter)
    info = describe(python)
    prefix = _instructions.valgrind_prefix(python) if count and not interpreter.pypy else None
    # row key -> side -> the results of each process
    collected: Dict[str, Dict[str, List[Result]]] = {}
    errors: List[str] = []
    for script in scripts:
        started = time.perf_counter()
        for round_index in range(rounds):
            # ABBA order, so that neither side always runs first after the other.
            for side in SIDES if round_index % 2 == 0 else SIDES[::-1]:
                rows, stderr = run_script(python, script, side, version, quick)
                if not rows and stderr not in errors:
                    errors.append(stderr)
                for key, result in rows.items():
                    collected.setdefault(key, {}).setdefault(side, []).append(result)
        log(f"  {interpreter.name} {script}: {time.perf_counter() - started:.1f} s")
    cells = {key: {side: merge(results) for side, results in sides.items()}
             for key, sides in collected.items()}
    if prefix is not None:
        for script in scripts:
            started = time.perf_counter()

            def count_side(side: str, script: str = script) -> Dict[str, float]:
                timed = [key for key, sides in cells.items() if seconds(sides.get(side)) is not None]
                return _instructions.count_script(prefix, script, side, side_env(side, version), timed)

            # Nothing is timed while counting: the two sides may share the cores.
            with ThreadPoolExecutor(max_workers=len(SIDES)) as pool:
                futures = {side: pool.submit(count_side, side) for side in SIDES}
            for side, future in futures.items():
                try:
                    counts = future.result()
                except (RuntimeError, subprocess.TimeoutExpired) as error:
                    errors.append(str(error))
                    continue
                for key, per in counts.items():
                    cells[key][side]["instructions"] = per
            if script in _instructions.COUNTED:
                log(f"  {interpreter.name} {script} under callgrind: {time.perf_counter() - started:.1f} s")
    results = VersionResults(version, interpreter.pypy, info, cells, errors, {}, scripts)
    if profile:
        for row in rows_of(results):
            verdict = judge(row, results)
            if verdict is not None and not verdict[1]:
                log(f"  {interpreter.name} profiling {row.key}")
                _, text = run_script(python, row.script, "exceptstar", version, quick, row.key)
                results.profiles[row.key] = text
    return results


def merge(results: List[Result]) -> Result:
    """One figure from several processes: the median of all their repeats."""
    measured = [r for r in results if "runs" in r]
    if not measured:
        return results[0]
    runs = [float(t) for r in measured for t in r["runs"]]  # type: ignore[attr-defined]
    merged: Result = {"seconds": statistics.median(runs), "runs": runs,
                      "processes": len(measured)}
    if "note" in measured[0]:
        merged["note"] = measured[0]["note"]
    return merged


def rows_of(results: VersionResults) -> List[Row]:
    return [row for row in ROWS
            if results.version >= row.min_version and row.script in results.scripts]


# ---------------------------------------------------------------------------- report


def seconds(result: Result | None) -> float | None:
    if result is None or "seconds" not in result:
        return None
    return float(result["seconds"])  # type: ignore[arg-type]


def fmt_time(value: float | None) -> str:
    if value is None:
        return "—"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.2f} µs"


def cell(result: Result | None) -> str:
    if result is None:
        return "error"
    if "unavailable" in result:
        return "not available yet" if "not available yet" in str(result["unavailable"]) else "n/a"
    return fmt_time(seconds(result))


def ratio_of(row: Row, results: VersionResults) -> float | None:
    sides = results.cells.get(row.key, {})
    mine, theirs = seconds(sides.get("exceptstar")), seconds(sides.get("peer"))
    if mine is None or theirs is None or theirs == 0:
        return None
    return mine / theirs


def instructions_cell(row: Row, results: VersionResults) -> str:
    """Each side's instructions an iteration and their ratio, where both were counted."""
    sides = results.cells.get(row.key, {})
    counts = [sides.get(side, {}).get("instructions") for side in SIDES]
    if any(count is None for count in counts):
        return "—"
    mine, theirs = (float(count) for count in counts)  # type: ignore[arg-type]
    return f"{fmt_ratio(mine / theirs)}: {fmt_count(mine)} / {fmt_count(theirs)}"


def fmt_count(count: float) -> str:
    if count >= 1e6:
        return f"{count / 1e6:.2f}M"
    if count >= 1e3:
        return f"{count / 1e3:.1f}k"
    return f"{count:.0f}"


def judge(row: Row, results: VersionResults) -> Tuple[float, bool] | None:
    """(how far from the limit, met?) for a row that has a target and figures."""
    goal = target(row.key, results.version, results.pypy)
    if goal is None:
        return None
    if goal.works:
        mine = results.cells.get(row.key, {}).get("exceptstar")
        if mine is None:
            return None
        return (1.0, True) if seconds(mine) is not None else (2.0, False)
    value = seconds(results.cells.get(row.key, {}).get("exceptstar")) if goal.absolute else ratio_of(row, results)
    if value is None:
        return None
    return value / goal.limit, value <= goal.limit


def spread(sides: Dict[str, Result]) -> str:
    """How noisy a row was: half the interquartile range of each side's timings, over the median."""
    parts = []
    for side in SIDES:
        runs = sorted(float(t) for t in sides.get(side, {}).get("runs", []))  # type: ignore[attr-defined]
        if len(runs) < 3:
            return "—"
        quartiles = statistics.quantiles(runs, n=4)
        parts.append(f"±{(quartiles[2] - quartiles[0]) / 2 / statistics.median(runs):.0%}")
    return " / ".join(parts)


def fmt_ratio(ratio: float | None) -> str:
    if ratio is None:
        return "—"
    if ratio < 1:
        return f"{ratio:.2f}x ({1 / ratio:.1f}x faster)"
    return f"{ratio:.2f}x"


def machine() -> List[str]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kib = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kib / 2**20:.0f} GiB memory"
    except (OSError, ValueError, IndexError):
        pass
    return [f"CPU: {model}, {os.cpu_count()} cores{memory}",
            f"OS: {platform.platform()}"]


def git_commit() -> str:
    proc = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                          capture_output=True, text=True)
    return proc.stdout.strip() or "unknown"


def write_report(path: Path, all_results: List[VersionResults], quick: bool, rounds: int,
                 loads: Tuple[float, float], elapsed: float) -> None:
    out: List[str] = []
    add = out.append
    add("# exceptstar benchmarks\n")
    add(f"Written by `python3 bench/run.py{' --quick' if quick else ''}` on "
        f"{datetime.datetime.now().strftime('%Y-%m-%d %H:%M')} at commit {git_commit()} "
        f"in {elapsed / 60:.1f} min.\n")
    for line in machine():
        add(f"- {line}")
    add(f"- load average (1 min) before / after the run: {loads[0]:.2f} / {loads[1]:.2f}")
    add("")
    repeats, imports = (3, 5) if quick else (5, 7)
    add(f"Each figure is the median time of one operation over {rounds * repeats} timings: "
        f"{repeats} repeats of an autoranged loop (timeit-style, garbage collection off "
        f"while timing, CPU time of the timing thread) in each of {rounds} fresh processes per case and side, the two "
        "sides' processes alternating. The import figures are medians of "
        f"{rounds * imports} fresh interpreters. "
        "**Ratio** is exceptstar's time divided by the peer's: below 1 exceptstar is faster. "
        "The peer runs on the same interpreter in the same run: the `exceptiongroup` backport "
        "on 3.8-3.10 (and PyPy 3.9), the built-in types and `except*` on 3.11+ (and PyPy 3.11; "
        "exceptstar is forced pure there with `EXCEPTSTAR_PURE=1`). "
        "**In instructions** is the same ratio counted with callgrind (`bench/_instructions.py`), "
        "then each side's instructions an iteration, for the in-process rows on CPython: the same on any "
        "machine, where a time ratio strays with the neighbours. Instructions are not time (C-level "
        "passes take fewer cycles an instruction than the interpreter's dispatch), so the targets, "
        "set in time, are judged on the times.\n")
    missed: List[Tuple[VersionResults, Row, float]] = []
    for results in all_results:
        version = results.version
        info = results.info
        pypy = f" (PyPy {info['pypy']})" if info.get("pypy") else ""
        add(f"## {'PyPy' if results.pypy else 'CPython'} {info.get('python', '{}.{}'.format(*version))}{pypy}\n")
        add(f"exceptstar {info.get('exceptstar', '?')}, exceptiongroup "
            f"{info.get('exceptiongroup', '?')}.\n")
        add("| case | exceptstar | peer | peer's figure | ratio | spread | target | met? | in instructions |")
        add("|---|---:|---|---:|---:|---:|---|---|---:|")
        for row in rows_of(results):
            sides = results.cells.get(row.key, {})
            goal = target(row.key, version, results.pypy)
            verdict = judge(row, results)
            if verdict is None:
                met = "—" if goal is None else "not measured"
            elif verdict[1]:
                met = "yes"
            elif goal is not None and goal.works:
                met = "**no**"
                missed.append((results, row, verdict[0]))
            else:
                precision = 2 if verdict[0] >= 1.005 else 3
                met = f"**no** ({verdict[0]:.{precision}f}x the limit)"
                missed.append((results, row, verdict[0]))
            add(f"| {row.label} | {cell(sides.get('exceptstar'))} | "
                f"{peer_label(row.peer, version, info.get('exceptiongroup', '?'))} | "
                f"{cell(sides.get('peer'))} | {fmt_ratio(ratio_of(row, results))} | "
                f"{spread(sides)} | {goal.text if goal else '—'} | {met} | {instructions_cell(row, results)} |")
        add("")
        # Below the table: why a figure is missing, and what each side did (notes).
        remarks = [f"- {reason}" for reason in sorted(
            {str(r["unavailable"]) for s in results.cells.values() for r in s.values()
             if "unavailable" in r})]
        for row in rows_of(results):
            notes = {side: str(r["note"]) for side, r in results.cells.get(row.key, {}).items()
                     if "note" in r}
            if notes:
                remarks.append(f"- {row.label}: "
                               + "; ".join(f"{side}: {note}" for side, note in notes.items()))
        for side in SIDES:
            deep = [seconds(results.cells.get(key, {}).get(side))
                    for key in ("split_deep", "split_deep_4x")]
            if deep[0] and deep[1]:
                remarks.append(f"- {side}: 4x the depth costs {deep[1] / deep[0]:.1f}x the time "
                               "of the 1,200-deep split (linear: 4x)")
        out.extend(remarks)
        for error in results.errors:
            add("\n```\n" + error.strip() + "\n```")
        if remarks or results.errors:
            add("")
    add("## What the profiles say\n")
    add(LESSONS)
    add("## Missed targets\n")
    if not missed:
        add("None: every target that could be measured was met.\n")
    for results, row, factor in missed:
        version = results.version
        goal = target(row.key, version, results.pypy)
        assert goal is not None
        add(f"### {row.label} on {version[0]}.{version[1]}\n")
        if goal.works:
            add("Missed: the exceptstar side could not run it: "
                + str(results.cells[row.key]["exceptstar"].get("unavailable")))
        else:
            add(f"Missed by {factor:.2f}x: the limit is {goal.text}; measured "
                + (fmt_time(seconds(results.cells[row.key]['exceptstar'])) if goal.absolute
                   else fmt_ratio(ratio_of(row, results))) + ".")
        why = WHY.get(row.key)
        if why:
            add(f"\nWhat bounds it: {why}")
        profile = results.profiles.get(row.key)
        if profile:
            add("\nProfile of the exceptstar side (cProfile, sorted by own time):\n")
            add("```\n" + profile.rstrip() + "\n```")
        add("")
    path.write_text("\n".join(out))


# Issue 13: what profiling the slow paths showed, and what was done about it.
LESSONS = """\
The spread column is half the interquartile range of each side's timings
(exceptstar / peer) over its median: how far one timing may stray.

- **Transform + compile** (3.10, a 10,000-line module, 1x = plain `compile()`):
  parsing to a tree costs 1x, compiling the tree 0.6-1.2x, the rewrite
  (`_compiler.rewrite.transform`, which visits every node in Python) 2x with one
  `except*` and 5x with 500; marking the starred handlers was a whole-tree walk
  (1x) and the garbage collector, set off over and over by the node objects,
  added 2-4x. Now: the collector is paused while the trees live (restored in a
  `finally`, only if it was on), marking descends only into the statements that
  hold a star. Any path through the whole tree costs 1.6x before the rewrite
  starts, above the 1.3x target for one `except*`; so a module whose lines are
  mostly function bodies away from the clauses is now compiled natively once
  (stars blanked), the tree is built with the bodies of the star-free top-level
  functions stubbed (`pass`, every line in place), checked, rewritten and
  compiled, and each stub's code object is replaced by the native code of the
  same function: 4-5x -> 1.8x on the one-clause module (structurally identical
  code on 159 sources, 3.8-3.10). Star-dense modules (the 500-clause one) keep
  the whole-tree path. Its rewrite visited every node three times in Python
  (a search for a starred try, the generic visitor for `add_note`, a search for
  the group names) and then walked every generated node to position it: 5x
  plain `compile()` alone. Now the starred statements are found through the
  statements that hold statements, the expressions are walked once and only
  when the source names `add_note` or `ExceptionGroup` (or is not ASCII), and
  generated nodes are made with their position: 0.7-0.8x. The 500-clause
  module went from 10.9x to about 3x, bounded by the tree round trip itself.
- **Issue 27** (targets 1.5x / 1.1x / 1.3x / 1.5x, 3.8-3.10): what compiling
  a transformed module costs is set by the scaffolding: the rewritten
  500-clause module compiled natively from its text, with no tree and no
  rewrite, is 2.1-3x plain `compile()` (row "rewritten text"). So no path
  reaches 1.5x without a smaller scaffolding, and a cold start also pays the
  imports the first transformation needs (`re`, `ast`, `ctypes`: 76 M of the
  77 M instructions that 1.3x allows; see the cold-start row). Done: the
  line tables read in C loops, functions' spans without their nested code,
  the kept part built from slices, UTF-8 source decoded without `tokenize`,
  alike generated nodes built once (`shared=True`, for trees compiled at
  once): 3-4% fewer instructions on the 20-module program and the
  12-clause module, 1.24x -> 1.04x for an import of the one-clause module on 3.8.
- **First import**: the package's modules are mostly module-level code, which
  the stubbed compile keeps in the tree. For imports (and `run`'s main script)
  the module-level code is now the native compile's when every star sits in a
  top-level function: the rewrite's prologue is only needed under `exec` with
  builtins of its own, never on import. 7.3x -> 1.5-2.1x.
- **Look-alikes**: an `except*` in a comment or a string sent the whole file to
  the pure-Python tokenizer (3-4x the main path). Only a line-initial `except*`
  can be a clause, so only those are candidates now; the parser decides the rest.
- **Scan** (`check`): the tokenizer is the floor; the per-clause check copied
  the rest of the token list (`tokens[start:]`, and `list.index` per comma),
  quadratic in clauses; now by index, linear.
- **`run`**: every run transformed the main script (9x `python`); its code is
  now cached as the hook's modules are, so a run costs start-up plus unmarshal.
- **Construction**: the type pass iterated the *set* of member types in Python;
  for 10,000 distinct classes, visiting them in hash order missed the CPU cache
  on each (5 ms; the subclass test itself is 80 ns). Now C-level `map` passes,
  per distinct type when few, in the members' order when many (0.6 ms).
- **Handling, cached imports**: bounded by the engine and the per-clause
  scaffolding (the transformed bytecode is 1.7x the plain one; profiles below).
  Measured on 3.13 pure for a naked `except*` (about 2 µs a statement against
  0.5 µs native): the `Star` 0.3 µs, the wrapper group 0.4 µs, making it the
  handled exception through ctypes 0.3 µs (0.9-1.2 µs on 3.8-3.10 with three
  foreign calls; one since issue 37, the references `PyErr_SetExcInfo` steals
  handed over by a private list zeroed in place), raising and the scaffolding the rest. Deep groups: the walks are
  loops, to 3.13's C depth.
"""

# What bounds a row when it misses: the structure behind the profile excerpt.
WHY: Dict[str, str] = {
    "construct": (
        "every member's real type has to be read once (`list(map(type, excs))` in "
        "`BaseExceptionGroup.__new__`, then one count or one set), which is most of the time: C-level "
        "iteration, but a type() call per member, where the built-in tests a flag. On "
        "3.8 and 3.9 type() has no vectorcall, so that pass costs 2.5-3x what it does on "
        "3.10+ (`list(map(type, ...))` of 1000: 25-32 µs there, 10 µs on 3.10). A bound, measured "
        "(issue 37): the cheapest C function a member can be passed to through `map` at all, "
        "`callable()` (one argument, a singleton back), takes 11.5 µs / 10.8 µs per 1000 members on "
        "3.8 / 3.9, the whole of 5x's budget (11.8 / 12.6 µs) before the group is made; the tests "
        "that read a real type, type(), `isinstance()` (which asks `__class__` of a non-instance, "
        "as C does not) or `BaseException.__reduce__`, take 21-33 µs. What it would take: the type "
        "pass in C, a compiled helper module, which a pure-Python package without runtime "
        "dependencies does not ship."
    ),
    "split_flat": (
        "a C-level pass over the members per side (type, set membership, `compress`) and "
        "two new groups, where the built-in does one C loop; on 3.8 and 3.9 the type() calls "
        "cost 2.5-3x what they do on 3.10+."
    ),
    "subgroup_flat": "one C-level pass over the members (type, set membership, `compress`).",
    "except_star_naked": (
        "per handled exception the pure path runs a `Star` object (its class call and `__init__`), "
        "its `match` (a naked built-in exception under a built-in clause is matched by its class "
        "alone, its wrapper group and one-entry traceback built and made the handled exception "
        "inline, through ctypes), and the statement's guarded scaffolding, where the interpreter "
        "runs one opcode in C. Counted on 3.8 / 3.9 / 3.10 with callgrind (issue 37): 28.5k / 27.5k "
        "/ 26.6k instructions a statement (60.8k on 3.8 when the issue was filed). 5x the backport "
        "allows 19.1k / 18.4k / 18.8k. The same work with no call at all, in the user's frame, "
        "costs 15.1k / 14.4k / 14.7k; reshaped statements with one engine call and a leaner "
        "`Star`, prototyped, 21.1k / 20.3k / 20.3k at best: one Python frame, the `Star` that "
        "lets an interrupt arriving in the machinery lose nothing, and the guards cost more than "
        "the 4k left. What it would take: the wrapper made in C (a compiled helper), or giving up "
        "that guarantee."
    ),
    "construct_small": (
        "a Python-level `__new__` (the checks CPython makes, inline for the usual call since issue "
        "37: one of the two classes, a `str` tested by one of str's methods, a short list or tuple "
        "of Exceptions, a single member or a pair unpacked without `map` or `tuple()`) and "
        "`BaseException.__new__`; the two classes' construction runs `BaseException`'s C init "
        "(their own `__init__` stays the one explicit calls and subclasses see). Counted on 3.8 "
        "with callgrind: 44.4k instructions for the four groups (46.9k before the str method and "
        "the pair), the backport 82.8k; 2x needs 41.4k. Of ours, the class call with a Python "
        "`__new__` and `BaseException.__new__` alone take 2.6k a group, and `type()` about 530 a "
        "member (22 calls in the four, 20% of the whole on 3.8, where type() makes a tuple for "
        "its argument). What it would take: a constructor in C (a compiled helper), or code "
        "unrolled per group size."
    ),
    "construct_distinct": (
        "one `type()` per member and one subclass test per distinct type, both C-level loops "
        "(`map`), in the members' order: over the set of 10,000 classes, in hash order, every "
        "test missed the CPU cache (5 ms before, 0.6 ms now on 3.10). The built-in does the same "
        "test in one C loop; the floor is `list(map(type, ...))` plus two `map` passes."
    ),
    "split_deep": (
        "the split is a loop over an explicit stack, bounded by 3.13's C depth "
        "(`_split.MAX_DEPTH`), with a linear cost per level (the 4x row)."
    ),
    "except_star_deep": (
        "the engine's match and `finish` use the same loops as the split: the same bound "
        "as split_deep."
    ),
    "except_star_group": (
        "per clause: a `Star.match` (a split of the group: a pass over its member types and two "
        "new groups through `subset`, each copying the traceback, context, cause and notes as "
        "CPython's exceptiongroup_subset does), the handled exception set through ctypes, the "
        "clause's try/except scaffolding, and `outcome` rebuilding what is left; the native "
        "statement runs the same steps in C (see the profile: the split is most of it). 3x the "
        "backport allows about 69k instructions on 3.8 for what takes 129k (two matches with "
        "their splits about 45k each). What it would take: the split and the re-raise computation "
        "in C, or one engine call per clause instead of the guarded match, which would give up "
        "the guarantee that an interrupt (a signal's KeyboardInterrupt) arriving in the "
        "machinery loses no part of the group."
    ),
    "catch_group": (
        "the engine's steps as in the `except*` row, through a context manager: its `__exit__`, "
        "a generator over the handlers and one call per handler on top."
    ),
    "collapse": (
        "the `with` block, raising the leaf and making it the handled exception cost about what "
        "the whole recipe by hand does (2.85 µs of its 3.1 µs on 3.8); finding the leaf and "
        "building its composite traceback (every entry made anew, ours left out, as "
        "`leaf_exceptions` gives it) about 3.6 µs more. What it would take: the leaf's traceback "
        "left as it was, which would show the group's entries twice."
    ),
    "leaves": (
        "every leaf gets a composite traceback of new entries (the group's entries above its "
        "own): 4,000 `TracebackType()` calls for this group, 470-500 µs on 3.8, 6.3-6.5x the "
        "hand walk by themselves, which builds none. The walk reads each group's entries once."
    ),
    "transform_500": (
        "(`compile()`: the starred functions are left out of the native compile of the "
        "star-free ones, which are stubbed in the tree; 3.25-3.8x interleaved in one process, "
        "3.75-4.0x before.) Any rewrite that emits this scaffolding: the row `compile() of the 500-except* module's "
        "rewritten text` is the built-in compile of the rewritten module as plain text, 2.1-3x plain "
        "`compile()` by itself, with no tree and no rewrite (issue 27, measured in the same run). A "
        "hand-written scaffolding with no guards at all (one engine call per clause, the handler's "
        "try kept) still compiled at 1.46x on 3.10: every try around a handler body costs the "
        "compiler about what the body does. Through a Python tree (this path) parse-to-tree is "
        "1.0x, the rewrite 0.75-0.8x (making about 55 nodes a clause; `transform(shared=True)` "
        "now builds the alike ones once) and compiling the tree 1.4-1.6x (callgrind: most of it "
        "in `obj2ast`, turning the Python nodes back into C ones). Since 0.5.0.dev3 a clause is "
        "one try holding its match and its body and no call into the engine is left unguarded (the "
        "retry of `outcome` after an interrupt was): 47 nodes made a clause on 3.8, 40 on 3.10 (50 "
        "before), the same compile cost (the rewritten text, interleaved in one process: 2.23x / "
        "2.33x / 2.42x -> 2.20x / 2.42x / 2.41x). A first form with `Star()` unguarded compiled "
        "5-10% faster, but 3.10+ run signal handlers as any call returns. "
        "What it would take: a "
        "scaffolding of about a third of today's per clause (the guards moved into the runtime, "
        "which gives up what they guarantee on 3.11+ under `EXCEPTSTAR_PURE=1`) and the source-level "
        "rewrite (one native compile, the line tables mapped back); neither fits 1.5x alone. Nor "
        "does the source-level rewrite give the tree's code exactly: 3.8 and 3.9 skip their "
        "peephole pass for a line table with a 255 byte, which the tree's clause code after a "
        "one-line body has (a line step of -1) and the text's own lines never do; 3.10 fills code "
        "with no line from the code before it, where mapped text lines would have none."
    ),
    "transform_one": (
        "`compile()` may run the code with builtins of its own, so the module-level code must hold "
        "the runtime lookup (the prologue) and comes from a tree with every star-free function "
        "stubbed: the native compile (1x), the stub tree's parse and compile (0.2x) and Python "
        "work (0.25x: the scan, the clause checks, the line tables; issue 27 made reading the "
        "line tables a C loop). An import (`module=True`, no prologue) takes the native module "
        "code and costs 1.04x (3.8) / 1.12x (3.10) for this module. What it would take: the "
        "prologue put into the native compile's text (8 lines inserted after the docstring, the "
        "module's line table mapped back; exact on 3.8/3.9, where the compiler's output does not "
        "depend on line numbers except that the peephole pass is skipped for a 255-byte line step, "
        "and not on 3.10, whose compiler gives code without a line other code than code with one)."
    ),
    "uncached_import_500": (
        "the hook's path: the 250 starred functions are read from the text (`_compiler.native_parts."
        "_stars_apart`) and compiled from a tree of them alone (parse 0.5x, rewrite 0.6-0.7x, the "
        "tree's compile 1.07x: most of it their scaffolding), the rest of the module natively "
        "without them (0.45-0.55x), then the module runs, which both sides do. Interleaved in one "
        "process (7 each, GC on), the compile alone went from 3.5-3.7x to 2.9-3.3x with that "
        "reading. The same bound as `transform + compile`: the scaffolding."
    ),
    "uncached_import_one": (
        "the native compile (1x, the starred function left out) and what lets the star-free code "
        "stay native: the PEP 765 pre-check (`finally_flow.may_leave_finally`, 0.025x for this "
        "module's 416 `finally` blocks, cut out one by one and looked into at once), the clause "
        "scan (0.015x), the starred function read from the text and its tree (0.02x). In one "
        "process, the two imports alternating (21 each, GC on): 1.03-1.07x on 3.8-3.10 (1.06-1.12x "
        "before those were cut); a row of fresh processes on this machine spreads by ±20%."
    ),
    "transform_lookalike": (
        "the same bound as the one-clause module: a look-alike in a comment or a string no "
        "longer sends the file to the tokenizer (only a line-initial `except*` is a candidate "
        "clause, and the parser then decides), so this costs what the main path costs."
    ),
    "scan": (
        "`tokenize.generate_tokens` is the peer and most of the time: pure Python on 3.8-3.11, "
        "CPython's C tokenizer from 3.12, where the scan's own work weighs more. The scan keeps "
        "every token (about 65,000 here) and reads their types and strings in C loops (`map`, "
        "`compress`, `list.index`), with a Python turn per line or per `except` only (issue 37: "
        "1.52x before on 3.10 and 2.11x-2.91x on 3.12-3.15, with a Python turn per token; "
        "2.01x-2.29x now there)."
    ),
    "first_import": (
        "80 of each module's 100 lines are module-level statements. For imports the "
        "module-level code is the native compile's and only the starred function (15 "
        "lines) goes through a tree (`_compiler.native_parts._stars_apart`): per module one native "
        "compile of the rest, the scan, and the starred function's parse, rewrite and compile "
        "(0.5-0.7x: its two clauses become about 110 generated nodes), then the hook's loader. "
        "What is left above 1.5x is that tree and the per-clause scaffolding (see the 500-clause "
        "module)."
    ),
    "first_import_every": (
        "as first_import, with both functions through the tree: the tree's share grows with the "
        "starred functions' share of the module (here a fifth of its lines)."
    ),
    "cold_start": (
        "counted with `valgrind --tool=callgrind` on 3.10 (repeatable) before issue 27's last "
        "stops: the plain program costs 256 M instructions, 43 M of them the interpreter's "
        "start-up; 1.3x allows 77 M more in all. exceptstar's fixed costs are now its own "
        "modules: the first transformation no longer imports `re`, `ast` or `tokenize`, and "
        "`install()` no longer imports `ctypes` (`sys._clear_type_cache` instead of "
        "`PyType_Modified` through ctypes; about 2 ms of a start), though this program's handlers "
        "handle a group, whose first one imports it (`_handled.set_handled`). The 20 "
        "transformations are most of the rest (about 25 M a module against 10.6 M to compile and "
        "run the plain one): the starred functions are 60% of each module's lines, through the "
        "tree, at the 500-clause row's cost (compiled once now: the native compile leaves them "
        "out). What it would take: that row's scaffolding (below "
        "1.5x only without the guards), or the transformed bytecode shipped "
        "(`python -m exceptstar compileall`, 1.19x)."
    ),
    "run_script": (
        "start-up of `python -m exceptstar` (importing exceptstar, the hook, `_commands.cli`) and "
        "unmarshalling the cached code, against `python` compiling the plain script."
    ),
    "format": "the walk over the group and its tracebacks is Python code (see the profile).",
    "import": "the modules that `import exceptstar` loads (see the -X importtime tree).",
    "cached_import": (
        "the transformed module's bytecode is larger than its plain twin's (the cache files' "
        "sizes are listed under the table): every `except*` clause becomes a try/except/"
        "finally around calls into the runtime, and unmarshalling the larger code is most of "
        "a cached import (`marshal.loads` in the profile). The size ratio is the floor; the "
        "hook's finder and loader, Python code run on every import, come on top. What it "
        "would take: smaller scaffolding per clause, which the guarded calls (nothing lost "
        "to an interrupt) rule out below about 1.7x the plain bytecode."
    ),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter loops and fewer repeats")
    parser.add_argument("--rounds", type=int, metavar="N",
                        help="processes per case and side, alternating (default 3, quick 1)")
    parser.add_argument("--only", action="append", metavar="3.X",
                        help="run only this interpreter: 3.X or pypy3.X (repeatable)")
    parser.add_argument("--case", action="append", metavar="NAME",
                        choices=[s[len("case_"):-len(".py")] for s in SCRIPTS],
                        help="run only bench/case_NAME.py (repeatable)")
    parser.add_argument("--no-profile", action="store_true",
                        help="skip profiling the rows that miss their target")
    parser.add_argument("--no-instructions", action="store_true",
                        help="skip counting the engine rows' instructions with callgrind")
    parser.add_argument("--output", type=Path, default=BENCH / "RESULTS.md")
    args = parser.parse_args()
    interpreters = [Interpreter(f"{v[0]}.{v[1]}", v, exe) for v, exe in sorted(find_interpreters().items())]
    interpreters += [Interpreter(f"pypy{v[0]}.{v[1]}", v, exe, True) for v, exe in sorted(find_pypys().items())]
    if args.only:
        interpreters = [i for i in interpreters if i.name in args.only]
    if not interpreters:
        log("no interpreter found" + (f" named {', '.join(args.only)}" if args.only else ""))
        return 1
    started = time.perf_counter()
    load_before = os.getloadavg()[0]
    all_results = []
    rounds = args.rounds or (1 if args.quick else 3)
    for interpreter in interpreters:
        log(f"{interpreter.title} {interpreter.name}: {interpreter.exe}")
        # A script none of whose rows this version reports (the type checkers' route, 3.13) is not run.
        scripts = [s for s in (PYPY_SCRIPTS if interpreter.pypy else SCRIPTS)
                   if (not args.case or s[len("case_"):-len(".py")] in args.case)
                   and any(row.script == s and interpreter.version >= row.min_version for row in ROWS)]
        all_results.append(bench_version(interpreter, args.quick, rounds, not args.no_profile,
                                         not args.no_instructions, scripts))
    elapsed = time.perf_counter() - started
    write_report(args.output, all_results, args.quick, rounds, (load_before, os.getloadavg()[0]), elapsed)
    log(f"wrote {args.output} in {elapsed:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
