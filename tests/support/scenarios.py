"""Scenarios of one ``try``/``except*`` statement, written once as data.

A scenario (plain JSON) says what the body raises (a ``support.trees`` spec)
and, for each clause, its types and what its handler does.  It is rendered
as Python source: with ``except*`` (``render_native``), with
``exceptstar.catch()`` or with ``suppress()``.  ``run_source`` compiles a
rendering with ``exceptstar.compile``, so the same ``except*`` source runs
natively where the interpreter compiles it itself, and through exceptstar's
transformation on 3.8-3.10 and under ``EXCEPTSTAR_PURE=1``.

Running a rendering returns its outcome, also plain JSON: the log of what ran
and what each handler saw, the ``support.trees`` description of what
propagated, and its traceback's frames.  Objects the scenario knows (what the
body raised, each handler's part, the outer exception) are named, so
identities are compared too.  Equal outcomes mean equal behaviour.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List

import exceptstar

PRELUDE = '''
import builtins
import sys
import exceptstar
from exceptstar import BaseExceptionGroup, ExceptionGroup, add_note, catch
from support.trees import build, describe

if FAMILY == "backport":
    # The groups that anyio, Trio and pytest raise: the backport's on 3.8-3.10, on
    # 3.11+ the built-ins (which the backport re-exports there, and which the
    # native interpreter has without it).
    if sys.version_info >= (3, 11):
        BaseExceptionGroup = builtins.BaseExceptionGroup
        ExceptionGroup = builtins.ExceptionGroup
    else:
        import exceptiongroup
        BaseExceptionGroup = exceptiongroup.BaseExceptionGroup
        ExceptionGroup = exceptiongroup.ExceptionGroup

LOG = []
NAMED = {}
TBS = []

class MyBase(BaseException):
    pass

class MyError(ValueError):
    pass

class MyEG(ExceptionGroup):
    def derive(self, excs):
        LOG.append(["derive", self.message, len(excs)])
        return MyEG(self.message + "+", excs)

class PlainEG(ExceptionGroup):
    pass

class SplitEG(ExceptionGroup):
    def split(self, condition):
        names = [t.__name__ for t in (condition if isinstance(condition, tuple) else (condition,))]
        LOG.append(["split", self.message, names])
        return super().split(condition)

def label(x):
    return describe(x, NAMED)

def seen(i, e):
    LOG.append(["h", i, label(e), sys.exc_info()[1] is e])
    NAMED["part%d" % i] = e
    TBS.append(e.__traceback__)

def run_statement():
    tb = []
    kept = []
    try:
        statement()
    except BaseException as r:
        result = label(r)
        nodes = []
        t = r.__traceback__
        while t is not None:
            tb.append(t.tb_frame.f_code.co_name)
            nodes.append(t)
            t = t.tb_next
        # Which traceback objects seen by handlers are still, by identity, in what propagated.
        kept = [any(t is n for n in nodes) for t in TBS]
    else:
        result = None
    LOG.append(["after", label(sys.exc_info()[1])])
    return {"log": LOG, "result": result, "tb": tb, "kept_tb": kept}

def run():
    if not OUTER:
        return run_statement()
    try:
        raise KeyError("outer")
    except KeyError as outer:
        NAMED["outer"] = outer
        return run_statement()
'''

LEAF_TYPES = ["ValueError", "TypeError", "OSError", "KeyError", "MyError", "MyBase"]
CLAUSE_TYPES = [
    "ValueError", "TypeError", "OSError", "KeyError", "LookupError", "MyError", "Exception",
    "MyBase", "BaseException", "(ValueError, TypeError)", "(OSError, MyBase)", "(KeyError,)",
]
GROUP_KINDS = ["BaseExceptionGroup", "MyEG", "PlainEG", "SplitEG"]
BODY_META = ["plain", "cause", "context", "notes"]
STEPS = ["exc_info", "note", "cause", "nested", "raise_caught"]
# Clause types that fail at run time (the engine must raise what CPython raises).
BAD_CLAUSE_TYPES = ["ExceptionGroup", "(ValueError, BaseExceptionGroup)", "int", "(KeyError, 42)",
                    "undefined_name"]
ENDS = ["pass", "reraise", "raise_e", "new", "new_base", "new_from_e", "new_from_none", "leaf",
        "new_group"]

Scenario = Dict[str, Any]


def _header(scn: Scenario) -> str:
    return f"FAMILY = {scn.get('family', 'ours')!r}\nOUTER = {bool(scn.get('outer'))!r}\n" + PRELUDE


def _body(scn: Scenario) -> List[str]:
    lines = ["def body():", "    LOG.append(['body'])"]
    if scn["body"] is None:
        return [*lines, "    return"]
    # The classes the spec names: builtins, or the scenario's own (its family's groups too).
    lines.append(f"    x = build({scn['body']!r}, {{**vars(builtins), **globals()}}, {{}})")
    lines.append("    NAMED['raised'] = x")
    meta = scn["meta"]
    if meta == "cause":
        lines.append("    raise x from KeyError('cause')")
    elif meta == "context":
        lines += ["    try:", "        raise KeyError('ctx')", "    except KeyError:", "        raise x"]
    else:
        if meta == "notes":
            lines.append("    add_note(x, 'body note')")
        lines.append("    raise x")
    return lines


def _handler(i: int, clause: Dict[str, Any], indent: str) -> List[str]:
    out = [f"seen({i}, e)"]
    for step in clause["steps"]:
        if step == "exc_info":
            out.append(f"LOG.append(['exc_info', {i}, label(sys.exc_info()[1])])")
        elif step == "note":
            out.append(f"add_note(e, 'note{i}')")
        elif step == "cause":
            out.append(f"e.__cause__ = KeyError('cause{i}')")
        elif step == "nested":
            out += ["try:", f"    raise KeyError('inner{i}')", "except KeyError as inner:",
                    f"    LOG.append(['inner', {i}, label(inner), label(sys.exc_info()[1].__context__)])",
                    f"LOG.append(['after_inner', {i}, label(sys.exc_info()[1])])"]
        elif step == "yield":
            # Only in generator statements (native except* and the engine, not catch()).
            out.append(f"yield {i}")
        elif step == "raise_caught":
            out += ["try:", "    raise e", "except BaseException as again:",
                    f"    LOG.append(['caught', {i}, again is e])"]
    end = clause["end"]
    out.append({
        "pass": "pass",
        "reraise": "raise",
        "raise_e": "raise e",
        "new": f"raise OSError('new{i}')",
        "new_base": f"raise MyBase('new{i}')",
        "new_from_e": f"raise RuntimeError('new{i}') from e",
        "new_from_none": f"raise RuntimeError('new{i}') from None",
        "leaf": "raise e.exceptions[-1]",
        "new_group": f"raise ExceptionGroup('sub{i}', [ValueError('a{i}'), KeyError('b{i}')])",
    }[end])
    return [indent + line for line in out]


def _statement(lines: List[str], is_async: bool, generator: bool = False) -> List[str]:
    """Name the statement's function; with ``is_async`` it is a coroutine run by asyncio.

    A ``generator`` statement (handlers that yield) is driven by a loop that
    logs, at each suspension, the exception handled outside the generator.
    """
    if generator:
        return [*lines, "def statement():", "    for i in statement_body():",
                "        LOG.append(['suspended', i, label(sys.exc_info()[1])])"]
    if not is_async:
        return [*lines, "statement = statement_body"]
    return [*lines, "def statement():", "    import asyncio", "    asyncio.run(statement_body())"]


def render_native(scn: Scenario, *, is_async: bool = False) -> str:
    """The scenario as a ``try``/``except*`` statement, as native code and exceptstar's users write it."""
    prefix = "async " if is_async else ""
    lines = [_header(scn), *_body(scn), f"{prefix}def statement_body():", "    try:",
             "        body()"]
    for i, clause in enumerate(scn["clauses"]):
        lines.append(f"    except* {clause['types']} as e:")
        lines += _handler(i, clause, " " * 8)
    lines += ["    finally:", "        LOG.append(['finally', label(sys.exc_info()[1])])"]
    return "\n".join(_statement(lines, is_async, _yields(scn))) + "\n"


def _yields(scn: Scenario) -> bool:
    return any("yield" in c["steps"] for c in scn["clauses"])


def render_suppress(scn: Scenario, args: str, *, native: bool) -> str:
    """``with suppress(args): body()``: contextlib's (3.12+) when ``native``, else exceptstar's."""
    source = "from contextlib import suppress as SUPPRESS" if native else "SUPPRESS = exceptstar.suppress"
    lines = [_header(scn), source, *_body(scn), "def statement_body():",
             "    try:", f"        with SUPPRESS({args}):", "            body()",
             "    finally:", "        LOG.append(['finally', label(sys.exc_info()[1])])"]
    return "\n".join(_statement(lines, False)) + "\n"


def render_catch(scn: Scenario, *, is_async: bool = False) -> str:
    """The same scenario with ``exceptstar.catch()``, one handler function per clause."""
    prefix = "async " if is_async else ""
    lines = [_header(scn), *_body(scn)]
    for i, clause in enumerate(scn["clauses"]):
        lines.append(f"{prefix}def h{i}(e):")
        lines += _handler(i, clause, " " * 4)
    mapping = ", ".join(f"{c['types']}: h{i}" for i, c in enumerate(scn["clauses"]))
    lines += [f"{prefix}def statement_body():", "    try:",
              f"        {prefix}with catch({{{mapping}}}):", "            body()",
              "    finally:", "        LOG.append(['finally', label(sys.exc_info()[1])])"]
    return "\n".join(_statement(lines, is_async)) + "\n"


# Hand-written scenarios: the cases the issue lists, each named.

def clause(types: str, end: str = "pass", *steps: str) -> Dict[str, Any]:
    return {"types": types, "steps": list(steps), "end": end}


def leaf(kind: str, msg: str) -> Dict[str, Any]:
    return {"kind": "leaf", "type": kind, "arg": msg}


def group(kind: str, msg: str, *children: Any) -> Dict[str, Any]:
    return {"kind": "group", "type": kind, "message": msg, "children": list(children)}


FLAT = group("BaseExceptionGroup", "eg", leaf("ValueError", "v1"), leaf("TypeError", "t1"),
             leaf("OSError", "o1"))
NESTED = group("BaseExceptionGroup", "outer", leaf("ValueError", "v1"),
               group("BaseExceptionGroup", "inner", leaf("TypeError", "t1"), leaf("ValueError", "v2")),
               leaf("OSError", "o1"))
DERIVING = group("MyEG", "my", leaf("ValueError", "v1"),
                 group("MyEG", "sub", leaf("TypeError", "t1"), leaf("KeyError", "k1")))
SPLITTING = group("SplitEG", "split", leaf("ValueError", "v1"), leaf("TypeError", "t1"))
BASE = group("BaseExceptionGroup", "base", leaf("MyBase", "b1"), leaf("ValueError", "v1"))

HAND_WRITTEN: Dict[str, Dict[str, Any]] = {
    "naked_pass": {"body": leaf("ValueError", "v"), "meta": "plain",
                   "clauses": [clause("ValueError", "pass", "exc_info")]},
    "naked_unmatched": {"body": leaf("KeyError", "k"), "meta": "context",
                        "clauses": [clause("ValueError", "pass")]},
    "naked_second_clause": {"body": leaf("KeyError", "k"), "meta": "plain",
                            "clauses": [clause("ValueError"), clause("LookupError", "new")]},
    "naked_reraise": {"body": leaf("ValueError", "v"), "meta": "cause",
                      "clauses": [clause("ValueError", "reraise")]},
    "naked_raise_e": {"body": leaf("ValueError", "v"), "meta": "plain",
                      "clauses": [clause("ValueError", "raise_e")]},
    "naked_base": {"body": leaf("MyBase", "b"), "meta": "plain",
                   "clauses": [clause("Exception"), clause("BaseException", "reraise", "exc_info")]},
    "flat_all_pass": {"body": FLAT, "meta": "plain",
                      "clauses": [clause("ValueError"), clause("(TypeError, OSError)")]},
    "flat_partial": {"body": FLAT, "meta": "notes",
                     "clauses": [clause("ValueError", "pass", "exc_info")]},
    "flat_new_and_reraise": {"body": FLAT, "meta": "plain",
                             "clauses": [clause("TypeError", "new"), clause("ValueError", "reraise")]},
    "flat_two_new": {"body": FLAT, "meta": "context",
                     "clauses": [clause("TypeError", "new"), clause("ValueError", "new_base"),
                                 clause("OSError")]},
    "flat_raise_e": {"body": FLAT, "meta": "plain",
                     "clauses": [clause("ValueError", "raise_e"), clause("OSError", "reraise")]},
    "flat_from": {"body": FLAT, "meta": "cause",
                  "clauses": [clause("ValueError", "new_from_e"), clause("TypeError", "new_from_none")]},
    "flat_note_reraise": {"body": FLAT, "meta": "notes",
                          "clauses": [clause("ValueError", "reraise", "note")]},
    "flat_cause_reraise": {"body": FLAT, "meta": "plain",
                           "clauses": [clause("ValueError", "reraise", "cause")]},
    "flat_nested_try": {"body": FLAT, "meta": "plain",
                        "clauses": [clause("ValueError", "reraise", "nested", "exc_info")]},
    "flat_raise_caught": {"body": FLAT, "meta": "plain",
                          "clauses": [clause("ValueError", "reraise", "raise_caught")]},
    "flat_whole": {"body": FLAT, "meta": "context",
                   "clauses": [clause("Exception", "reraise", "exc_info")]},
    "nested_projection": {"body": NESTED, "meta": "plain",
                          "clauses": [clause("ValueError", "reraise"), clause("OSError", "new")]},
    "nested_leaf": {"body": NESTED, "meta": "plain",
                    "clauses": [clause("TypeError", "leaf")]},
    "nested_subgroup": {"body": NESTED, "meta": "plain",
                        "clauses": [clause("TypeError", "new_group"), clause("ValueError", "reraise")]},
    "deriving": {"body": DERIVING, "meta": "notes",
                 "clauses": [clause("TypeError", "reraise"), clause("KeyError", "new")]},
    "own_split": {"body": SPLITTING, "meta": "plain",
                  "clauses": [clause("KeyError"), clause("ValueError", "reraise"), clause("TypeError")]},
    "base_members": {"body": BASE, "meta": "plain",
                     "clauses": [clause("ValueError", "new_base"), clause("MyBase", "reraise")]},
    "no_exception": {"body": None, "meta": "plain", "clauses": [clause("ValueError", "new")]},
    "outer_reraise": {"body": FLAT, "meta": "plain", "outer": True,
                      "clauses": [clause("ValueError", "reraise", "exc_info"), clause("OSError", "new")]},
    "outer_naked": {"body": leaf("ValueError", "v"), "meta": "plain", "outer": True,
                    "clauses": [clause("ValueError", "pass", "nested")]},
    "backport_flat": {"body": FLAT, "meta": "notes", "family": "backport",
                      "clauses": [clause("TypeError", "new"), clause("ValueError", "reraise")]},
    "backport_nested": {"body": NESTED, "meta": "cause", "family": "backport",
                        "clauses": [clause("ValueError", "reraise"), clause("TypeError")]},
    "backport_deriving": {"body": DERIVING, "meta": "plain", "family": "backport",
                          "clauses": [clause("TypeError", "reraise"), clause("KeyError", "new")]},
    "backport_own_split": {"body": SPLITTING, "meta": "plain", "family": "backport",
                           "clauses": [clause("ValueError", "reraise"), clause("TypeError")]},
}

# Clause types that are errors at run time: native except* and the engine only
# (catch() checks its keys when it is created).
TUPLE_SUBCLASS = "type('Types', (tuple,), {})"
LYING_TUPLE_SUBCLASS = "type('Lying', (tuple,), {'__iter__': lambda self: iter((int,))})"
CALLABLE_TUPLE_SUBCLASS = "type('Predicate', (tuple,), {'__call__': lambda self, e: type(e) is TypeError})"

HAND_WRITTEN_BAD_TYPES: Dict[str, Dict[str, Any]] = {
    "group_type": {"body": FLAT, "meta": "plain", "clauses": [clause("ExceptionGroup")]},
    "group_in_tuple": {"body": leaf("ValueError", "v"), "meta": "plain",
                       "clauses": [clause("(ValueError, BaseExceptionGroup)")]},
    "not_a_class": {"body": FLAT, "meta": "plain", "outer": True,
                    "clauses": [clause("ValueError", "reraise"), clause("int")]},
    "not_a_class_in_tuple": {"body": leaf("KeyError", "k"), "meta": "plain",
                             "clauses": [clause("(KeyError, 42)")]},
    "nothing_left": {"body": FLAT, "meta": "plain",
                     "clauses": [clause("Exception", "pass"), clause("ExceptionGroup")]},
    "name_error_after_handler": {"body": FLAT, "meta": "context",
                                 "clauses": [clause("ValueError", "new"), clause("undefined_name")]},
    "backport_group_type": {"body": FLAT, "meta": "plain", "family": "backport",
                            "clauses": [clause("TypeError"), clause("ExceptionGroup")]},
    # A subclass of tuple is a valid clause, but a group's split() wants an exact tuple: the
    # naked exception matches it, a group's split() refuses it or, if callable, calls it.
    "tuple_subclass_naked": {"body": leaf("ValueError", "v"), "meta": "plain",
                             "clauses": [clause(f"{TUPLE_SUBCLASS}((ValueError,))")]},
    "tuple_subclass_group": {"body": FLAT, "meta": "plain", "outer": True,
                             "clauses": [clause("TypeError", "pass"), clause(f"{TUPLE_SUBCLASS}((ValueError,))")]},
    "tuple_subclass_iterating_otherwise": {"body": leaf("ValueError", "v"), "meta": "plain",
                                           "clauses": [clause(f"{LYING_TUPLE_SUBCLASS}((ValueError,))")]},
    "callable_tuple_subclass_group": {"body": FLAT, "meta": "notes",
                                      "clauses": [clause(f"{CALLABLE_TUPLE_SUBCLASS}((KeyError,))", "new")]},
}

# Handlers that yield: the statement runs in a generator (native except* and the engine only).
HAND_WRITTEN_GENERATORS: Dict[str, Dict[str, Any]] = {
    "yield_then_reraise": {"body": FLAT, "meta": "plain", "outer": True,
                           "clauses": [clause("ValueError", "reraise", "yield", "exc_info"),
                                       clause("TypeError", "new", "exc_info", "yield")]},
    "yield_naked": {"body": leaf("ValueError", "v"), "meta": "context",
                    "clauses": [clause("ValueError", "pass", "yield", "nested")]},
    "yield_nested_try": {"body": NESTED, "meta": "notes",
                         "clauses": [clause("TypeError", "reraise", "nested", "yield"),
                                     clause("OSError", "raise_e", "yield")]},
}


def run_source(source: str) -> Any:
    """Compile one rendering as exceptstar compiles it, run it in a fresh namespace; its outcome, as JSON."""
    namespace: Dict[str, Any] = {"__name__": "scenario"}
    exec(exceptstar.compile(source, "<scenario>", "exec"), namespace)
    return json.loads(json.dumps(namespace["run"]()))


def run_sources(sources: List[str]) -> List[Any]:
    return [run_source(s) for s in sources]
