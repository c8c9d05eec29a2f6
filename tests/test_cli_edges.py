"""``python -m exceptstar`` at its edges: what ``python`` itself does there.

A program without ``except*`` must give, under ``run``, byte for byte what the
same interpreter gives it (folders, zipapps, NUL bytes, binary files, bad
coding cookies, ``__context__`` loops); one with ``except*`` what the native
3.11+ interpreter gives.  The command line's own options are checked for
their output and exit status.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from support.interpreters import native_python
from support.processes import child_env, exceptstar, python

from exceptstar._compiler.syntax import UNPARENTHESIZED_NOTE


def outcome(proc: subprocess.CompletedProcess[str]) -> tuple[str, str, int]:
    return proc.stdout, proc.stderr, proc.returncode


def comparable(stderr: str) -> str:
    """A traceback without runpy's frames (``<frozen runpy>`` on 3.11+) or 3.11+'s caret lines."""
    kept: list[str] = []
    skipping = False
    for line in stderr.splitlines():
        stripped = line.lstrip(" |")
        if stripped.startswith("File "):
            skipping = "runpy" in stripped.split(",")[0]
        elif not line.startswith((" ", "|")) or stripped.startswith(("+", "Traceback", "Exception")):
            skipping = False
        if skipping or re.fullmatch(r"[\s|]*[~^]+\s*", line):
            continue
        kept.append(line)
    return "\n".join(kept)


def native() -> str:
    exe = native_python()
    if exe is None:
        pytest.skip("no CPython 3.11+ on this machine")
    return exe


# --- uncaught exceptions -----------------------------------------------------

CONTEXT_LOOPS = {
    "two": "e = ValueError(1)\nt = TypeError(2)\ne.__context__ = t\nt.__context__ = e\nraise e\n",
    "self": "e = ValueError(1)\ne.__context__ = e\nraise e\n",
    "handled": textwrap.dedent("""\
        def f():
            try:
                raise ValueError(1)
            except ValueError as e:
                t = TypeError(2)
                t.__context__ = e
                e.__context__ = t
                raise t
        f()
        """),
}


@pytest.mark.needs_processes
@pytest.mark.parametrize("name", sorted(CONTEXT_LOOPS))
def test_context_loop_is_reported_as_python_does(tmp_path: Path, name: str) -> None:
    # 3.8 hung here: the report ran while the exception was still being handled.
    (tmp_path / "loop.py").write_text(CONTEXT_LOOPS[name])
    ours = exceptstar("run", "loop.py", cwd=tmp_path)
    assert outcome(ours) == outcome(python(sys.executable, "loop.py", cwd=tmp_path))
    ours = exceptstar("run", "-c", CONTEXT_LOOPS[name], cwd=tmp_path)
    assert outcome(ours) == outcome(python(sys.executable, "-c", CONTEXT_LOOPS[name], cwd=tmp_path))


# --- what python runs: folders and zip files ---------------------------------

MAIN_PLAIN = textwrap.dedent("""\
    import sys
    print(__name__, __file__, sys.argv, sys.path[0], __spec__.name, sorted(globals()))
    raise KeyError("from main")
    """)

MAIN_STAR = textwrap.dedent("""\
    import sys
    print(__name__, sys.argv, __spec__.name)
    try:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    except* ValueError as e:
        print("caught", repr(e))
    """)


def _folder_and_zipapp(root: Path, text: str) -> None:
    (root / "app").mkdir()
    (root / "app" / "__main__.py").write_text(text)
    with zipfile.ZipFile(root / "app.pyz", "w") as archive:
        archive.writestr("__main__.py", text)


@pytest.mark.needs_processes
def test_folder_and_zipapp_run_like_python(tmp_path: Path) -> None:
    _folder_and_zipapp(tmp_path, MAIN_PLAIN)
    for target in ("app", "./app.pyz", str(tmp_path / "app.pyz")):
        ours = outcome(exceptstar("run", target, "x", cwd=tmp_path))
        reference = outcome(python(sys.executable, target, "x", cwd=tmp_path))
        if target.endswith(".pyz") and (3, 11) <= sys.version_info < (3, 13) and "    raise" not in reference[1]:
            # Those interpreters quote no line of a zipapp's __main__ (3.13 does);
            # in pure mode, through exceptstar's zip loader, the line is quoted.
            ours = (ours[0], ours[1].replace('    raise KeyError("from main")\n', ""), ours[2])
        assert ours == reference, target
        assert "KeyError: 'from main'" in ours[1]
    (tmp_path / "empty").mkdir()
    ours = exceptstar("run", "empty", cwd=tmp_path)
    assert outcome(ours) == outcome(python(sys.executable, "empty", cwd=tmp_path))
    assert "can't find '__main__' module" in ours.stderr


@pytest.mark.needs_processes
def test_folder_and_zipapp_with_except_star_as_native(tmp_path: Path) -> None:
    _folder_and_zipapp(tmp_path, MAIN_STAR)
    # Absolute: 3.8 shows a relative target's paths relative, 3.9+ absolute.
    for target in (str(tmp_path / "app"), str(tmp_path / "app.pyz")):
        ours = exceptstar("run", target, "y", cwd=tmp_path)
        reference = python(native(), target, "y", cwd=tmp_path)
        assert (ours.stdout, ours.returncode) == (reference.stdout, reference.returncode), target
        assert comparable(ours.stderr) == comparable(reference.stderr), target
        assert "caught ExceptionGroup('eg', [ValueError(1)])" in ours.stdout
        assert "TypeError: 2" in ours.stderr


@pytest.mark.needs_processes
def test_module_run_gets_a_fresh_main_namespace(tmp_path: Path) -> None:
    (tmp_path / "nsmod.py").write_text(MAIN_PLAIN)
    (tmp_path / "nspkg").mkdir()
    (tmp_path / "nspkg" / "__init__.py").write_text("")
    (tmp_path / "nspkg" / "__main__.py").write_text(MAIN_PLAIN)
    for name in ("nsmod", "nspkg"):
        ours = exceptstar("run", "-m", name, cwd=tmp_path)
        assert outcome(ours) == outcome(python(sys.executable, "-m", name, cwd=tmp_path)), name


# --- what python refuses to read ----------------------------------------------

UNREADABLE = {
    "nul.py": b"print(1)\nx = 1\0garbage(\nprint(3)\n",
    "nul_end.py": b"print(1)\n\0",
    "binary.py": b"\x7fELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\x02\0>\0\x01\0\0\0\x10\x12\xfe\xff\n",
    "cookie.py": b"# coding: nonexistent\nx = 1\n",
    "cookie2.py": b"#!/usr/bin/env python\n# -*- coding: nonexistent -*-\nx = 1\n",
    "cookie_star.py": b"# coding: nonexistent\ntry:\n    pass\nexcept* ValueError:\n    pass\n",
    # A codec that is no text encoding, and bytes after the cookie's line that its codec rejects
    # (3.14.7+ report the codec's own error, counting from the cookie line's last byte).
    "codec.py": b"# coding: hex_codec\nprint('eggs')\n",
    "undecodable.py": b'# coding: shift-jis\nprint("\xc4\x85")\n',
    # A UTF-8 BOM and a cookie naming another encoding, on the first line or the second.
    "bom.py": b"\xef\xbb\xbf# coding: latin-1\nx = 1\n",
    "bom2.py": b"\xef\xbb\xbf#!/usr/bin/env python\n# coding: iso-8859-15\nx = 1\n",
    # No cookie, a byte that is not UTF-8: the tokenizer's words name the file.
    "latin1.py": b"x = '\xff'\n",
    # Under a UTF-8 cookie, a later line that is not UTF-8 (3.14.7+: the codec's error, per line).
    "utf8_cookie.py": b"# coding: utf-8\nx = 1\ny = '\xff'\n",
    # The lines read to find the cookie, not valid in its codec (before 3.14.7, never decoded by it).
    "cookie_line.py": b"#!/usr/bin/python\n#coding:ascii \xc3\xa4\nraise RuntimeError\n",
    "before_cookie.py": b"#!/usr/bin/python \xff\n# coding: utf-8\nx = 1\n",
}
# Where run, compiling the whole file at once, still differs from the file tokenizer.
UNREADABLE_GAPS = {
    "latin1.py": ((3, 14), "compile reports a codec error where the file tokenizer reports the byte"),
    "cookie_line.py": ((3, 14, 7), "the tokenizer checks the cookie's lines as UTF-8; compile decodes them"),
    "before_cookie.py": ((3, 14, 7), "the tokenizer checks the cookie's lines as UTF-8; compile decodes them"),
}


@pytest.mark.needs_processes
@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.xfail(
        name in UNREADABLE_GAPS and sys.version_info < UNREADABLE_GAPS[name][0], strict=True,
        reason=UNREADABLE_GAPS.get(name, ((), ""))[1]))
    for name in sorted(UNREADABLE)])
@pytest.mark.skipif(sys.implementation.name == "pypy",
                    reason="PyPy's script reader has rules of its own (it runs a file with NUL bytes, and reports "
                           "an unknown cookie as 'Unknown encoding' at line 0): run reports these as CPython does")
def test_unreadable_source_reported_as_python_does(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_bytes(UNREADABLE[name])
    ours = exceptstar("run", name, cwd=tmp_path)
    plain = python(sys.executable, name, cwd=tmp_path)
    assert outcome(ours) == outcome(plain)
    assert "exceptstar" not in ours.stderr


# --- check ---------------------------------------------------------------------

STAR = "try:\n    pass\nexcept* A:\n    pass\n"


def _nested(levels: int) -> str:
    """``levels`` try/except* statements, each in the previous one's handler."""
    lines = []
    for level in range(levels):
        pad = "    " * 2 * level
        lines += [f"{pad}try:", f"{pad}    pass", f"{pad}except* ValueError:"]
    lines.append("    " * (2 * levels - 1) + "pass")
    return "\n".join(lines) + "\n"


CHECKED = {
    # A NUL byte: reported as the interpreter reading the file reports it, and check goes on.
    "a_nul.py": (STAR + "x = 1\0\n").encode(),
    # Compiles only in an async function: the parser accepts it, the compiler does not.
    "b_async.py": b"try:\n    pass\nexcept* A:\n    async with b:\n        pass\n",
    "c_indent.py": (STAR + "  x = 1\n").encode(),
    "d_cookie.py": b"# coding: nonexistent\n" + STAR.encode(),
    # Several errors, listed in line order (compiler errors used to come last).
    "e_order.py": (b"def f():\n    try:\n        pass\n    except* A:\n        return 1\n"
                   b"try:\n    pass\nexcept* A, B:\n    pass\n"),
    # An error of another kind does not hide the except* errors.
    "f_hidden.py": (b"try:\n    pass\nexcept* A, B:\n    pass\nx = = 1\ntry:\n    pass\nexcept*:\n    pass\n"),
}


@pytest.mark.needs_processes
def test_check_reports_what_compiling_reports(tmp_path: Path) -> None:
    for name, data in CHECKED.items():
        (tmp_path / name).write_bytes(data)
    ours = exceptstar("check", ".", cwd=tmp_path)
    assert "Traceback" not in ours.stderr and ours.returncode == 1
    assert ours.stdout.splitlines() == [
        "./a_nul.py:5: SyntaxError: source code cannot contain null bytes",
        "./b_async.py:4: SyntaxError: 'async with' outside async function",
        "./c_indent.py:5: IndentationError: unindent does not match any outer indentation level",
        "./d_cookie.py:0: SyntaxError: unknown encoding: nonexistent",
        "./e_order.py:5: 'break', 'continue' and 'return' cannot appear in an except* block",
        f"./e_order.py:8: {UNPARENTHESIZED_NOTE}",
        f"./f_hidden.py:3: {UNPARENTHESIZED_NOTE}",
        "./f_hidden.py:5: SyntaxError: invalid syntax",
        "./f_hidden.py:8: expected one or more exception types",
    ]
    # The error the native compiler reports (its first) is among check's, at its line.
    for name in ("b_async.py", "c_indent.py", "d_cookie.py", "e_order.py", "f_hidden.py"):
        proc = python(native(), "-c", f"compile(open({name!r}, 'rb').read(), {name!r}, 'exec')", cwd=tmp_path)
        kind, message = proc.stderr.strip().splitlines()[-1].split(": ", 1)
        line = re.findall(r'line (\d+)', proc.stderr)[-1]
        reported = [entry.split(":", 2)[1:] for entry in ours.stdout.splitlines() if entry.startswith(f"./{name}:")]
        if message == "multiple exception types must be parenthesized":
            message = UNPARENTHESIZED_NOTE  # 3.13's error is 3.14's valid code (PEP 758): a note
        assert [line, f" {kind}: {message}"] in reported or [line, f" {message}"] in reported, (name, proc.stderr)
    proc = python(native(), "a_nul.py", cwd=tmp_path)
    assert proc.stderr.splitlines()[-1] == "SyntaxError: source code cannot contain null bytes"
    assert 'line 5' in proc.stderr


@pytest.mark.needs_processes
@pytest.mark.parametrize("levels", [6, 7, 11])
def test_check_passes_exactly_what_run_compiles(tmp_path: Path, levels: int) -> None:
    # Transformed code fits fewer nested except* levels on 3.9-3.10 than natively.
    (tmp_path / "deep.py").write_text(_nested(levels))
    ran = exceptstar("run", "deep.py", cwd=tmp_path)
    checked = exceptstar("check", "deep.py", cwd=tmp_path)
    assert checked.returncode == ran.returncode
    if ran.returncode:
        message = ran.stderr.splitlines()[-1]
        line = re.findall(r"line (\d+)", ran.stderr) or ["0"]  # 3.8 gives this error no position
        assert checked.stdout == f"deep.py:{line[0]}: {message}\n"


@pytest.mark.needs_processes
def test_check_skips_environments(tmp_path: Path) -> None:
    bad = "try:\n    pass\nexcept* A, B as e:\n    pass\n"
    for folder in ("venv", "env2", "site-packages", "node_modules", ".tox", "src"):
        (tmp_path / folder / "pkg").mkdir(parents=True)
        (tmp_path / folder / "pkg" / "m.py").write_text(bad)
    (tmp_path / "env2" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    ours = exceptstar("check", ".", cwd=tmp_path)
    assert ours.stdout == "./src/pkg/m.py:3: multiple exception types must be parenthesized when using 'as'\n"
    # Named explicitly, a file in one is checked.
    assert exceptstar("check", "venv/pkg/m.py", cwd=tmp_path).returncode == 1


# --- the command line itself ----------------------------------------------------

@pytest.mark.needs_processes
def test_version(tmp_path: Path) -> None:
    from exceptstar import __version__

    for option in ("--version", "-V"):
        ours = exceptstar(option, cwd=tmp_path)
        assert (ours.stdout, ours.returncode) == (f"exceptstar {__version__}\n", 0)


@pytest.mark.needs_processes
def test_help_and_run_help(tmp_path: Path) -> None:
    for args in (["--help"], ["run", "--help"], ["run", "-h"]):
        ours = exceptstar(*args, cwd=tmp_path)
        assert ours.returncode == 0 and ours.stdout.startswith("usage:") and not ours.stderr, args


@pytest.mark.needs_processes
def test_unknown_command_is_named(tmp_path: Path) -> None:
    ours = exceptstar("chek", "src", cwd=tmp_path)
    assert ours.returncode == 2 and not ours.stdout
    assert ours.stderr.splitlines()[0] == "exceptstar: unknown command 'chek'"
    assert "usage:" in ours.stderr
    # Arguments after the script are the program's, --help included.
    (tmp_path / "args.py").write_text("import sys; print(sys.argv)\n")
    assert exceptstar("run", "args.py", "--help", cwd=tmp_path).stdout == "['args.py', '--help']\n"


# --- the console ----------------------------------------------------------------

CONSOLE_SESSION = textwrap.dedent("""\
    def f():
        try:
            pass
        except* A:
            return 1

    for x in []:
        try:
            pass
        except* A:
            break

    try:
        pass
    except A:
        pass
    except* B: pass

    try:
        pass
    except*:
        pass

    try:
        pass
    except* A:

    print("after")
    """)


def _console_lines(stderr: str) -> list[str]:
    """The console's output after its banner, without the closing message."""
    lines = stderr.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("  File"))
    return [line for line in lines[start:] if line != "now exiting InteractiveConsole..."]


@pytest.mark.needs_processes
@pytest.mark.skipif(sys.implementation.name == "pypy",
                    reason="PyPy's parser reports an unfinished 'except*:' block as a missing indented block "
                           "(3.9: the console reports 'expected one or more exception types' one line later), "
                           "and PyPy 3.11's native compiler places its except* errors its own way")
def test_console_reports_invalid_except_star_as_native(tmp_path: Path) -> None:
    # 3.10's codeop said "incomplete input", a line early; 3.13's codeop gives the error itself.
    ours = exceptstar("run", cwd=tmp_path, stdin=CONSOLE_SESSION)
    reference = subprocess.run([native(), "-c", "import code; code.interact()"], cwd=tmp_path,
                               input=CONSOLE_SESSION, capture_output=True, text=True, env=child_env(False), timeout=60)
    # The prompts (on stdout, as input() writes them) show when each error came.
    assert ours.stdout == reference.stdout
    mine, theirs = _console_lines(ours.stderr), _console_lines(reference.stderr)
    if sys.version_info >= (3, 10):
        assert mine == theirs
    else:
        # 3.8-3.9 draw one caret, quote no text for compiler errors, and say
        # "expected an indented block" in their own words: the errors and their lines must agree.
        def errors(lines: list[str]) -> list[str]:
            return [line.split(" after ")[0] for line in lines if "Error: " in line or "line " in line]

        assert errors(mine) == errors(theirs)


@pytest.mark.needs_processes
def test_console_namespace_is_the_interpreters(tmp_path: Path) -> None:
    # The interactive __main__: 3.14 dropped __annotations__; the group names are built-ins.
    line = "print(sorted(globals()), __loader__, __spec__, __name__)\n"
    # Not pure on 3.11+ (as users run it): pure mode binds its own group classes there.
    ours = subprocess.run([sys.executable, "-m", "exceptstar", "run"], cwd=tmp_path, input=line,
                          capture_output=True, text=True, env=child_env(False), timeout=60)
    plain = subprocess.run([sys.executable, "-i", "-q"], cwd=tmp_path, input=line, capture_output=True,
                           text=True, env=child_env(False), timeout=60)
    # PyPy's interpreter writes its prompt (">>>> ") even for input that is no terminal.
    printed = [text[5:] if text.startswith(">>>> ") else text
               for text in plain.stdout.splitlines() if "__builtins__" in text]
    assert printed and [text for text in ours.stdout.splitlines() if "__builtins__" in text] == [
        f">>> {printed[0]}"]


# --- debuggers ------------------------------------------------------------------

BREAKPOINT_PROGRAM = textwrap.dedent("""\
    def f():
        breakpoint()
        return 1
    f()
    import pdb
    pdb.set_trace()
    print("end")
    """)


@pytest.mark.needs_processes
@pytest.mark.parametrize("how", ["script", "module", "code", "folder"])
def test_pdb_stack_starts_where_python_starts_it(tmp_path: Path, how: str) -> None:
    (tmp_path / "bp.py").write_text(BREAKPOINT_PROGRAM)
    (tmp_path / "bpdir").mkdir()
    (tmp_path / "bpdir" / "__main__.py").write_text(BREAKPOINT_PROGRAM)
    target = {"script": ["bp.py"], "module": ["-m", "bp"], "code": ["-c", BREAKPOINT_PROGRAM],
              "folder": ["bpdir"]}[how]
    commands = "where\nup\nwhere\nc\nwhere\nc\n"
    ours = exceptstar("run", *target, cwd=tmp_path, stdin=commands)
    plain = subprocess.run([sys.executable, *target], cwd=tmp_path, input=commands, capture_output=True,
                           text=True, env=child_env(False), timeout=60)
    assert outcome(ours) == outcome(plain)
    assert "exceptstar" not in ours.stdout and "end" in ours.stdout
