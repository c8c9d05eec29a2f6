"""The formatter never fails: hostile exceptions, cycles, huge and deep groups.

Each program runs in a subprocess with ``EXCEPTSTAR_PURE=1`` on this
interpreter, so the code under test is exceptstar's own ``TracebackException``
on every version.  Where CPython can print the same thing, the same program
runs in the newest native interpreter without the switch (exceptstar then
hands over to the standard library) and the texts must agree, up to the caret
lines that only 3.11+ draws.
"""

from __future__ import annotations

import sys
import tempfile
import textwrap
from pathlib import Path

import pytest
from support.interpreters import native_python
from support.processes import ours_and_newest, run_python
from test_formatting import without_carets

PRELUDE = textwrap.dedent('''
    import sys
    import exceptstar
    from exceptstar import BaseExceptionGroup, ExceptionGroup, add_note, format_exception


    def raised(exc):
        try:
            raise exc
        except BaseException as caught:
            return caught


    def show(exc, show_group=True, **kwargs):
        sys.stdout.write("".join(format_exception(exc, **kwargs)))
        if not show_group:
            return
        sys.stdout.write("--- show_group\\n")
        sys.stdout.write("".join(exceptstar.format_exception_only(exc, show_group=True)))
''')


def _run(exe: str, code: str, pure: bool) -> str:
    # From a file, so that every version shows the source lines of the frames.
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "program.py"
        path.write_text(PRELUDE + textwrap.dedent(code), encoding="utf-8")
        proc = run_python(exe, f"import runpy; runpy.run_path({str(path)!r}, run_name='__main__')",
                          pure=pure)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return proc.stdout.replace(folder, "<folder>")


def ours(code: str) -> str:
    return _run(sys.executable, code, pure=True)


def reference(code: str) -> str:
    exe = native_python()
    assert exe is not None
    return _run(exe, code, pure=False)


def same_as_cpython(code: str) -> str:
    text = ours(code)
    assert without_carets(text) == without_carets(reference(code))
    return text


@pytest.mark.needs_processes
def test_str_that_raises() -> None:
    text = same_as_cpython('''
        class BadStr(Exception):
            def __str__(self):
                raise RuntimeError("no str")

        class BadKey:
            def __repr__(self):
                raise RuntimeError("no repr")

        show(raised(ExceptionGroup("eg", [BadStr(), KeyError(BadKey()), ValueError("fine")])))
    ''')
    assert text.count("<exception str() failed>") == 4  # two members, in both layouts
    assert "ValueError: fine" in text


@pytest.mark.needs_processes
def test_notes_that_raise_or_are_not_lists() -> None:
    text = same_as_cpython('''
        class BadNotes(Exception):
            @property
            def __notes__(self):
                raise ValueError("no notes")

        class BadNote:
            def __str__(self):
                raise RuntimeError

        class BadRepr:
            def __repr__(self):
                raise RuntimeError

        as_str, as_int, bad_repr, bad_item = (ValueError(n) for n in "abcd")
        as_str.__notes__ = "a string"
        as_int.__notes__ = 42
        bad_repr.__notes__ = BadRepr()
        bad_item.__notes__ = ["good", BadNote()]
        show(raised(ExceptionGroup("eg", [BadNotes(), as_str, as_int, bad_repr, bad_item])))
    ''')
    assert "Ignored error getting __notes__: ValueError('no notes')" in text
    assert "'a string'" in text and "42" in text
    assert "<__notes__ repr() failed>" in text and "<note str() failed>" in text


@pytest.mark.needs_processes
def test_cycles_through_cause_and_context() -> None:
    text = same_as_cpython('''
        a, b, c = ValueError("a"), TypeError("b"), KeyError("c")
        a.__cause__ = b
        b.__context__ = c
        c.__cause__ = a
        show(raised(a))
        itself = raised(ValueError("itself"))
        itself.__context__ = itself
        show(itself)
        member = ValueError("member")
        group = raised(ExceptionGroup("eg", [member]))
        member.__cause__ = group
        group.__context__ = member
        show(group)
    ''')
    assert "ValueError: a" in text and "ValueError: itself" in text


@pytest.mark.needs_processes
def test_group_that_contains_itself() -> None:
    # CPython itself cannot print this (it loops): only the promise of never
    # failing applies, and the recurrence shows as a plain exception.
    text = ours('''
        class Loop(ExceptionGroup):
            @property
            def exceptions(self):
                return (ValueError("first"), self)

        show(raised(Loop("loop", [ValueError("first")])))
        show(raised(Loop("loop", [ValueError("first")])), chain=False)
    ''')
    block = text.split("--- show_group\n")[0]
    assert block.count("Loop: loop (1 sub-exception)") == 2  # the group, then its recurrence
    assert "ValueError: first" in block
    assert block.rstrip().endswith("+------------------------------------")


@pytest.mark.needs_processes
def test_100000_members() -> None:
    text = same_as_cpython('''
        show(raised(ExceptionGroup("big", [ValueError(i) for i in range(100000)])))
    ''')
    assert "and 99985 more exceptions" in text
    assert text.count("\n   ValueError: ") == 100000


@pytest.mark.needs_processes
def test_very_deep_nesting() -> None:
    code = '''
        exc = TypeError("bottom")
        for level in range(%d):
            exc = ExceptionGroup("level %%d" %% level, [exc, KeyError(level)])
        show(raised(exc))
        # CPython's show_group recurses, so only the box is printed at this limit.
        sys.setrecursionlimit(120)
        show(raised(exc), show_group=False)
    '''
    text = same_as_cpython(code % 600)
    assert "... (max_group_depth is 10)" in text
    # Far deeper than CPython's own show_group could go (it recurses): ours does not.
    assert "   " * 2500 + "TypeError: bottom" in ours(code % 2500)


@pytest.mark.needs_processes
def test_long_chains() -> None:
    same_as_cpython('''
        exc = ValueError(0)
        for i in range(1, 5000):
            new = raised(ValueError(i))
            new.__context__ = exc
            exc = new
        sys.setrecursionlimit(120)
        show(ExceptionGroup("eg", [exc]), show_group=False)
    ''')


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="the hooks are patched on 3.8-3.10 only")
def test_hooks_never_raise() -> None:
    code = textwrap.dedent('''
        import gc, sys, threading, types
        from exceptstar import ExceptionGroup
        from exceptstar._printing import formatting

        class Hostile(Exception):
            def __str__(self):
                raise RuntimeError("str")
            @property
            def __notes__(self):
                raise RuntimeError("notes")

        class InDel:
            def __del__(self):
                raise ExceptionGroup("in del", [Hostile()])

        class BadRepr:
            def __repr__(self):
                raise RuntimeError("repr")

        def unraisable(obj):
            args = types.SimpleNamespace(exc_type=ExceptionGroup, err_msg=None, object=obj,
                                         exc_value=ExceptionGroup("eg", [Hostile()]),
                                         exc_traceback=None)
            sys.unraisablehook(args)

        def broken(*args, **kwargs):
            raise RuntimeError("internal error")

        def run(target):
            thread = threading.Thread(target=target, name="worker")
            thread.start()
            thread.join()

        def fail():
            raise ExceptionGroup("thread", [Hostile()])

        InDel()
        gc.collect()  # PyPy finalizes only when its collector runs
        unraisable(BadRepr())
        run(fail)
        formatting.TracebackException.format = broken
        InDel()
        gc.collect()
        run(fail)
        sys.excepthook(ExceptionGroup, ExceptionGroup("hook", [Hostile()]), None)
    ''')
    proc = run_python(sys.executable, code, env={"EXCEPTSTAR_NO_PATCH": ""})
    err = proc.stderr
    assert proc.returncode == 0, err
    # Full output while the formatter works ...
    assert err.count("Ignored error getting __notes__: RuntimeError('notes')") == 3
    assert "<object repr() failed>" in err
    # ... and the interpreter's own when it does not: never an error from a hook.
    assert "ExceptionGroup: hook (1 sub-exception)" in err
    assert "Error in sys.excepthook" not in err and "internal error" not in err
    assert err.count("Exception in thread worker:") == 2


@pytest.mark.needs_processes
def test_api_call_forms() -> None:
    """The old ``(type, value, tb)`` and the new ``(exc)`` forms, limit, chain, print_exc."""
    text = same_as_cpython('''
        import io
        from exceptstar import (TracebackException, format_exc, format_exception_only,
                                print_exc, print_exception)

        def inner():
            raise ExceptionGroup("eg", [raised(ValueError("v"))])

        try:
            try:
                inner()
            except ExceptionGroup as caught:
                raise KeyError("outer") from caught
        except KeyError as caught:
            exc = caught
            print_exc(limit=1, file=sys.stdout)
            print(format_exc(chain=False), end="")
        info = (type(exc), exc, exc.__traceback__)
        assert format_exception(*info) == format_exception(exc)
        print("".join(format_exception(*info, limit=1, chain=False)), end="")
        stream = io.StringIO()
        print_exception(exc, file=stream, chain=True)
        assert stream.getvalue() == "".join(format_exception(exc))
        print_exception(*info, limit=0, file=sys.stdout)
        print("".join(format_exception_only(info[0], info[1])), end="")
        print("".join(format_exception_only(exc.__cause__, show_group=True)), end="")
        te = TracebackException.from_exception(exc, max_group_width=1, max_group_depth=1)
        print("".join(te.format()), end="")
        print("".join(te.__cause__.format_exception_only(show_group=True)), end="")
        print(len(te.__cause__.exceptions), te.__cause__.exceptions[0].stack[0].name)
        print(format_exception(None), format_exception_only(None))
        try:
            raise ExceptionGroup("no frames", [ValueError("v")])
        except ExceptionGroup as caught:
            add_note(caught, "noted")
            caught.__traceback__ = None
            print_exc(file=sys.stdout, colorize=True)  # print_exception's keywords (3.15)
    ''')
    assert "   ValueError: v\n" in text and "1 raised\n" in text
    assert any("noted" in line and "\x1b[" in line for line in text.splitlines())


HINTS = r'''
import json, os, sys
if os.environ.get("EXCEPTSTAR_PURE") or sys.version_info < (3, 11):
    from exceptstar import format_exception
else:
    from traceback import format_exception


class Inner:
    value = 1


class Outer:
    def __init__(self):
        self.inner = Inner()


class Seq(list):
    pass


class Near:
    blech = 1


def unknown_name():
    naïve_value = 1
    return naive_value


def missing_stdlib():
    return math.pi


def spam():
    sys.stdlib_module_names = sys.stdlib_module_names | {"spam"}
    import spam


class Method:
    blech = 1
    _private = 2

    def unqualified(self):
        return blech

    def own_private(self):
        return self.privat


class Many:
    pass


for i in range(800):
    setattr(Many, f"name{i}", i)
Many.blech = 1


CASES = {  # name -> (what raises, the first version whose interpreter tells what 3.15 says)
    "push": (lambda: [].push, (3, 10)),
    "subclass": (lambda: Seq().concat, (3, 10)),
    "upper": (lambda: "".toUpperCase, (3, 10)),
    "tuple": (lambda: ().append, (3, 10)),
    "frozenset": (lambda: frozenset().add, (3, 10)),
    "dict put": (lambda: {}.put, (3, 10)),
    "float": (lambda: (1.5).__or__, (3, 10)),
    "stdlib name": (missing_stdlib, (3, 10)),
    "stdlib module": (spam, (3, 10)),
    "near miss": (lambda: Near().blach, (3, 10)),
    "case": (lambda: Near().Blech, (3, 10)),
    "nested": (lambda: Outer().value, (3, 10)),
    "not ascii": (unknown_name, (3, 10)),
    "not normalized": (lambda: getattr(Near(), "\uff42lech"), (3, 10)),
    "self": (lambda: Method().unqualified(), (3, 10)),
    "own private": (lambda: Method().own_private(), (3, 10)),
    "private outside": (lambda: Method().privat, (3, 10)),
    "too many": (lambda: Many().blach, (3, 10)),
    "import from": (lambda: exec("from sys import getrecursionlimt"), (3, 12)),
    "module": (lambda: __import__("jsom"), (3, 15)),
    "none": (lambda: Near().zzzzzzzz, (3, 8)),
}
out = {}
for name, (function, since) in CASES.items():
    try:
        function()
    except Exception as error:
        # The last line: a NameError's near misses are looked for in its frame.
        out[name] = [format_exception(error)[-1], since, f"{type(error).__name__}: {error}\n"]
print(json.dumps(out))
'''


def interpreter_tells(name: str, since: list[int]) -> bool:
    """Whether this interpreter gives the error what the hint of case ``name`` needs."""
    if sys.version_info >= tuple(since):
        return True
    # PyPy 3.9 names the missing attribute or name and the object (.name, .obj)
    # as 3.10 does, but has no sys.stdlib_module_names.
    return sys.implementation.name == "pypy" and tuple(since) == (3, 10) and not name.startswith("stdlib")


@pytest.mark.needs_processes
def test_hints_as_the_newest_cpython() -> None:
    mine, theirs = ours_and_newest(HINTS)
    assert sorted(mine) == sorted(theirs)
    for name, (text, since, plain) in mine.items():
        if interpreter_tells(name, since):
            assert text == theirs[name][0], name
        else:
            # The interpreter cannot tell (no name or object on the error, no near misses computed).
            assert text == plain, name
    assert sum(theirs[name][0] != theirs[name][2] for name in theirs) >= 18
