"""The standard library's tools that run a program, on a program that uses ``except*``.

``python -m exceptstar run -m pdb|cProfile|profile|trace script.py`` compared
with the same tool on native 3.11 (on 3.11+: with the interpreter
itself, where ``run`` must change nothing).  3.11 is the reference because its
pdb and traceback layout are 3.10's (3.12 reworked both).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.interpreters import SID_BIN, find_interpreters
from support.processes import child_env

SCRIPT = """\
def work(n):
    total = 0
    try:
        raise ExceptionGroup("eg", [ValueError(n), TypeError(n)])
    except* ValueError:
        total += 1
    except* TypeError:
        total += 2
    return total


def unused():
    return 0


def main():
    results = [work(i) for i in range(3)]
    print(results)


main()
"""


def reference() -> str:
    """The interpreter whose plain ``python -m tool`` is the oracle."""
    if sys.version_info >= (3, 11):
        return sys.executable
    exe = find_interpreters().get((3, 11))
    if exe is None:
        pytest.skip("no CPython 3.11 on this machine")
    return exe


def tool_oracle() -> str:
    """The interpreter whose plain ``python -m pdb``/``trace``/profiler is the oracle:
    on PyPy 3.9 a native PyPy (3.11), whose pure-Python codecs (``print``'s encoder)
    run under a debugger or a tracer like the program's code, as on PyPy 3.9."""
    if sys.implementation.name == "pypy" and sys.version_info < (3, 11):
        exe = SID_BIN / "pypy3.11"
        if not exe.exists():
            pytest.skip("no PyPy 3.11 on this machine")
        return str(exe)
    return reference()


def ours(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "exceptstar", "run", *args], cwd=tmp_path, input=stdin,
                          capture_output=True, text=True, env=child_env(False), timeout=120)


def theirs(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([reference(), *args], cwd=tmp_path, input=stdin, capture_output=True, text=True,
                          env=child_env(False), timeout=120)


def traced(tmp_path: Path, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([tool_oracle(), *args], cwd=tmp_path, input=stdin, capture_output=True, text=True,
                          env=child_env(False), timeout=120)


def both(tmp_path: Path, *args: str, stdin: str | None = None) -> tuple[str, str]:
    (tmp_path / "script.py").write_text(SCRIPT)
    mine, native = ours(tmp_path, *args, stdin=stdin), traced(tmp_path, *args, stdin=stdin)
    assert mine.returncode == native.returncode == 0, mine.stderr + native.stderr
    return mine.stdout, native.stdout


def without_paths(text: str) -> str:
    # The standard library's own file and line (bdb.py(580) on 3.10, 597 on 3.11) are the version's.
    return re.sub(r"\S*/lib/(?:python|pypy)3\.\d+/([\w/]+\.py)\(\d+\)", r"\1(N)", text)


@pytest.mark.needs_processes
def test_pdb_breakpoint_step_and_where(tmp_path: Path) -> None:
    commands = "b work\nc\nwhere\nn\nn\nn\nn\nn\nn\nn\np total\nq\n"
    mine, native = both(tmp_path, "-m", "pdb", "script.py", stdin=commands)
    assert without_paths(mine) == without_paths(native)
    assert "-> total += 1" in mine and "script.py(17)main()" in mine  # not vacuous


@pytest.mark.needs_processes
def test_pdb_step_through_except_star_stays_on_the_users_lines(tmp_path: Path) -> None:
    # 3.8-3.9 step once more, onto the first clause's line as the statement
    # finishes (the line numbers those versions give the transformed code).
    revisit = sys.version_info < (3, 10)
    steps = "s\n" * (10 if revisit else 9)
    (tmp_path / "script.py").write_text(SCRIPT)
    mine = ours(tmp_path, "-m", "pdb", "script.py", stdin=f"b work\nc\n{steps}where\nq\n")
    native = traced(tmp_path, "-m", "pdb", "script.py", stdin="b work\nc\n" + "s\n" * 9 + "where\nq\n")
    assert mine.returncode == native.returncode == 0, mine.stderr + native.stderr
    transcript = mine.stdout
    if revisit:
        extra = f"(Pdb) > {tmp_path}/script.py(5)work()\n-> except* ValueError:\n"
        before = transcript.index("-> total += 2\n") + len("-> total += 2\n")
        assert transcript[before:].startswith(extra)
        transcript = transcript[:before] + transcript[before + len(extra):]
    assert without_paths(transcript) == without_paths(native.stdout)
    assert "-> total += 2" in transcript and "exceptstar" not in transcript  # not vacuous


MODULE_LEVEL = """\
\"\"\"A module that names ExceptionGroup: its code starts with the runtime's lookup.\"\"\"
errors = []
try:
    raise ExceptionGroup("eg", [ValueError(1)])
except* ValueError as group:
    errors.append(group)
print(len(errors))
"""


@pytest.mark.needs_processes
def test_pdb_steps_from_the_first_line_as_native(tmp_path: Path) -> None:
    (tmp_path / "script.py").write_text(MODULE_LEVEL)
    mine = ours(tmp_path, "-m", "pdb", "script.py", stdin="s\n" * 8 + "q\n")
    native = traced(tmp_path, "-m", "pdb", "script.py", stdin="s\n" * 8 + "q\n")
    assert mine.returncode == native.returncode == 0, mine.stderr + native.stderr
    assert without_paths(mine.stdout) == without_paths(native.stdout)
    assert "-> errors.append(group)" in mine.stdout and "exceptstar" not in mine.stdout  # not vacuous


@pytest.mark.needs_processes
@pytest.mark.parametrize("tool", ["cProfile", "profile"])
def test_profilers_list_the_users_functions(tmp_path: Path, tool: str) -> None:
    mine, native = both(tmp_path, "-m", tool, "-s", "filename", "script.py")

    def rows(report: str) -> list[tuple[str, str]]:
        # ncalls and file:line(function) of the program's own functions; the times are the run's.
        return [(line.split()[0], line.split()[-1]) for line in report.splitlines() if "script.py:" in line]

    assert sorted(rows(mine)) == sorted(rows(native))
    assert ("3", "script.py:1(work)") in rows(mine)
    assert mine.splitlines()[0] == "[3, 3, 3]"


TRACED = """\
import script

try:
    raise ExceptionGroup("eg", [OSError(1)])
except* ValueError:
    print("never")
except* OSError:
    print("caught")
"""


def trace_reports(tmp_path: Path, program: str) -> None:
    for run, folder in ((ours, "mine"), (traced, "native")):
        (tmp_path / "script.py").write_text(SCRIPT)
        (tmp_path / "prog.py").write_text(program)
        proc = run(tmp_path, "-m", "trace", "--count", "--missing", "-C", folder, "prog.py")
        assert proc.returncode == 0, proc.stderr


def reports(tmp_path: Path, folder: str) -> set[str]:
    # setuptools' _distutils_hack is in some interpreters' site-packages and not in others.
    names = {path.name for path in (tmp_path / folder).iterdir() if "_distutils_hack" not in path.name}
    if sys.version_info >= (3, 11):
        # Known: run's watcher for bdb (a sys.meta_path finder in Python) is
        # counted there like any other finder; 3.8-3.10 leave it out with the rest.
        names.discard("exceptstar._watch.cover")
    # PyPy's codecs are Python code (print's encoder), counted like the program's.
    names.discard("encodings.utf_8.cover")
    return names


def marks(tmp_path: Path, folder: str, name: str) -> list[tuple[str, str]]:
    # Each line: missed (>>>>>>), executed (a count) or neither.  On 3.8/3.9 the
    # counts of the except* lines differ: their line tables cannot say "no line",
    # so the transformed code steps on those lines more often.
    report = (tmp_path / folder / name).read_text().splitlines()
    return [(">>>>>>" if line.startswith(">>>>>>") else "run" if line[:6].strip() else "", line[7:])
            for line in report]


def assert_same_report(tmp_path: Path, name: str) -> None:
    assert marks(tmp_path, "mine", name) == marks(tmp_path, "native", name)
    if sys.version_info[:2] == (3, 10):
        # PEP 626 line tables: the transformed code's line events are 3.11's, counts included.
        assert (tmp_path / "mine" / name).read_text() == (tmp_path / "native" / name).read_text()


@pytest.mark.needs_processes
def test_trace_count_missing_writes_its_report(tmp_path: Path) -> None:
    # The main program and a module it imports use except*: the hook compiles
    # the module while trace runs, which must leave no trace of it.
    trace_reports(tmp_path, TRACED)
    # An imported module's report is named by its folder's dotted path.
    module = next(name for name in reports(tmp_path, "native") if name.endswith(".script.cover"))
    assert reports(tmp_path, "mine") == reports(tmp_path, "native") == {"prog.cover", module}
    for name in ("prog.cover", module):
        assert_same_report(tmp_path, name)
    assert (">>>>>>", "    return 0") in marks(tmp_path, "mine", module)
    assert (">>>>>>", '    print("never")') in marks(tmp_path, "mine", "prog.cover")


@pytest.mark.needs_processes
def test_trace_counts_the_handlers_exceptstar_calls(tmp_path: Path) -> None:
    trace_reports(tmp_path, "import exceptstar\n\n\ndef handler(eg):\n    print(repr(eg))\n\n\n"
                            "with exceptstar.catch({ValueError: handler}):\n"
                            "    raise ExceptionGroup('eg', [ValueError(1)])\n")
    assert_same_report(tmp_path, "prog.cover")
    assert ("run", "    print(repr(eg))") in marks(tmp_path, "mine", "prog.cover")


@pytest.mark.needs_processes
def test_trace_misses_a_last_clause_that_did_not_run(tmp_path: Path) -> None:
    first, never, last = TRACED.partition('except* ValueError:\n    print("never")\n')
    trace_reports(tmp_path, first + last + never)
    assert_same_report(tmp_path, "prog.cover")
    assert (">>>>>>", '    print("never")') in marks(tmp_path, "mine", "prog.cover")


def test_a_turned_off_row_leaves_the_tool_alone(tmp_path: Path) -> None:
    if sys.version_info >= (3, 11):
        pytest.skip("the rows run only where except* is transformed")
    (tmp_path / "script.py").write_text(SCRIPT)
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "run", "-m", "cProfile", "script.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**child_env(False), "EXCEPTSTAR_NO_PROFILE": "1"})
    assert proc.returncode == 1 and "SyntaxError" in proc.stderr
