"""``exceptstar.leaf_exceptions``: every leaf of a group with its whole traceback, nothing changed.

Hand-built expectations (functions and lines of each leaf's traceback) on
the classes in use here (ours on 3.8-3.10, the built-ins on 3.11+) and the
backport's own; random trees with hypothesis against the definition; the
same trees here (pure on 3.11+) and natively on 3.11+; the tools that take
tracebacks (``traceback``, ``pdb``, ``logging``).  Task groups: test_leaves_tasks.
"""

from __future__ import annotations

import contextlib
import io
import logging
import pdb
import random
import subprocess
import sys
import traceback
from types import TracebackType
from typing import Any, List, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.interpreters import native_python
from support.leaves_trees import build, entries, links, random_spec, reference
from support.processes import PURE_HERE, SRC, call

import exceptstar
from exceptstar import leaf_exceptions
from exceptstar._classes import group_classes


def _families() -> List[Any]:
    """The group classes a user may hand us here: exceptstar's (the built-ins on 3.11+), the backport's own."""
    families = [pytest.param((exceptstar.BaseExceptionGroup, exceptstar.ExceptionGroup), id="exceptstar")]
    if sys.version_info < (3, 11):
        import exceptiongroup._exceptions as backport

        families.append(pytest.param((backport.BaseExceptionGroup, backport.ExceptionGroup), id="backport"))
    return families


FAMILIES = _families()


def frames(tb: TracebackType | None) -> List[Tuple[str, int]]:
    return [(entry.tb_frame.f_code.co_name, entry.tb_lineno) for entry in entries(tb)]


def in_order(text: str, rows: List[str]) -> bool:
    """Whether each row is in ``text``, after the one before it."""
    at = 0
    for row in rows:
        at = text.find(row, at)
        if at < 0:
            return False
        at += len(row)
    return True


def line(function: Any, text: str) -> int:
    """The line of ``function``'s source that holds ``text`` (once)."""
    import inspect

    source, start = inspect.getsourcelines(function)
    found = [start + i for i, row in enumerate(source) if text in row]
    assert len(found) == 1, (text, found)
    return found[0]


# --- a hand-built tree: functions raising, groups catching and wrapping -------------


def fail(exc: BaseException) -> None:
    raise exc


def gather(group_class: Any, *errors: BaseException) -> None:
    caught = []
    for error in errors:
        try:
            fail(error)
        except BaseException as exc:
            caught.append(exc)
    raise group_class("inner", caught)


def wrap(family: Any) -> None:
    base, eg = family
    try:
        gather(eg, ValueError(1), KeyError(2))
    except BaseException as inner:
        try:
            fail(TypeError(3))
        except TypeError as plain:
            raise base("outer", [inner, plain, OSError(4)])  # noqa: B904  # the context is the inner group, as a nursery's


def hand_built(family: Any) -> BaseException:
    try:
        wrap(family)
    except BaseException as outer:
        return outer
    raise AssertionError("wrap() raised nothing")


@pytest.mark.parametrize("family", FAMILIES)
def test_hand_built_tree(family: Any) -> None:
    outer = hand_built(family)
    inner, plain, unraised = outer.exceptions  # type: ignore[attr-defined]
    value, key = inner.exceptions
    before = links([outer, inner, plain, unraised, value, key])
    leaves = leaf_exceptions(outer)
    assert links([outer, inner, plain, unraised, value, key]) == before
    assert [leaf for leaf, _tb in leaves] == [value, key, plain, unraised]
    assert all(type(leaf) is kind for (leaf, _tb), kind in zip(leaves, (ValueError, KeyError, TypeError, OSError)))

    top = [("hand_built", line(hand_built, "wrap(family)")), ("wrap", line(wrap, 'raise base("outer"'))]
    below = [("wrap", line(wrap, "gather(eg,")), ("gather", line(gather, 'raise group_class("inner"'))]
    raised = [("gather", line(gather, "fail(error)")), ("fail", line(fail, "raise exc"))]
    assert frames(leaves[0][1]) == top + below + raised
    assert frames(leaves[1][1]) == top + below + raised
    assert frames(leaves[2][1]) == [*top, ("wrap", line(wrap, "fail(TypeError(3))")), ("fail", line(fail, "raise exc"))]
    assert frames(leaves[3][1]) == top  # never raised: the frames above it only
    # The leaf's own chain is the composite's tail, shared: the entries above it are new.
    assert entries(leaves[0][1])[-2:] == entries(value.__traceback__)
    assert leaves[3][1] is not outer.__traceback__


@pytest.mark.parametrize("family", FAMILIES)
def test_plain_exception_and_unraised_groups(family: Any) -> None:
    base, eg = family
    try:
        fail(ValueError("alone"))
    except ValueError as error:
        alone = error
    assert leaf_exceptions(alone) == [(alone, alone.__traceback__)]
    fresh = KeyError("fresh")
    assert leaf_exceptions(fresh) == [(fresh, None)]
    # No traceback anywhere: None, and the leaf's own where only it has one.
    assert leaf_exceptions(eg("", [fresh])) == [(fresh, None)]
    nested = base("", [eg("", [alone]), fresh])
    assert leaf_exceptions(nested) == [(alone, alone.__traceback__), (fresh, None)]


@pytest.mark.parametrize("family", FAMILIES)
def test_identity_rule(family: Any) -> None:
    base, eg = family
    shared = eg("shared", [ValueError(1), ValueError(2)])
    twice = KeyError("twice")
    again = eg("again", [shared, twice])
    raised_at = sys._getframe().f_lineno + 2
    with contextlib.suppress(BaseException):
        fail(again)
    tree = base("top", [shared, again, twice, shared])
    leaves = leaf_exceptions(tree)
    # Each exception once, where it first appears (PEP 785's revision): the subgroup, and the leaf in two groups.
    assert [leaf for leaf, _tb in leaves] == [*shared.exceptions, twice]
    assert leaves[0][1] is None  # the first place of shared: directly in top, which was never raised
    inside_again = [("test_identity_rule", raised_at), ("fail", line(fail, "raise exc"))]
    assert frames(leaves[-1][1]) == frames(again.__traceback__) == inside_again


@pytest.mark.parametrize("family", FAMILIES)
def test_identity_rule_in_groups_of_leaves_only(family: Any) -> None:
    # Such a group is checked as a whole on CPython: a leaf there twice, or met in an earlier group, still once.
    base, eg = family
    one, two, three, four = ValueError(1), ValueError(2), ValueError(3), ValueError(4)
    tree = base("top", [eg("twice", [one, two, one]), eg("met", [two, three]), eg("fresh", [four])])
    assert leaf_exceptions(tree) == [(one, None), (two, None), (three, None), (four, None)]


@pytest.mark.parametrize("family", FAMILIES)
def test_deep_tree_is_a_loop(family: Any) -> None:
    _base, eg = family
    leaf = ValueError("deep")
    tree: BaseException = leaf
    for _ in range(3 * sys.getrecursionlimit()):
        tree = eg("", [tree])
    limit = sys.getrecursionlimit()
    assert leaf_exceptions(tree) == [(leaf, None)]
    assert sys.getrecursionlimit() == limit


def test_group_of_another_family_is_a_leaf_only_if_not_a_group() -> None:
    class NotAGroup(Exception):
        exceptions = (ValueError(),)

    odd = NotAGroup()
    assert leaf_exceptions(exceptstar.ExceptionGroup("", [odd])) == [(odd, None)]


@pytest.mark.needs_processes
def test_not_imported_by_import_exceptstar() -> None:
    code = "import sys, exceptstar; print('exceptstar._leaves' in sys.modules, 'leaf_exceptions' in dir(exceptstar))"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SRC), "PATH": ""})
    assert proc.stdout.split() == ["False", "True"], proc.stderr


# --- random trees ---------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(rng=st.randoms(use_true_random=False), size=st.integers(1, 14),
       family=st.sampled_from([f.values[0] for f in FAMILIES]))
def test_random_trees_match_the_definition(rng: random.Random, size: int, family: Any) -> None:
    spec = random_spec(rng, size)
    nodes = build(spec, {"BaseExceptionGroup": family[0], "ExceptionGroup": family[1]})
    before = links(nodes)
    leaves = leaf_exceptions(nodes[-1])
    assert links(nodes) == before
    expected = reference(nodes[-1], group_classes())
    assert [leaf for leaf, _tb in leaves] == [leaf for leaf, _want in expected]
    for (_leaf, tb), (_same, want) in zip(leaves, expected):
        assert [(e.tb_frame, e.tb_lineno, e.tb_lasti) for e in entries(tb)] == \
               [(e.tb_frame, e.tb_lineno, e.tb_lasti) for e in want]
    # Each leaf once.
    assert len({id(leaf) for leaf, _tb in leaves}) == len(leaves)


SPECS = [random_spec(random.Random(seed), 3 + seed % 12) for seed in range(40)]


@pytest.mark.skipif(native_python() is None, reason="no CPython 3.11+ on this machine")
def test_random_trees_here_and_natively() -> None:
    native = call(native_python(), "leaves_trees.observe_all", SPECS)  # type: ignore[arg-type]
    here = call(sys.executable, "leaves_trees.observe_all", SPECS, pure=PURE_HERE)
    assert native["version"] >= [3, 11]
    assert here["leaves"] == native["leaves"]
    assert len(native["leaves"]) == len(SPECS)


# --- the tools that take tracebacks ----------------------------------------------


def test_traceback_pdb_and_logging_take_composite_tracebacks(monkeypatch: pytest.MonkeyPatch) -> None:
    outer = hand_built((exceptstar.BaseExceptionGroup, exceptstar.ExceptionGroup))
    leaf, tb = leaf_exceptions(outer)[0]
    want = [f"line {number}, in {name}" for name, number in frames(tb)]

    text = "".join(traceback.format_exception(type(leaf), leaf, tb))
    assert in_order(text, want), text
    assert text.rstrip().endswith("ValueError: 1")
    assert [(f.name, f.lineno) for f in traceback.extract_tb(tb)] == frames(tb)

    stream = io.StringIO()
    logger = logging.getLogger("exceptstar.test_leaves")
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    try:
        logger.error("a leaf", exc_info=(type(leaf), leaf, tb))
    finally:
        logger.removeHandler(handler)
    assert in_order(stream.getvalue(), ["a leaf", *want, "ValueError: 1"]), stream.getvalue()

    out = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO("where\np exc\nquit\n"))
    monkeypatch.setattr(sys, "stdout", out)
    pdb.post_mortem(tb)
    shown = out.getvalue()
    assert in_order(shown, [f"({number}){name}()" for name, number in frames(tb)]), shown
    # The debugger starts at the leaf's own frame (fail's), where exc is the leaf.
    assert "ValueError(1)" in shown


def test_an_entry_without_a_line() -> None:
    # Built by a tool (as Jinja2 builds its template frames), with no line: 3.11+ reads None, before it -1.
    group = exceptstar.ExceptionGroup("", [ValueError()])
    group.__traceback__ = TracebackType(None, sys._getframe(), 10**6, -1)
    (_leaf, tb), = leaf_exceptions(group)
    assert tb is not None and tb is not group.__traceback__
    assert tb.tb_frame is sys._getframe() and tb.tb_lasti == 10**6
    # PyPy 3.11 keeps the -1 that CPython 3.11+ reads as None.
    no_line = None if sys.version_info >= (3, 11) and sys.implementation.name != "pypy" else -1
    assert tb.tb_lineno == group.__traceback__.tb_lineno == no_line
