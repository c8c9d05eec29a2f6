"""The hints CPython 3.15's ``TracebackException`` adds to a message: "Did you mean ...?" and the rest.

For an ``ImportError`` of a name, a ``ModuleNotFoundError``, an
``AttributeError`` and a ``NameError``, in 3.15's words: a name that is not
ASCII also shown escaped, an attribute as ``'.right' instead of '.wrong'``,
the methods of other languages (``list.push``) and mutable methods on
immutable types named before any near miss, a missing standard library module
said so.  The near misses are 3.15's ``traceback._compute_suggestion_error``
there; elsewhere ``_near_miss`` looks for them as it does (its candidates, its
edit distance, NFKC-normalized names, an attribute of an attribute as the last
resort).  What the error does not name cannot be looked for: before 3.10 an
``AttributeError`` or ``NameError`` names nothing, before 3.12 an
``ImportError`` no name it could not import.
"""

import builtins
import sys
import traceback

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Optional, Tuple

# 3.15's own search (its traceback has the nested attributes' step), else ours.
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
    if _NEWEST:
        return traceback._compute_suggestion_error(exc_value, tb, wrong_name)  # type: ignore[attr-defined,no-any-return]
    return _near_miss(exc_value, tb, wrong_name)


def _cross_language(obj: object, wrong_name: object) -> "Optional[str]":
    for cls, hint in _HINTS.get(wrong_name, ()) if isinstance(wrong_name, str) else ():
        if cls is not None and isinstance(obj, cls):
            return f"Did you mean '{hint}'?" if hint.startswith(".") else hint
    return None


# 3.15's bounds: candidates looked at, name length, and the cost of an edit (a case change costs half).
_MAX_CANDIDATES = 750
_MAX_LENGTH = 40
_MOVE = 2
_CASE = 1


def _names_of(obj: object) -> "List[str]":
    """The attribute names ``dir`` would give, by ``__dir__`` (``dir`` itself refuses some objects)."""
    try:
        names = obj.__dir__()
    except TypeError:  # a class: its __dir__ is unbound
        names = type(obj).__dir__(obj)
    return sorted(name for name in names if isinstance(name, str))


def _innermost(tb: "Any") -> "Any":
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb


def _candidates(exc_value: "Any", tb: "Any", wrong_name: str) -> "Optional[List[str]]":
    """What a name may have been meant as, or None to give up (3.15's choice)."""
    if isinstance(exc_value, AttributeError):
        obj = getattr(exc_value, "obj", None)
        names = _names_of(obj)
        # Inside the object's own method its private names count.
        if wrong_name[:1] != "_" and (tb is None or _innermost(tb).tb_frame.f_locals.get("self", _MISSING) is not obj):
            names = [name for name in names if name[:1] != "_"]
        return names
    if isinstance(exc_value, ModuleNotFoundError):
        import importlib.util

        parent_name = wrong_name.rpartition(".")[0]
        parent = importlib.util.find_spec(parent_name) if parent_name else None
        found: List[str] = []
        for finder in sys.meta_path:
            discover = getattr(finder, "discover", None)
            if discover:
                found += [spec.name for spec in discover(parent)]
        return found
    if isinstance(exc_value, ImportError):
        names = _names_of(__import__(exc_value.name))  # type: ignore[arg-type]  # None: no candidates
        return names if wrong_name[:1] == "_" else [name for name in names if name[:1] != "_"]
    if tb is None:
        return None
    frame = _innermost(tb).tb_frame
    return [name for name in [*frame.f_locals, *frame.f_globals, *frame.f_builtins] if isinstance(name, str)]


def _near_miss(exc_value: "Any", tb: "Any", wrong_name: "Any") -> "Optional[str]":
    """3.15's ``_compute_suggestion_error``: the closest candidate, else for an attribute a nested one."""
    if not isinstance(wrong_name, str):
        return None
    name = wrong_name
    if not name.isascii():
        from unicodedata import normalize

        name = normalize("NFKC", name)
    try:
        candidates = _candidates(exc_value, tb, name)
        if candidates is None:
            return None
        if name != wrong_name and name in candidates:
            return name  # the name as the parser would have read it
        if not isinstance(exc_value, (AttributeError, ImportError)):
            # A NameError in a method: the instance's attribute of that name.
            instance = _innermost(tb).tb_frame.f_locals.get("self", _MISSING)
            try:
                found = instance is not _MISSING and hasattr(instance, name)
            except Exception:
                found = False
            if found:
                return f"self.{name}"
    except Exception:
        return None
    suggestion = _closest(candidates, name)
    if suggestion is None and isinstance(exc_value, AttributeError):
        try:
            return _nested(exc_value.obj, name, candidates)
        except Exception:
            return None
    return suggestion


def _closest(candidates: "List[str]", wrong_name: str) -> "Optional[str]":
    if len(candidates) > _MAX_CANDIDATES or len(wrong_name) > _MAX_LENGTH:
        return None
    # As the C search (_suggestions, which 3.12+ ask first) has it: no bound until a first match.
    best_distance = sys.maxsize
    suggestion = None
    for name in candidates:
        if name == wrong_name:
            continue  # the name is there: what is missing is something else (gh-88821)
        # No more than a third of the characters changed, and better than the best so far.
        limit = min((len(name) + len(wrong_name) + 3) * _MOVE // 6, best_distance - 1)
        distance = _distance(wrong_name, name, limit)
        if distance <= limit and (suggestion is None or distance < best_distance):
            suggestion, best_distance = name, distance
    return suggestion


def _distance(a: str, b: str, limit: int) -> int:
    """The edit distance (case changes cost less), or ``limit + 1`` once it must exceed ``limit``."""
    if a == b:
        return 0
    start = 0
    while start < len(a) and start < len(b) and a[start] == b[start]:
        start += 1
    a, b = a[start:], b[start:]
    end = 0
    while end < len(a) and end < len(b) and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    a, b = a[:len(a) - end], b[:len(b) - end]
    if not a or not b:
        return _MOVE * (len(a) + len(b))
    if len(a) > _MAX_LENGTH or len(b) > _MAX_LENGTH:
        return limit + 1
    if len(b) < len(a):
        a, b = b, a
    if (len(b) - len(a)) * _MOVE > limit:
        return limit + 1
    # One row of the matrix, updated in place: row[i] is the cost of b[:j] against a[:i + 1].
    row = list(range(_MOVE, _MOVE * (len(a) + 1), _MOVE))
    result = 0
    for j, b_char in enumerate(b):
        diagonal = result = j * _MOVE
        smallest = sys.maxsize
        for i, a_char in enumerate(a):
            cost = 0 if a_char == b_char else _CASE if a_char.lower() == b_char.lower() else _MOVE
            substitute = diagonal + cost
            diagonal = row[i]
            result = min(min(result, diagonal) + _MOVE, substitute)
            row[i] = result
            smallest = min(smallest, result)
        if smallest > limit:
            return limit + 1
    return result


def _nested(obj: object, wrong_name: str, candidates: "List[str]") -> "Optional[str]":
    """The last resort: ``outer.wrong_name`` for one of the first 20 public candidates (no descriptor run)."""
    from inspect import getattr_static

    for name in [x for x in candidates if not x.startswith("_")][:20]:
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
    if _NEWEST:
        # (An extension module built for another version: 3.15's search, with its own file-name rules.)
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
