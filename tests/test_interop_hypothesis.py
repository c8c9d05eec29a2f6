"""Hypothesis on our groups: its multiple-failure report and its unwrapping, as on native 3.11+.

Hypothesis binds the ``exceptiongroup`` backport's names before 3.11, which
exceptstar adopts: a test with two distinct failures ends in a group of both
(with Hypothesis's notes on each), one whose naked exception an ``except*``
re-raised wrapped in a group is reported as the naked exception, and
``except*`` handles each.  The program runs under ``python -m exceptstar run``
here and as itself on native 3.13 with the same Hypothesis version.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import child_env
from support.render_native import reference_with

PROGRAM = '''
from hypothesis import given, settings, strategies as st


@settings(database=None, derandomize=True, report_multiple_bugs=True)
@given(st.integers())
def two_bugs(x):
    if x > 5:
        raise ValueError("big")
    if x < -5:
        raise TypeError("small")


@settings(database=None, derandomize=True)
@given(st.integers())
def naked_in_star(x):
    try:
        if x > 5:
            raise ValueError("big")
    except* TypeError:
        pass


def describe(exc, depth=0):
    print("  " * depth + type(exc).__name__, str(exc), exc.__dict__.get("__notes__"))
    for member in getattr(exc, "exceptions", ()):
        describe(member, depth + 1)


for test in (two_bugs, naked_in_star):
    try:
        test()
    except BaseException as error:
        print(test.__name__, isinstance(error, BaseExceptionGroup))
        describe(error)
    try:
        test()
    except* ValueError as group:
        print("handled ValueError part:", [str(e) for e in group.exceptions])
    except* TypeError as group:
        print("handled TypeError part:", [str(e) for e in group.exceptions])
'''


@pytest.mark.needs_processes
def test_as_native(tmp_path: Path) -> None:
    reference, env = reference_with("hypothesis")
    (tmp_path / "prog.py").write_text(PROGRAM)
    native = subprocess.run([reference, "prog.py"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert native.returncode == 0, native.stderr
    ours = subprocess.run([sys.executable, "-m", "exceptstar", "run", "prog.py"], cwd=tmp_path,
                          capture_output=True, text=True, env=child_env(False))
    assert ours.returncode == 0, ours.stderr
    # Hypothesis's explanation notes name the file: as given on the command line on 3.8, absolute after.
    expected = native.stdout.replace(f"{tmp_path}/", "")
    if sys.implementation.name == "pypy":
        # Hypothesis explains a failure by tracing the lines run, which it does not do on PyPy: no such notes.
        expected = re.sub(r", 'Explanation:', '    These lines were always and only run by failing examples:'"
                          r"(, '        prog\.py:\d+')+", "", expected)
    assert ours.stdout.replace(f"{tmp_path}/", "") == expected
    lines = native.stdout.splitlines()
    assert lines[:2] == ["two_bugs True",
                         "ExceptionGroup Hypothesis found 2 distinct failures. (2 sub-exceptions) None"]
    assert "naked_in_star False" in lines
