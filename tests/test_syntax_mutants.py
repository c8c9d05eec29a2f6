"""A mutation fuzzer of ``except*`` SyntaxErrors: broken modules, exceptstar against the newest CPython.

Valid modules that use ``except*`` (``support.mutants.CORPUS``) get a few
random edits each (seeded: the same mutants every run); each mutant is
compiled by ``exceptstar.compile`` here and by the newest native CPython
(3.8-3.10; 3.11+ parse natively, so there the running interpreter's own
compile is the reference for its pure mode), each side in one child process
for the whole batch.  Where the error concerns an
``except*`` clause (``mutants.on_star_line``: an ``except*`` message on either
side, or, where the running parser words its errors as 3.14+ do (3.10+), a
position on a clause's lines), message, line, offset and end (3.10+) must be
the same.  Elsewhere the running parser's words are its own
(docs/explanation/differences.md).
"""

from __future__ import annotations

import re
import sys

import pytest
from support.interpreters import native_python
from support.mutants import mutants, on_star_line, star_message
from support.processes import PURE_HERE, call

SEED = 654
COUNT = 10000

pytestmark = [
    pytest.mark.needs_processes,
    # The fuzzer compares CPython's parsers: PyPy 3.9's words errors past a starred clause its own
    # way (a block missing at the end of the input: no line quoted, column 0), and PyPy 3.11's
    # except* is its own parser's (docs/explanation/differences.md).
    pytest.mark.skipif(sys.implementation.name == "pypy", reason="PyPy's parser is not CPython's"),
]

# 3.8's and 3.9's tokenizers stop where their parser stops (no later error of theirs
# overrides the parser's, as 3.10+'s do), and they join a line continued at its start otherwise.
OLD_TOKENIZER = ("unmatched", "closing parenthesis", "unterminated", "invalid decimal", "invalid hexadecimal",
                 "unexpected character after line continuation character")
MIXED = "cannot have both 'except' and 'except*' on the same 'try'"
INVALID = "invalid syntax"


def known_gap(source: str, want: list[object] | None, got: list[object] | None) -> bool:
    """Whether a difference is one of those docs/explanation/differences.md lists: where 3.15's
    parser reads further than the running one, or by rules of its own."""
    if want is None or got is None or got[0] not in ("SyntaxError", "IndentationError"):
        return False
    lines = source.splitlines()
    row = got[2] if isinstance(got[2], int) else 0
    line = lines[row - 1] if 0 < row <= len(lines) else ""
    same_place = want[2:4] == got[2:4]
    if sys.version_info < (3, 10) and (str(want[1]).startswith(OLD_TOKENIZER)
                                       or any(text.lstrip().startswith("\\") for text in lines)):
        return True
    if sys.version_info < (3, 9) and not star_message(want) and want[2:4] < got[2:4]:  # type: ignore[operator]
        return True  # 3.8 checks targets after parsing the whole file (its ast.c)
    return (
        # A clause on the try's own line: 3.14+ read it as the try's (the running parser stops there).
        re.match(r"\s*try\s*:\s*except", line) is not None
        # A bracket never closed (to the end of the file) where the running parser stops
        # on the bracket's line, at it or after it.
        or (str(want[1]).endswith("was never closed") and got[1] == INVALID and want[2] == got[2]
            and int(str(want[3])) <= int(str(got[3])))
        # 3.15's own rules for an expression (in a type) that the running parser calls invalid syntax.
        or (got[1] == INVALID and same_place and want[1] != INVALID and not star_message(want))
        # Where each parser stops inside a type (the running parser, asked where one ends).
        or (want[1] == got[1] == INVALID and want[2] == got[2])
        # The running tokenizer's column for a character after a continuation.
        or (want[1] == got[1] == OLD_TOKENIZER[-1] and want[2] == got[2])
        # 3.15's tokenizer reads the rest of the line when its parser stops (the running one does not).
        or (str(want[1]).startswith(OLD_TOKENIZER) and want[2] == got[2] and want[3] > got[3])  # type: ignore[operator]
        # A string prefix 3.15 tokenizes otherwise (t-strings, PEP 750).
        or any(re.search(r"(?<![\w'\"])[tT][rR]?['\"]", lines[row - 1]) is not None
               for row in {want[2], got[2]} if isinstance(row, int) and 0 < row <= len(lines))
    )


def test_except_star_errors_of_mutants_as_newest() -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    sources = mutants(SEED, COUNT)
    # On 3.11+ exceptstar parses with the running parser: its own words are the reference there.
    theirs = call(native if sys.version_info < (3, 11) else sys.executable, "mutants.errors", sources)
    ours = call(sys.executable, "mutants.errors", sources, pure=PURE_HERE)
    # 3.10's parser words its errors as 3.14+ do; 3.8's and 3.9's have their own words.
    words = sys.version_info >= (3, 10)
    width = 6 if sys.version_info >= (3, 10) else 4  # no end positions before 3.10
    compared, differ = 0, []
    for source, want, got in zip(sources, theirs, ours):
        if not (on_star_line(source, want, words) or on_star_line(source, got, words)):
            continue
        compared += 1
        if (want and want[:width]) != (got and got[:width]) and not known_gap(source, want, got):
            differ.append((source, want, got))
        elif got is not None and got[6] is not None:
            # The user's line is quoted, never the rewritten one.
            assert got[6].rstrip("\n") in source, (source, got)
    assert compared >= COUNT // 20, compared  # the corpus and the edits reach the clauses
    assert not differ, "\n\n".join(f"{source}\n3.15: {want}\nours: {got}" for source, want, got in differ[:5])
