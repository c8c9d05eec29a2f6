"""The engine's split of a flat group of built-in leaves (``Star.match``'s inline path), against native ``except*``.

That path builds the parts itself, without ``derive``: each program here runs natively (the newest
CPython) and transformed (here on 3.8-3.10, in an ``EXCEPTSTAR_PURE=1`` child on 3.11+), and what its
handlers saw (each part's class, message, members, ``args``, metadata by identity, notes, the handled
exception) and what propagated must be equal.  The cases next to it leave the path (notes, a ``derive``
of the instance's, nested groups, other clause kinds, changed metadata) and must agree as well.
"""

from __future__ import annotations

import sys
from typing import Any, List

import pytest
from support import outcomes

from exceptstar import PURE

PRELUDE = """
import sys

NAMED = {}
LOG = []


def name(x):
    for key, value in NAMED.items():
        if value is x:
            return key
    return None


def describe(x):
    if x is None:
        return None
    known = name(x)
    if known is not None:
        return known
    if not isinstance(x, BaseExceptionGroup):
        return [type(x).__name__, [repr(a) for a in x.args]]
    args = x.args
    return {
        "class": type(x).__name__, "message": x.message, "members": [describe(m) for m in x.exceptions],
        "args": [type(args[1]).__name__, [describe(m) for m in args[1]]] if len(args) == 2 else len(args),
        "tb": name(x.__traceback__) if x.__traceback__ is not None else None,
        "cause": describe(x.__cause__), "context": describe(x.__context__),
        "suppress": x.__suppress_context__, "notes": getattr(x, "__notes__", None),
        "notes_shared": any(getattr(x, "__notes__", None) is getattr(v, "__notes__", 0) for v in NAMED.values()),
    }


def seen(clause, e):
    LOG.append([clause, describe(e), sys.exc_info()[1] is e, e is NAMED.get("group")])


def leaves(*specs):
    made = [kind(arg) for kind, arg in specs]
    for exc, (kind, arg) in zip(made, specs):
        NAMED[kind.__name__ + str(arg)] = exc
    return made


def run():
    try:
        statement()
    except BaseException as result:
        LOG.append(["result", describe(result)])
    LOG.append(["after", describe(sys.exc_info()[1])])
    return LOG
"""

RAISE = """
def raise_group(group):
    NAMED["group"] = group
    try:
        raise group from NAMED.setdefault("cause", OSError("cause"))
    except BaseException as e:
        NAMED["tb"] = e.__traceback__
        raise
"""

PROGRAMS = {
    "partial then the rest": """
def statement():
    try:
        try:
            raise KeyError("context")
        except KeyError as context:
            NAMED["context"] = context
            raise_group(ExceptionGroup("eg", leaves((ValueError, 1), (TypeError, 2), (ValueError, 3))))
    except* ValueError as e:
        seen(1, e)
    except* TypeError as e:
        seen(2, e)
""",
    "nothing matched first, then the group's metadata changed": """
def statement():
    try:
        raise_group(ExceptionGroup("eg", leaves((ValueError, 1), (TypeError, 2), (ZeroDivisionError, 3))))
    except* OSError as e:
        seen(1, e)
    except* ValueError as e:
        seen(2, e)
        group = NAMED["group"]
        group.__traceback__ = None
        group.__cause__ = None
        group.__context__ = KeyError("new")
        group.__suppress_context__ = False
    except* LookupError as e:
        seen(3, e)
    except* TypeError as e:
        seen(4, e)
""",
    "one clause takes every member": """
def statement():
    try:
        raise_group(ExceptionGroup("eg", leaves((ValueError, 1), (ValueError, 2))))
    except* ValueError as e:
        seen(1, e)
    except* TypeError as e:
        seen(2, e)
""",
    "a base class takes the group whole": """
def statement():
    try:
        raise_group(ExceptionGroup("eg", leaves((ValueError, 1), (TypeError, 2))))
    except* ArithmeticError as e:
        seen(1, e)
    except* Exception as e:
        seen(2, e)
""",
    "handlers raise and re-raise": """
def statement():
    try:
        raise_group(ExceptionGroup("eg", leaves((ValueError, 1), (TypeError, 2), (ValueError, 3), (KeyError, 4))))
    except* ValueError as e:
        seen(1, e)
        raise
    except* TypeError as e:
        seen(2, e)
        raise RuntimeError("new")
    except* OSError as e:
        seen(3, e)
""",
    "notes": """
def statement():
    group = ExceptionGroup("eg", leaves((ValueError, 1), (TypeError, 2)))
    group.add_note("a note")
    try:
        raise_group(group)
    except* ValueError as e:
        seen(1, e)
    except* TypeError as e:
        seen(2, e)
""",
    "a derive of the instance's": """
def statement():
    group = ExceptionGroup("eg", leaves((ValueError, 1), (TypeError, 2), (KeyError, 3)))
    group.derive = lambda excs: ExceptionGroup("derived", excs)
    try:
        raise_group(group)
    except* ValueError as e:
        seen(1, e)
    except* TypeError as e:
        seen(2, e)
""",
    "a nested group": """
def statement():
    inner = ExceptionGroup("inner", leaves((ValueError, 1), (TypeError, 2)))
    NAMED["inner"] = inner
    try:
        raise_group(ExceptionGroup("eg", [inner, *leaves((ValueError, 3))]))
    except* ValueError as e:
        seen(1, e)
    except* TypeError as e:
        seen(2, e)
""",
    "a BaseException member": """
def statement():
    try:
        raise_group(BaseExceptionGroup("eg", leaves((ValueError, 1), (KeyboardInterrupt, 2))))
    except* KeyboardInterrupt as e:
        seen(1, e)
    except* ValueError as e:
        seen(2, e)
""",
    "a leaf of a class of the user's": """
class Mine(ValueError):
    pass


def statement():
    try:
        raise_group(ExceptionGroup("eg", leaves((Mine, 1), (TypeError, 2), (ValueError, 3))))
    except* Mine as e:
        seen(1, e)
    except* ValueError as e:
        seen(2, e)
    except* TypeError as e:
        seen(3, e)
""",
    "tuples and a group subclass": """
class Sub(ExceptionGroup):
    pass


def statement():
    try:
        raise_group(Sub("eg", leaves((ValueError, 1), (TypeError, 2), (KeyError, 3))))
    except* (ValueError, KeyError) as e:
        seen(1, e)
    except* TypeError as e:
        seen(2, e)
""",
    "a clause of a group class": """
def statement():
    try:
        raise_group(ExceptionGroup("eg", leaves((ValueError, 1), (TypeError, 2))))
    except* ValueError as e:
        seen(1, e)
    except* ExceptionGroup as e:
        seen(2, e)
""",
    "clauses of base classes, members of their subclasses": """
def statement():
    try:
        raise_group(ExceptionGroup("eg", leaves((FileNotFoundError, 1), (KeyError, 2), (ZeroDivisionError, 3),
                                               (IndexError, 4), (UnicodeError, 5),
                                               (TimeoutError, 6), (RecursionError, 7))))
    except* ArithmeticError as e:
        seen(1, e)
    except* BufferError as e:
        seen(2, e)
    except* OSError as e:
        seen(3, e)
    except* LookupError as e:
        seen(4, e)
    except* ValueError as e:
        seen(5, e)
    except* RuntimeError as e:
        seen(6, e)
""",
    "inside a handled exception": """
def statement():
    try:
        raise OSError("outer")
    except OSError as outer:
        NAMED["outer"] = outer
        try:
            raise_group(ExceptionGroup("eg", leaves((ValueError, 1), (TypeError, 2))))
        except* TypeError as e:
            seen(1, e)
        except* ValueError as e:
            seen(2, e)
        LOG.append(["handled", describe(sys.exc_info()[1])])
""",
}


@pytest.mark.needs_processes
def test_flat_groups_as_native() -> None:
    names = sorted(PROGRAMS)
    sources: List[str] = [PRELUDE + RAISE + PROGRAMS[name] for name in names]
    expected = outcomes.run_newest(sources)
    got = outcomes.run_transformed(sources)
    for name, g, e in zip(names, got, expected):
        assert g == e, name


def test_each_plain_class_matches_the_builtin_classes_that_issubclass_names() -> None:
    from exceptstar._clauses import MATCHED_BY, PLAIN, matched_by
    from exceptstar._split import _BUILTIN_EXCEPTIONS

    for cls in PLAIN:
        expected = {member for member in _BUILTIN_EXCEPTIONS if issubclass(member, cls)}
        assert (MATCHED_BY.get(cls) or matched_by(cls)) == expected, cls
        assert MATCHED_BY[cls] == expected, cls  # kept
    assert set(MATCHED_BY) == set(PLAIN)


def as_catch(program: str) -> str:
    """``program`` with its starred ``try`` written as ``with exceptstar.catch({...})``, a handler function
    per clause (its lines as they were, ``e`` the part): catch()'s own copy of the inline path
    (the flat path of ``_catch.catch._outcome``) against the same native ``except*``."""
    lines = program.splitlines()
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("except* "))
    indent = len(lines[first]) - len(lines[first].lstrip())
    start = max(i for i in range(first) if lines[i] == " " * indent + "try:")
    handlers: List[str] = []
    keys: List[str] = []
    i = first
    while i < len(lines) and lines[i].startswith(" " * indent + "except* "):
        keys.append(f"{lines[i].strip()[len('except* '):-len(' as e:')]}: h{len(keys)}")
        handlers.append(f"def h{len(keys) - 1}(e):")
        i += 1
        while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" " * (indent + 1))):
            handlers.append("    " + lines[i][indent + 4:])
            i += 1
    statement = [*lines[:start], " " * indent + "with catch({" + ", ".join(keys) + "}):", *lines[start + 1:first],
                 *lines[i:]]
    # exceptstar's group classes: with EXCEPTSTAR_PURE=1 on 3.11+, what catch() builds.
    return ("from exceptstar import BaseExceptionGroup, ExceptionGroup, catch\n"
            + "\n".join(handlers + statement) + "\n")


@pytest.mark.needs_processes
def test_catch_flat_groups_as_native() -> None:
    # catch() refuses an invalid key at construction, before the body runs.
    names = sorted(set(PROGRAMS) - {"a clause of a group class"})
    expected = outcomes.run_newest([PRELUDE + RAISE + PROGRAMS[name] for name in names])
    sources = [PRELUDE + RAISE + as_catch(PROGRAMS[name]) for name in names]
    got = outcomes.run_here(sources) if PURE else outcomes.run_pure(sources)
    for name, g, e in zip(names, got, expected):
        assert g == e, f"{name}:\n{as_catch(PROGRAMS[name])}"


def test_catch_splits_a_flat_group_in_its_outcome_frame() -> None:
    """Where set_handled's steps are bound (CPython 3.8-3.10), the test above goes through the flat path of
    ``catch._outcome``: no Star, and no frame after it but each part's making and the handlers'."""
    from exceptstar import ExceptionGroup, _handled, catch

    def ignore(group: BaseException) -> None:
        pass

    with catch({ValueError: ignore}):  # binds set_handled on first use
        raise ExceptionGroup("eg", [ValueError(1)])
    if not _handled.steps:
        pytest.skip("set_handled's steps are bound on CPython 3.8-3.10 only")
    calls: List[str] = []

    def profile(frame: Any, event: str, arg: object) -> None:
        if event == "call":
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        with catch({ValueError: ignore, TypeError: ignore}):
            raise ExceptionGroup("eg", [ValueError(1), TypeError(2), ValueError(3)])
    finally:
        sys.setprofile(None)
    assert calls[calls.index("__exit__"):] == ["__exit__", "_outcome", "_flat_group", "ignore", "_flat_group", "ignore"]


@pytest.mark.needs_processes
def test_catch_as_except_star_when_a_handler_changes_derive() -> None:
    """A handler that replaces the pure class's derive (native groups' cannot change) leaves the rest of
    the statement to the engine's general path, in catch() as in transformed ``except*``."""
    program = """
def statement():
    original = ExceptionGroup.derive
    try:
        try:
            raise_group(ExceptionGroup("eg", leaves((ValueError, 1), (TypeError, 2), (KeyError, 3))))
        except* ValueError as e:
            seen(1, e)
            ExceptionGroup.derive = lambda self, excs: ExceptionGroup("derived", excs)
        except* TypeError as e:
            seen(2, e)
    finally:
        ExceptionGroup.derive = original
"""
    sources = [PRELUDE + RAISE + program, PRELUDE + RAISE + as_catch(program)]
    transformed = outcomes.run_transformed(sources[:1])[0]
    caught = (outcomes.run_here if PURE else outcomes.run_pure)(sources[1:])[0]
    assert caught == transformed
    assert [entry[1]["message"] for entry in caught if entry[0] == 2] == ["derived"]
