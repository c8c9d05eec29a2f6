"""References to ``traceback``'s class taken before ``import exceptstar`` print groups as 3.14 does (3.8-3.10).

``from traceback import TracebackException`` before exceptstar is imported
binds the standard library's class, which knows no groups; exceptstar gives
that class its own methods, in place, as the ``exceptiongroup`` backport
patches it.  pytest binds it so in ``_pytest._code.code`` and formats groups
through it: its report of a group whose ``__context__`` is a group is run
with the backport absent (a stand-in module with exceptstar's classes) or not
adopted (``EXCEPTSTAR_NO_BACKPORT=1``), with and without exceptstar's plugin,
and compared with the same pytest on native 3.11+, caret lines aside.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.processes import SRC, child_env, run_native, run_python
from support.render_native import reference_with, version
from test_formatting import without_carets

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 11), reason="3.11+ print groups themselves; nothing is patched")

EARLY = textwrap.dedent('''
    from traceback import TracebackException, format_exception
    import traceback as module
    from exceptstar import ExceptionGroup

    def inner():
        raise ExceptionGroup("first", [ValueError(1), TypeError(2)])

    try:
        try:
            inner()
        except ExceptionGroup:
            raise ExceptionGroup("second", [KeyError(3)])
    except ExceptionGroup as group:
        print("".join(TracebackException.from_exception(group).format()), end="")
        print("".join(TracebackException(type(group), group, group.__traceback__).format()), end="")
        print("".join(format_exception(type(group), group, group.__traceback__)), end="")
''')


def test_a_class_bound_before_import(tmp_path: Path) -> None:
    program = tmp_path / "early.py"
    program.write_text(EARLY, encoding="utf-8")
    code = f"import runpy; runpy.run_path({str(program)!r}, run_name='__main__')"
    mine = run_python(sys.executable, code)
    theirs = run_native(code)
    assert mine.returncode == 0, mine.stderr
    assert "ValueError: 1" in mine.stdout and "KeyError: 3" in mine.stdout
    assert mine.stdout == without_carets(theirs.stdout)


TEST_FILE = textwrap.dedent('''
    from exceptstar import ExceptionGroup


    def inner():
        raise ExceptionGroup("first", [ValueError(1), TypeError(2)])


    def test_group_with_group_context():
        try:
            inner()
        except ExceptionGroup:
            raise ExceptionGroup("second", [KeyError(3)])
''')

STAND_IN = "from exceptstar import BaseExceptionGroup, ExceptionGroup\n"


def failure_section(output: str) -> str:
    """The report of the failing test: from its title to the summary.

    Older pytests show their own frames too: their folder differs by side,
    and pluggy's (a dependency, of whatever version each side has) are left out.
    """
    lines = output.splitlines(True)
    start = next(i for i, line in enumerate(lines) if line.startswith("___"))
    end = next(i for i, line in enumerate(lines) if i > start and line.startswith("==="))
    kept = []
    in_pluggy = False
    for line in without_carets("".join(lines[start:end])).splitlines(True):
        frame = re.match(r'[ |]*File "([^"]*)"', line)
        if frame:
            in_pluggy = "/pluggy/" in frame.group(1)
        elif not re.match(r"[ |]* {4}", line):
            in_pluggy = False
        if not in_pluggy:
            kept.append(re.sub(r'"[^"]*/_pytest/', '"<lib>/_pytest/', line))
    return "".join(kept)


@pytest.fixture(scope="module")
def native_report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    folder = tmp_path_factory.mktemp("import_order")
    (folder / "test_ctx.py").write_text(TEST_FILE, encoding="utf-8")
    (folder / "standin" / "exceptiongroup").mkdir(parents=True)
    (folder / "standin" / "exceptiongroup" / "__init__.py").write_text(STAND_IN, encoding="utf-8")
    native, env = reference_with("pytest")
    proc = subprocess.run([native, "-m", "pytest", "-p", "no:cacheprovider", "test_ctx.py"], cwd=folder,
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    return folder, failure_section(proc.stdout)


# The backport: a stand-in module with exceptstar's classes (pytest imports it first,
# and so exceptstar), the real one adopted (it patched the class in place before
# exceptstar was imported, by the test module), or not adopted; exceptstar's plugin
# loaded or not.  Not adopted and without the plugin, pytest does not take
# exceptstar's groups for groups at all (README: EXCEPTSTAR_NO_BACKPORT).
# pytest's own report: PyPy patches the same class as the CPython of its version, which the other tests
# here check there.
@pytest.mark.pypy_full_only
@pytest.mark.parametrize(("backport", "plugin"), [
    ("stand-in", "no plugin"), ("stand-in", "plugin"), ("adopted", "no plugin"), ("not adopted", "plugin")])
def test_pytest_report(native_report: tuple[Path, str], backport: str, plugin: str) -> None:
    folder, expected = native_report
    env = child_env(False)
    if backport == "stand-in":
        env["PYTHONPATH"] = f"{folder / 'standin'}:{SRC}"
    elif version(sys.executable, "exceptiongroup") is None:
        pytest.skip("the exceptiongroup backport is not installed")
    if backport == "not adopted":
        env["EXCEPTSTAR_NO_BACKPORT"] = "1"
    args = ["-p", "no:exceptstar"] if plugin == "no plugin" else []
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args, "test_ctx.py"],
                          cwd=folder, capture_output=True, text=True, env=env, timeout=300)
    assert "INTERNALERROR" not in proc.stdout + proc.stderr
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert failure_section(proc.stdout) == expected
