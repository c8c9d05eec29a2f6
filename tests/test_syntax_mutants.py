"""A mutation fuzzer of ``except*`` SyntaxErrors: broken modules, exceptstar against the newest CPython.

Valid modules that use ``except*`` (``support.mutants.CORPUS``) get a few
random edits each (seeded: the same mutants every run); each mutant is
compiled by ``exceptstar.compile`` here (3.8-3.10; 3.11+ under
``EXCEPTSTAR_PURE=1`` parse natively) and by the newest native CPython, each
side in one child process for the whole batch.  Where the error concerns an
``except*`` clause (``mutants.on_star_line``: an ``except*`` message on either
side, or, where the running parser words its errors as 3.14+ do (3.10+), a
position on a clause's lines), message, line, offset and end (3.10+) must be
the same.  Elsewhere the running parser's words are its own
(docs/explanation/differences.md).
"""

from __future__ import annotations

import sys

import pytest
from support.interpreters import native_python
from support.mutants import mutants, on_star_line
from support.processes import PURE_HERE, call

SEED = 654

# 3.8's and 3.9's tokenizers (they stop where their parser stops: no later error
# overrides the parser's), and their words for a block that is missing.
OLD_TOKENIZER = ("unmatched", "closing parenthesis", "unterminated", "invalid decimal", "invalid hexadecimal")
OLD_MISSING_BLOCK = ("expected an indented block", "unexpected EOF while parsing")
# The open gaps, each in docs/explanation/differences.md: 3.15 reads the rest of a clause by
# rules the running parser has not (the farthest token of its first pass for "invalid syntax";
# a mixed clause whose line goes on invalid; an expression rule of 3.15's own in the types;
# a bracket opened after `as` and never closed, read as 3.15 reads a target).
OPEN_GAPS = (
    ("invalid syntax", "invalid syntax"),
    ("cannot have both 'except' and 'except*' on the same 'try'", "invalid syntax"),
    ("Lambda expression parameters cannot be parenthesized", "invalid syntax"),
    ("'{' was never closed", "invalid syntax"),
)


def known_gap(want: list[object] | None, got: list[object] | None) -> bool:
    """Whether a difference is one the running parser or an open gap explains (not ours to hide)."""
    if want is None or got is None or got[0] not in ("SyntaxError", "IndentationError"):
        return False
    if sys.version_info < (3, 10):
        if str(want[1]).startswith("expected an indented block") and got[1] in OLD_MISSING_BLOCK:
            return True
        if str(want[1]).startswith(OLD_TOKENIZER):
            return True
    return (want[1], got[1]) in OPEN_GAPS
COUNT = 3000

pytestmark = pytest.mark.needs_processes


def test_except_star_errors_of_mutants_as_newest() -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    sources = mutants(SEED, COUNT)
    theirs = call(native, "mutants.errors", sources)
    ours = call(sys.executable, "mutants.errors", sources, pure=PURE_HERE)
    # 3.10's parser words its errors as 3.14+ do; 3.8's and 3.9's have their own words.
    words = sys.version_info >= (3, 10)
    width = 6 if sys.version_info >= (3, 10) else 4  # no end positions before 3.10
    compared, differ = 0, []
    for source, want, got in zip(sources, theirs, ours):
        if not (on_star_line(source, want, words) or on_star_line(source, got, words)):
            continue
        compared += 1
        if (want and want[:width]) != (got and got[:width]) and not known_gap(want, got):
            differ.append((source, want, got))
        elif got is not None and got[6] is not None:
            # The user's line is quoted, never the rewritten one.
            assert got[6].rstrip("\n") in source, (source, got)
    assert compared >= COUNT // 20, compared  # the corpus and the edits reach the clauses
    assert not differ, "\n\n".join(f"{source}\n3.15: {want}\nours: {got}" for source, want, got in differ[:5])
