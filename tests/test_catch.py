"""catch(): what the differential scenarios do not cover.

Its argument checks (CPython's own errors, taken from the interpreters),
coroutine handlers in a plain ``with``, tracebacks free of exceptstar's
frames, the previous exception restored, keys as the backport accepts them,
and no reference cycles left behind.
"""

from __future__ import annotations

import gc
import os
import sys
import traceback
import warnings
from types import TracebackType
from typing import Any, Callable, Iterator, List

import pytest
from support.cycles import NO_REFCOUNTS, PYPY, assert_leaves_no_cycles
from support.processes import run_native

import exceptstar
from exceptstar import BaseExceptionGroup, ExceptionGroup, catch

SRC = os.path.dirname(exceptstar.__file__)


def native_type_error(types_source: str) -> str:
    """The message native ``except*`` gives for these clause types."""
    code = (f"try:\n    raise ValueError\nexcept* {types_source}:\n    pass\n")
    # PyPy 3.11's except* words some refusals otherwise ("need type objects"): CPython's are the reference.
    if sys.version_info >= (3, 11) and sys.implementation.name != "pypy":
        try:
            exec(code, {})
        except TypeError as error:
            return str(error)
        raise AssertionError("no TypeError")
    proc = run_native(code)
    return proc.stderr.strip().splitlines()[-1].split(": ", 1)[1]


def ignore(group: BaseException) -> None:
    pass


@pytest.mark.parametrize("key, source", [
    (ExceptionGroup, "ExceptionGroup"),
    (BaseExceptionGroup, "BaseExceptionGroup"),
    ((ValueError, ExceptionGroup), "(ValueError, ExceptionGroup)"),
    (frozenset([KeyError, BaseExceptionGroup]), "(KeyError, BaseExceptionGroup)"),
    (int, "int"),
    ((ValueError, 42), "(ValueError, 42)"),
    (42, "42"),
    ("ValueError", "'ValueError'"),
])
def test_bad_keys_get_cpythons_errors(key: Any, source: str) -> None:
    expected = native_type_error(source)
    with pytest.raises(TypeError) as info:
        catch({key: ignore})
    assert str(info.value) == expected


def test_backport_group_key_is_refused() -> None:
    exceptiongroup = pytest.importorskip("exceptiongroup")
    with pytest.raises(TypeError, match="catching ExceptionGroup with except"):
        catch({exceptiongroup.ExceptionGroup: ignore})


def test_handler_that_is_not_callable() -> None:
    not_callable: Any = 42
    with pytest.raises(TypeError) as expected:
        not_callable()
    with pytest.raises(TypeError) as info:
        catch({ValueError: 42})  # type: ignore[dict-item]
    assert str(info.value) == str(expected.value)


def test_argument_must_be_a_mapping() -> None:
    with pytest.raises(TypeError, match="mapping"):
        catch([(ValueError, ignore)])  # type: ignore[arg-type]


def test_keys_as_the_backport_accepts_them() -> None:
    seen: List[BaseException] = []
    for key in (ValueError, (ValueError, KeyError), frozenset([ValueError]), range(0)):
        if key == range(0):
            # An empty iterable matches nothing.
            with pytest.raises(ValueError), catch({key: seen.append}):
                raise ValueError(1)
            continue
        with catch({key: seen.append}):
            raise ValueError(1)
    assert len(seen) == 3
    assert all(type(g) is ExceptionGroup and repr(g.exceptions) == "(ValueError(1),)" for g in seen)


def test_empty_mapping_lets_everything_through() -> None:
    error = ValueError(1)
    with pytest.raises(ValueError) as info, catch({}):
        raise error
    assert info.value is error


def test_no_exception_no_handler() -> None:
    calls: List[BaseException] = []
    with catch({ValueError: calls.append}):
        pass
    assert calls == []


def test_coroutine_handler_in_plain_with() -> None:
    async def handler(group: BaseException) -> None:
        raise AssertionError("never runs")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(TypeError, match="async with") as info, catch({ValueError: handler}):
            raise ValueError(1)
        gc.collect()
    assert [str(w.message) for w in caught] == []
    assert isinstance(info.value.__cause__, ExceptionGroup)
    assert not frames_of_ours(info.value)


def test_async_with_awaits_coroutine_handlers_and_calls_sync_ones() -> None:
    order: List[str] = []

    async def on_value(group: BaseException) -> None:
        order.append("value " + repr(sys.exc_info()[1] is group))

    def on_key(group: BaseException) -> None:
        order.append("key")

    async def main() -> None:
        async with catch({ValueError: on_value, KeyError: on_key}):
            raise ExceptionGroup("eg", [ValueError(1), KeyError(2)])

    drive(main())
    assert order == ["value True", "key"]


def drive(coroutine: Any) -> None:
    """Run a coroutine that never suspends, without an event loop (no asyncio garbage)."""
    try:
        coroutine.send(None)
    except StopIteration:
        pass
    else:
        raise AssertionError("suspended")


def walk(exc: BaseException | None, seen: set[int] | None = None) -> Iterator[BaseException]:
    """Every exception reachable from ``exc``: members, causes, contexts."""
    seen = set() if seen is None else seen
    if exc is None or id(exc) in seen:
        return
    seen.add(id(exc))
    yield exc
    for member in getattr(exc, "exceptions", ()):
        yield from walk(member, seen)
    yield from walk(exc.__cause__, seen)
    yield from walk(exc.__context__, seen)


def frames_of_ours(exc: BaseException) -> List[str]:
    found = []
    for each in walk(exc):
        tb: TracebackType | None = each.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename.startswith(SRC):
                found.append(f"{tb.tb_frame.f_code.co_filename}:{tb.tb_frame.f_code.co_name}")
            tb = tb.tb_next
    return found


def reraise(group: BaseException) -> None:
    raise


def raise_new(group: BaseException) -> None:
    raise KeyError("new")


def raise_it(group: BaseException) -> None:
    raise group


@pytest.mark.parametrize("handler", [ignore, reraise, raise_new, raise_it])
@pytest.mark.parametrize("body", ["naked", "group", "unmatched"])
def test_no_exceptstar_frame_in_tracebacks(handler: Callable[[BaseException], None], body: str) -> None:
    exc: BaseException = {
        "naked": ValueError(1),
        "group": ExceptionGroup("eg", [ValueError(1), TypeError(2)]),
        "unmatched": TypeError(2),
    }[body]
    try:
        with catch({ValueError: handler}):
            raise exc
    except BaseException as propagated:
        assert not frames_of_ours(propagated)
        text = "".join(traceback.format_exception(type(propagated), propagated, propagated.__traceback__))
        assert SRC not in text
    else:
        assert handler is ignore and body != "unmatched"


def test_reraise_keeps_the_original_traceback_objects() -> None:
    def body() -> None:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])

    seen: List[TracebackType | None] = []

    def handler(group: BaseException) -> None:
        seen.append(group.__traceback__)
        raise

    with pytest.raises(ExceptionGroup) as info, catch({ValueError: handler}):
        body()
    tb: TracebackType | None = info.value.__traceback__
    nodes = []
    while tb is not None:
        nodes.append(tb)
        tb = tb.tb_next
    assert any(node is seen[0] for node in nodes)
    assert repr(info.value) == "ExceptionGroup('eg', [ValueError(1), TypeError(2)])"


def test_previous_exception_is_restored() -> None:
    def handler(group: BaseException) -> None:
        assert sys.exc_info()[1] is group

    try:
        raise KeyError("outer")
    except KeyError as outer:
        with catch({ValueError: handler}):
            raise ExceptionGroup("eg", [ValueError(1)])  # noqa: B904 - the context is the point
        assert sys.exc_info()[1] is outer
        with pytest.raises(ExceptionGroup), catch({ValueError: handler}):
            raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])  # noqa: B904
        assert sys.exc_info()[1] is outer
    assert sys.exc_info() == (None, None, None)


def raise_from(group: BaseException) -> None:
    raise KeyError("new") from group


def set_cause(group: BaseException) -> None:
    group.__cause__ = KeyError("cause")
    raise


async def async_raise_new(group: BaseException) -> None:
    raise KeyError("new")


def make(body: str) -> BaseException:
    # Never bound to a local of a frame its traceback holds: that cycle would be the test's own.
    return {
        "naked": lambda: ValueError(1),
        "group": lambda: ExceptionGroup("eg", [ValueError(1), TypeError(2), OSError(3)]),
        "whole": lambda: ExceptionGroup("eg", [ValueError(1)]),
    }[body]()


def run_sync(handler: Callable[[BaseException], Any], body: str) -> None:
    with catch({ValueError: handler, TypeError: ignore}):
        raise make(body)


def run_async(handler: Callable[[BaseException], Any], body: str) -> None:
    async def main() -> None:
        async with catch({ValueError: handler, TypeError: ignore}):
            raise make(body)

    drive(main())


# (A handler doing ``raise group`` makes its own cycle: its frame holds ``group``,
# whose traceback holds the frame, as with any function that raises its argument.)
@pytest.mark.parametrize("runner, handler", [
    (run_sync, ignore), (run_sync, reraise), (run_sync, raise_new), (run_sync, raise_from),
    (run_sync, set_cause), (run_async, async_raise_new), (run_async, reraise),
])
@pytest.mark.parametrize("body", ["naked", "group", "whole"])
def test_no_reference_cycles(runner: Callable[..., None], handler: Callable[[BaseException], Any],
                             body: str) -> None:
    assert_leaves_no_cycles(lambda: runner(handler, body))


@pytest.mark.skipif(PYPY, reason=NO_REFCOUNTS)
def test_handled_exception_references_are_balanced() -> None:
    """The C-level setting of the handled exception neither leaks nor over-releases."""
    exc = ExceptionGroup("eg", [ValueError(1), TypeError(2)])

    def handler(group: BaseException) -> None:
        raise

    def once() -> None:
        try:
            with catch({ValueError: handler}):
                raise exc
        except ExceptionGroup:
            pass
        exc.__traceback__ = None

    once()
    before = (sys.getrefcount(exc), sys.getrefcount(ExceptionGroup), sys.getrefcount(ValueError))
    for _ in range(200):
        once()
    after = (sys.getrefcount(exc), sys.getrefcount(ExceptionGroup), sys.getrefcount(ValueError))
    assert before == after
