"""Source with any line ending the interpreter reads: ``\\n``, ``\\r\\n`` or a lone ``\\r``.

The interpreter ends a line at each of them, backslash continuations
included.  A module that uses ``except*`` compiles to the same code with any
of them, on each way the clauses are found: the quick scan, and the
tokenizer's when an ``except*`` look-alike starts a line inside a string.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from exceptstar._compiler import source, transform

MODULE = [
    "def f(x):",
    "  if x:",
    "    y = 1 + \\{continued}0",
    "    z = y",
    "  return z",
    "try:",
    "    raise ValueError(f(1))",
    "except* ValueError as e:",
    "    found = repr(e)",
]
# Starts a line inside a string: only the tokenizer tells it from a clause.
LOOKALIKE = ['HELP = """', 'except* E"""']
# The group a naked exception is wrapped in holds a tuple (PyPy 3.11's native except*: a list).
NAKED = "[ValueError(1)]" if sys.implementation.name == "pypy" and sys.version_info >= (3, 11) else "(ValueError(1),)"


def _code(code: Any) -> Any:
    consts = tuple(_code(c) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    table = code.co_linetable if sys.version_info >= (3, 10) else code.co_lnotab
    return code.co_code, consts, code.co_names, table, code.co_firstlineno


@pytest.mark.parametrize("module", [True, False])
@pytest.mark.parametrize("lookalike", [False, True])
@pytest.mark.parametrize("ending, continued", [("\r\n", "\r\n"), ("\r", "\r"), ("\n", "\r"), ("\n", "\r\n")])
def test_line_endings_compile_alike(ending: str, continued: str, lookalike: bool, module: bool) -> None:
    lines = (LOOKALIKE if lookalike else []) + MODULE
    text = ending.join(lines).format(continued=continued) + ending
    plain = "\n".join(lines).format(continued="\n") + "\n"
    assert source.uses_except_star(text)
    ours = transform.compile_source(text, "m.py", "exec", module=module)
    reference = transform.compile_source(plain, "m.py", "exec", module=module)
    assert ours[1] and reference[1]
    assert _code(ours[0]) == _code(reference[0])
    namespace: dict[str, Any] = {}
    exec(ours[0], namespace)
    assert namespace["found"] == f"ExceptionGroup('', {NAKED})"
