"""The hints CPython 3.15's ``TracebackException`` adds to a message: "Did you mean ...?" and the rest.

For an ``ImportError`` of a name, a ``ModuleNotFoundError``, an
``AttributeError`` and a ``NameError``, in 3.15's words: a name that is not
ASCII also shown escaped, an attribute as ``'.right' instead of '.wrong'``,
the methods of other languages (``list.push``) and mutable methods on
immutable types named before any near miss, a missing standard library module
said so.  The near misses themselves are the running interpreter's
(``traceback._compute_suggestion_error``, 3.12+; 3.8-3.11 compute theirs in C,
for their own printing only, so none are given there); before 3.15 that
function lacks 3.15's last resort, an attribute of an attribute
(``'.inner.value'``), which ``_nested`` adds.
"""

import builtins
import sys
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Optional, Tuple

_compute: "Any" = getattr(traceback, "_compute_suggestion_error", None)
# 3.15's function: it also looks for nested attributes and for modules (finders' ``discover``).
_NEWEST = hasattr(traceback, "_check_for_nested_attribute")

_SET = "Did you mean to use a 'set' object?"
_LIST = "Did you mean to use a 'list' object?"
_DICT = "Did you mean to use a 'dict' object?"
_BITWISE = "Did you mean to use an 'int' object? Bitwise operators are not supported by 'float'."
_frozendict: "Any" = getattr(builtins, "frozendict", None)  # 3.15's type

# A wrong name -> (type, hint) pairs, the first type the object is an instance
# of giving its hint; a hint that starts with a dot is a method to suggest.
_HINTS: "Dict[str, List[Tuple[Any, str]]]" = {
    "push": [(list, ".append")], "concat": [(list, ".extend")], "addAll": [(list, ".extend")],
    "contains": [(list, "Use 'x in list'.")], "add": [(list, _SET), (frozenset, _SET)],
    "toUpperCase": [(str, ".upper")], "toLowerCase": [(str, ".lower")],
    "trimStart": [(str, ".lstrip")], "trimEnd": [(str, ".rstrip")],
    "keySet": [(dict, ".keys")], "entrySet": [(dict, ".items")], "entries": [(dict, ".items")],
    "putAll": [(dict, ".update")], "put": [(dict, "Use d[k] = v.")],
    "append": [(tuple, _LIST)], "extend": [(tuple, _LIST)], "insert": [(tuple, _LIST)],
    "remove": [(tuple, _LIST), (frozenset, _SET)], "discard": [(frozenset, _SET)],
    "update": [(frozenset, _SET), (_frozendict, _DICT)],
    **{name: [(float, _BITWISE)] for name in ("__or__", "__and__", "__xor__", "__lshift__", "__rshift__")},
}
_MISSING = object()


def _quoted(name: str) -> str:
    return f"'{name}'" if name.isascii() else f"'{name}' ({name!a})"


def _suggest(exc_value: "Any", tb: "Any", wrong_name: "Any") -> "Optional[str]":
    return _compute(exc_value, tb, wrong_name) if _compute is not None else None


def _cross_language(obj: object, wrong_name: object) -> "Optional[str]":
    for cls, hint in _HINTS.get(wrong_name, ()) if isinstance(wrong_name, str) else ():
        if cls is not None and isinstance(obj, cls):
            return f"Did you mean '{hint}'?" if hint.startswith(".") else hint
    return None


def _nested(obj: object, wrong_name: str) -> "Optional[str]":
    """3.15's last resort: ``outer.wrong_name`` for one of the first 20 public attributes (no descriptor run)."""
    from inspect import getattr_static

    try:
        names = sorted(x for x in dir(obj) if isinstance(x, str))
    except Exception:
        return None
    for name in [x for x in names if not x.startswith("_")][:20]:
        try:
            if hasattr(getattr_static(type(obj), name, _MISSING), "__get__"):
                continue
            if getattr_static(getattr(obj, name), wrong_name, _MISSING) is not _MISSING:
                return f"{name}.{wrong_name}"
        except Exception:
            continue
    return None


def _module_not_found(exc_value: "Any", tb: "Any", text: str) -> str:
    module_name = getattr(exc_value, "name", None)
    if module_name in getattr(sys, "stdlib_module_names", ()):
        # 3.15's table is traceback's (the build's _missing_stdlib_info): a program may change it there.
        messages = getattr(traceback, "_MISSING_STDLIB_MODULE_MESSAGES", None)
        if messages is None:
            try:
                from _missing_stdlib_info import _MISSING_STDLIB_MODULE_MESSAGES as messages  # type: ignore
            except ImportError:
                messages = {}
        return messages.get(module_name, f"Standard library module {module_name!r} was not found")  # type: ignore
    if sys.flags.no_site:
        return text + (". Site initialization is disabled, did you forget to add the site-packages directory "
                       "to sys.path or to enable your virtual environment?")
    if not _NEWEST:
        # Before 3.15 the interpreter's function cannot find modules.
        return text
    abi_tag = traceback._find_incompatible_extension_module(module_name)  # type: ignore[attr-defined]
    if abi_tag:
        return text + f". Although a module with this name was found for a different Python version ({abi_tag})."
    suggestion = _suggest(exc_value, tb, module_name)
    return text + f". Did you mean: '{suggestion}'?" if suggestion else text


def add_hints(exc_type: type, exc_value: "Any", tb: "Any", text: str) -> str:
    """``text`` (the exception's str) with what 3.15 adds to it, or puts in its place."""
    if issubclass(exc_type, ImportError) and getattr(exc_value, "name_from", None) is not None:
        suggestion = _suggest(exc_value, tb, exc_value.name_from)
        if suggestion:
            text += f". Did you mean: {_quoted(suggestion)}?"
    elif issubclass(exc_type, ModuleNotFoundError):
        text = _module_not_found(exc_value, tb, text)
    elif issubclass(exc_type, AttributeError) and getattr(exc_value, "name", None) is not None:
        wrong_name = exc_value.name
        hint = _cross_language(exc_value.obj, wrong_name) if hasattr(exc_value, "obj") else None
        if hint:
            return text + f". {hint}"
        suggestion = _suggest(exc_value, tb, wrong_name)
        if not suggestion and not _NEWEST and _compute is not None and isinstance(wrong_name, str):
            suggestion = _nested(exc_value.obj, wrong_name)
        if suggestion:
            if suggestion.isascii():
                text += f". Did you mean '.{suggestion}' instead of '.{wrong_name}'?"
            else:
                text += f". Did you mean '.{suggestion}' ({suggestion!a}) instead of '.{wrong_name}' ({wrong_name!a})?"
    elif issubclass(exc_type, NameError) and getattr(exc_value, "name", None) is not None:
        wrong_name = exc_value.name
        suggestion = _suggest(exc_value, tb, wrong_name)
        if suggestion:
            text += f". Did you mean: {_quoted(suggestion)}?"
        if wrong_name in getattr(sys, "stdlib_module_names", ()):
            text += f" Or did you forget to import '{wrong_name}'?" if suggestion else \
                f". Did you forget to import '{wrong_name}'?"
    return text
