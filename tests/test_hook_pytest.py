"""The pytest plugin, pytester-style: a test project run by pytest in a subprocess.

Its test file and a helper module use except*; assertion rewriting must still
explain a failing assert inside an ``except*`` handler.  On 3.11+ the
subprocess runs with ``EXCEPTSTAR_PURE=1``, so the plugin's transformation is
what is tested there too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.processes import SRC

TEST_FILE = textwrap.dedent("""\
    from helper import grab


    def test_handled():
        try:
            raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
        except* ValueError as e:
            assert len(e.exceptions) == 1
        except* TypeError as e:
            assert e.exceptions[0].args == (2,)


    def test_failing():
        values = [1, 2]
        try:
            raise ValueError(3)
        except* ValueError:
            assert len(values) == 3


    def test_helper():
        assert grab() == "TypeError"
    """)

HELPER = textwrap.dedent("""\
    def grab():
        try:
            raise TypeError
        except* TypeError as eg:
            name = type(eg.exceptions[0]).__name__
        return name
    """)


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(SRC), PYTHONDONTWRITEBYTECODE="")
    env.pop("EXCEPTSTAR_PURE", None)
    env.pop("PYTEST_ADDOPTS", None)
    if sys.version_info >= (3, 11):
        env["EXCEPTSTAR_PURE"] = "1"
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
                          cwd=project, capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "test_star.py").write_text(TEST_FILE)
    (tmp_path / "helper.py").write_text(HELPER)
    return tmp_path


@pytest.mark.needs_processes
@pytest.mark.parametrize("args", [(), ("-p", "exceptstar")], ids=["entry-point", "-p"])
def test_except_star_test_files_with_assertion_rewriting(project: Path, args: tuple[str, ...]) -> None:
    for _ in range(2):  # the second run reads pytest's cached pyc for the file
        proc = _pytest(project, *args)
        out = proc.stdout
        assert "1 failed, 2 passed" in out, out + proc.stderr
        assert "assert 2 == 3" in out, out
        assert "where 2 = len([1, 2])" in out, out
    tag = sys.implementation.cache_tag
    cached = os.listdir(project / "__pycache__")
    assert any(name.startswith(f"test_star.{tag}-pytest-") and ".exceptstar-" in name for name in cached)


@pytest.mark.needs_processes
def test_plugin_can_be_disabled(project: Path) -> None:
    proc = _pytest(project, "-p", "no:exceptstar")
    if sys.version_info >= (3, 11):
        # Native except*: the test file still runs, but not through the plugin.
        assert "1 failed, 2 passed" in proc.stdout
        assert not any(".exceptstar-" in name for name in os.listdir(project / "__pycache__"))
    else:
        assert "SyntaxError" in proc.stdout + proc.stderr


@pytest.mark.needs_processes
def test_failure_reports_show_the_members_of_pure_groups(tmp_path: Path) -> None:
    (tmp_path / "test_group.py").write_text(textwrap.dedent("""\
        import exceptstar

        def test_group():
            eg = exceptstar.ExceptionGroup("eg", [ValueError("first"), TypeError("second")])
            exceptstar.add_note(eg, "a note")
            raise eg
        """))
    out = _pytest(tmp_path).stdout
    assert "1 failed" in out, out
    for line in ("| ExceptionGroup: eg (2 sub-exceptions)", "| a note", "+-+---------------- 1 ----------------",
                 "| ValueError: first", "+---------------- 2 ----------------", "| TypeError: second"):
        assert line in out, out


@pytest.mark.needs_processes
@pytest.mark.skipif(sys.version_info >= (3, 11), reason="3.11+ compile except* natively")
def test_flow_leaving_finally_warns_at_collection_as_314(tmp_path: Path) -> None:
    # pytest compiles the rewritten tree of a test file: 3.14's compile warns then (PEP 765),
    # and pytest shows the warning in its summary; exceptstar gives the same warning.
    (tmp_path / "test_flow.py").write_text(textwrap.dedent("""\
        def last():
            try:
                raise ValueError
            except* ValueError:
                pass
            finally:
                return 1


        def test_last():
            assert last() == 1
        """))
    proc = _pytest(tmp_path, "-W", "always::SyntaxWarning")
    assert "1 passed, 1 warning" in proc.stdout, proc.stdout + proc.stderr
    assert "test_flow.py:7: SyntaxWarning: 'return' in a 'finally' block" in proc.stdout, proc.stdout


NAMES = "sorted(name for name in globals() if name.startswith('__'))"


@pytest.mark.needs_processes
def test_modules_get_the_names_the_interpreter_gives(tmp_path: Path) -> None:
    # No __annotations__ from 3.14, no __cached__ from 3.15: test files and the modules
    # they import, with except* or without, have the dunder names of a plain import.
    star = "try:\n    pass\nexcept* ValueError:\n    pass\n"
    for kind, body in (("star", star), ("plain", "")):
        (tmp_path / f"helper_{kind}.py").write_text(f"{body}NAMES = {NAMES}\n")
        (tmp_path / f"test_{kind}.py").write_text(
            f"import json\nimport helper_{kind}\n{body}NAMES = {NAMES}\n\n\ndef test_names():\n"
            f"    with open('{kind}.json', 'w') as f:\n"
            f"        json.dump([NAMES, helper_{kind}.NAMES], f)\n")
    proc = _pytest(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    plain_import = "import json, helper_plain; print(json.dumps(helper_plain.NAMES))"
    reference = subprocess.run([sys.executable, "-c", plain_import], cwd=tmp_path, capture_output=True, text=True,
                               timeout=60)
    expected = json.loads(reference.stdout)
    assert ("__cached__" in expected) == (sys.version_info < (3, 15))
    for kind in ("star", "plain"):
        assert json.loads((tmp_path / f"{kind}.json").read_text()) == [expected, expected], kind
