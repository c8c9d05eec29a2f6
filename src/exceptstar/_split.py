"""How a group comes apart: ``split``/``subgroup``'s walk (CPython's ``exceptiongroup_split_recursive``, as a
loop), the flat split by member type, ``subset`` (``exceptiongroup_subset``, for every kind of group), a valid
group built without construction's checks (``_build_valid``), and the member-type count both use.

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
# The built-in Exception classes: their bases cannot be reassigned, so members of them need no MRO test.
_BUILTIN_EXCEPTIONS = frozenset(value for value in vars(builtins).values() if isinstance(value, type)
                                and issubclass(value, Exception) and not value.__flags__ & _HEAPTYPE)

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


def _types_of(excs: "Sequence[BaseException]", collect: "Callable[[Iterable[type]], Any]" = set) -> "Any":
    """The members' types, in a set, or as ``collect`` gathers them if more than one (the usual group has one,
    found by counting, far cheaper; on PyPy by a loop its JIT compiles: a list of types costs there)."""
    first = type(excs[0])
    if _PYPY:
        for exc in excs:
            if type(exc) is not first:
                return collect(map(type, excs))
        return {first}
    types = list(map(type, excs))
    return {first} if types.count(first) == len(types) else collect(types)


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
        for member_type in member_types:  # a loop: no generator to create on this hot path
            if not real_issubclass(Exception, member_type):
                # As in construction: isinstance() on every member, which may ask its __class__.
                if False in [*map(isinstance, excs, repeat(Exception))]:
                    cls = BaseExceptionGroup
                break
    group = _new_exception(cls, message, excs)
    group._state = message, tuple(excs), member_types, None
    return group
