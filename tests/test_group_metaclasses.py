"""Members whose class has a metaclass of its own, against the newest native CPython.

C tells a group's member types apart by their real type and identity: it never hashes a class nor asks
its metaclass's ``__eq__``.  The pure classes keep sets of member types for speed; these scenarios
(construction, ``split``, ``subgroup``, ``except*`` through ``exceptstar.compile``, ``catch()``) give
them classes that hash or compare otherwise: unhashable (a metaclass defining ``__eq__`` alone), a
Python ``__hash__``/``__eq__`` that count their calls, an ``__eq__`` that calls every class equal (with a
constant hash, so that a set would merge the classes), and ABCMeta (which keeps type's).  Groups of one,
two and three members and of 40 (past the short groups' paths), in both orders, and nested ones.
"""

from __future__ import annotations

import sys
from typing import Any, Dict, Tuple

import pytest
from support.processes import ours_and_newest

# Each scenario runs in child processes (ours and the newest native CPython).
pytestmark = pytest.mark.needs_processes

SCENARIOS = r'''
import abc, json, sys
import exceptstar
from exceptstar import BaseExceptionGroup, ExceptionGroup

calls = {"hash": 0, "eq": 0}

class Unhashable(type):
    def __eq__(cls, other):
        calls["eq"] += 1
        return cls is other

class Counted(type):
    def __hash__(cls):
        calls["hash"] += 1
        return id(cls) >> 4
    def __eq__(cls, other):
        calls["eq"] += 1
        return cls is other

class AllEqual(type):
    def __hash__(cls):
        calls["hash"] += 1
        return 7
    def __eq__(cls, other):
        calls["eq"] += 1
        return True

class AllEqualUnhashable(type):
    def __eq__(cls, other):
        calls["eq"] += 1
        return True

KINDS = {"unhashable": Unhashable, "counted": Counted, "all_equal": AllEqual,
         "all_equal_unhashable": AllEqualUnhashable, "abc": abc.ABCMeta}

STAR = """
def star(eg, A, B):
    seen = []
    try:
        try:
            raise eg
        except* A as e:
            seen.append(("A", names(e)))
        except* ValueError as e:
            seen.append(("ValueError", names(e)))
    except BaseException as e:
        seen.append(("rest", names(e)))
    return seen
"""

def names(e):
    if isinstance(e, BaseExceptionGroup):
        return [type(e).__name__, [names(x) for x in e.exceptions]]
    return type(e).__name__

def observe(make):
    try:
        return names(make())
    except Exception as e:
        return ["raised", type(e).__name__, str(e)]

out = {}
for kind, meta in KINDS.items():
    A = meta("A", (Exception,), {})
    B = meta("B", (Exception,), {})
    K = meta("K", (BaseException,), {})
    ns = {"names": names}
    exec(exceptstar.compile(STAR, "<star>", "exec"), ns)
    star = ns["star"]
    shapes = {
        "A": [A()], "AA": [A(), A()], "AB": [A(), B()], "AV": [A(), ValueError()], "VA": [ValueError(), A()],
        "AVB": [A(), ValueError(), B()], "AK": [A(), K()], "VK": [ValueError(), K()],
        "AB40": [A(), B()] * 20, "VA40": [ValueError()] + [A()] * 39, "AV40": [A()] * 39 + [ValueError()],
        "A40": [A()] * 40, "AK40": [A()] * 39 + [K()],
        "nested": [A(), ExceptionGroup("i", [B(), ValueError()]), BaseExceptionGroup("j", [A(), K()])],
    }
    for name, members in shapes.items():
        row = {}
        calls["hash"] = calls["eq"] = 0
        row["EG"] = observe(lambda: ExceptionGroup("m", members))
        row["BEG"] = observe(lambda: BaseExceptionGroup("m", members))
        row["BEG_tuple"] = observe(lambda: BaseExceptionGroup("m", tuple(members)))
        try:
            eg = BaseExceptionGroup("m", members)
        except Exception:
            out[f"{kind}/{name}"] = row
            continue
        for cond_name, cond in (("A", A), ("B", B), ("ValueError", ValueError), ("AB", (A, B)), ("K", K)):
            row["split " + cond_name] = [observe(lambda: part) for part in eg.split(cond)]
            row["subgroup " + cond_name] = observe(lambda: eg.subgroup(cond))
        row["split pred"] = [observe(lambda: part) for part in eg.split(lambda e: type(e) is A)]
        row["star"] = star(eg, A, B)
        seen = []
        try:
            with exceptstar.catch({A: lambda g: seen.append(("A", names(g))),
                                   ValueError: lambda g: seen.append(("ValueError", names(g)))}):
                raise eg
        except BaseException as e:
            seen.append(("rest", names(e)))
        row["catch"] = seen
        row["calls"] = dict(calls)
        out[f"{kind}/{name}"] = row
print(json.dumps(out))
'''


# Known difference: past 32 members the pure classes find the usual single class by list.count() (on
# PyPy by identity, in a loop its JIT compiles), which compares classes with ==; a metaclass whose __eq__
# calls distinct classes equal makes a group whose first member is of a plain class and whose others are
# of its classes look like one of a single class.  Telling them apart by identity would cost every long
# group a set: about 55 instructions a member more on 3.8 and 70 on 3.10 (12% and 45% of the count's way).
COUNT_FOOLED = {"all_equal/VA40", "all_equal_unhashable/VA40"}
# Where the pure classes call no metaclass __hash__ or __eq__ at all (the classes of the other kinds are
# hashed, and those of a constant hash compared, while the pure classes learn that they are not plain).
NO_CALLS = ("unhashable/", "all_equal_unhashable/", "abc/")

Rows = Dict[str, Dict[str, Any]]


@pytest.fixture(scope="module")
def both() -> Tuple[Rows, Rows]:
    ours, native = ours_and_newest(SCENARIOS)
    return ours, native


def without_calls(row: Dict[str, Any]) -> Dict[str, Any]:
    return {key: value for key, value in row.items() if key != "calls"}


def test_outcomes_match_native(both: Tuple[Rows, Rows]) -> None:
    ours, native = both
    assert ours.keys() == native.keys()
    for key in native.keys() - COUNT_FOOLED:
        assert without_calls(ours[key]) == without_calls(native[key]), key


@pytest.mark.xfail(sys.implementation.name != "pypy", strict=True,
                   reason="a long group's single class found by list.count (see COUNT_FOOLED); PyPy's by a loop")
def test_long_group_with_a_class_equal_to_all(both: Tuple[Rows, Rows]) -> None:
    ours, native = both
    assert all(without_calls(ours[key]) == without_calls(native[key]) for key in COUNT_FOOLED)


def test_no_metaclass_is_asked(both: Tuple[Rows, Rows]) -> None:
    """C never hashes nor compares a member's class (the one hash natively is catch()'s mapping's).  Nor do
    the pure classes for an unhashable class or ABCMeta's in any group, nor in a long group of one class."""
    ours, native = both
    for key, row in native.items():
        assert row.get("calls", {}).get("eq", 0) == 0, key
        if (key.startswith(NO_CALLS) and not key.endswith("40")) or key.startswith("abc/") or key.endswith("/A40"):
            assert ours[key].get("calls") == row.get("calls"), key
