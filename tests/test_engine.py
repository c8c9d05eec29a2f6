"""The engine's own promises, beyond matching native ``except*`` (test_engine_differential).

Run through code that the shipped transformation compiles: no reference cycles are left
behind, a finished ``Star`` holds nothing, the handled exception is per thread
and per generator, the reference counts the C calls touch stay balanced, and
groups of every family (exceptstar's, built-in, backport) are recognised.
"""

from __future__ import annotations

import gc
import sys
import textwrap
import threading
from typing import Any, Callable, List

import pytest
from support.cycles import NO_REFCOUNTS, PYPY, assert_leaves_no_cycles
from support.processes import ours_and_newest

from exceptstar import BaseExceptionGroup, ExceptionGroup, _classes
from exceptstar._compiler.transform import compile_source
from exceptstar._engine import CaughtStar

# Compiled by the transformation that ships (the import hook's and exceptstar.compile's):
# on 3.11+ too, where compile_source still rewrites the native tree onto the engine.
STATEMENT = """
def statement(body, end, log=None):
    try:
        body()
    except* ValueError as e:
        if log is not None:
            log.append(sys.exc_info()[1] is e)
        if end == "reraise":
            raise
        if end == "new":
            raise KeyError("new")
        if end == "from":
            raise KeyError("new") from e
    except* TypeError:
        pass
"""


def _compiled_statement() -> Callable[..., None]:
    code, transformed = compile_source(STATEMENT, "<engine test>", "exec")
    assert transformed
    namespace: dict[str, Any] = {"sys": sys}
    exec(code, namespace)
    function: Callable[..., None] = namespace["statement"]
    # The engine runs it: the clauses became calls of __exceptstar__.Star.
    assert "__exceptstar__" in function.__code__.co_names
    return function


statement = _compiled_statement()


def naked() -> None:
    raise ValueError(1)


def flat() -> None:
    raise ExceptionGroup("eg", [ValueError(1), TypeError(2), OSError(3)])


def nested() -> None:
    raise ExceptionGroup("eg", [ValueError(1), ExceptionGroup("in", [ValueError(2), OSError(3)])])


@pytest.mark.parametrize("end", ["pass", "reraise", "new", "from"])
@pytest.mark.parametrize("body", [naked, flat, nested])
def test_no_reference_cycles(body: Callable[[], None], end: str) -> None:
    assert_leaves_no_cycles(lambda: statement(body, end))


def test_finished_star_holds_nothing() -> None:
    try:
        flat()
    except BaseException as caught:
        star = CaughtStar(caught)
        part = star.match(ValueError, None, False)
        assert part is not None
        star.raised(KeyError("new"))
        star.match(TypeError, None, False)
        result = star.finish()
        assert (star._orig, star._rest, star._raised) == (None, None, None)
        assert sys.exc_info()[1] is result
    assert isinstance(result, BaseExceptionGroup)
    assert repr(result) == "ExceptionGroup('', [KeyError('new'), ExceptionGroup('eg', [OSError(3)])])"


def test_match_after_everything_matched_still_checks_types() -> None:
    try:
        naked()
    except BaseException as caught:
        star = CaughtStar(caught)
        assert star.match(ValueError, None, False) is not None
        assert star.match(TypeError, None, False) is None
        with pytest.raises(TypeError, match="catching ExceptionGroup"):
            star.match(ExceptionGroup, None, False)
        assert star.finish() is None


@pytest.mark.skipif(PYPY, reason=NO_REFCOUNTS)
def test_reference_counts_stay_balanced() -> None:
    group = ExceptionGroup("eg", [ValueError(1), TypeError(2)])

    def body() -> None:
        raise group

    def once() -> None:
        try:
            statement(body, "reraise")
        except BaseException:
            pass
        group.__traceback__ = None

    once()
    counts = (sys.getrefcount(group), sys.getrefcount(ExceptionGroup), sys.getrefcount(ValueError))
    for _ in range(300):
        once()
    assert (sys.getrefcount(group), sys.getrefcount(ExceptionGroup), sys.getrefcount(ValueError)) == counts


@pytest.mark.needs_processes
@pytest.mark.skipif(PYPY, reason=NO_REFCOUNTS)
def test_set_handled_hands_over_one_reference_from_many_threads() -> None:
    # set_handled gives PyErr_SetExcInfo the references it steals by taking them in a list
    # and zeroing its length in place: threads switching every few instructions must still
    # hand each over exactly once (a lost one frees an object the handled state holds).
    from exceptstar import _handled

    def caught(exc: BaseException) -> BaseException:
        try:
            raise exc
        except BaseException as error:
            return error

    with_traceback = caught(KeyError("tb"))
    without = TypeError("no tb")
    tb = with_traceback.__traceback__

    def counts() -> List[int]:
        return [sys.getrefcount(with_traceback), sys.getrefcount(without), sys.getrefcount(tb),
                sys.getrefcount(KeyError), sys.getrefcount(TypeError)]

    seen: List[Any] = []

    def worker() -> None:
        for _ in range(2000):
            try:
                raise ValueError("outer")
            except ValueError:
                _handled.set_handled(with_traceback)
                state = sys.exc_info()
                _handled.set_handled(without)
                bare = sys.exc_info()
            seen.append((state == (KeyError, with_traceback, tb), bare == (TypeError, without, None),
                         sys.exc_info() == (None, None, None)))
            del state, bare

    worker()
    before = counts()
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert counts() == before
    assert len(seen) == 5 * 2000 and set(seen) == {(True, True, True)}
    # Handed over, not kept: no list still holds them (the count alone cannot tell
    # a reference kept and stolen too, which frees the object while it is in use).
    assert not [holder for holder in gc.get_referrers(with_traceback, without) if type(holder) is list]


@pytest.mark.needs_processes
def test_handled_exception_is_per_thread() -> None:
    results: List[bool] = []
    barrier = threading.Barrier(4)

    def worker() -> None:
        log: List[Any] = []
        barrier.wait()
        for _ in range(200):
            try:
                statement(nested, "pass", log)
            except BaseException:
                pass
        results.append(all(log) and len(log) == 200 and sys.exc_info() == (None, None, None))

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [True] * 4


def test_generator_state_does_not_leak() -> None:
    def gen() -> Any:
        try:
            flat()
        except BaseException as caught:
            star = CaughtStar(caught)
            part = star.match(ValueError, None, False)
            yield sys.exc_info()[1] is part
            yield sys.exc_info()[1] is part
            star.match((TypeError, OSError), None, False)
            assert star.finish() is None

    g = gen()
    try:
        raise KeyError("outside")
    except KeyError as outside:
        assert next(g) is True
        assert sys.exc_info()[1] is outside
    assert sys.exc_info() == (None, None, None)
    assert next(g) is True
    with pytest.raises(StopIteration):
        next(g)


def test_backport_groups_are_groups() -> None:
    exceptiongroup = pytest.importorskip("exceptiongroup")
    assert exceptiongroup.BaseExceptionGroup in _classes.group_classes()

    def body() -> None:
        raise exceptiongroup.ExceptionGroup("bp", [ValueError(1), OSError(2)])

    with pytest.raises(BaseException) as info:
        statement(body, "new")
    result = info.value
    assert isinstance(result, BaseExceptionGroup) and result.message == ""
    assert repr(result.exceptions[0]) == "KeyError('new')"
    rest = result.exceptions[1]
    assert type(rest) is exceptiongroup.ExceptionGroup  # rebuilt with the backport's own derive
    assert repr(rest.exceptions) == "(OSError(2),)"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="built-in groups exist on 3.11+")
def test_builtin_groups_are_groups_whatever_the_classes() -> None:
    import builtins

    def body() -> None:
        raise builtins.ExceptionGroup("native", [ValueError(1), TypeError(2)])

    log: List[Any] = []
    statement(body, "pass", log)
    assert log == [True]


# The group wrapping a naked exception holds one tuple as its args' members and its own, as CPython's
# does with the tuple it is given (and a group made from a tuple keeps that very tuple).
WRAPPER_MEMBERS = textwrap.dedent('''\
    import json, os, sys
    SOURCE = """
    found = []
    for raised in (ValueError(1), KeyboardInterrupt()):
        try:
            raise raised
        except* (ValueError, KeyboardInterrupt) as group:
            found.append([type(group).__name__, group.exceptions is group.args[1], group.args[1][0] is raised])
    made = (ValueError(2),)
    group = ExceptionGroup("made", made)
    found.append([group.exceptions is group.args[1], group.args[1] is made])
    """
    if sys.version_info < (3, 11) or os.environ.get("EXCEPTSTAR_PURE"):
        import exceptstar
        code = exceptstar.compile(SOURCE, "<wrapper>", "exec")
    else:
        code = compile(SOURCE, "<wrapper>", "exec")
    namespace = {}
    exec(code, namespace)
    print(json.dumps(namespace["found"]))
''')


@pytest.mark.needs_processes
def test_a_wrapper_group_keeps_one_tuple_of_members_as_natively() -> None:
    ours, newest = ours_and_newest(WRAPPER_MEMBERS)
    assert ours == newest
    assert newest == [["ExceptionGroup", True, True], ["BaseExceptionGroup", True, True], [True, True]]


def test_catch_wraps_a_naked_exception_in_one_tuple_of_members() -> None:
    from exceptstar import catch

    found: List[bool] = []
    with catch({ValueError: lambda group: found.append(group.exceptions is group.args[1])}):
        raise ValueError(1)
    assert found == [True]
