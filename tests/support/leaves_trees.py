"""Raised group trees for ``leaf_exceptions``, as JSON specs, and what is observed of their leaves.

A spec is a list of nodes, built in order, each from nodes built before it
(so a node may be a member of several groups, and no tree has a cycle)::

    {"leaf": "ValueError", "depth": 2}             # raised through 2 calls of dive(), caught
    {"group": "ExceptionGroup", "members": [0, 1], "depth": 0}
    {"group": "BaseExceptionGroup", "members": [...], "depth": null}   # never raised: no traceback

The last node is the tree.  ``observe`` (run here, or in another interpreter
through ``support.processes.call``) reports each leaf as its node index and
the (function, line) of every entry of its composite traceback, and checks
what must hold whatever the interpreter: identity, nothing changed.
"""

from __future__ import annotations

import builtins
import sys
from types import TracebackType
from typing import Any, Dict, List, Tuple

Spec = List[Dict[str, Any]]


def dive(exc: BaseException, depth: int) -> None:
    if depth == 0:
        raise exc
    dive(exc, depth - 1)


def build(spec: Spec, classes: Dict[str, Any]) -> List[BaseException]:
    """Every node of ``spec``; each raised and caught as it says (``classes`` names the group types)."""
    nodes: List[BaseException] = []
    for node in spec:
        exc: BaseException
        if "leaf" in node:
            exc = getattr(builtins, node["leaf"])(len(nodes))
        else:
            exc = classes[node["group"]](f"g{len(nodes)}", [nodes[i] for i in node["members"]])
        if node["depth"] is not None:
            try:
                dive(exc, node["depth"])
            except BaseException:
                pass
        nodes.append(exc)
    return nodes


def entries(tb: TracebackType | None) -> List[TracebackType]:
    found = []
    while tb is not None:
        found.append(tb)
        tb = tb.tb_next
    return found


def links(nodes: List[BaseException]) -> List[Any]:
    """Everything of the nodes that ``leaf_exceptions`` must leave as it is: objects, by identity."""
    return [(exc.__traceback__, [(tb, tb.tb_next, tb.tb_frame, tb.tb_lineno, tb.tb_lasti)
                                 for tb in entries(exc.__traceback__)], exc.__context__, exc.__cause__,
             getattr(exc, "exceptions", None)) for exc in nodes]


def reference(tree: BaseException, groups: Tuple[type, ...]) -> List[Tuple[BaseException, List[TracebackType]]]:
    """The leaves and the entries of their tracebacks, by the definition, recursively (small trees only)."""
    seen: set[int] = set()
    found: List[Tuple[BaseException, List[TracebackType]]] = []

    def walk(exc: BaseException, above: List[TracebackType]) -> None:
        if id(exc) in seen:
            return
        seen.add(id(exc))
        if not isinstance(exc, groups):
            found.append((exc, above + entries(exc.__traceback__)))
            return
        for member in exc.exceptions:  # type: ignore[attr-defined]
            walk(member, above + entries(exc.__traceback__))

    walk(tree, [])
    return found


def observe(spec: Spec) -> Any:
    """Each leaf's node index and its traceback's (function, line) entries; checked for identity and no change."""
    import exceptstar
    from exceptstar import leaf_exceptions
    from exceptstar._classes import group_classes

    classes: Dict[str, Any] = {"ExceptionGroup": exceptstar.ExceptionGroup,
                               "BaseExceptionGroup": exceptstar.BaseExceptionGroup}
    nodes = build(spec, classes)
    before = links(nodes)
    leaves = leaf_exceptions(nodes[-1])
    assert links(nodes) == before, "leaf_exceptions changed the tree"
    expected = reference(nodes[-1], group_classes())
    assert [leaf for leaf, _tb in leaves] == [leaf for leaf, _entries in expected]
    result = []
    for (leaf, tb), (_leaf, want) in zip(leaves, expected):
        got = entries(tb)
        assert [(e.tb_frame, e.tb_lineno, e.tb_lasti) for e in got] == \
               [(e.tb_frame, e.tb_lineno, e.tb_lasti) for e in want]
        index = next(i for i, node in enumerate(nodes) if node is leaf)
        result.append([index, [[e.tb_frame.f_code.co_name, e.tb_lineno] for e in got]])
    return {"version": list(sys.version_info[:2]), "leaves": result}


def random_spec(rng: Any, size: int) -> Spec:
    """A spec of about ``size`` nodes from ``rng`` (a ``random.Random``): nesting, shared nodes, unraised groups."""
    spec: Spec = []
    base: List[bool] = []  # whether the node is or holds a BaseException that is no Exception
    roots: List[int] = []  # nodes no group holds yet
    for _ in range(size):
        depth = rng.choice([None, 0, 0, 1, 2, 3])
        if len(spec) < 2 or rng.random() < 0.4:
            kind = rng.choice(["ValueError", "KeyError", "OSError", "GeneratorExit"])
            spec.append({"leaf": kind, "depth": depth})
            base.append(kind == "GeneratorExit")
        else:
            count = rng.randint(1, min(4, len(spec)))
            # Mostly nodes no group holds yet (a tree), sometimes one held already (shared).
            pool = roots if roots and rng.random() < 0.8 else list(range(len(spec)))
            members = rng.sample(pool, min(count, len(pool)))
            holds_base = any(base[i] for i in members)
            kind = "BaseExceptionGroup" if holds_base or rng.random() < 0.2 else "ExceptionGroup"
            spec.append({"group": kind, "members": members, "depth": depth})
            base.append(holds_base)
            roots = [i for i in roots if i not in members]
        roots.append(len(spec) - 1)
    if "group" not in spec[-1]:
        spec.append({"group": "BaseExceptionGroup", "members": roots[-3:], "depth": 1})
    return spec


def observe_all(specs: List[Spec]) -> Any:
    """``observe`` for each spec, with this interpreter's version."""
    return {"version": list(sys.version_info[:2]), "leaves": [observe(spec)["leaves"] for spec in specs]}


class Counting(type):
    """The metaclass of an ``ignore`` class that records every error ``collapse()`` asks it about."""

    checked: List[object] = []

    def __instancecheck__(cls, instance: object) -> bool:
        Counting.checked.append(instance)
        return False


class Counted(Exception, metaclass=Counting):
    pass
