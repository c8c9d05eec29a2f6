"""doctest examples that use ``except*``, with CPython's SyntaxErrors for invalid ones.

``doctest.testmod()`` under ``python -m exceptstar run``, ``testmod()`` and
``testfile()`` in a program that called a global ``install()``, and pytest's
``--doctest-modules`` and ``--doctest-glob``, compared with the same doctests
on native 3.11 (on 3.11+: with the interpreter itself, where nothing changes).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import child_env
from test_tools_runners import ours, theirs

DOCS = '''\
def handle():
    """Handles part of a group.

    >>> try:
    ...     raise ExceptionGroup("eg", [ValueError(1), KeyError(2)])
    ... except* ValueError as eg:
    ...     print("value", eg.exceptions)
    ... except* KeyError:
    ...     print("key")
    value (ValueError(1),)
    key
    >>> try:
    ...     pass
    ... except* ValueError:
    ...     break
    Traceback (most recent call last):
    SyntaxError: 'break', 'continue' and 'return' cannot appear in an except* block
    >>> try:
    ...     pass
    ... except* ValueError:
    ...     pass
    ... except KeyError:
    ...     pass
    Traceback (most recent call last):
    SyntaxError: cannot have both 'except' and 'except*' on the same 'try'
    """


if __name__ == "__main__":
    import doctest

    print(doctest.testmod())
'''

if sys.implementation.name == "pypy" and sys.version_info >= (3, 11):
    # PyPy 3.11's own compiler names the one statement ("'break' cannot appear in an except* block").
    DOCS = DOCS.replace("'break', 'continue' and 'return' cannot", "'break' cannot")

TEXT_DOCTEST = """\
A text file of examples:

>>> try:
...     raise ExceptionGroup("eg", [OSError(1)])
... except* OSError as eg:
...     print(repr(eg))
ExceptionGroup('eg', [OSError(1)])
"""

@pytest.mark.needs_processes
def test_doctest_testmod_under_run(tmp_path: Path) -> None:
    (tmp_path / "docs.py").write_text(DOCS)
    mine, native = ours(tmp_path, "docs.py"), theirs(tmp_path, "docs.py")
    assert mine.stdout == native.stdout == "TestResults(failed=0, attempted=3)\n", mine.stdout + mine.stderr


@pytest.mark.needs_processes
@pytest.mark.parametrize("option", ["--doctest-modules", "--doctest-glob=*.txt"])
def test_pytest_doctests(tmp_path: Path, option: str) -> None:
    (tmp_path / "docs.py").write_text(DOCS)
    (tmp_path / "examples.txt").write_text(TEXT_DOCTEST)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", option, "-o",
                           "python_files=nothing"], cwd=tmp_path, capture_output=True, text=True,
                          env=child_env(False), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 passed" in proc.stdout


@pytest.mark.needs_processes
def test_doctest_reports_a_failing_example_as_natively(tmp_path: Path) -> None:
    (tmp_path / "docs.py").write_text(DOCS.replace("value (ValueError(1),)", "value (ValueError(2),)"))
    mine, native = ours(tmp_path, "docs.py"), theirs(tmp_path, "docs.py")
    # 3.8 names the script as given, 3.9+ by its absolute path (python's own difference).
    assert mine.stdout.replace(f"{tmp_path}/", "") == native.stdout.replace(f"{tmp_path}/", "")
    assert "TestResults(failed=1, attempted=3)" in mine.stdout


INSTALLED = """\
import doctest

import exceptstar

exceptstar.install()

import docs

print(doctest.testmod(docs))
print(doctest.testfile("examples.txt"))
"""


@pytest.mark.needs_processes
def test_testmod_and_testfile_after_a_global_install(tmp_path: Path) -> None:
    (tmp_path / "docs.py").write_text(DOCS)
    (tmp_path / "examples.txt").write_text(TEXT_DOCTEST)
    (tmp_path / "prog.py").write_text(INSTALLED)
    mine = subprocess.run([sys.executable, "prog.py"], cwd=tmp_path, capture_output=True, text=True,
                          env=child_env(False), timeout=120)
    native = theirs(tmp_path, "prog.py")
    assert mine.stdout == native.stdout == (
        "TestResults(failed=0, attempted=3)\nTestResults(failed=0, attempted=1)\n"), mine.stdout + mine.stderr


def test_a_turned_off_row_leaves_doctest_alone(tmp_path: Path) -> None:
    if sys.version_info >= (3, 11):
        pytest.skip("the rows run only where except* is transformed")
    (tmp_path / "docs.py").write_text(DOCS)
    (tmp_path / "examples.txt").write_text(TEXT_DOCTEST)
    (tmp_path / "prog.py").write_text(INSTALLED)
    proc = subprocess.run([sys.executable, "prog.py"], cwd=tmp_path, capture_output=True, text=True,
                          env={**child_env(False), "EXCEPTSTAR_NO_DOCTEST": "1"}, timeout=120)
    # The built-in compile reads neither the examples nor the invalid ones' messages.
    assert "TestResults(failed=3, attempted=3)" in proc.stdout, proc.stdout + proc.stderr
    assert "TestResults(failed=1, attempted=1)" in proc.stdout
