"""Code compiled in parts, joined as one compile of the whole would have made it (3.8-3.10).

``native_parts`` compiles a module's functions apart from the code around them
and swaps them in (``with_functions``).  One compile does more than place
code objects: CPython makes the equal constants of all it compiles one object
(``merge_consts_recursive`` over ``_PyCode_ConstantKey``), so that a function
returning ``'a b'`` or ``1.5`` returns the very object a module-level
``S = 'a b'`` holds, as 3.11 does.  Parts compiled apart share nothing;
``with_functions`` makes them share what one compile would, where that can
be told from the code objects alone:

- tuples only from 3.10 on: before, the peephole pass makes the tuples of
  constant defaults and of arguments before a ``*``, and never merges them,
  beside the tuple constants it does merge;
- no frozenset that holds a name-like string of two characters or more (see ``_key``).
"""

import sys
from math import copysign

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import CodeType
    from typing import Any, Dict, Iterable, Iterator, List, Optional, Set, Tuple

_TUPLES_SHARED = sys.version_info >= (3, 10)


def with_functions(code: "CodeType", functions: "Dict[Tuple[str, int], CodeType]",
                   rebuild_functions: bool) -> "Optional[CodeType]":
    """``code`` with each function code object among its constants replaced by the
    one of ``functions`` with its name and first line; None unless each is used once.

    The constants are shared as one compile shares them: those of ``functions``
    become ``code``'s equal ones (``rebuild_functions``), or the other way round;
    the caller names the smaller part, whose constants are the ones looked for.
    """
    consts = list(code.co_consts)
    places = [at for at, const in enumerate(consts)  # a comprehension: a module may have thousands
              if type(const) is _CODE and (const.co_name, const.co_firstlineno) in functions]
    if len(places) != len(functions):
        return None
    if rebuild_functions:
        functions = dict(zip(functions, _shared(list(functions.values()), [code])))
    else:
        replaced = set(places)
        own = [at for at in range(len(consts)) if at not in replaced]  # not what is replaced
        for at, const in zip(own, _shared([consts[at] for at in own], functions.values())):
            consts[at] = const
    for at in places:
        consts[at] = functions[consts[at].co_name, consts[at].co_firstlineno]
    return code.replace(co_consts=tuple(consts))


def _shared(values: "List[Any]", others: "Iterable[CodeType]") -> "List[Any]":
    """``values`` (constants, code objects among them) with each constant in them
    (at any depth) that one compile would have made the same object as one in
    ``others`` replaced by that one."""
    wanted = set(_constants(values))
    if not wanted:
        return values
    found = _offered(others, wanted)
    if not found:
        return values
    done: Dict[int, Any] = {}
    return [_rebuilt(value, found, done) for value in values]


def _offered(others: "Iterable[CodeType]", wanted: "Set[Any]") -> "Dict[Any, Any]":
    """The constants of ``others`` (at any depth) equal to one of ``wanted``, by ``_key``.

    A module has thousands, so they are looked at a depth at a time in C: the
    items of all the tuples (consts tuples among them) and frozensets of one
    depth are ``gc.get_referents`` of them, searched by the set.  One by one
    only where the search found a value that equals others of another key
    (1, 1.0 and ``True``; ``0.0`` and ``-0.0``; tuples of them): it keeps one.
    """
    from gc import get_referents
    from itertools import compress

    found: Dict[Any, Any] = {}
    level: List[Any] = [code.co_consts for code in others]  # tuples, which one compile merges too
    while level:
        items = get_referents(*level)
        searched = items + level if _TUPLES_SHARED else items
        hits = wanted.intersection(searched)
        if hits:
            if all(type(hit) is str or type(hit) is bytes for hit in hits):
                matches: Iterable[Any] = hits
            else:
                matches = compress(searched, map(hits.__contains__, searched))  # in order, in C
            for match in matches:
                found.setdefault(_key(match), match)
        level = [item.co_consts if type(item) is _CODE else item
                 for item in compress(items, map(_HOLDERS.__contains__, map(type, items)))]
    return found


def _constants(values: "Iterable[Any]") -> "Iterator[Any]":
    """Every constant that may be shared, at any depth: not those that are one
    object whatever compiles them (None, small integers, name-like strings,
    which code objects intern), nor code objects (never equal across parts:
    their lines differ)."""
    todo = list(values)
    while todo:
        value = todo.pop()
        kind = type(value)
        if kind is _CODE:
            todo.append(value.co_consts)  # a tuple, which one compile merges too
        elif kind is tuple:
            todo.extend(value)
            if _TUPLES_SHARED:
                yield value
        elif kind is str:
            # isidentifier first: no copy for the usual name (a module's function names).
            if not (value.isascii() and (value.isidentifier() or value.replace("_", "a").isalnum())):
                yield value
        elif kind is int:
            if not -5 <= value <= 256:
                yield value
        elif value is not None and value is not ... and kind is not bool:
            yield value
            if kind is frozenset:
                todo.extend(value)


def _rebuilt(value: "Any", found: "Dict[Any, Any]", done: "Dict[int, Any]") -> "Any":
    """``value`` with what ``found`` holds an equal of replaced, at any depth (anew only where something changed)."""
    kind = type(value)
    if kind is _CODE:
        consts = _rebuilt(value.co_consts, found, done)
        return value if consts is value.co_consts else value.replace(co_consts=consts)
    if value is None or value is ...:
        return value
    result = done.get(id(value))
    if result is not None:
        return result
    if kind is not tuple or _TUPLES_SHARED:
        result = found.get(_key(value))
    if result is None:
        result = value
        if kind is tuple or kind is frozenset:
            items = [_rebuilt(item, found, done) for item in value]
            if any(new is not old for new, old in zip(items, value)):
                result = kind(items)
    done[id(value)] = result
    return result


def _key(value: "Any") -> "Any":
    """CPython's ``_PyCode_ConstantKey``: equal for constants that one compile makes one object."""
    kind = type(value)
    if kind is int or kind is str or value is None or value is ...:
        return value
    if kind is tuple:
        return tuple(map(_key, value)), value
    if kind is frozenset:
        if holds_a_name(value):
            # A code object interns the name-like strings among its constants,
            # and makes such a frozenset anew for itself when one of them was
            # interned before (CPython's intern_string_constants): whether one
            # compile would share it is not known once compiled, and the usual
            # case ('insert', 'replace': interned long before) is apart.
            return id(value), value
        return frozenset(map(_key, value)), value
    if kind is float:
        return (kind, value, None) if value == 0.0 and copysign(1.0, value) < 0.0 else (kind, value)
    if kind is complex:
        real = value.real == 0.0 and copysign(1.0, value.real) < 0.0
        imag = value.imag == 0.0 and copysign(1.0, value.imag) < 0.0
        if real or imag:
            return kind, value, (True if real and imag else False if imag else None)
        return kind, value
    if kind is bool or kind is bytes:
        return kind, value
    # Code objects are never equal across parts (see _gather); anything else is itself only.
    return id(value), value


def holds_a_name(value: "Any") -> bool:
    """Whether ``value`` holds, at any depth, a string of ASCII letters, digits and underscores
    that may be made anew (not ``''`` or one character: the interpreter has one of each)."""
    for item in value:
        if type(item) is str:
            if len(item) > 1 and item.isascii() and item.replace("_", "a").isalnum():
                return True
        elif type(item) is tuple and holds_a_name(item):
            return True
    return False


_CODE = type(_key.__code__)
_HOLDERS = frozenset((_CODE, tuple, frozenset))
