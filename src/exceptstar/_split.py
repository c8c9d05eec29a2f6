"""How a group comes apart: ``split``/``subgroup``'s walk (CPython's ``exceptiongroup_split_recursive``, as a
loop), the flat split by member type, ``subset`` (``exceptiongroup_subset``, for every kind of group), a valid
group built without construction's checks (``_build_valid``), and the member-type count both use.

A set of member types is exact only for classes that hash and compare as ``type`` does, by identity (C tests
each member's real type and never calls a metaclass's ``__hash__`` or ``__eq__``): a group's stored set is
trusted only when it holds built-in classes; ``_types_of`` gives a set of plain ones (``plain_types``) or
None, and a group with another class is then taken apart member by member.

It imports nothing of ``_groups``: ``_groups`` hands its two classes over once they exist (``use_classes``), so
data flows one way; the functions read them as module globals, which costs a split no more than a name lookup.
"""

import builtins
import sys
from itertools import compress, repeat

from exceptstar._rules import MISSING, TypeMatcher, is_sequence, real_issubclass

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence, Set, Tuple, Type, Union

    from exceptstar._groups import BaseExceptionGroup as _BEG
    from exceptstar._rules import Matcher

    # A group being split: it, its members not yet seen, its matching and rest parts, the matching member types.
    _Walk = Tuple[_BEG, Iterator[BaseException], List[BaseException], List[BaseException], Optional[Set[type]]]
    # Splits a group at once (its pair) or pushes it on the walk's stack (None).
    _Opener = Callable[[_BEG, "Matcher", bool, List[_Walk]], Optional[Tuple[Any, Any]]]

_PYPY = sys.implementation.name == "pypy"
_HEAPTYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class whose bases may be reassigned
# Up to this many members, construction puts their types in a set at once (the fewest calls), and split sorts
# them by a loop; a longer group counts its first type in a list (far cheaper per member than a set).
_SHORT = 32
_new_exception = BaseException.__new__
# The built-in Exception classes: their bases cannot be reassigned, so members of them need no MRO test.  Leaves:
# not the built-in ExceptionGroup, which CPython makes a heap type and PyPy 3.11 does not.
_BUILTIN_EXCEPTIONS = frozenset(value for value in vars(builtins).values() if isinstance(value, type)
                                and issubclass(value, Exception) and not value.__flags__ & _HEAPTYPE
                                and not issubclass(value, getattr(builtins, "BaseExceptionGroup", ())))

# _groups' classes and their default derive and __getattribute__, set by use_classes.
BaseExceptionGroup: "Type[_BEG]"
ExceptionGroup: "Type[_BEG]"
_DEFAULT_DERIVE: object
_DEFAULT_GETATTRIBUTE: object


def use_classes(base: "Type[_BEG]", group: "Type[_BEG]") -> None:
    """Called once by ``_groups`` with its ``BaseExceptionGroup`` and ``ExceptionGroup``."""
    global BaseExceptionGroup, ExceptionGroup, _DEFAULT_DERIVE, _DEFAULT_GETATTRIBUTE
    BaseExceptionGroup, ExceptionGroup = base, group
    _DEFAULT_DERIVE, _DEFAULT_GETATTRIBUTE = base.derive, base.__getattribute__


_TYPE_HASH, _TYPE_EQ = type.__hash__, type.__eq__


def plain_types(member_types: "Iterable[type]") -> bool:
    """Whether every class hashes and compares as ``type`` does (the pointer, identity), so that a set of
    them, and ``==`` between them, run no code and tell distinct classes apart (ABCMeta's classes do)."""
    for member_type in member_types:  # a loop: no generator frame; few distinct types
        meta = type(member_type)
        if meta is not type and (meta.__hash__ is not _TYPE_HASH or meta.__eq__ is not _TYPE_EQ):
            return False
    return True


def distinct_types(types: "Iterable[type]") -> "Optional[Set[type]]":
    """The set of ``types``, or None when one of them hashes or compares otherwise (``plain_types``): only
    identity tells those apart, and their metaclass's ``__hash__`` has run once each, which C never calls."""
    try:
        distinct = set(types)
    except TypeError:  # a metaclass with __hash__ None (one defining __eq__ alone)
        return None
    return distinct if plain_types(distinct) else None


def _one_type(excs: "Iterable[BaseException]", first: type) -> bool:
    """Whether every member's real type is ``first``, by identity (on PyPy: a loop its JIT compiles)."""
    for exc in excs:  # noqa: SIM110 - no generator frame, as all() would need
        if type(exc) is not first:
            return False
    return True


def _types_of(excs: "Sequence[BaseException]") -> "Optional[Set[type]]":
    """The members' types, in a set, or None if one is not plain (``distinct_types``).  A short group's are set
    apart by hashing; a long one's usual single type is found by counting (far cheaper than a set; it compares
    nothing when all are one), on PyPy by a loop its JIT compiles (a list of types costs there).  Several are
    set apart by hashing: a count's ``==`` would ask a metaclass's ``__eq__``, which may call them equal."""
    first = type(excs[0])
    if _PYPY:
        if not _one_type(excs, first):
            return distinct_types(map(type, excs))
    elif len(excs) > _SHORT:
        types = list(map(type, excs))
        if types.count(first) != len(types):
            return distinct_types(types)
    else:
        try:
            distinct = {*map(type, excs)}
        except TypeError:  # see distinct_types
            return None
        for member_type in distinct - _BUILTIN_EXCEPTIONS:  # the usual classes' test inline: no call
            if type(member_type) is not type:
                return distinct if plain_types(distinct) else None
        return distinct
    # One type, tested before it is hashed.
    return {first} if type(first) is type or plain_types((first,)) else None


# C splits recursively, within 3.13's C recursion limit (10,000 calls, of which a split called from the top
# level of a module has used 3): a group nested deeper raises this RecursionError there.  Here the walk is a
# loop, so the depth is counted instead, and the Python recursion limit plays no part.
MAX_DEPTH = 9997
SPLIT_TOO_DEEP = "maximum recursion depth exceeded in exceptiongroup_split_recursive"


def _split_open(group: "_BEG", matcher: "Matcher", construct_rest: bool,
                stack: "List[_Walk]") -> "Optional[Tuple[Optional[_BEG], Optional[_BEG]]]":
    """Split ``group`` at once if no member needs a split of its own; else push it on ``stack`` (None)."""
    _, excs, member_types, _ = group._state
    if matcher.__class__ is TypeMatcher:  # one of ours: no __class__ of its own
        if member_types is None or not member_types <= _BUILTIN_EXCEPTIONS:
            member_types = _types_of(excs)  # a member of a class made in Python may have changed class since
            if member_types is None:  # a class not plain: each member matched by the matcher, in order
                stack.append((group, iter(excs), [], [], None))
                return None
        matching = set()
        for member_type in member_types:  # loops: no comprehension frame on this hot path
            for t in matcher:
                if real_issubclass(t, member_type):
                    matching.add(member_type)
                    break
        not_matching = member_types.difference(matching)
        # A member group not matching whole is split itself; any other member goes to one side by its type.
        for t in () if not_matching <= _BUILTIN_EXCEPTIONS else not_matching:
            if real_issubclass(BaseExceptionGroup, t):
                break
        else:
            matched: List[BaseException]
            if not matching or not not_matching:
                matched, rest = ([], list(excs)) if not matching else (list(excs), [])
            elif len(excs) <= _SHORT:  # a loop: cheaper than C's map and compress for a few members
                matched, rest = [], []
                for exc in excs:
                    (matched if type(exc) in matching else rest).append(exc)
            elif construct_rest:
                types = list(map(type, excs))
                matched = list(compress(excs, map(matching.__contains__, types)))
                rest = list(compress(excs, map(not_matching.__contains__, types)))
            else:
                matched = list(compress(excs, map(matching.__contains__, map(type, excs))))
            return _parts(group, matched, matching, rest if construct_rest else None, not_matching)
        # Nested groups: members are then matched by type, without calling the matcher.
        by_type: Optional[Set[type]] = matching
    else:
        by_type = None  # a predicate: called on every node, in order
    stack.append((group, iter(excs), [], [], by_type))
    return None


def _parts(orig: "_BEG", matched: "List[BaseException]", matching: "Set[type]",
           rest: "Optional[List[BaseException]]", not_matching: "Set[type]") -> "Tuple[Any, Any]":
    """``subset`` of the matching members, then of the rest (unless None): in one frame for a plain group."""
    if type(orig) is not ExceptionGroup or ExceptionGroup.derive is not _DEFAULT_DERIVE \
            or ExceptionGroup.__getattribute__ is not _DEFAULT_GETATTRIBUTE or "derive" in orig.__dict__:
        return subset(orig, matched, matching), (subset(orig, rest, not_matching) if rest is not None else None)
    message, tb, context, cause = orig._state[0], orig.__traceback__, orig.__context__, orig.__cause__
    pair: List[Optional[_BEG]] = []
    for excs, member_types in ((matched, matching), (rest, not_matching)):
        if not excs:
            pair.append(None)
            continue
        part = _new_exception(ExceptionGroup, message, excs)
        part._state = message, tuple(excs), member_types, None
        if tb is not None:  # a new part's own are None (its context left unassigned, as in subset)
            part.__traceback__ = tb
        if context is not None:
            part.__context__ = context
        part.__cause__ = cause
        notes = getattr(orig, "__notes__", MISSING)
        if notes is not MISSING and is_sequence(notes):
            part.__notes__ = list(notes)  # type: ignore[attr-defined, call-overload]
            if excs is matched and type(notes) is not list:  # its copy ran code, which may change derive
                return part, (subset(orig, rest, not_matching) if rest is not None else None)
        pair.append(part)
    return pair[0], pair[1]


def _split(group: "_BEG", matcher: "Matcher", construct_rest: bool, groups: "Optional[type]" = None,
           open_group: "_Opener" = _split_open) -> "Tuple[Optional[_BEG], Optional[_BEG]]":
    """exceptiongroup_split_recursive below the top node (tested by the caller), as a loop.  ``groups``: what
    counts as a group (None: ours); ``open_group``: ``_split_open``, or ``_pypy``'s for other classes."""
    stack: List[_Walk] = []
    pair = open_group(group, matcher, construct_rest, stack)
    if groups is None:
        groups = BaseExceptionGroup
    while stack:
        node, members, matched, rest, by_type = stack[-1]
        if pair is not None:  # the split of the member group just walked
            if pair[0] is not None:
                matched.append(pair[0])
            if pair[1] is not None:
                rest.append(pair[1])
            pair = None
        for exc in members:
            if (type(exc) in by_type) if by_type is not None else matcher(exc):
                matched.append(exc)
            elif isinstance(exc, groups):
                if len(stack) >= MAX_DEPTH:
                    raise RecursionError(SPLIT_TOO_DEEP)
                pair = open_group(exc, matcher, construct_rest, stack)  # type: ignore[arg-type]
                break
            elif construct_rest:
                rest.append(exc)
        else:
            stack.pop()
            pair = subset(node, matched, None, groups), (subset(node, rest, None, groups) if construct_rest else None)
    return pair  # type: ignore[return-value]


def subset(orig: BaseException, excs: "List[BaseException]", member_types: "Optional[Set[type]]" = None,
           groups: "Union[type, Tuple[type, ...], None]" = None) -> "Optional[_BEG]":
    """CPython's exceptiongroup_subset: ``orig.derive(excs)`` with ``orig``'s metadata; None for no members.
    For any group (prep_reraise_star rebuilds built-in and backport ones): ``groups``, what derive may return
    (None: ours)."""
    if not excs:
        return None
    cls = type(orig)
    part: _BEG
    if (cls.derive is _DEFAULT_DERIVE and cls.__getattribute__ is _DEFAULT_GETATTRIBUTE  # type: ignore[attr-defined]
            and "derive" not in orig.__dict__):
        # derive() would call BaseExceptionGroup(message, excs), whose checks these members (from a valid
        # group) pass.  A group that is an Exception holds only Exceptions, and so do its parts.
        part_class = ExceptionGroup if isinstance(orig, Exception) else None
        part = _build_valid(orig._state[0], excs, member_types, part_class)  # type: ignore[attr-defined]
    else:
        part = orig.derive(excs)  # type: ignore[attr-defined]
        if not isinstance(part, BaseExceptionGroup if groups is None else groups):
            raise TypeError("derive must return an instance of BaseExceptionGroup")
    tb = orig.__traceback__
    if tb is not None:
        part.__traceback__ = tb
    context = orig.__context__
    # Left unassigned when None: PyPy 3.11 never gives an assigned __context__ a new one
    # when the exception is raised (CPython does), and the new part's is None already.
    if context is not None or part.__context__ is not None:
        part.__context__ = context
    part.__cause__ = orig.__cause__  # which also sets __suppress_context__, as in C
    notes = getattr(orig, "__notes__", MISSING)
    if notes is not MISSING and is_sequence(notes):  # a copy: the parts' notes are independent
        part.__notes__ = list(notes)  # type: ignore[attr-defined, call-overload]
    return part


def _build_valid(message: str, excs: "Sequence[BaseException]", member_types: "Optional[Set[type]]",
                 cls: "Optional[Type[_BEG]]" = None) -> "_BEG":
    """``BaseExceptionGroup(message, excs)`` for valid members (``member_types`` may be None if ``cls`` is known)."""
    if cls is None:
        if member_types is None:
            member_types = _types_of(excs)
        cls = ExceptionGroup
        # A loop: no generator to create on this hot path.  Without a set (a class not plain), member by member.
        for member_type in map(type, excs) if member_types is None else member_types:
            if not real_issubclass(Exception, member_type):
                # As in construction: isinstance() on every member, which may ask its __class__.
                if False in [*map(isinstance, excs, repeat(Exception))]:
                    cls = BaseExceptionGroup
                break
    group = _new_exception(cls, message, excs)
    group._state = message, tuple(excs), member_types, None
    return group
