"""pytest's group tools on our groups, and failure reports that hold them.

A test file is run by a child pytest (which imports the backport before any
plugin, and so before exceptstar): ``pytest.RaisesGroup`` (pytest 8.4+, so
3.9+ here), ``ExceptionInfo.group_contains``, ``pytest.raises`` with the
backport's class, a group raised by a helper module that uses neither
``except*`` nor imports, and a failing test whose exception chain holds a
group.  The outcome must be what native 3.11+ gives, with no INTERNALERROR.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.interop import environment, reference_python

# PyPy 3.9's built-in classes take no new method, so no add_note there outside exceptstar's
# own function: the note is set as PEP 678 allows.
ADD_NOTE = ('err.__notes__ = ["noted in a plain module"]'
            if sys.implementation.name == "pypy" and sys.version_info < (3, 11)
            else 'err.add_note("noted in a plain module")')
HELPER = f'''
def boom():
    err = KeyError("k")
    {ADD_NOTE}
    raise ExceptionGroup("from the helper", [ValueError("v"), ExceptionGroup("deeper", [err])])
'''

TESTS = '''
import sys

import exceptiongroup
import pytest

from helper import boom


@pytest.mark.skipif(not hasattr(pytest, "RaisesGroup"), reason="pytest 8.4+")
def test_raises_group():
    with pytest.RaisesGroup(ValueError, pytest.RaisesGroup(KeyError)):
        boom()


def test_group_contains():
    with pytest.raises(ExceptionGroup) as info:
        boom()
    assert info.group_contains(KeyError, depth=2, match="k")
    assert not info.group_contains(KeyError, depth=1)


def test_backport_class_catches_ours():
    with pytest.raises(exceptiongroup.ExceptionGroup):
        boom()


def test_except_star_in_a_test():
    try:
        boom()
    except* KeyError as e:
        assert e.exceptions[0].exceptions[0].__notes__ == ["noted in a plain module"]
    except* ValueError:
        pass


def test_fails_with_a_group_in_its_chain():
    try:
        boom()
    except ExceptionGroup as group:
        raise RuntimeError("the outer failure") from group
'''


def run_pytest(exe: str, folder: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([exe, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-rA", str(folder / "test_things.py")],
                          capture_output=True, text=True, cwd=str(folder), env=environment(**env), timeout=300)


def outcome(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The per-test result lines, in order, and whether the members of the group were shown."""
    lines = sorted(re.findall(r"^(PASSED|FAILED) \S*::(test_\w+)", proc.stdout, re.M))
    return [" ".join(line) for line in lines] + [
        f"members shown: {'ValueError: v' in proc.stdout and 'noted in a plain module' in proc.stdout}"]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "helper.py").write_text(HELPER, encoding="utf-8")
    (tmp_path / "test_things.py").write_text(TESTS, encoding="utf-8")
    return tmp_path


@pytest.mark.needs_processes
@pytest.mark.parametrize("env", [{}, {"EXCEPTSTAR_NO_BACKPORT": "1"}], ids=["adopted", "backport opted out"])
def test_pytest_tools_on_our_groups(folder: Path, env: dict[str, str]) -> None:
    pytest.importorskip("exceptiongroup")
    proc = run_pytest(sys.executable, folder, **env)
    assert "INTERNALERROR" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    ours = outcome(proc)
    assert "FAILED test_fails_with_a_group_in_its_chain" in ours and "members shown: True" in ours, proc.stdout
    if env:
        # Opting out of adoption leaves pytest's own checks blind to our
        # groups; reports still show them in full (the plugin's formatter).
        return
    assert sum(line.startswith("PASSED") for line in ours) == (4 if hasattr(pytest, "RaisesGroup") else 3), ours
    reference = reference_python("exceptiongroup", "pytest")
    if reference is None:
        pytest.skip("no 3.11+ environment with pytest to compare with")
    expected = outcome(run_pytest(reference, folder))
    if not hasattr(pytest, "RaisesGroup"):  # pytest 8.3 on 3.8 skips it
        expected.remove("PASSED test_raises_group")
    assert ours == expected
