"""``exceptstar.testing`` under each runner, at no cost to ``import exceptstar``, with every group class.

Under pytest a mismatch is pytest's ``Failed`` (as pytest's own ``RaisesGroup``
fails); in plain code it is an ``AssertionError``; under unittest it is a
failure, not an error, whether pytest is loaded or not.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from _pytest.outcomes import Failed
from support.processes import child_env, run_python

from exceptstar import ExceptionGroup
from exceptstar.testing import RaisesExc, RaisesGroup


def run(code: str, *, pure: bool = False) -> str:
    done = run_python(sys.executable, textwrap.dedent(code), pure=pure)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.needs_processes
def test_import_costs_nothing_and_loads_no_pytest() -> None:
    out = run("""
        import sys
        import exceptstar
        print("exceptstar.testing" in sys.modules)
        import exceptstar.testing
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("pytest", "_pytest", "unittest")))
    """)
    assert out.split("\n")[:2] == ["False", "[]"]


@pytest.mark.needs_processes
def test_plain_code_gets_an_assertion_error() -> None:
    out = run("""
        from exceptstar import ExceptionGroup
        from exceptstar.testing import RaisesGroup
        for raised in (ExceptionGroup("", [KeyError()]), None):
            try:
                with RaisesGroup(ValueError):
                    if raised is not None:
                        raise raised
            except BaseException as error:
                print(type(error).__name__, error)
    """)
    assert out.splitlines() == [
        "AssertionError Raised exception group did not match: `KeyError()` is not an instance of `ValueError`",
        "AssertionError DID NOT RAISE any exception, expected `ExceptionGroup(ValueError)`",
    ]


@pytest.mark.needs_processes
@pytest.mark.parametrize("with_pytest", [False, True])
def test_unittest_reports_failures_not_errors(with_pytest: bool) -> None:
    out = run(f"""
        if {with_pytest}:
            import pytest
        import unittest
        from exceptstar import ExceptionGroup
        from exceptstar.testing import RaisesGroupMixin

        class T(RaisesGroupMixin, unittest.TestCase):
            def test_ok(self):
                with self.assertRaisesGroup(ValueError, TypeError, ordered=True) as info:
                    raise ExceptionGroup("", [ValueError(), TypeError()])
                self.assertIsInstance(info.value, ExceptionGroup)

            def test_mismatch(self):
                with self.assertRaisesGroup(ValueError):
                    raise ExceptionGroup("", [KeyError()])

            def test_not_raised(self):
                with self.assertRaisesGroup(ValueError):
                    pass

            def test_other_error(self):
                with self.assertRaisesGroup(ValueError, allow_unwrapped=True):
                    raise KeyError("unwrapped, so checked against ValueError: a failure")

        result = unittest.TextTestRunner(stream=open("/dev/null", "w")).run(
            unittest.defaultTestLoader.loadTestsFromTestCase(T))
        print(result.testsRun, len(result.failures), len(result.errors))
        for test, text in result.failures:
            assert "exceptstar" not in text.replace("from exceptstar", ""), text  # no frame of ours
            print(test.id().split(".")[-1], text.strip().splitlines()[-1])
    """)
    assert out.splitlines() == [
        "4 3 0",
        "test_mismatch AssertionError: Raised exception group did not match: "
        "`KeyError()` is not an instance of `ValueError`",
        "test_not_raised AssertionError: DID NOT RAISE any exception, expected `ExceptionGroup(ValueError)`",
        "test_other_error AssertionError: Raised exception (group) did not match: "
        "`KeyError()` is not an instance of `ValueError`",
    ]


def test_under_pytest_a_mismatch_is_pytest_failure() -> None:
    with pytest.raises(Failed, match=r"^Raised exception group did not match"), RaisesGroup(ValueError):
        raise ExceptionGroup("", [KeyError()])
    # RaisesExc fails with AssertionError, as pytest's does.
    with pytest.raises(AssertionError, match="Regex pattern did not match"), RaisesExc(ValueError, match="x"):
        raise ValueError("y")


def test_info_is_pytests_under_pytest() -> None:
    from _pytest._code import ExceptionInfo

    with RaisesGroup(ValueError) as info:
        raise ExceptionGroup("", [ValueError()])
    assert isinstance(info, ExceptionInfo)
    assert info.group_contains(ValueError)


@pytest.mark.needs_processes
@pytest.mark.parametrize("order", ["backport first", "exceptstar first"])
def test_every_group_class_in_every_import_order(order: str) -> None:
    first, second = "import exceptiongroup", "import exceptstar.testing"
    if order == "exceptstar first":
        first, second = second, first
    out = run(f"""
        import builtins, sys
        {first}
        {second}
        from exceptstar import ExceptionGroup as Ours
        from exceptstar.testing import RaisesGroup
        backport = sys.modules.get("exceptiongroup._exceptions", exceptiongroup)
        groups = dict.fromkeys([Ours, exceptiongroup.ExceptionGroup, backport.ExceptionGroup,
                                getattr(builtins, "ExceptionGroup", Ours)])
        for cls in groups:
            group = cls("", [ValueError(), cls("", [KeyError()])])
            with RaisesGroup(ValueError, RaisesGroup(KeyError)) as info:
                raise group
            assert info.value is group
            assert RaisesGroup(ValueError, KeyError, flatten_subgroups=True).matches(group)
            assert not RaisesGroup(ValueError).matches(group)
        print(len(groups))
    """, pure=sys.version_info >= (3, 11))
    # Ours and the other: the backport's own class before 3.11, the built-in one after.
    assert out.strip() == "2"


@pytest.mark.needs_processes
@pytest.mark.skipif(
    tuple(map(int, pytest.__version__.split(".")[:2])) < (8, 4),
    reason="pytest 8.3 (the last on 3.8) takes only classes in xfail(raises=...)",
)
def test_xfail_raises_takes_ours(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(textwrap.dedent("""
        import pytest
        from exceptstar import ExceptionGroup
        from exceptstar.testing import RaisesExc, RaisesGroup

        @pytest.mark.xfail(raises=RaisesGroup(ValueError))
        def test_expected():
            raise ExceptionGroup("", [ValueError()])

        @pytest.mark.xfail(raises=RaisesGroup(ValueError))
        def test_other_group():
            raise ExceptionGroup("", [KeyError()])

        @pytest.mark.xfail(raises=RaisesExc(KeyError, match="x"))
        def test_exc():
            raise KeyError("x")
    """))
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, env=child_env(False), timeout=120)
    summary = sorted(line.split(" - ")[0] for line in done.stdout.splitlines() if line.startswith(("XFAIL", "FAILED")))
    assert summary == [
        "FAILED test_x.py::test_other_group", "XFAIL test_x.py::test_exc", "XFAIL test_x.py::test_expected"
    ]
