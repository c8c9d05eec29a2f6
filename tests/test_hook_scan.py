"""``has_except_star``: the test the import hook runs on the source of every module it covers.

On 3.11+ it runs on every import under the hook (a valid normal ``.pyc``
proves nothing there), so it is a search rather than a loop over each
``except``; what it answers must stay the rule it states: the word
``except``, then only whitespace or line continuations, then ``*``.  Checked
against that rule written as a regular expression, on generated text made of
the pieces that matter and on every source file of the standard library.
"""

from __future__ import annotations

import os
import re
import zipfile
from pathlib import Path
from typing import Dict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from exceptstar._compiler.source import has_except_star

RULE = re.compile(rb"except[ \t\f\\\r\n]*\*")
PIECES = [b"except", b"*", b"**", b"except*", b" ", b"\t", b"\f", b"\\", b"\r", b"\n", b"e", b"t", b"exc",
          b"xcept", b"x", b"(", b":", "é".encode()]


def _rule(source: bytes) -> bool:
    return RULE.search(source) is not None


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=14))
def test_generated_text_follows_the_rule(pieces: list[bytes]) -> None:
    source = b"".join(pieces)
    assert has_except_star(source) is _rule(source)
    assert has_except_star(source.decode("utf-8")) is _rule(source)


@pytest.mark.parametrize("source, expected", [
    (b"", False),
    (b"except", False),
    (b"except*", True),
    (b"except \\\n  *", True),
    (b"*except", False),
    (b"except x * y", False),
    # Many excepts between two stars: only the last can reach the second star.
    (b"a * b\nexcept E:\nexcept F:\nexcept  *G", True),
    (b"a * b\nexcept E:\nexcept F:\nexcept G * 2", False),
    (b"except" * 50 + b" *", True),
])
def test_cases(source: bytes, expected: bool) -> None:
    assert has_except_star(source) is expected


def _standard_library_sources() -> Dict[str, bytes]:
    folder = Path(os.__file__).parent
    if folder.is_dir():
        return {str(path): path.read_bytes() for path in sorted(folder.glob("*.py")) + sorted(folder.glob("*/*.py"))}
    # Pyodide's standard library is a zip file on the path.
    with zipfile.ZipFile(folder) as archive:
        return {name: archive.read(name) for name in archive.namelist()
                if name.endswith(".py") and name.count("/") <= 1}


def test_standard_library_sources_follow_the_rule() -> None:
    sources = _standard_library_sources()
    assert len(sources) > 100
    for name, source in sources.items():
        assert has_except_star(source) is _rule(source), name
