"""Differential tests of the formatter: generated groups, printed by us and by CPython.

One program (``PROGRAM``, written to a file so that frames have source lines)
builds exception trees from JSON descriptions -- nesting, notes, causes,
contexts, suppressed contexts, raised or not -- and formats them with
``TracebackException`` (width, depth, limit, chain, compact), with
``format_exception`` and with ``format_exception_only(show_group=True)``.
It runs three ways:

* ``ours``: this interpreter with ``EXCEPTSTAR_PURE=1``, so the groups are
  exceptstar's pure classes and the text is exceptstar's;
* ``native`` on this interpreter (3.11+): built-in groups, ``traceback`` module;
* ``native`` on the newest CPython here (3.15), the reference layout;
* on 3.11 and 3.12, ``ours`` without the switch too: the standard library's
  formatter with the ``show_group`` exceptstar adds, checked against the newest's.

On 3.13+ ours and this interpreter's native text must be byte-identical (on
3.11 and 3.12 up to the caret lines: a SyntaxError's are 3.15's).  On every
version ours must equal the newest's once the caret lines, which only 3.11+
draws, are removed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.interpreters import native_python
from support.processes import ours_and_newest, run_python

PROGRAM = r'''
import json
import sys
import traceback

MODE = sys.argv[1]
if MODE == "ours":
    import exceptstar

    GROUP = exceptstar.BaseExceptionGroup
    TE = exceptstar.TracebackException
    FORMAT = exceptstar.format_exception
    FORMAT_ONLY = exceptstar.format_exception_only
    ADD_NOTE = exceptstar.add_note
else:
    GROUP = BaseExceptionGroup
    TE = traceback.TracebackException
    FORMAT = traceback.format_exception
    FORMAT_ONLY = traceback.format_exception_only if sys.version_info >= (3, 13) else None
    ADD_NOTE = BaseException.add_note


class Custom(Exception):
    pass


LEAVES = {
    "ValueError": ValueError,
    "TypeError": TypeError,
    "KeyError": KeyError,
    "OSError": OSError,
    "KeyboardInterrupt": KeyboardInterrupt,
    "Custom": Custom,
    "SyntaxError": lambda *args: SyntaxError(*args[:1], ("f.py", 1, 5, "x = 1 +\n")),
}


def thrower(exc):
    raise exc


def attach(exc):
    try:
        thrower(exc)
    except BaseException:
        pass


NAMED = {}


def build(spec):
    if spec["kind"] == "ref":
        return NAMED[spec["name"]]
    if spec["kind"] == "leaf":
        exc = LEAVES[spec["type"]](*spec["args"])
    else:
        exc = GROUP(spec["msg"], [build(member) for member in spec["members"]])
    for note in spec["notes"]:
        ADD_NOTE(exc, note)
    if spec["context"] is not None:
        exc.__context__ = build(spec["context"])
    if spec["cause"] is not None:
        exc.__cause__ = build(spec["cause"])
    exc.__suppress_context__ = spec["suppress"]
    if spec["raised"]:
        attach(exc)
    if "name" in spec:
        NAMED[spec["name"]] = exc
    return exc


results = []
for case in json.loads(sys.stdin.read()):
    exc = build(case["tree"])
    te = TE(type(exc), exc, exc.__traceback__, limit=case["limit"], compact=case["compact"],
            max_group_width=case["width"], max_group_depth=case["depth"])
    result = {
        "te": "".join(te.format(chain=case["chain"])),
        "format_exception": "".join(FORMAT(exc)),
        "show_group": None,
    }
    if FORMAT_ONLY is not None:
        result["show_group"] = "".join(FORMAT_ONLY(exc, show_group=True))
        # Each member's own TracebackException takes show_group too.
        result["show_group"] += "".join(
            line for member in (te.exceptions or ())
            for line in member.format_exception_only(show_group=True))
    results.append(result)
print(json.dumps(results))
'''

TEXT = st.text(alphabet="ab \n", max_size=6)
NOTES = st.lists(TEXT, max_size=2)


def _node(kind: str, **fields: Any) -> Dict[str, Any]:
    return {"kind": kind, "cause": None, "context": None, "suppress": False, "raised": False,
            "notes": [], **fields}


@st.composite
def _decorated(draw: st.DrawFn, base: Dict[str, Any], chained: st.SearchStrategy[Any]) -> Dict[str, Any]:
    node = dict(base)
    node["notes"] = draw(NOTES)
    node["raised"] = draw(st.booleans())
    node["suppress"] = draw(st.booleans())
    node["cause"] = draw(st.none() | chained)
    node["context"] = draw(st.none() | chained)
    return node


LEAF = st.builds(
    lambda kind, text: _node("leaf", type=kind, args=[2, text] if kind == "OSError" else
                             ([] if text == "" else [text])),
    st.sampled_from(["ValueError", "TypeError", "KeyError", "OSError", "KeyboardInterrupt",
                     "Custom", "SyntaxError"]),
    TEXT,
)
SIMPLE_LEAF = LEAF.flatmap(lambda leaf: _decorated(leaf, st.none()))


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    group = st.builds(lambda msg, members: _node("group", msg=msg, members=members),
                      TEXT, st.lists(children, min_size=1, max_size=4))
    return group.flatmap(lambda node: _decorated(node, SIMPLE_LEAF))


TREE = st.recursive(SIMPLE_LEAF, _extend, max_leaves=10)
CASE = st.fixed_dictionaries({
    "tree": TREE,
    "width": st.sampled_from([1, 2, 3, 15]),
    "depth": st.sampled_from([0, 1, 2, 10]),
    "limit": st.sampled_from([None, 0, 1]),
    "chain": st.booleans(),
    "compact": st.booleans(),
})

def _is_caret_line(line: str) -> bool:
    marks = line.rstrip("\n").lstrip(" |+")
    return bool(marks) and not marks.strip(" ~^")


def without_carets(text: str) -> str:
    """The text less the caret lines under frames, which only 3.11+ draws."""
    return "".join(line for line in text.splitlines(True) if not _is_caret_line(line))


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("formatting") / "tb_program.py"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def run(exe: str, program: Path, mode: str, cases: List[Any],
        pure: bool = True) -> List[Dict[str, str | None]]:
    # The program runs from its file, so that its frames have source lines.
    code = f"import runpy; runpy.run_path({str(program)!r}, run_name='__main__')"
    proc = run_python(exe, code, pure=mode == "ours" and pure, args=(mode,), stdin=json.dumps(cases))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def compare(program: Path, cases: List[Any]) -> None:
    ours = run(sys.executable, program, "ours", cases)
    if sys.version_info >= (3, 11):
        native = run(sys.executable, program, "native", cases)
        # A SyntaxError's lines are 3.15's on every version; 3.11 and 3.12 draw
        # other carets under some (a SyntaxError without an end): compared without them there.
        same = (lambda text: text) if sys.version_info >= (3, 13) else without_carets
        for case, mine, theirs in zip(cases, ours, native):
            assert same(mine["te"]) == same(theirs["te"]), case
            assert same(mine["format_exception"]) == same(theirs["format_exception"]), case
            if theirs["show_group"] is not None:
                assert same(mine["show_group"]) == same(theirs["show_group"]), case
    reference_exe = native_python()
    assert reference_exe is not None
    reference = run(reference_exe, program, "native", cases)
    if (3, 11) <= sys.version_info < (3, 13):
        # With the built-in groups exceptstar is the standard library plus
        # show_group, which must print as 3.13 prints it.
        api = run(sys.executable, program, "ours", cases, pure=False)
        for case, mine, theirs in zip(cases, api, reference):
            assert without_carets(mine["show_group"] or "") == without_carets(
                theirs["show_group"] or ""), case
    for case, mine, theirs in zip(cases, ours, reference):
        assert without_carets(mine["te"]) == without_carets(theirs["te"] or ""), case
        assert (without_carets(mine["format_exception"])
                == without_carets(theirs["format_exception"] or "")), case
        # Syntax errors get the carets of the running version there too.
        assert without_carets(mine["show_group"] or "") == without_carets(
            theirs["show_group"] or ""), case


@pytest.mark.needs_processes
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(st.lists(CASE, min_size=1, max_size=6))
def test_generated_groups_print_as_cpython_prints_them(program: Path, cases: List[Any]) -> None:
    compare(program, cases)


def _leaf(kind: str = "ValueError", *args: Any, **fields: Any) -> Dict[str, Any]:
    return _node("leaf", type=kind, args=list(args), **fields)


def _group(msg: str, members: List[Any], **fields: Any) -> Dict[str, Any]:
    return _node("group", msg=msg, members=members, **fields)


def _case(tree: Any, width: int = 15, depth: int = 10) -> Dict[str, Any]:
    return {"tree": tree, "width": width, "depth": depth, "limit": None, "chain": True,
            "compact": True}


def _nested(levels: int) -> Dict[str, Any]:
    tree = _leaf("TypeError", "deepest", raised=True)
    for level in range(levels):
        tree = _group(f"level {level}", [tree, _leaf("KeyError", level)], raised=level % 2 == 0)
    return tree


@pytest.mark.needs_processes
def test_the_spec_example_and_its_edges(program: Path) -> None:
    """CPython 3.13's group layout by hand: the example, width and depth truncation, chains inside."""
    spec_example = _group("outer", [
        _leaf("ValueError", "bad value", raised=True),
        _group("inner", [_leaf("TypeError", 1), _leaf("KeyError", "k")]),
        _leaf("OSError", 2, "no such file"),
    ], raised=True, notes=["a note on outer"])
    wide = _group("wide", [_leaf("ValueError", i) for i in range(20)], raised=True)
    chained_inside = _group("chains", [
        _leaf("ValueError", "with cause", raised=True,
              cause=_leaf("KeyError", "the cause", raised=True)),
        _leaf("TypeError", "with context", raised=True,
              context=_group("ctx group", [_leaf("OSError", 2, "x")], raised=True)),
        _leaf("TypeError", "suppressed", context=_leaf("KeyError", "hidden"), suppress=True),
    ], cause=_group("cause of group", [_leaf("Custom", "c")], raised=True))
    cases = [
        _case(spec_example),
        _case(wide), _case(wide, width=1), _case(wide, width=19), _case(wide, width=20),
        _case(_nested(12)), _case(_nested(4), depth=1), _case(_nested(4), depth=0),
        _case(chained_inside),
        _case(_group("no traceback", [_leaf(), _group("inner", [_leaf("KeyError", 1)])])),
        _case(_leaf("ValueError", "plain", raised=True, notes=["one", "two\nlines", ""])),
    ]
    compare(program, cases)


def _ref(name: str) -> Dict[str, Any]:
    return {"kind": "ref", "name": name}


@pytest.mark.needs_processes
def test_shared_exceptions_are_printed_where_cpython_prints_them(program: Path) -> None:
    """One exception in several places: CPython prints a cause or context once, at
    the place its traversal meets it first, and members every time."""
    shared = _leaf("KeyError", "shared", raised=True, name="shared")
    group = _group("inner", [_leaf("TypeError", 0, raised=True)], raised=True, name="inner")
    cases = [
        _case(_group("outer", [
            _leaf("ValueError", "first", raised=True, cause=shared),
            _leaf("ValueError", "second", raised=True, context=_ref("shared")),
            _ref("shared"),
            group,
            _ref("inner"),
        ], raised=True, context=_ref("shared"))),
        # The shared cause belongs to a member past the width, which is never shown.
        _case(_group("narrow", [
            _leaf("ValueError", "shown", raised=True, context=_leaf("OSError", 2, "x", name="x")),
            _leaf("ValueError", "hidden", raised=True, cause=_ref("x")),
        ], raised=True), width=1),
        _case(_group("nested", [
            _group("deep", [_leaf("ValueError", "v", cause=_leaf("KeyError", "k", name="k"))]),
            _leaf("TypeError", "t", context=_ref("k")),
        ]), depth=0),
    ]
    compare(program, cases)


SYNTAX_ERRORS = r'''
import json, os, sys
if os.environ.get("EXCEPTSTAR_PURE") or sys.version_info < (3, 11):
    import exceptstar
    GROUP, ONLY = exceptstar.ExceptionGroup, exceptstar.format_exception_only
else:
    import traceback
    GROUP, ONLY = ExceptionGroup, traceback.format_exception_only
CASES = [
    ("f.py", 1, 3, "  é = 中文字 + 1\n", 1, 9),
    ("f.py", 2, 6, "\tx = '\uff57\uff49\uff44\uff45' +\n", 2, 12),
    ("f.py", 1, 2, "ab\u0301c\u200bd = 1\n", 1, 7),
    ("f.py", 1, 3, "x=\x1a1 \x1b[31m\n", 1, 9),
    (None, None, 1, "💥 boom\n", None, None),
    ("f.py", 1, 40, "short\n", 1, 50),
    ("f.py", 1, 2, "multi\n", 3, 1),
    ("f.py", 1, "2", "odd offset\n", 1, 3),
    ("f.py", 1, None, "no offset\n", None, None),
    ("f.py", 1, 0, "   left\n", 1, 2),
]
out = []
for colorize in (False, True):
    for filename, lineno, offset, text, end_lineno, end_offset in CASES:
        error = SyntaxError("bad", (filename, lineno, offset, text))
        error.end_lineno, error.end_offset = end_lineno, end_offset
        error.add_note("a note") if hasattr(error, "add_note") else exceptstar.add_note(error, "a note")
        out.append("".join(ONLY(error, colorize=colorize)))
        out.append("".join(ONLY(GROUP("g", [error]), show_group=True, colorize=colorize)))
print(json.dumps(out))
'''


@pytest.mark.needs_processes
def test_syntax_errors_and_notes_print_as_the_newest_cpython() -> None:
    # Carets by display width (wide, combining and format characters, escapes,
    # Ctrl-Z), the odd offsets, notes in their colour: 3.15's on every version.
    mine, theirs = ours_and_newest(SYNTAX_ERRORS)
    assert any("a note" in line and "\x1b[" in line for text in theirs for line in text.splitlines())
    for text, expected in zip(mine, theirs):
        assert text == expected
