"""``exceptstar.collapse``: the one real error of a group raised in its place.

The ``with``/``async with`` forms and the decorator (sync, async): which
exception leaves, its traceback (the frames of every group above it, none of
exceptstar's), its own cause and context, where the group is; what
propagates unchanged; the handled exception afterwards; an interrupt inside;
random trees; six programs here and natively.  Task groups: test_leaves_tasks.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import random
import sys
from types import TracebackType
from typing import Any, AsyncIterator, Iterator, List, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.interpreters import native_python
from support.leaves_programs import SCENARIOS, without_lines
from support.leaves_trees import Counted, Counting, build, entries, random_spec
from support.processes import PURE_HERE, call

import exceptstar
from exceptstar import BaseExceptionGroup, ExceptionGroup, collapse, leaf_exceptions
from exceptstar._frames import is_own

Entry = Tuple[Any, int, int]


def chain(tb: TracebackType | None) -> List[Entry]:
    return [(e.tb_frame, e.tb_lineno, e.tb_lasti) for e in entries(tb)]


def names(tb: TracebackType | None) -> List[str]:
    return [e.tb_frame.f_code.co_name for e in entries(tb)]


def fail(exc: BaseException) -> None:
    raise exc


def grouped(*errors: BaseException, message: str = "tasks") -> None:
    """Raise ``errors`` (each raised first) in a group, inside a group of one: a nursery within a nursery."""
    caught = []
    for error in errors:
        try:
            fail(error)
        except BaseException as exc:
            caught.append(exc)
    try:
        raise BaseExceptionGroup(message, caught)
    except BaseExceptionGroup as inner:
        raise BaseExceptionGroup("outer", [inner])  # noqa: B904  # the context is what a nursery gives too


# The functions of a leaf's path from run_grouped: the outer group raised, the inner one raised, the leaf raised.
PATH = ["run_grouped", "grouped", "grouped", "grouped", "fail"]


class Seen:
    """What the body saw of the group before it left the block: the group, its leaves, its traceback."""

    group: BaseException
    leaves: List[Tuple[BaseException, TracebackType | None]]
    tb: List[Entry]


def run_grouped(seen: Seen, *errors: BaseException) -> None:
    try:
        grouped(*errors)
    except BaseException as group:
        seen.group, seen.leaves, seen.tb = group, leaf_exceptions(group), chain(group.__traceback__)
        raise


def test_with_raises_the_one_leaf_with_its_whole_traceback() -> None:
    seen = Seen()
    error = ValueError("real")
    start = sys._getframe().f_lineno
    with pytest.raises(ValueError) as info, collapse():
        run_grouped(seen, error)
    assert info.value is error
    tb = error.__traceback__
    # First the with statement's own entry (the interpreter adds it for __exit__), then the leaf's whole path.
    here = sys._getframe()
    assert entries(tb)[0].tb_frame is here
    # The group's entry for this frame (seen in run_grouped, the group had not reached it yet).
    assert entries(tb)[1].tb_frame is here and entries(tb)[1].tb_lineno == start + 2
    assert chain(tb)[2:] == chain(seen.leaves[0][1])
    assert names(tb)[2:] == PATH
    assert not any(is_own(e) for e in entries(tb))
    # The group is its context (it had none), as ``raise leaf`` in an except clause would set; nothing else changed.
    assert error.__context__ is seen.group and error.__cause__ is None and not error.__suppress_context__
    assert chain(seen.group.__traceback__)[1:] == seen.tb  # and the entry for this frame
    assert not hasattr(error, "__notes__")


def test_own_cause_and_context_are_kept() -> None:
    seen = Seen()
    cause, context = KeyError("cause"), OSError("context")
    caused = ValueError("caused")
    caused.__cause__ = cause
    caused.__suppress_context__ = True
    with pytest.raises(ValueError), collapse():
        run_grouped(seen, caused)
    assert caused.__cause__ is cause and caused.__suppress_context__
    assert caused.__context__ is seen.group  # it had none: the group

    with_context = ValueError("with context")
    with_context.__context__ = context
    with pytest.raises(ValueError), collapse():
        run_grouped(seen, with_context)
    assert with_context.__context__ is context and with_context.__cause__ is None
    # Its context stays its own: the group is named in a note.
    assert with_context.__notes__ == ["(collapsed from ExceptionGroup('outer'), its one error)"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("errors", [
    pytest.param(lambda: [ValueError(1), KeyError(2)], id="two"),
    pytest.param(lambda: [asyncio.CancelledError(), asyncio.CancelledError()], id="all-ignored"),
    pytest.param(lambda: [], id="empty-leaves-after-ignore"),
])
def test_anything_else_propagates_unchanged(errors: Any) -> None:
    seen = Seen()
    members = errors() or [asyncio.CancelledError()]
    with pytest.raises(BaseExceptionGroup) as info, collapse(ignore=asyncio.CancelledError):
        run_grouped(seen, *members)
    assert info.value is seen.group
    assert chain(seen.group.__traceback__)[1:] == seen.tb
    assert entries(seen.group.__traceback__)[0].tb_frame is sys._getframe()
    assert [leaf for leaf, _tb in leaf_exceptions(seen.group)] == members
    assert all(leaf.__traceback__ is not None and len(entries(leaf.__traceback__)) == 2 for leaf in members)


def test_ignore_drops_leaves_and_the_same_leaf_twice_is_one() -> None:
    seen = Seen()
    error = ValueError("real")
    with pytest.raises(ValueError), collapse(ignore=(asyncio.CancelledError, KeyError)):
        run_grouped(seen, asyncio.CancelledError(), error, KeyError("k"))
    shared = TypeError("twice")
    with pytest.raises(TypeError) as info, collapse():
        raise ExceptionGroup("", [shared, ExceptionGroup("", [shared])])
    assert info.value is shared


def test_a_plain_exception_passes_untouched() -> None:
    error = ValueError("plain")
    recorded: List[Entry] = []
    with pytest.raises(ValueError) as info, collapse():
        try:
            fail(error)
        except ValueError:
            recorded = chain(error.__traceback__)
            raise
    assert info.value is error and error.__context__ is None
    assert chain(error.__traceback__) == recorded


def test_ignore_must_be_exception_classes() -> None:
    for bad in (ValueError("x"), (ValueError, 1), int, "ValueError"):
        with pytest.raises(TypeError, match="collapse\\(\\) ignore must be"):
            collapse(ignore=bad)  # type: ignore[arg-type]


def test_the_handled_exception_is_restored() -> None:
    try:
        raise KeyError("handled before")
    except KeyError as before:
        with pytest.raises(ValueError), collapse():
            raise ExceptionGroup("", [ValueError(1)])  # noqa: B904  # its context is the handled one on purpose
        assert sys.exc_info()[1] is before
    # Called directly (as ExitStack does), outside any except block: nothing is left handled.
    group = ExceptionGroup("", [ValueError(2)])
    manager = collapse()

    def direct() -> None:
        manager.__exit__(type(group), group, None)

    with pytest.raises(ValueError):
        direct()
    assert sys.exc_info() == (None, None, None)


def test_the_handled_exception_is_restored_whoever_calls_exit() -> None:
    # A with statement ending on the group makes the leaf the handled exception without a block of
    # __exit__'s own (3.8-3.10): its handler restores what was handled.  Any other caller gets that block.
    def in_a_generator(group: BaseException) -> Iterator[object]:
        try:
            with collapse():
                raise group
        except ValueError:
            yield sys.exc_info()[1]
        yield sys.exc_info()[1]

    group = ExceptionGroup("", [ValueError(4)])
    assert list(in_a_generator(group)) == [group.exceptions[0], None]

    class Delegating:
        def __enter__(self) -> None:
            return None

        def __exit__(self, *details: Any) -> bool:
            try:
                collapse().__exit__(*details)
            except ValueError:
                pass
            seen.append(sys.exc_info()[1])
            return True

    seen: List[BaseException | None] = []
    delegated = ExceptionGroup("", [ValueError(5)])
    with Delegating():
        raise delegated
    direct = ExceptionGroup("", [ValueError(6)])
    try:
        raise direct
    except ExceptionGroup:
        with pytest.raises(ValueError):
            collapse().__exit__(type(direct), direct, direct.__traceback__)
        seen.append(sys.exc_info()[1])
    assert seen == [delegated, direct]
    assert sys.exc_info() == (None, None, None)


@pytest.mark.needs_processes
def test_called_with_no_frame_below() -> None:
    # A thread's first call is made from C: nothing to tell a with statement from, the leaf still raised.
    import _thread
    import threading

    with pytest.raises(ValueError), collapse():  # binds what sets the handled exception, on first use
        raise ExceptionGroup("", [ValueError(0)])
    group = ExceptionGroup("", [ValueError(7)])
    reported: List[BaseException | None] = []
    done = threading.Event()
    old_hook = sys.unraisablehook

    def hook(unraisable: Any) -> None:
        reported.append(unraisable.exc_value)
        done.set()

    sys.unraisablehook = hook
    try:
        _thread.start_new_thread(collapse().__exit__, (type(group), group, None))
        assert done.wait(10)
    finally:
        sys.unraisablehook = old_hook
    assert reported == [group.exceptions[0]]


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="CPython's opcodes")
def test_a_with_statement_is_told_by_its_opcode() -> None:
    import opcode

    from exceptstar import _handled

    name = "WITH_CLEANUP_START" if sys.version_info < (3, 9) else "WITH_EXCEPT_START"
    assert opcode.opmap[name] == _handled.WITH_EXIT


def test_enter_is_called_as_every_caller_calls_it() -> None:
    # The with statement binds __enter__; ExitStack calls it on the class with the instance.
    manager = collapse()
    assert manager.__enter__() is None
    assert type(manager).__enter__(manager) is None
    with contextlib.ExitStack() as stack:
        assert stack.enter_context(collapse()) is None
    with pytest.raises(ValueError) as info, contextlib.ExitStack() as stack:
        stack.enter_context(collapse())
        raise ExceptionGroup("", [ValueError(3)])
    assert info.value.args == (3,)


# --- the decorator -----------------------------------------------------------------


@collapse()
def decorated(seen: Seen, *errors: BaseException) -> str:
    run_grouped(seen, *errors)
    return "not reached"


@collapse(ignore=asyncio.CancelledError)
async def decorated_async(seen: Seen, *errors: BaseException) -> str:
    await asyncio.sleep(0)
    run_grouped(seen, *errors)
    return "not reached"


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_decorator(is_async: bool) -> None:
    seen = Seen()
    error = ValueError("real")
    function = "decorated_async" if is_async else "decorated"
    with pytest.raises(ValueError) as info:
        if is_async:
            asyncio.run(decorated_async(seen, error, asyncio.CancelledError()))
        else:
            decorated(seen, error)
    assert info.value is error
    tb = error.__traceback__
    # As if the function had raised the leaf itself: its caller, then the path; nothing of the wrapper.
    assert not any(is_own(e) for e in entries(tb))
    assert names(tb)[-6:] == [function, *PATH]
    assert chain(tb)[-5:] == chain(seen.leaves[0][1])[-5:]
    assert error.__context__ is seen.group
    assert not any(is_own(e) for e in entries(seen.group.__traceback__))
    assert decorated.__name__ == "decorated" and decorated_async.__name__ == "decorated_async"
    assert inspect.iscoroutinefunction(decorated_async)
    if sys.version_info < (3, 14):  # deprecated since, in favour of inspect's
        assert asyncio.iscoroutinefunction(decorated_async)


def test_decorator_passes_the_rest_through_without_its_frame() -> None:
    seen = Seen()
    with pytest.raises(BaseExceptionGroup) as info:
        decorated(seen, ValueError(1), KeyError(2))
    assert info.value is seen.group
    assert names(info.value.__traceback__)[-3:] == ["decorated", "run_grouped", "grouped"]
    assert not any(is_own(e) for e in entries(info.value.__traceback__))

    @collapse()
    def plain() -> None:
        fail(KeyError("plain"))

    with pytest.raises(KeyError) as plain_info:
        plain()
    assert names(plain_info.value.__traceback__)[-2:] == ["plain", "fail"]
    assert not any(is_own(e) for e in entries(plain_info.value.__traceback__))
    assert plain_info.value.__context__ is None


def test_decorator_refuses_generator_functions() -> None:
    def numbers() -> Iterator[int]:
        yield 1

    async def later() -> AsyncIterator[int]:
        yield 1

    for function in (numbers, later):
        with pytest.raises(TypeError, match=f"cannot decorate a generator function \\(.*{function.__name__}\\)"):
            collapse()(function)


def test_async_with() -> None:
    seen = Seen()
    error = ValueError("real")

    async def main() -> None:
        async with collapse():
            await asyncio.sleep(0)
            run_grouped(seen, error)

    with pytest.raises(ValueError) as info:
        asyncio.run(main())
    assert info.value is error
    assert chain(error.__traceback__)[-5:] == chain(seen.leaves[0][1])[-5:]
    assert names(error.__traceback__)[-7:] == ["main", "main", *PATH]
    assert not any(is_own(e) for e in entries(error.__traceback__))


# --- an interrupt inside the machinery ----------------------------------------------


class Interrupting(type):
    def __instancecheck__(cls, instance: object) -> bool:
        raise KeyboardInterrupt("while collapsing")


class Interrupts(BaseException, metaclass=Interrupting):
    pass


def test_the_walk_stops_at_a_second_error() -> None:
    errors = [ValueError(n) for n in range(5)]
    group = ExceptionGroup("", [errors[0], ExceptionGroup("", errors[1:3]), *errors[3:]])
    Counting.checked.clear()
    with pytest.raises(ExceptionGroup) as info, collapse(ignore=Counted):
        raise group
    assert info.value is group
    assert Counting.checked == errors[:2]


@pytest.mark.parametrize("form", ["with", "decorator"])
def test_an_interrupt_inside_keeps_the_group(form: str) -> None:
    seen = Seen()

    @collapse(ignore=Interrupts)
    def function() -> None:
        run_grouped(seen, ValueError(1))

    with pytest.raises(KeyboardInterrupt) as info:
        if form == "with":
            with collapse(ignore=Interrupts):
                run_grouped(seen, ValueError(1))
        else:
            function()
    assert info.value.__context__ is seen.group
    assert chain(seen.group.__traceback__)[1:] == seen.tb
    own = [e for e in entries(info.value.__traceback__) if is_own(e)]
    assert own == []
    assert names(info.value.__traceback__)[-1] == "__instancecheck__"


def test_public_names() -> None:
    assert exceptstar.collapse is collapse and exceptstar.leaf_exceptions is leaf_exceptions
    assert {"collapse", "leaf_exceptions"} <= set(exceptstar.__all__)


@pytest.mark.skipif(native_python() is None, reason="no CPython 3.11+ on this machine")
def test_here_as_natively() -> None:
    names = sorted(SCENARIOS)
    here = call(sys.executable, "leaves_programs.observe", names, pure=PURE_HERE)
    native = call(native_python(), "leaves_programs.observe", names)  # type: ignore[arg-type]
    if sys.version_info < (3, 10):
        # 3.8-3.9 give a with statement's exit the line of the last statement of its body (3.10+: the with's).
        assert without_lines(here) == without_lines(native)
    else:
        assert here == native
    # What the scenarios are for, seen natively.
    assert native["with_one"]["type"] == "ValueError" and native["with_one"]["context"]["type"] == "ExceptionGroup"
    assert native["with_context"]["context"]["str"] == "'own'"
    assert native["with_context"]["notes"] == ["(collapsed from BaseExceptionGroup('outer'), its one error)"]
    assert native["with_cause"]["cause"]["str"] == "the cause" and native["with_cause"]["suppress"]
    assert native["two_errors"]["type"] == "ExceptionGroup"
    assert without_lines(native["decorated"])["frames"] == ["observe", "decorated", "function", "child_group",
                                                         "child_group", "fail"]
    assert native["task_group"]["type"] == "ValueError"


@settings(max_examples=100, deadline=None)
@given(rng=st.randoms(use_true_random=False), size=st.integers(1, 12))
def test_random_trees(rng: random.Random, size: int) -> None:
    nodes = build(random_spec(rng, size), {"BaseExceptionGroup": exceptstar.BaseExceptionGroup,
                                           "ExceptionGroup": exceptstar.ExceptionGroup})
    tree = nodes[-1]
    seen: List[Tuple[BaseException, TracebackType | None]] = []
    try:
        with collapse(ignore=KeyError):
            try:
                raise tree
            except BaseException as group:
                seen.extend(leaf_exceptions(group))
                raise
    except BaseException as exc:
        out = exc
    kept = [(leaf, tb) for leaf, tb in seen if not isinstance(leaf, KeyError)]
    if len({id(leaf) for leaf, _tb in kept}) == 1:
        leaf, tb = kept[0]
        assert out is leaf and leaf.__context__ is tree
        assert chain(out.__traceback__)[1:] == chain(tb)
    else:
        assert out is tree
        assert [leaf for leaf, _tb in leaf_exceptions(tree)] == [leaf for leaf, _tb in seen]
