"""Exception trees as data, built with either family of classes, and described canonically.

A tree description is plain JSON, so the same tree can be built in this
process with exceptstar's pure classes and in a native 3.11+ interpreter with
the built-ins, and the two descriptions of what ``split``/``subgroup`` did can
be compared for equality.  The native side imports this very module.
"""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

LEAF_TYPES = ["ValueError", "TypeError", "KeyError", "OSError", "MyError", "KeyboardInterrupt", "SystemExit"]
GROUP_KINDS = ["BaseExceptionGroup", "ExceptionGroup", "MyEG", "MyBEG", "DerivingEG"]


class MyError(ValueError):
    pass


def classes(base_group: type, group: type) -> dict[str, type]:
    """The class table for one family: the leaves plus group subclasses built on its classes."""

    class MyEG(group):  # type: ignore[misc,valid-type]
        """A subclass with no derive: its parts come back as plain groups."""

    class MyBEG(base_group):  # type: ignore[misc,valid-type]
        pass

    class DerivingEG(group):  # type: ignore[misc,valid-type]
        """A subclass with an extra constructor argument and its own derive."""

        def __new__(cls, message: str, excs: Any, code: int = 0) -> Any:
            obj = super().__new__(cls, message, excs)
            obj.code = code
            return obj

        def __init__(self, message: str, excs: Any, code: int = 0) -> None:
            super().__init__(message, excs)

        def derive(self, excs: Any) -> Any:
            return DerivingEG(self.message, excs, self.code + 1)

    table: dict[str, type] = {name: getattr(__import__("builtins"), name, None) for name in LEAF_TYPES}  # type: ignore[misc]
    table.update(MyError=MyError, BaseExceptionGroup=base_group, ExceptionGroup=group, MyEG=MyEG, MyBEG=MyBEG,
                 DerivingEG=DerivingEG)
    return table


def build(spec: Any, table: dict[str, type], nodes: dict[str, BaseException]) -> BaseException:
    """Build a tree; ``nodes`` collects every node by its path label, for identity checks."""
    return _build(spec, table, nodes, "r")


def _build(spec: Any, table: dict[str, type], nodes: dict[str, BaseException], label: str) -> BaseException:
    kind = spec["kind"]
    exc: BaseException
    if kind == "leaf":
        exc = table[spec["type"]](spec["arg"])
    else:
        children = [_build(child, table, nodes, f"{label}.{i}") for i, child in enumerate(spec["children"])]
        cls = table[spec["type"]]
        # A constructor error is part of the outcome: the spec may be invalid on purpose.
        exc = cls(spec["message"], children, 7) if spec["type"] == "DerivingEG" else cls(spec["message"], children)
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


def condition(spec: Any, table: dict[str, type], calls: list[str], nodes: dict[str, BaseException]) -> Any:
    """A split condition from its description; predicates record the order they are called in."""
    kind = spec["kind"]
    if kind == "type":
        return table[spec["type"]]
    if kind == "tuple":
        return tuple(table[name] for name in spec["types"])
    labels = {id(node): label for label, node in nodes.items()}

    def predicate(exc: BaseException) -> Any:
        calls.append(labels.get(id(exc), "?"))
        if spec["rule"] == "even":
            return [] if isinstance(exc.args[0] if exc.args else None, int) and exc.args[0] % 2 else [1]
        if spec["rule"] == "message":
            return getattr(exc, "message", "") == spec["message"]
        return type(exc).__name__ == spec["type"]

    return predicate


def describe(exc: Any, nodes: dict[str, BaseException]) -> Any:
    """Everything observable about a result tree, with objects named by their original labels."""
    if exc is None:
        return None
    labels = {id(node): label for label, node in nodes.items()}
    tb_labels = {id(node.__traceback__): label for label, node in nodes.items() if node.__traceback__ is not None}

    def name_of(obj: Any) -> Any:
        if obj is None:
            return None
        if id(obj) in labels:
            return "node:" + labels[id(obj)]
        return f"new:{type(obj).__name__}{obj.args!r}"

    def walk(e: BaseException) -> Any:
        out: dict[str, Any] = {
            "type": type(e).__name__,
            "identity": labels.get(id(e), "new"),
            "args": repr(e.args) if id(e) not in labels else None,
            "str": str(e),
            "tb": None if e.__traceback__ is None else tb_labels.get(id(e.__traceback__), "other"),
            "cause": name_of(e.__cause__),
            "context": name_of(e.__context__),
            "suppress": e.__suppress_context__,
            "notes": repr(getattr(e, "__notes__", "<none>")),
            "code": getattr(e, "code", None),
        }
        if hasattr(e, "exceptions") and id(e) not in labels:
            out["children"] = [walk(child) for child in e.exceptions]
        return out

    return walk(exc)


def outcome(call: Callable[[], Any]) -> Any:
    try:
        return {"value": call()}
    except Exception as error:  # the error itself is the outcome being compared
        return {"error": f"{type(error).__name__}: {error}"}


def run_case(case: Any, base_group: type, group: type) -> Any:
    """Build the tree, split and subgroup it, and describe all of it."""
    table = classes(base_group, group)
    nodes: dict[str, BaseException] = {}
    built = outcome(lambda: build(case["tree"], table, nodes))
    if "error" in built:
        return {"build": built}
    tree = built["value"]
    result: dict[str, Any] = {"build": {"value": describe(tree, {})}}
    for method in ("split", "subgroup"):
        calls: list[str] = []

        def call(method: str = method, calls: list[str] = calls) -> Any:
            cond = condition(case["condition"], table, calls, nodes)
            parts = getattr(tree, method)(cond)
            if method == "split":
                return [describe(parts[0], nodes), describe(parts[1], nodes)]
            return describe(parts, nodes)

        result[method] = outcome(call)
        result[method + "_calls"] = calls
    return result


def serve() -> None:
    """Native side: one JSON case per line on stdin, one JSON outcome per line on stdout."""
    import builtins

    for line in sys.stdin:
        outcome = run_case(json.loads(line), builtins.BaseExceptionGroup, builtins.ExceptionGroup)
        sys.stdout.write(json.dumps(outcome) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve()
