"""SyntaxError positions and precedence for invalid ``except*``, against the newest CPython (3.15).

Each snippet is compiled natively and with ``exceptstar.compile``; the error
must be the same: message, line, offset, end (3.10+ have ends) and text.
Compiler errors (``return`` in an ``except*`` block) count UTF-8 bytes and,
for ``return``, point at the value only when it is a constant (after
constant folding) on the statement's line; parser errors count characters;
mixed clauses whose types are not one expression are 3.14+'s "invalid syntax".
"""

from __future__ import annotations

import json
import sys

import pytest
from support.interpreters import native_python
from support.processes import run_python

PURE = sys.version_info >= (3, 11)
FLOW = "'break', 'continue' and 'return' cannot appear in an except* block"

CASES = [
    'def f():\n    try:\n        pass\n    except* A:\n        return x\n',
    'def f():\n    try:\n        pass\n    except* A:\n        return 1\n',
    'def f():\n    try:\n        pass\n    except* A:\n        return (\n            1)\n',
    'def f():\n    try:\n        pass\n    except* A:\n        return (\n            x)\n',
    'def f():\n    try:\n        pass\n    except* A:\n        return -1\n',
    'def f():\n    try:\n        pass\n    except* A:\n        return 1 + 2\n',
    'def f():\n    try:\n        pass\n    except* A:\n        return (1, 2)\n',
    "def f():\n    try:\n        pass\n    except* A:\n        é = 1; return 'é'\n",
    'def f():\n    try:\n        pass\n    except* A:\n        é = 1; return\n',
    'for x in y:\n    try:\n        pass\n    except* A:\n        é = 1; break\n',
    'try: pass\nexcept ValueError: pass\nexcept*: pass\n',
    'try: pass\nexcept ValueError: pass\nexcept* A, B: pass\n',
    'try: pass\nexcept* ValueError: pass\nexcept: pass\n',
    'try: pass\nexcept* ValueError: pass\nexcept A, B: pass\n',
    'é = 1; x = 2\ntry: pass\nexcept* ValueError: pass\nexcept A: pass\n',
    'try: pass\nexcept A: pass\nexcept * B: pass\n',
    "é = 2\ntry:\n    pass\nexcept* (A, 'é'), B:\n    pass\n",
    'try:\n    pass\nexcept*:\n    pass  # é\n',
    "x = 'é'; y = 'é'\ntry:\n    pass\nexcept *   :\n    pass\n",
    'def f():\n    try:\n        pass\n    except* A:\n        return __debug__\n',
    "def f():\n    try:\n        pass\n    except* A:\n        return 'a' 'b'\n",
    'def f():\n    try:\n        pass\n    except* A:\n        return (1,\n 2)\n',
    'def f():\n    try:\n        pass\n    except* A:\n        return not 1\n',
    'def f():\n    try:\n        pass\n    except* A:\n        return [1][0]\n',
    "def f():\n    try:\n        pass\n    except* A:\n        return 'é'\n",
    "é = 1\ntry:\n    pass\nexcept* ValueError: é = 2\nexcept A: pass\n",
    "try:\n    pass\nexcept A:\n    pass\nexcept* (é, B) as e: pass\n",
    "def f():\n    try:\n        pass\n    except* A:\n        return (x for x in 'é')\n",
    "def f():\n    try:\n        pass\n    except* A:\n        return ('é'\n            + 'b')\n",
    "try:\n    pass\nexcept* (x for x in y), B:\n    pass\n",
    "try:\n    pass\nexcept* (), B:\n    pass\n",
    # 3.14+ stop at the star of a starred clause after plain ones whose types are not one
    # expression, and at the first type of a plain list after starred ones: "invalid syntax".
    'try: pass\nexcept ValueError: pass\nexcept* A, B as e: pass\n',
    'try: pass\nexcept ValueError: pass\nexcept*: pass\nexcept* A: pass\n',
    'try: pass\nexcept: pass\nexcept*: pass\n',
    'try: pass\nexcept* ValueError: pass\nexcept KeyError, TypeError as e: pass\n',
    'try:\n    pass\nexcept* A:\n    try:\n        pass\n    except B:\n        pass\nexcept C, D:\n    pass\n',
    'def f():\n    try:\n        pass\n    except* A:\n        pass\n    except KeyError, B:\n        pass\n',
    # Before a starred clause 3.14+ take a plain list: the mixed clauses' error (or, with `as`, its own).
    'try:\n    pass\nexcept A, B:\n    pass\nexcept* C:\n    pass\n',
    'try:\n    pass\nexcept A:\n    pass\nexcept B, C:\n    pass\nexcept* D:\n    pass\n',
    'try:\n    pass\nexcept A, B as e:\n    pass\nexcept* C:\n    pass\n',
]

REPORT = """\
import json, sys
{setup}
out = []
for source in json.loads(sys.stdin.read()):
    try:
        COMPILE(source, "f.py", "exec")
        out.append(None)
    except SyntaxError as e:
        out.append([type(e).__name__, e.msg, e.lineno, e.offset, getattr(e, "end_lineno", None),
                    getattr(e, "end_offset", None), e.text])
print(json.dumps(out))
"""


def _errors(exe: str, setup: str, pure: bool = False) -> list[object]:
    proc = run_python(exe, REPORT.format(setup=setup), pure=pure, stdin=json.dumps(CASES))
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_positions_and_precedence_as_native() -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    # exceptstar follows the newest CPython (PEP 758: some of these are valid there).
    # On 3.11+ exceptstar parses with the running parser: its own words are the reference there.
    expected = _errors(native if sys.version_info < (3, 11) else sys.executable, "COMPILE = compile")
    if sys.implementation.name == "pypy" and PURE:
        # PyPy's code generator words break/continue/return in an except* block its own way
        # and places it at the statement: there exceptstar gives 3.15's error, words and place.
        newest = _errors(native, "COMPILE = compile")
        expected = [theirs if theirs is not None and theirs[1] == FLOW else own
                    for own, theirs in zip(expected, newest)]
    ours = _errors(sys.executable, "import exceptstar; COMPILE = exceptstar.compile", pure=PURE)
    for source, theirs, mine in zip(CASES, expected, ours):
        if theirs is None:
            assert mine is None, source
            continue
        assert mine is not None, source
        if sys.version_info < (3, 10):
            theirs = theirs[:4] + theirs[6:]  # no end positions before 3.10
            mine = mine[:4] + mine[6:]
        assert mine == theirs, source
