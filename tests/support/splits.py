"""``split`` and ``subgroup`` of a tree (``support.trees``) with a described condition, and all they did.

A case is ``{"tree": spec, "condition": ...}``; its outcome (``run_case``)
describes the tree as built, the parts of ``split`` and ``subgroup``, any
error, and the order a predicate was called in.  The same case runs with
exceptstar's pure classes here and with the built-ins natively
(``run_native_cases``, which the native interpreter is asked through
``support.processes.call``).
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List

from support import trees

LEAF_TYPES = ["ValueError", "TypeError", "KeyError", "OSError", "MyError", "KeyboardInterrupt", "SystemExit"]
GROUP_KINDS = ["BaseExceptionGroup", "ExceptionGroup", "MyEG", "MyBEG", "DerivingEG"]


class MyError(ValueError):
    pass


def classes(base_group: type, group: type) -> Dict[str, type]:
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

    table: Dict[str, type] = {name: getattr(__import__("builtins"), name, None) for name in LEAF_TYPES}  # type: ignore[misc]
    table.update(MyError=MyError, BaseExceptionGroup=base_group, ExceptionGroup=group, MyEG=MyEG, MyBEG=MyBEG,
                 DerivingEG=DerivingEG)
    return table


def constructors(table: Dict[str, type]) -> trees.Table:
    """What ``trees.build`` calls: the classes, with DerivingEG given its extra argument."""
    deriving = table["DerivingEG"]
    return {**table, "DerivingEG": lambda message, excs: deriving(message, excs, 7)}


def condition(spec: Any, table: Dict[str, type], calls: List[str], nodes: Dict[str, BaseException]) -> Any:
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


def outcome(call: Callable[[], Any]) -> Any:
    try:
        return {"value": call()}
    except Exception as error:  # the error itself is the outcome being compared
        return {"error": f"{type(error).__name__}: {error}"}


def run_case(case: Any, base_group: type, group: type) -> Any:
    """Build the tree, split and subgroup it, and describe all of it."""
    table = classes(base_group, group)
    nodes: Dict[str, BaseException] = {}
    built = outcome(lambda: trees.build(case["tree"], constructors(table), nodes))
    if "error" in built:
        return {"build": built}
    tree = built["value"]
    result: Dict[str, Any] = {"build": {"value": trees.describe(tree, {})}}
    for method in ("split", "subgroup"):
        calls: List[str] = []

        def call(method: str = method, calls: List[str] = calls) -> Any:
            cond = condition(case["condition"], table, calls, nodes)
            parts = getattr(tree, method)(cond)
            if method == "split":
                return [trees.describe(parts[0], nodes), trees.describe(parts[1], nodes)]
            return trees.describe(parts, nodes)

        result[method] = outcome(call)
        result[method + "_calls"] = calls
    return result


def run_native_cases(cases: List[Any]) -> List[Any]:
    """Each case with the built-in groups (3.11+)."""
    import builtins

    return [run_case(case, builtins.BaseExceptionGroup, builtins.ExceptionGroup) for case in cases]
