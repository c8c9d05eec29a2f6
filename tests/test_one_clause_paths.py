"""The text passes of a module with few clauses read what they read before (issue 37).

``source.quick_scan`` finds its clauses by ``re`` once a module has imported
it, else by ``str`` methods; ``finally_flow.may_leave_finally`` reads the
``finally`` blocks of one indentation in one search, else one by one.
Checked here: each pair agrees, over sources made to sit on their edges, and
the quick ways are the ones taken where they should be.
"""

from __future__ import annotations

import itertools
import random
import sys
from typing import List

import pytest

from exceptstar._compiler import finally_flow
from exceptstar._compiler.source import quick_scan

# Pieces whose combinations reach the scans' edges: continued lines (\n, \r\n, \r),
# form feeds, `**` and `*=`, look-alikes, flow words, brackets and strings in blocks.
PIECES = ["except", "*", " ", "\t", "\f", "\\\n", "\\\r\n", "\\\r", "\n", "\r\n", "x", "**", "*=", "#", "'",
          "finally", "finally:", "    ", "return", "break", "(", ")", '"""', "pass", ":", "finallyx", "é"]

MODULES = [
    "try:\n    pass\nfinally:\n    return 1\n",
    "def f():\n    try:\n        pass\n    finally:\n        log()\n    return 1\n",
    "def f():\n    try:\n        pass\n    finally:\n"
    "        try:\n            pass\n        finally:\n            pass\n",
    "def f():\n    try:\n        pass\n    finally:\n        x = 1\n    finally_name = 2\n\nfinally:\n    pass\n",
    "def f():\n    try:\n        pass\n    finally  :  g(\n        )\n\n    # finally\n    return 1\n",
    "def f():\n    try:\n        pass\n    finally\\\n:\n        pass\n",
    "def f():\n    try:\n        pass\n    finally:\n        s = 'return'\n",
    "def f():\n\ttry:\n\t\tpass\n\tfinally:\n\t\tpass\n\treturn 1\n",
    "try:\n    pass\nexcept* ValueError:\n    pass\nfinally:\n    (\n)\nreturn_value = 1\n",
]


def _sources(count: int) -> List[str]:
    chosen = random.Random(37)
    made = ["".join(chosen.choice(PIECES) for _ in range(chosen.randint(1, 16))) for _ in range(count)]
    return MODULES + made


def _without_re(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "re", raising=False)


def test_quick_scan_reads_alike_with_and_without_re(monkeypatch: pytest.MonkeyPatch) -> None:
    sources = _sources(20_000)
    with_re = [quick_scan(text) for text in sources]
    _without_re(monkeypatch)
    assert "re" not in sys.modules
    assert [quick_scan(text) for text in sources] == with_re
    assert any(found is not None and found[1] for found in with_re)


def test_quick_scan_finds_continued_clauses() -> None:
    text = "try:\n    pass\nexcept \\\n  * ValueError:\n    pass\nexcept\\\r\n*(A, B):\n    pass\n"
    found = quick_scan(text)
    assert found is not None
    assert found[1] == {(3, 0): (4, 3), (6, 0): (7, 1)}


def test_finally_blocks_read_alike_at_once_and_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    sources = _sources(30_000)
    at_once = [finally_flow.may_leave_finally(text) for text in sources]
    monkeypatch.setattr(finally_flow, "_blocks_at_one_width", lambda *_: None)
    assert [finally_flow.may_leave_finally(text) for text in sources] == at_once
    assert True in at_once and False in at_once


# What may_leave_finally says of each of MODULES; None: the one search leaves it to the other.
AT_ONCE = [True, False, None, None, None, True, True, False, True]


@pytest.mark.parametrize("text, expected", list(zip(MODULES, AT_ONCE)))
def test_finally_blocks_at_once_where_they_can_be(text: str, expected: bool | None) -> None:
    """The one search reads a module whose blocks all sit at one indentation (None: it
    leaves the module to the reading one by one), and the answers are these."""
    import re

    at = text.find("finally")
    blocks = finally_flow._blocks_at_one_width(text, at, re)
    if expected is None:
        assert blocks is None
    else:
        assert blocks is not None
        assert finally_flow.may_leave_finally(text) is expected


def test_many_blocks_are_read_at_once() -> None:
    import re

    text = "".join(f"def f{i}():\n    try:\n        pass\n    finally:\n        log({i})\n    return {i}\n\n"
                   for i in range(50))
    blocks = finally_flow._blocks_at_one_width(text, text.find("finally"), re)
    assert blocks == [f"\n        log({i})" for i in range(50)]
    assert finally_flow.may_leave_finally(text) is False
    assert finally_flow.may_leave_finally(text.replace("log(7)", "return 7")) is True


def test_every_ordering_of_widths_agrees(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = ["try:\n    pass\nfinally:\n    x\n", "    try:\n        pass\n    finally:\n        return\n",
              "try:\n    pass\nfinally:\n    break\n"]
    sources = ["def f():\n" + "".join(order) for order in itertools.permutations(blocks)]
    at_once = [finally_flow.may_leave_finally(text) for text in sources]
    monkeypatch.setattr(finally_flow, "_blocks_at_one_width", lambda *_: None)
    assert [finally_flow.may_leave_finally(text) for text in sources] == at_once
