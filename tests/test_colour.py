"""Group tracebacks in colour, as the newest CPython prints them, under its rules.

One program prints a set of groups (nesting, notes, causes and contexts,
SyntaxErrors, truncation by width and depth, recursion, odd messages)
through ``format_exception(colorize=True)``, ``format_exception_only(...,
show_group=True, colorize=True)`` and, on 3.8-3.10, exceptstar's
``sys.excepthook`` under ``FORCE_COLOR=1``.  The oracle is the newest native
CPython (``native_python()``, 3.15 here: notes in their own colour are 3.15's),
run as a subprocess; so are the rules (environment variables, a terminal on
stderr), threads and the paths that print plain.  3.8-3.10 record no column
positions: the caret lines under frames and the highlight in the source line
above them are left out of the oracle's text.  On 3.11+ exceptstar's own side
runs pure.
"""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict

import pytest
from support.interpreters import native_python
from support.processes import child_env
from test_formatting import _is_caret_line

ESC = re.compile(r"\x1b\[[0-9;]*m")
FRAME_HEADER = re.compile(r'^[ |+]*  File ".*", line \d+, in ')
OLD = sys.version_info < (3, 11)

PROGRAM = textwrap.dedent('''
    import io, json, os, sys

    if os.environ.get("EXCEPTSTAR_PURE") or sys.version_info < (3, 11):
        import exceptstar
        from exceptstar import BaseExceptionGroup, ExceptionGroup, add_note
        format_exception = exceptstar.format_exception
        format_exception_only = exceptstar.format_exception_only
        hook = sys.excepthook if sys.version_info < (3, 11) else None
    else:
        import traceback
        format_exception = traceback.format_exception
        format_exception_only = traceback.format_exception_only
        hook = sys.__excepthook__

        def add_note(exc, note):
            exc.add_note(note)


    class Custom(Exception):
        pass


    class BadStr(Exception):
        def __str__(self):
            raise RuntimeError("no")


    def leaf(exc):
        raise exc


    def caught(function, *args):
        try:
            function(*args)
        except BaseException as exc:
            return exc


    def recurse(n):
        if n == 0:
            raise ValueError("deep")
        recurse(n - 1)


    def nested():
        try:
            raise KeyError("k")
        except KeyError:
            first = caught(leaf, ValueError("multi\\nline"))
            add_note(first, "a note\\nsecond line")
            io_error = caught(leaf, FileNotFoundError("no such file"))
            io_error.__cause__ = caught(leaf, TypeError("the cause"))
            syntax = SyntaxError("bad", ("f.py", 3, 5, "  x = = 1\\n"))
            syntax.end_lineno, syntax.end_offset = 3, 6
            inner = ExceptionGroup("inner", [TypeError(3), syntax, io_error, Custom()])
            raise ExceptionGroup("outer", [first, inner, ValueError(), caught(recurse, 5)])


    def wide():
        raise ExceptionGroup("wide", [ValueError(i) for i in range(17)])


    def deep():
        group = ExceptionGroup("bottom", [ValueError("leaf")])
        for i in range(12):
            group = ExceptionGroup(f"level {i}", [group, KeyError(i)])
        raise group


    def odd():
        noted = ValueError("noted")
        noted.__notes__ = "not a list"
        nameless = SyntaxError("no line")
        nameless.filename = "g.py"
        raise BaseExceptionGroup("odd", [BadStr(), noted, KeyboardInterrupt(), nameless, Custom("")])


    results = {}
    for case in (nested, wide, deep, odd):
        exc = caught(case)
        shown = {
            "format": "".join(format_exception(exc, colorize=True)),
            "only": "".join(format_exception_only(exc, show_group=True, colorize=True)),
        }
        if hook is not None:
            captured = io.StringIO()
            sys.stderr, saved = captured, sys.stderr
            try:
                hook(type(exc), exc, exc.__traceback__)
            finally:
                sys.stderr = saved
            shown["hook"] = captured.getvalue()
        results[case.__name__] = shown
    sys.stdout.write(json.dumps(results))
''')


def for_old(text: str) -> str:
    """3.11+ text as 3.8-3.10 can print it: no carets under frames, no highlight in the line above."""
    out: list[str] = []
    lines = text.splitlines(True)
    for i, line in enumerate(lines):
        if i >= 2 and _is_caret_line(ESC.sub("", line)) and FRAME_HEADER.match(ESC.sub("", lines[i - 2])):
            out[-1] = ESC.sub("", out[-1])
            continue
        out.append(line)
    return "".join(out)


def run_ours(program: Path, env: Dict[str, str]) -> Dict[str, Dict[str, str]]:
    full = {**child_env(pure=not OLD), **env}
    proc = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=full, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.replace(str(program.parent), "<folder>"))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("colour") / "colour_program.py"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def ours(program: Path) -> Dict[str, Dict[str, str]]:
    return run_ours(program, {"FORCE_COLOR": "1"})


@pytest.fixture(scope="module")
def newest_exe() -> str:
    exe = native_python()
    if exe is None:
        pytest.skip("no native CPython 3.11+ here")
    return exe


def run_newest(exe: str, program: Path, env: Dict[str, str]) -> str:
    """``program``'s stdout in the newest CPython, with ``env`` over an environment without the colour rules."""
    full = {k: v for k, v in child_env(False).items() if k not in RULE_VARIABLES}
    proc = subprocess.run([exe, str(program)], capture_output=True, text=True, timeout=120, env={**full, **env})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def newest(program: Path, newest_exe: str) -> Dict[str, Dict[str, str]]:
    out = run_newest(newest_exe, program, {"FORCE_COLOR": "1"})
    return json.loads(out.replace(str(program.parent), "<folder>"))  # type: ignore[no-any-return]


CASES = ["nested", "wide", "deep", "odd"]
PATHS = ["format", "only"] + (["hook"] if OLD else [])


@pytest.mark.needs_processes
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("case", CASES)
def test_as_newest(ours: Dict[str, Dict[str, str]], newest: Dict[str, Dict[str, str]], case: str, path: str) -> None:
    mine = ours[case][path]
    assert "\x1b[1;35m" in mine
    reference = newest[case]["hook" if path == "hook" else path]
    # On 3.11+ (pure) the frames have their carets: compared as 3.8-3.10 print them.
    assert for_old(mine) == for_old(reference)


# -- when: the newest CPython's rules, through the hook that prints an uncaught group --

RULE_VARIABLES = ("PYTHON_COLORS", "NO_COLOR", "FORCE_COLOR", "TERM")
COMBINATIONS = [
    {},
    {"FORCE_COLOR": "1"},
    {"FORCE_COLOR": ""},
    {"NO_COLOR": "1", "FORCE_COLOR": "1"},
    {"NO_COLOR": "", "FORCE_COLOR": "1"},
    {"PYTHON_COLORS": "1"},
    {"PYTHON_COLORS": "1", "NO_COLOR": "1"},
    {"PYTHON_COLORS": "0", "FORCE_COLOR": "1"},
    {"TERM": "dumb", "FORCE_COLOR": "1"},
    {"TERM": "dumb"},
]

RULES = textwrap.dedent('''
    import io, json, os, sys
    combinations = json.loads(os.environ["COMBINATIONS"])
    try:
        raise ExceptionGroup("eg", [ValueError(1)])
    except ExceptionGroup as caught:
        group = caught
    coloured = []
    for combination in combinations:
        for name in ("PYTHON_COLORS", "NO_COLOR", "FORCE_COLOR", "TERM"):
            os.environ.pop(name, None)
        os.environ.update(combination)
        sys.stderr, saved = io.StringIO(), sys.stderr
        try:
            sys.__excepthook__(type(group), group, group.__traceback__)
        finally:
            sys.stderr, captured = saved, sys.stderr
        coloured.append("\\x1b[" in captured.getvalue())
    sys.stdout.write(json.dumps(coloured))
''')

UNCAUGHT = "from exceptstar import ExceptionGroup\nraise ExceptionGroup('eg', [ValueError(1)])\n"


def uncaught(exe: str, env: Dict[str, str], stderr: int | None = None) -> str:
    """The stderr of a program that ends with a group, through the interpreter's hook (exceptstar's on 3.8-3.10)."""
    full = {k: v for k, v in child_env(False).items() if k not in RULE_VARIABLES}
    full.update(env)
    if stderr is None:
        proc = subprocess.run([exe, "-c", UNCAUGHT], capture_output=True, text=True, env=full, timeout=120)
        return proc.stderr
    subprocess.run([exe, "-c", UNCAUGHT], stdout=subprocess.DEVNULL, stderr=stderr, env=full, timeout=120)
    return ""


@pytest.mark.skipif(not OLD, reason="3.11+ print uncaught groups themselves")
def test_rules_as_newest(tmp_path: Path, newest_exe: str) -> None:
    program = tmp_path / "rules.py"
    program.write_text(RULES, encoding="utf-8")
    expected = json.loads(run_newest(newest_exe, program, {"COMBINATIONS": json.dumps(COMBINATIONS)}))
    assert True in expected and False in expected
    got = ["\x1b[" in uncaught(sys.executable, combination) for combination in COMBINATIONS]
    assert dict(zip(map(str, COMBINATIONS), got)) == dict(zip(map(str, COMBINATIONS), expected))


def on_a_terminal(exe: str, env: Dict[str, str]) -> str:
    controller, terminal = pty.openpty()
    try:
        uncaught(exe, env, stderr=terminal)
        os.close(terminal)
        terminal = -1
        chunks = []
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal side is closed: all read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(controller)
        if terminal >= 0:
            os.close(terminal)
    return b"".join(chunks).decode()


@pytest.mark.skipif(not OLD, reason="3.11+ print uncaught groups themselves")
@pytest.mark.parametrize("env", [{}, {"TERM": "dumb"}, {"NO_COLOR": "1"}], ids=["terminal", "dumb", "no-color"])
def test_a_terminal_as_newest(newest_exe: str, env: Dict[str, str]) -> None:
    mine = on_a_terminal(sys.executable, env)
    theirs = on_a_terminal(newest_exe, env)
    assert "ValueError" in mine and "ValueError" in theirs
    assert ("\x1b[" in mine) == ("\x1b[" in theirs) == (env == {})


THREAD = textwrap.dedent('''
    import sys, threading
    if sys.version_info < (3, 11):
        from exceptstar import ExceptionGroup

    def work():
        raise ExceptionGroup("in a thread", [ValueError(1), ExceptionGroup("inner", [KeyError(2)])])

    thread = threading.Thread(target=work, name="worker")
    thread.start()
    thread.join()
''')


def without_threading_frames(text: str) -> str:
    lines = text.splitlines(True)
    out = []
    skip = False
    for line in lines:
        plain = ESC.sub("", line)
        if FRAME_HEADER.match(plain):
            skip = "threading.py" in plain
        elif not plain.startswith(("  |     ", "    ")):
            skip = False
        if not skip:
            out.append(line)
    return "".join(out)


@pytest.mark.skipif(not OLD, reason="3.11+ print groups in threads themselves")
def test_thread_as_newest(tmp_path: Path, newest_exe: str) -> None:
    program = tmp_path / "thread.py"
    program.write_text(THREAD, encoding="utf-8")
    env = {k: v for k, v in child_env(False).items() if k not in RULE_VARIABLES}
    env["FORCE_COLOR"] = "1"
    mine, theirs = (subprocess.run([exe, str(program)], capture_output=True, text=True, env=env, timeout=120).stderr
                    for exe in (sys.executable, newest_exe))
    assert "\x1b[1;35mValueError" in mine
    assert without_threading_frames(mine) == without_threading_frames(for_old(theirs))


OTHER_PATHS = textwrap.dedent('''
    import code, gc, io, json, logging, sys
    if sys.version_info < (3, 11):
        from exceptstar import ExceptionGroup

    class Dies:
        def __del__(self):
            raise ExceptionGroup("in __del__", [ValueError(1)])

    shown = {}
    sys.stderr, saved = io.StringIO(), sys.stderr
    try:
        Dies()
        gc.collect()
        shown["unraisable"] = sys.stderr.getvalue()
        sys.stderr.seek(0)
        sys.stderr.truncate()
        code.InteractiveInterpreter().runsource("raise ExceptionGroup('typed', [ValueError(1)])")
        shown["code"] = sys.stderr.getvalue()
        sys.stderr.seek(0)
        sys.stderr.truncate()
        logging.basicConfig(stream=sys.stderr)
        try:
            raise ExceptionGroup("logged", [ValueError(1)])
        except ExceptionGroup:
            logging.exception("failed")
        shown["logging"] = sys.stderr.getvalue()
    finally:
        sys.stderr = saved
    sys.stdout.write(json.dumps(shown))
''')


@pytest.mark.skipif(not OLD, reason="3.11+ print groups themselves; nothing is patched")
def test_other_paths_as_newest(tmp_path: Path, newest_exe: str) -> None:
    program = tmp_path / "plain.py"
    program.write_text(OTHER_PATHS, encoding="utf-8")
    env = {k: v for k, v in child_env(False).items() if k not in RULE_VARIABLES}
    env["FORCE_COLOR"] = "1"
    proc = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    mine = json.loads(proc.stdout)
    theirs = json.loads(run_newest(newest_exe, program, {"FORCE_COLOR": "1"}))
    assert sorted(mine) == sorted(theirs) == ["code", "logging", "unraisable"]
    for path in mine:
        # The unraisable hook's first line is what the interpreter passes it (3.14 words it anew).
        skip = 1 if path == "unraisable" else 0
        assert for_old(mine[path]).split("\n")[skip:] == for_old(theirs[path]).split("\n")[skip:], path
