"""Traceback entries that span an ``except*`` clause print its lines on 3.8-3.10, as on 3.15.

CPython gives the entry its ``except*`` makes in the frame of the ``try`` (the
group that wraps a naked exception; an error of a clause's match: invalid
types, a group's own ``split`` failing) the position of the whole clause, from
its ``except`` keyword to the end of its handler, and 3.13+ print the lines of
a position: the first and the last, dedented together, the one between them or
``...<N lines>...`` for more.  3.8-3.10 record lines only; exceptstar carries
the clause's last line in the entries its engine makes (``exceptstar._spans``).

``CASES`` is generated: where the statement is (a function, a generator, a
method, nested in a handler or in a body, module level), what the body raises,
the clauses, the handler's lines (blank lines, comments, a trailing comment,
a block last), how it ends (bare ``raise``, ``raise e``, a new exception, a
traceback printed inside the handler), ``else``/``finally``, and the printing
path (``print_exc``, ``format_exception``, the excepthook, ``logging``, a
negative ``limit``, ``lookup_lines=False``).  The same files run on the
newest native CPython and, on 3.8-3.10, under ``exceptstar run``, twice: the
second run imports the transformed module from exceptstar's bytecode cache.
The texts must be equal once the caret lines, which 3.8-3.10 cannot draw, are
taken out of 3.15's.
"""

from __future__ import annotations

import itertools
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, NamedTuple

import pytest
from support.interpreters import native_python
from support.processes import child_env

pytestmark = [
    pytest.mark.needs_processes,
    pytest.mark.skipif(sys.version_info >= (3, 11), reason="3.11+ run except* natively: nothing of ours to print"),
]

WHERE = ["function", "generator", "method", "in_handler", "in_body", "module"]
RAISES = ["naked", "naked", "group", "bad_split", "bad_type"]
ENDS = ["raise", "raise e", "new", "print", "one_line"]
FILLERS = [
    (),
    ("x = 1",),
    ("x = 1", "y = 2"),
    ("x = 1", "", "# a comment", "y = 2"),
    ("if x:", "    y = 2", "else:", "    y = 3"),
]
TYPES = ["ValueError", "(TypeError,\n         ValueError)", "(ValueError, OSError)"]
TAILS = ["", "else", "finally", "else finally"]
PATHS = ["print_exc", "format_exception", "excepthook", "logging", "limit", "lazy"]


class Case(NamedTuple):
    where: str
    raises: str
    before: bool          # a clause that matches nothing comes first
    types: str
    filler: tuple
    end: str
    comment: bool         # a comment after the handler's last statement, on its line
    last_is_block: bool   # the handler ends with a compound statement
    tail: str
    path: str


def generate(seed: int = 654) -> List[Case]:
    """Every (where, end, filler) once, the other choices drawn: each value of each comes up."""
    rng = random.Random(seed)
    cases = []
    for where, end, filler in itertools.product(WHERE, ENDS, FILLERS):
        cases.append(Case(where, rng.choice(RAISES), rng.random() < 0.4, rng.choice(TYPES), filler, end,
                          rng.random() < 0.25, rng.random() < 0.2, rng.choice(TAILS), rng.choice(PATHS)))
    return cases


CASES = generate()

PRELUDE = '''\
import logging
import sys
import traceback

logging.basicConfig(stream=sys.stdout, format="%(message)s")


class BadSplit(ExceptionGroup):
    def split(self, condition):
        raise RuntimeError("split failed")


def show(path):
    """The exception being handled, printed by one of the printing paths."""
    if path == "print_exc":
        traceback.print_exc(file=sys.stdout)
    elif path == "format_exception":
        sys.stdout.write("".join(traceback.format_exception(*sys.exc_info())))
    elif path == "excepthook":
        stderr, sys.stderr = sys.stderr, sys.stdout
        try:
            sys.excepthook(*sys.exc_info())
        finally:
            sys.stderr = stderr
    elif path == "logging":
        logging.exception("logged")
    elif path == "limit":
        traceback.print_exc(limit=-2, file=sys.stdout)
    else:
        te = traceback.TracebackException(*sys.exc_info(), lookup_lines=False)
        sys.stdout.write("".join(te.format()))


x = 0
'''


def _raise(case: Case) -> str:
    return {
        "naked": "raise ValueError(1)",
        "group": 'raise ExceptionGroup("g", [ValueError(1), OSError(2)])',
        "bad_split": 'raise BadSplit("m", [ValueError(1)])',
        "bad_type": "raise ValueError(1)",
    }[case.raises]


def _statement(case: Case) -> List[str]:
    """The ``try``/``except*`` statement of ``case``, at indentation 0."""
    lines = ["try:", "    " + _raise(case)]
    if case.before:
        lines += ["except* KeyError:", "    pass"]
    types = "ExceptionGroup" if case.raises == "bad_type" else case.types
    end = {"raise": "raise", "raise e": "raise e", "new": "raise KeyError(2)",
           "print": f"show({case.path!r})", "one_line": "raise"}[case.end]
    if case.end == "one_line":
        lines.append(f"except* {types} as e: {end}")
    else:
        lines.append(f"except* {types} as e:")
        body = list(case.filler)
        if case.last_is_block:
            body += ["if e:", "    " + end]
        else:
            body.append(end)
        if case.comment:
            body[-1] += "  # the last statement"
        lines += ["    " + line if line else "" for line in body]
    if "else" in case.tail:
        lines += ["else:", "    pass"]
    if "finally" in case.tail:
        lines += ["finally:", "    z = 2"]
    return lines


def _indent(lines: List[str], by: str) -> List[str]:
    return [by + line if line else "" for line in lines]


def render(index: int, case: Case) -> str:
    """Case ``index`` as source: a function ``case_<index>`` that runs it, or module-level code."""
    statement = _statement(case)
    show = f"    show({case.path!r})"
    if case.where == "module":
        return "\n".join(["try:", *_indent(statement, "    "), "except BaseException:", show, ""])
    if case.where == "in_handler":
        statement = ["try:", "    raise OSError('outer')", "except* OSError:", *_indent(statement, "    ")]
    elif case.where == "in_body":
        statement = ["try:", *_indent(statement, "    "), "except* OSError:", "    pass"]
    if case.where == "generator":
        lines = [f"def gen_{index}():", "    yield 0", *_indent(statement, "    "),
                 f"def case_{index}():", f"    for _ in gen_{index}():", "        pass"]
    elif case.where == "method":
        lines = [f"class Case{index}:", "    def run(self):", *_indent(statement, "        "),
                 f"def case_{index}():", f"    Case{index}().run()"]
    else:
        lines = [f"def case_{index}():", *_indent(statement, "    ")]
    return "\n".join([*lines, "try:", f"    case_{index}()", "except BaseException:", show, ""])


def program(cases: List[Case]) -> str:
    parts = [PRELUDE]
    for index, case in enumerate(cases):
        parts += [f"print('=== case {index}')", render(index, case)]
    return "\n".join(parts)


def without_carets(text: str) -> str:
    """The text less the caret lines under frame lines, which only 3.11+ draws."""
    return "".join(line for line in text.splitlines(True) if not re.fullmatch(r"[ |+]*[~^][ ~^]*\n?", line))


def run(command: List[str], folder: Path) -> str:
    env = {**child_env(False), "PYTHON_COLORS": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the second run reads the cache
    proc = subprocess.run(command, cwd=folder, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    return proc.stdout.replace(str(folder), "<folder>")


def by_case(text: str) -> Dict[str, str]:
    return dict(re.findall(r"(?ms)^=== (case \d+)\n(.*?)(?=^=== |\Z)", text))


def compare(tmp_path: Path, cases: List[Case]) -> None:
    native = native_python()
    if native is None:
        pytest.skip("no native CPython 3.11+ here")
    (tmp_path / "cases.py").write_text(program(cases), encoding="utf-8")
    main = tmp_path / "main.py"
    main.write_text("import cases\n", encoding="utf-8")
    expected = by_case(without_carets(run([native, str(main)], tmp_path)))
    assert len(expected) == len(cases)
    command = [sys.executable, "-m", "exceptstar", "run", str(main)]
    first = run(command, tmp_path)
    assert list((tmp_path / "__pycache__").glob("cases.*exceptstar*.pyc")), "the transformed module was cached"
    for text in (first, run(command, tmp_path)):   # the second from the bytecode cache
        got = by_case(text)
        for index, case in enumerate(cases):
            name = f"case {index}"
            assert got.get(name) == expected[name], f"{case}\n{render(index, case)}"


@pytest.mark.parametrize("part", range(3))
def test_generated(tmp_path: Path, part: int) -> None:
    compare(tmp_path, CASES[part::3])


def test_every_path_spans(tmp_path: Path) -> None:
    """One re-raised naked exception through every printing path; and the span is really printed."""
    cases = [Case("function", "naked", False, "ValueError", ("x = 1", "y = 2", "z = 3"), "raise", False, False, "",
                  path) for path in PATHS]
    compare(tmp_path, cases)
    (tmp_path / "main.py").write_text("import cases\n", encoding="utf-8")
    text = run([sys.executable, "-m", "exceptstar", "run", str(tmp_path / "main.py")], tmp_path)
    assert text.count("  |     except* ValueError as e:\n  |     ...<3 lines>...\n  |         raise\n") == len(PATHS)
