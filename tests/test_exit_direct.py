"""``catch().__exit__`` and ``suppress().__exit__`` called directly leave no handled exception (issue 11, item 2).

``contextlib.ExitStack`` and frameworks call ``__exit__`` themselves, outside
any ``with`` statement, so no block of the interpreter's restores the handled
exception afterwards.  What ``sys.exc_info()`` returns, and the
``__context__`` that later exceptions get, must then be what they were before
the call: as with native ``contextlib.suppress`` (3.12+ splits groups too),
whose outcomes are compared below.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any, Callable, List

import pytest
from support.processes import run_native, run_python

import exceptstar
from exceptstar import ExceptionGroup

PROGRAM = r'''
import contextlib, sys
{imports}

def state():
    return repr(sys.exc_info()[1])

def direct(exc):
    try:
        suppress(ValueError).__exit__(type(exc), exc, exc.__traceback__)
    except BaseException as e:
        raised = repr(e)
    else:
        raised = "returned"
    return [raised, state()]

out = []
for exc in (ExceptionGroup("eg", [ValueError(1), TypeError(2)]), ExceptionGroup("eg", [ValueError(1)]), TypeError(3)):
    out.append(direct(exc))
    try:
        raise KeyError(0)
    except KeyError:
        out.append(direct(exc))
        out.append(state())
try:
    with contextlib.ExitStack() as stack:
        stack.enter_context(suppress(ValueError))
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
except BaseException as e:
    out.append(repr(e))
out.append(state())
try:
    raise OSError(4)
except OSError as e:
    out.append(repr(e.__context__))
print(out)
'''


@pytest.mark.needs_processes
def test_suppress_matches_native_contextlib_suppress() -> None:
    native = run_native(PROGRAM.format(imports="from contextlib import suppress"))
    assert native.returncode == 0, native.stderr
    here = run_python(sys.executable, PROGRAM.format(imports="from exceptstar import ExceptionGroup, suppress"))
    assert here.returncode == 0, here.stderr
    assert here.stdout == native.stdout
    assert "ExceptionGroup('eg', [TypeError(2)])" in here.stdout  # the rest did propagate


def on_value_error(group: BaseException) -> None:
    pass


def raise_new(group: BaseException) -> None:
    raise KeyError("new")


MANAGERS: List[Callable[[], Any]] = [
    lambda: exceptstar.catch({ValueError: on_value_error}),
    lambda: exceptstar.catch({ValueError: raise_new}),
    lambda: exceptstar.suppress(ValueError),
]
EXCEPTIONS: List[Callable[[], BaseException]] = [
    lambda: ExceptionGroup("eg", [ValueError(1), TypeError(2)]),
    lambda: ExceptionGroup("eg", [ValueError(1)]),
    lambda: TypeError(3),
    lambda: ValueError(4),
]


def call_exit(manager: Any, exc: BaseException) -> None:
    try:
        manager.__exit__(type(exc), exc, exc.__traceback__)
    except BaseException:
        pass


@pytest.mark.parametrize("make_exc", EXCEPTIONS)
@pytest.mark.parametrize("make_manager", MANAGERS)
def test_direct_exit_leaves_no_handled_exception(make_manager: Any, make_exc: Any) -> None:
    call_exit(make_manager(), make_exc())
    assert sys.exc_info() == (None, None, None)
    try:
        raise OSError("later")
    except OSError as later:
        assert later.__context__ is None


@pytest.mark.parametrize("make_exc", EXCEPTIONS)
@pytest.mark.parametrize("make_manager", MANAGERS)
def test_direct_exit_in_an_except_block_keeps_its_exception(make_manager: Any, make_exc: Any) -> None:
    try:
        raise KeyError("outer")
    except KeyError as outer:
        call_exit(make_manager(), make_exc())
        assert sys.exc_info()[1] is outer


@pytest.mark.parametrize("make_manager", MANAGERS)
def test_exit_stack_leaves_no_handled_exception(make_manager: Any) -> None:
    with pytest.raises(BaseException), contextlib.ExitStack() as stack:  # noqa: B017 - whatever propagates
        stack.enter_context(make_manager())
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    assert sys.exc_info() == (None, None, None)


def test_the_part_is_still_handled_while_a_handler_runs() -> None:
    seen = []

    def handler(group: BaseException) -> None:
        seen.append(sys.exc_info()[1] is group)

    call_exit(exceptstar.catch({ValueError: handler}), ExceptionGroup("eg", [ValueError(1), TypeError(2)]))
    assert seen == [True]
