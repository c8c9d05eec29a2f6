"""``python -m exceptstar``: demo, run (script, -m, -c, console) and check.

``run`` must behave like plain ``python``: a program without except* gives
byte-identical output, tracebacks and exit status under both (same
interpreter); a program with except* gives what the native 3.11+ interpreter
gives (frame lines compared without 3.11+'s column carets, which older
interpreters do not draw).  ``check`` reports what the native compiler says.
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pytest
from support.interpreters import native_python
from support.processes import exceptstar, python, run_native


def without_carets(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not re.fullmatch(r"[\s|]*[~^]+\s*", line))


PLAIN_PROGRAM = textwrap.dedent("""\
    import sys
    print(sys.argv, __name__, sys.path[0] == {path0!r}, __file__ if "__file__" in dir() else None)
    def f(n):
        raise KeyError(n)
    try:
        f(1)
    except KeyError as e:
        raise ValueError("boom") from e
    """)

STAR_PROGRAM = textwrap.dedent("""\
    import sys
    print(sys.argv, __name__)
    def f():
        try:
            raise ExceptionGroup("eg", [ValueError(1), TypeError(2), OSError(3)])
        except* ValueError as e:
            e.add_note("handled")
            print("handled", repr(e), e.__notes__)
        except* TypeError:
            raise KeyError("new")
    f()
    """)


@pytest.mark.needs_processes
def test_run_script_same_as_python(tmp_path: Path) -> None:
    script = tmp_path / "prog.py"
    script.write_text(PLAIN_PROGRAM.format(path0=str(tmp_path)))
    ours = exceptstar("run", str(script), "a", "-b", cwd=tmp_path)
    plain = python(sys.executable, str(script), "a", "-b", cwd=tmp_path)
    assert (ours.stdout, ours.stderr, ours.returncode) == (plain.stdout, plain.stderr, plain.returncode)
    assert "prog.py" in plain.stdout and plain.returncode == 1


@pytest.mark.needs_processes
def test_run_module_and_code_same_as_python(tmp_path: Path) -> None:
    (tmp_path / "progmod.py").write_text(PLAIN_PROGRAM.format(path0=str(tmp_path)))
    ours = exceptstar("run", "-m", "progmod", "x", cwd=tmp_path)
    plain = python(sys.executable, "-m", "progmod", "x", cwd=tmp_path)
    assert (ours.stdout, ours.stderr, ours.returncode) == (plain.stdout, plain.stderr, plain.returncode)
    code = PLAIN_PROGRAM.format(path0="")
    ours = exceptstar("run", "-c", code, "y", cwd=tmp_path)
    plain = python(sys.executable, "-c", code, "y", cwd=tmp_path)
    assert (ours.stdout, ours.stderr, ours.returncode) == (plain.stdout, plain.stderr, plain.returncode)


@pytest.mark.needs_processes
def test_run_exit_status(tmp_path: Path) -> None:
    for code in ("import sys; sys.exit(3)", "import sys; sys.exit('bye')", "raise SystemExit"):
        ours = exceptstar("run", "-c", code, cwd=tmp_path)
        plain = python(sys.executable, "-c", code, cwd=tmp_path)
        assert (ours.stderr, ours.returncode) == (plain.stderr, plain.returncode), code


def test_run_except_star_program_as_native(tmp_path: Path) -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    script = tmp_path / "star.py"
    script.write_text(STAR_PROGRAM)
    ours = exceptstar("run", str(script), "1", cwd=tmp_path)
    reference = python(native, str(script), "1", cwd=tmp_path)
    assert ours.returncode == reference.returncode == 1
    assert ours.stdout == reference.stdout
    assert without_carets(ours.stderr) == without_carets(reference.stderr)
    (tmp_path / "starmod.py").write_text(STAR_PROGRAM)
    ours = exceptstar("run", "-m", "starmod", cwd=tmp_path)
    assert "'handled'" in ours.stdout and "KeyError: 'new'" in ours.stderr


def test_run_syntax_error_as_native(tmp_path: Path) -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    script = tmp_path / "bad.py"
    # Invalid on every version (3.14 accepts the list without parentheses only without `as`).
    source = "x = 1\ntry:\n    pass\nexcept* (ValueError), TypeError as e:\n    pass\n"
    script.write_text(source)
    ours = exceptstar("run", str(script), cwd=tmp_path)
    reference = python(native, str(script), cwd=tmp_path)
    assert ours.returncode == reference.returncode == 1
    assert ours.stderr.splitlines()[0] == reference.stderr.splitlines()[0]  # File "...", line 4
    if sys.version_info >= (3, 11):
        # The interpreter's own compiler: its own words (3.13's differ from 3.14's).
        own = python(sys.executable, str(script), cwd=tmp_path)
        assert ours.stderr.splitlines()[-1] == own.stderr.splitlines()[-1]
        return
    # exceptstar's words are the newest CPython's (3.14 added "when using 'as'").
    newest = run_native(f"try:\n    compile({source!r}, 'bad.py', 'exec')\n"
                        "except SyntaxError as error:\n    print('SyntaxError:', error.msg)\n").stdout
    assert ours.stderr.splitlines()[-1] == newest.strip()


@pytest.mark.needs_processes
def test_console_accepts_except_star(tmp_path: Path) -> None:
    session = textwrap.dedent("""\
        try:
            raise ValueError(1)
        except* ValueError as e:
            print("caught", repr(e))

        x = ExceptionGroup("g", [TypeError(2)])
        x
        """)
    ours = exceptstar("run", cwd=tmp_path, stdin=session)
    assert "caught ExceptionGroup('', (ValueError(1),))" in ours.stdout, ours.stderr
    assert "ExceptionGroup('g', [TypeError(2)])" in ours.stdout
    assert ours.returncode == 0


@pytest.mark.needs_processes
def test_demo(tmp_path: Path) -> None:
    ours = exceptstar("demo", cwd=tmp_path)
    assert ours.returncode == 0, ours.stderr
    out = ours.stdout
    assert "except* ConnectionRefusedError handled 3 of them" in out
    assert "ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)" in out
    assert "while connecting to 127.0.0.1:8o80" in out
    assert out.rstrip().splitlines()[-1].startswith("except* was provided by exceptstar")
    native = native_python()
    if native is not None:
        reference = python(native, "-m", "exceptstar", "demo", cwd=tmp_path)
        assert reference.stdout.rstrip().splitlines()[-1].startswith("except* was provided natively")


def test_check_reports_every_error_as_native(tmp_path: Path) -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    snippets = {
        "a.py": "try:\n    pass\nexcept* A, B as e:\n    pass\n",
        "pkg/b.py": "x = 1\ntry:\n    pass\nexcept* A:\n    pass\nexcept B:\n    pass\n",
        "pkg/c.py": "def f():\n    try:\n        pass\n    except* A:\n        return 1\n",
        "pkg/ok.py": "try:\n    pass\nexcept* A:\n    pass\n",
        "d.py": "try:\n    pass\nexcept*:\n    pass\n",
        "pkg/e.py": "try:\n    pass\nexcept* (A,\n         B), [C][0] as e:\n    pass\n",
    }
    for name, text in snippets.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    expected = []
    for name in ("a.py", "d.py", "pkg/b.py", "pkg/c.py", "pkg/e.py"):
        code = f"compile(open({name!r}).read(), {name!r}, 'exec')"
        proc = python(native, "-c", code, cwd=tmp_path)
        message = proc.stderr.strip().splitlines()[-1].split(": ", 1)[1]
        line = re.findall(r'line (\d+)', proc.stderr)[-1]
        expected.append(f"{name}:{line}: {message}")
    ours = exceptstar("check", "a.py", "d.py", "pkg", cwd=tmp_path)
    assert ours.stdout.splitlines() == expected
    assert ours.returncode == 1
    assert exceptstar("check", "pkg/ok.py", cwd=tmp_path).returncode == 0


@pytest.mark.needs_processes
def test_check_finds_several_errors_in_one_file(tmp_path: Path) -> None:
    (tmp_path / "many.py").write_text(
        "try:\n    pass\nexcept* A, B as e:\n    pass\n"
        "for x in y:\n    try:\n        pass\n    except* C:\n        break\n"
    )
    ours = exceptstar("check", "many.py", cwd=tmp_path)
    assert ours.stdout.splitlines() == [
        "many.py:3: multiple exception types must be parenthesized when using 'as'",
        "many.py:9: 'break', 'continue' and 'return' cannot appear in an except* block",
    ]


@pytest.mark.needs_processes
def test_check_words_mixed_clauses_as_314(tmp_path: Path) -> None:
    # Types that are not one expression in mixed clauses: 3.14's "invalid syntax", once, and
    # no PEP 758 note where an error is; the file past the first error is still read.
    parts = ["try:\n    pass\nexcept* ValueError:\n    pass\nexcept KeyError, TypeError:\n    pass\n\n",
             "try:\n    pass\nexcept ValueError:\n    pass\nexcept* A, B:\n    pass\n"]
    (tmp_path / "mixed.py").write_text("".join(parts))
    ours = exceptstar("check", "mixed.py", cwd=tmp_path)
    assert ours.stdout.splitlines() == ["mixed.py:5: invalid syntax", "mixed.py:12: invalid syntax"]
    report = "import sys\ntry:\n    compile(sys.stdin.read(), 'f', 'exec')\nexcept SyntaxError as e:\n    print(e.msg)"
    for part in parts:
        assert run_native(report, stdin=part).stdout == "invalid syntax\n"


@pytest.mark.needs_processes
def test_run_missing_program_same_as_python(tmp_path: Path) -> None:
    for args in (["./sub/../missing.py"], ["-m", "missing_module"]):
        ours = exceptstar("run", *args, cwd=tmp_path)
        plain = python(sys.executable, *args, cwd=tmp_path)
        assert (ours.stderr, ours.returncode) == (plain.stderr, plain.returncode), args


NAMESPACE_PROGRAM = textwrap.dedent("""\
    import sys
    print(sorted(globals()), type(__builtins__).__name__, globals().get("__annotations__"), globals().get("__file__"),
          sys.argv)
    raise ValueError("where")
    """)


@pytest.mark.needs_processes
def test_run_main_namespace_and_relative_paths_same_as_python(tmp_path: Path) -> None:
    (tmp_path / "rel.py").write_text(NAMESPACE_PROGRAM)
    (tmp_path / "sub").mkdir()
    # 3.9+ join a relative path to the working directory without normalizing it.
    for path in ("rel.py", "./sub/../rel.py", f"{tmp_path}/sub/..//rel.py"):
        ours = exceptstar("run", path, "z", cwd=tmp_path)
        plain = python(sys.executable, path, "z", cwd=tmp_path)
        assert (ours.stdout, ours.stderr, ours.returncode) == (plain.stdout, plain.stderr, plain.returncode), path
    assert " module " in plain.stdout
    # Module namespaces lost __annotations__ in 3.14 (PEP 649/749) and __cached__ in 3.15.
    assert ("'__annotations__'" in plain.stdout) == (sys.version_info < (3, 14))
    assert ("'__cached__'" in plain.stdout) == (sys.version_info < (3, 15))
    ours = exceptstar("run", "-c", NAMESPACE_PROGRAM, cwd=tmp_path)
    plain = python(sys.executable, "-c", NAMESPACE_PROGRAM, cwd=tmp_path)
    assert (ours.stdout, ours.stderr, ours.returncode) == (plain.stdout, plain.stderr, plain.returncode)
