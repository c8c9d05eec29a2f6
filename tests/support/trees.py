"""Exception trees as plain JSON: the one format in which the tests build and compare them.

A *spec* says what to build::

    {"kind": "leaf", "type": "ValueError", "arg": 1}
    {"kind": "group", "type": "ExceptionGroup", "message": "eg", "children": [spec, ...]}

and, on any node, optionally: ``notes`` (stored as ``__notes__``, whatever it
is), ``raise`` (raised and caught once, so that it has a traceback),
``cause`` and ``context`` (true: a new exception is set as that).  Types are
named, and looked up in a table the caller gives, so one spec builds with
any family of classes: exceptstar's, the built-ins, the backport's, a test's
own subclasses.

A *description* (``describe``) is everything observable about a tree that
was built, split or raised: types, arguments, text, notes, cause, context,
traceback, members.  Objects the caller knows are named (``identity``)
rather than described member by member, so identities are compared too.
Both are JSON, so the native interpreter's answer compares with this one's.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, FrozenSet, Mapping

Table = Mapping[str, Callable[..., BaseException]]


def build(spec: Any, table: Table, nodes: Dict[str, BaseException]) -> BaseException:
    """Build a tree; ``nodes`` collects every node by its path label (``r``, ``r.0``, ...)."""
    return _build(spec, table, nodes, "r")


def _build(spec: Any, table: Table, nodes: Dict[str, BaseException], label: str) -> BaseException:
    exc: BaseException
    if spec["kind"] == "leaf":
        exc = table[spec["type"]](spec["arg"])
    else:
        children = [_build(child, table, nodes, f"{label}.{i}") for i, child in enumerate(spec["children"])]
        # A constructor error is part of the outcome: the spec may be invalid on purpose.
        exc = table[spec["type"]](spec["message"], children)
    if spec.get("notes") is not None:
        exc.__notes__ = spec["notes"]  # type: ignore[attr-defined]
    if spec.get("raise"):
        try:
            raise exc
        except BaseException:
            pass
    if spec.get("cause"):
        exc.__cause__ = table["KeyError"](f"cause of {label}")
    if spec.get("context"):
        exc.__context__ = table["OSError"](f"context of {label}")
    nodes[label] = exc
    return exc


def describe(exc: BaseException | None, nodes: Mapping[str, BaseException]) -> Any:
    """Everything observable about ``exc`` and what hangs from it; ``nodes`` are named by their labels."""
    labels = {id(node): label for label, node in nodes.items()}
    tb_labels = {id(node.__traceback__): label for label, node in nodes.items() if node.__traceback__ is not None}

    def walk(e: BaseException | None, above: FrozenSet[int]) -> Any:
        if e is None:
            return None
        if id(e) in above:
            # A cause or context may lead back to an exception being described.
            return "<cycle>"
        above |= {id(e)}
        identity = labels.get(id(e))
        tb = e.__traceback__
        out: Dict[str, Any] = {
            "type": type(e).__name__,
            "identity": identity or "new",
            "args": None if identity else repr(e.args),
            "str": str(e),
            "notes": repr(getattr(e, "__notes__", "<none>")),
            "cause": walk(e.__cause__, above),
            "context": walk(e.__context__, above),
            "suppress": e.__suppress_context__,
            "tb": None if tb is None else tb_labels.get(id(tb), "other"),
            "code": getattr(e, "code", None),
        }
        if identity is None and hasattr(e, "exceptions"):
            out["children"] = [walk(child, above) for child in e.exceptions]  # type: ignore[attr-defined]
        return out

    return walk(exc, frozenset())
