"""Every path that prints a traceback on 3.8-3.10 shows groups and notes in full.

One program per path -- the default ``sys.excepthook``, ``threading``,
``sys.unraisablehook``, the ``traceback`` functions and ``TracebackException``,
``logging``, ``code.InteractiveInterpreter``, the REPL -- runs in
this interpreter (3.8-3.10, where exceptstar patches those paths) and in the
newest native CPython, where the same program uses the built-in groups.  The
two outputs must have the same structure: the same boxes, messages, notes and
line numbers, once the caret lines that only 3.11+ draws and the frames inside
the standard library (threading.py differs between versions) are left out.
CPython does not show the members of a group raised in ``__del__``; the
reference for that path prints what its default hook would, with the members.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, List

import pytest
from support.interpreters import native_python
from support.processes import ROOT, SRC
from test_formatting import without_carets

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 11), reason="3.11+ prints groups and notes itself; nothing is patched")

HEADER = textwrap.dedent('''
    import sys
    from exceptstar import ExceptionGroup, add_note


    def leaf(message):
        raise ValueError(message)


    def make():
        errors = []
        for message in ("first", "second"):
            try:
                leaf(message)
            except ValueError as error:
                add_note(error, "note on " + message)
                errors.append(error)
        try:
            raise KeyError("cause")
        except KeyError as cause:
            inner = ExceptionGroup("inner", [TypeError(1)])
            inner.__cause__ = cause
        group = ExceptionGroup("outer", errors + [inner])
        add_note(group, "note on the group\\nsecond line")
        return group


    def fail():
        raise make()
''')

PROGRAMS: Dict[str, str] = {
    "sys.excepthook": '''
        fail()
    ''',
    "threading.excepthook": '''
        import threading
        thread = threading.Thread(target=fail, name="worker")
        thread.start()
        thread.join()
    ''',
    "sys.unraisablehook": '''
        import gc
        if sys.version_info >= (3, 11):
            import traceback

            def reference_hook(args):
                # 3.14+ name the deallocator in err_msg, where 3.8-3.13 pass it as the object
                # (the words are a known difference: docs/explanation/differences.md).
                where = repr(args.object) if args.err_msg is None else args.err_msg.rpartition("deallocator ")[2]
                sys.stderr.write(f"Exception ignored in: {where}\\n" + "".join(
                    traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback)))

            sys.unraisablehook = reference_hook

        class Finalized:
            def __del__(self):
                fail()

            def __repr__(self):
                return "<Finalized>"

        obj = Finalized()
        del obj
        gc.collect()
    ''',
    "traceback.print_exception": '''
        import traceback
        try:
            fail()
        except ExceptionGroup:
            info = sys.exc_info()
        traceback.print_exception(*info)
        sys.stderr.write("".join(traceback.format_exception(*info)))
        sys.stderr.write("".join(traceback.format_exception_only(info[0], info[1])))
        sys.stderr.write("".join(traceback.TracebackException(*info).format()))
        try:
            fail()
        except ExceptionGroup:
            traceback.print_exc()
            sys.stderr.write(traceback.format_exc())
    ''',
    "logging": '''
        import logging
        logging.basicConfig(format="%(levelname)s %(message)s")
        try:
            fail()
        except ExceptionGroup:
            logging.exception("failed")
    ''',
    "code.InteractiveInterpreter": '''
        import code

        class Console(code.InteractiveConsole):
            def write(self, data):
                sys.stdout.write("[console] " + data)

        console = Console({"fail": fail})
        console.push("fail()")
        console.push("1 +* 2")
    ''',
}

# Run with ``-i``: the real interactive loop, reading these lines from stdin.
REPL_INPUT = "fail()\nprint('after')\n"

ANY_FILE = re.compile(r'^(?P<margin>.*?)File "(?P<file>[^"]+)", line \d+')


def structure(text: str, program: Path) -> str:
    """The text less carets, prompts, addresses and frames outside the program."""
    text = re.sub(r"^(?:>>>>? |\.\.\.\.? )+", "", text, flags=re.M)  # PyPy's prompts: >>>> and ....
    text = re.sub(r" at 0x[0-9a-f]+", " at 0x...", text)
    text = re.sub(r"Exception in thread Thread-(\d+) \(\w+\):", r"Exception in thread Thread-\1:", text)
    lines = without_carets(text).splitlines(True)
    kept: List[str] = []
    skip_source: str | None = None
    for line in lines:
        if skip_source is not None and line.startswith(skip_source):
            skip_source = None
            continue
        skip_source = None
        match = ANY_FILE.match(line)
        if match and match.group("file") not in (str(program), "<console>"):
            skip_source = match.group("margin") + "  "
            if match.group("file") == "<stdin>":
                # Kept, but not its source line: only 3.13 remembers what was typed.
                kept.append(line)
            continue
        kept.append(line)
    return "".join(kept)


def run(exe: str, program: Path, *, env: Dict[str, str] | None = None,
        args: tuple[str, ...] = (), stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    full_env.pop("EXCEPTSTAR_PURE", None)
    full_env.pop("EXCEPTSTAR_NO_PATCH", None)
    full_env["PYTHONPATH"] = str(SRC)
    full_env["PYTHON_BASIC_REPL"] = "1"  # 3.13: the classic REPL, which reads a pipe as ours does
    full_env.update(env or {})
    return subprocess.run([exe, *args, str(program)], input=stdin, capture_output=True, text=True,
                          env=full_env, timeout=120)


def write_program(tmp_path: Path, body: str) -> Path:
    program = tmp_path / "program.py"
    program.write_text(HEADER + textwrap.dedent(body), encoding="utf-8")
    return program


def both(program: Path, reference_exe: str | None = None,
         **kwargs: object) -> tuple[str, str]:
    reference_exe = reference_exe or native_python()
    assert reference_exe is not None
    ours = run(sys.executable, program, **kwargs)  # type: ignore[arg-type]
    theirs = run(reference_exe, program, **kwargs)  # type: ignore[arg-type]
    return (structure(ours.stdout + ours.stderr, program),
            structure(theirs.stdout + theirs.stderr, program))


def assert_full_group(text: str) -> None:
    for piece in ("ExceptionGroup: outer (3 sub-exceptions)", "note on the group\n",
                  "second line\n", "ValueError: first\n", "note on first\n",
                  "ValueError: second\n", "note on second\n", "ExceptionGroup: inner (1 sub-exception)",
                  "TypeError: 1\n", "KeyError: 'cause'",
                  "The above exception was the direct cause of the following exception:"):
        assert piece in text, piece


@pytest.mark.parametrize("path", sorted(PROGRAMS))
def test_path_prints_the_full_group(tmp_path: Path, path: str) -> None:
    program = write_program(tmp_path, PROGRAMS[path])
    ours, theirs = both(program)
    assert_full_group(ours)
    assert ours == theirs


@pytest.mark.parametrize("limit", [1, 0])
@pytest.mark.parametrize("path", ["sys.excepthook", "threading.excepthook"])
def test_hooks_keep_the_innermost_frames(tmp_path: Path, path: str, limit: int) -> None:
    # The hooks count sys.tracebacklimit from the frame that raised, where traceback's functions
    # count from the outermost: with 1, the group's frame is fail and each member's leaf.
    program = write_program(tmp_path, f"sys.tracebacklimit = {limit}\n" + textwrap.dedent(PROGRAMS[path]))
    ours, theirs = both(program)
    assert ours == theirs
    assert (", in leaf" in ours) == bool(limit)


def test_repl(tmp_path: Path) -> None:
    program = write_program(tmp_path, "")
    ours, theirs = both(program, args=("-i",), stdin=REPL_INPUT)
    assert_full_group(ours)
    assert "after" in ours
    assert ours == theirs


def test_import_is_lazy(tmp_path: Path) -> None:
    program = tmp_path / "lazy.py"
    program.write_text(textwrap.dedent('''
        import sys
        before = set(sys.modules)
        import exceptstar
        loaded = sorted(set(sys.modules) - before)
        print(" ".join(loaded))
        import traceback
        print(traceback.TracebackException.__module__)
    '''), encoding="utf-8")
    proc = run(sys.executable, program)
    assert proc.returncode == 0, proc.stderr
    loaded, patched = proc.stdout.splitlines()
    assert "traceback" not in loaded.split() and "exceptstar._printing.formatting" not in loaded.split()
    assert patched == "exceptstar._printing.pure_traceback"


def test_formatter_imported_before_traceback(tmp_path: Path) -> None:
    # The formatter's own import is what brings in traceback: still patched.
    program = tmp_path / "order.py"
    program.write_text(textwrap.dedent('''
        import sys
        import exceptstar
        assert "traceback" not in sys.modules
        exceptstar.format_exception
        import traceback
        print(traceback.TracebackException is exceptstar.TracebackException)
    '''), encoding="utf-8")
    proc = run(sys.executable, program)
    assert proc.stdout == "True\n", proc.stderr


def test_opt_out(tmp_path: Path) -> None:
    program = write_program(tmp_path, PROGRAMS["sys.excepthook"])
    proc = run(sys.executable, program, env={"EXCEPTSTAR_NO_PATCH": "1"})
    # The interpreter's own printer: the group's line, none of its members.
    assert "ExceptionGroup: outer (3 sub-exceptions)" in proc.stderr
    assert "ValueError: first" not in proc.stderr


def test_a_hook_installed_before_is_kept(tmp_path: Path) -> None:
    program = tmp_path / "foreign.py"
    program.write_text(textwrap.dedent('''
        import sys, traceback

        def theirs(exc_type, value, tb):
            sys.stderr.write("their hook\\n" + "".join(traceback.format_exception(exc_type, value, tb)))

        sys.excepthook = theirs
        from exceptstar import ExceptionGroup
        assert sys.excepthook is theirs
        raise ExceptionGroup("eg", [ValueError("member")])
    '''), encoding="utf-8")
    proc = run(sys.executable, program)
    # Kept, and since it prints through the traceback module, the members show.
    assert proc.stderr.startswith("their hook\n")
    assert "ValueError: member" in proc.stderr


@pytest.mark.parametrize("order", ["backport first", "exceptstar first"])
def test_backport_groups(tmp_path: Path, order: str) -> None:
    pytest.importorskip("exceptiongroup")
    imports = ["import exceptiongroup", "import exceptstar"]
    if order == "exceptstar first":
        imports.reverse()
    program = tmp_path / "backport.py"
    program.write_text("\n".join([*imports, textwrap.dedent('''
        import threading
        from exceptstar import add_note

        def fail():
            member = ValueError("member")
            add_note(member, "a note")
            raise exceptiongroup.ExceptionGroup("backport", [member])

        thread = threading.Thread(target=fail)
        thread.start()
        thread.join()
        fail()
    ''')]), encoding="utf-8")
    # The reference needs the backport installed (it is then the built-in class).
    reference = ROOT / ".venvs" / "py313" / "bin" / "python"
    if not reference.exists():
        pytest.skip("no 3.13 environment with the backport to compare with")
    ours, theirs = both(program, str(reference))
    assert ours.count("ValueError: member\n") == 2 and ours.count("a note\n") == 2
    # The backport's class lives in module exceptiongroup and is named so, as
    # the backport's own printer names it; on 3.11+ it is the built-in.
    assert ours.replace("exceptiongroup.ExceptionGroup:", "ExceptionGroup:") == theirs
