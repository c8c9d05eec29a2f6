"""``collapse``'s two ways to its one error: a group of one error (no walk) and the walk, alike.

Each leaves out exceptstar's entries, wherever they are (the group's, the
leaf's), in new entries: the leaf's own chain stays as it was (one with none of
them is kept under the new entries, as ``raise`` keeps it).  The check of
``ignore`` runs once per error on either way; the memory of which files are
not exceptstar's stays bounded and never holds one that is.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any, Callable, Dict, List, Tuple

import pytest
from support.leaves_trees import Counted, Counting, entries

from exceptstar import ExceptionGroup, _collapse, collapse
from exceptstar._frames import is_own
from exceptstar._notes import add_note

Entry = Tuple[Any, int, int]


def chain(tb: TracebackType | None) -> List[Entry]:
    return [(e.tb_frame, e.tb_lineno, e.tb_lasti) for e in entries(tb)]


class Carrier(Exception):
    """Raises its payload from its own ``add_note``, which exceptstar's ``add_note`` calls."""

    def __init__(self, payload: BaseException) -> None:
        super().__init__()
        self.payload = payload

    def add_note(self, note: str) -> None:
        raise self.payload


def through_ours(exc: BaseException) -> None:
    """Raise ``exc`` through a frame of exceptstar's (``_notes.add_note``)."""
    add_note(Carrier(exc), "")


def raised(exc: BaseException) -> BaseException:
    try:
        through_ours(exc)
    except BaseException:
        pass
    return exc


# The group of the one error, and what collapse is given to ignore.
Shape = Callable[[BaseException], Tuple[BaseException, Any]]
SHAPES: Dict[str, Shape] = {
    "one error": lambda error: (ExceptionGroup("one", [error]), ()),
    "among ignored": lambda error: (ExceptionGroup("among", [raised(KeyError(1)), error, KeyError(2)]), KeyError),
    "nested": lambda error: (ExceptionGroup("outer", [raised(ExceptionGroup("inner", [error]))]), ()),
    "one in a list": lambda error: (Listed("listed", [error]), ()),
}


class Listed(ExceptionGroup):  # type: ignore[misc]
    """Its ``exceptions`` are a list: not the tuple of one that needs no walk."""

    @property  # type: ignore[misc]
    def exceptions(self) -> List[BaseException]:  # type: ignore[override]
        return list(super().exceptions)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_the_one_error_without_our_entries_in_new_entries(shape: str) -> None:
    error = raised(ValueError("the one"))
    group, ignore = SHAPES[shape](error)
    own_chain = entries(error.__traceback__)
    links = [(entry, entry.tb_next) for entry in own_chain]
    above: List[TracebackType] = []
    with pytest.raises(ValueError) as info, collapse(ignore=ignore):
        try:
            through_ours(group)
        except BaseException:
            # Everything above the leaf once the group is here: the group's entries, a subgroup's.
            above = entries(sys.exc_info()[2])
            if shape == "nested":
                above += entries(group.exceptions[0].__traceback__)  # type: ignore[attr-defined]
            raise
    assert info.value is error
    assert any(is_own(e) for e in above) and any(is_own(e) for e in own_chain)
    theirs = [e for e in above + own_chain if not is_own(e)]
    # The with statement's entry, then the whole path without ours.
    assert chain(error.__traceback__)[1:] == [(e.tb_frame, e.tb_lineno, e.tb_lasti) for e in theirs]
    assert not any(is_own(e) for e in entries(error.__traceback__))
    # New entries all the way: the leaf's own chain is neither reused nor changed.
    assert not {id(e) for e in entries(error.__traceback__)} & {id(e) for e in own_chain}
    assert [(entry, entry.tb_next) for entry in own_chain] == links
    assert error.__context__ is group


def test_a_group_of_one_error_checks_it_once() -> None:
    error = ValueError("the one")
    Counting.checked.clear()
    with pytest.raises(ValueError) as info, collapse(ignore=Counted):
        raise ExceptionGroup("", [error])
    assert info.value is error
    assert Counting.checked == [error]


def test_the_files_remembered_are_bounded_and_never_ours() -> None:
    namespace: Dict[str, Any] = {}
    for number in range(_collapse._THEIRS_MAX + 10):
        # Code exec'd under a new name each time, as a notebook's cells are.
        exec(compile("def fail(exc):\n    raise exc\n", f"<cell {number}>", "exec"), namespace)
        error = ValueError(number)
        with pytest.raises(ValueError) as info, collapse():
            try:
                namespace["fail"](error)
            except ValueError as caught:
                raise ExceptionGroup("", [caught])  # noqa: B904
        assert info.value is error
        assert len(_collapse._theirs) <= _collapse._THEIRS_MAX
    assert f"<cell {_collapse._THEIRS_MAX + 9}>" in _collapse._theirs
    error = raised(ValueError("after"))
    with pytest.raises(ValueError), collapse():
        through_ours(ExceptionGroup("", [error]))
    assert not any(is_own(e) for e in entries(error.__traceback__))
    assert not any(name.startswith(_collapse._frames._PACKAGE_DIR) for name in _collapse._theirs)


def test_a_chain_with_none_of_ours_is_kept_under_the_new_entries() -> None:
    # As `raise error` keeps the chain it has under the entries it adds: only those above it are new.
    error = ValueError("clean")
    with pytest.raises(ValueError):
        raise error
    own_chain = entries(error.__traceback__)
    assert not any(is_own(e) for e in own_chain)
    with pytest.raises(ValueError) as info, collapse():
        raise ExceptionGroup("", [error])
    assert info.value is error
    assert entries(error.__traceback__)[-len(own_chain):] == own_chain
