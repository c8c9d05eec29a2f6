"""The pure-Python ``BaseExceptionGroup`` and ``ExceptionGroup``.

They reproduce CPython 3.13's ``Objects/exceptions.c`` rule for rule: construction and its errors,
type selection, ``split``/``subgroup`` with the same predicate order, identities and metadata,
``derive``, ``str``.  Used on 3.8-3.10, and on 3.11+ when ``EXCEPTSTAR_PURE=1``.  Speed matters here
more than anywhere (``split`` runs on every handled error, construction on every raised group): the
per-member work runs in C builtins, the Python-level checks once per distinct member *type*.
"""

import sys
from itertools import repeat

from exceptstar import _frames, _handled
from exceptstar._notes import add_note_default
from exceptstar._rules import MISSING, is_sequence, matcher_of, real_issubclass, repr_of
from exceptstar._split import (
    _BUILTIN_EXCEPTIONS,
    _PYPY,
    _SHORT,
    _new_exception,
    _one_type,
    _split,
    distinct_types,
    plain_types,
    use_classes,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Optional, Sequence, Set, Tuple, Type, TypeVar, Union

    _Self = TypeVar("_Self", bound="BaseExceptionGroup")
    _Condition = Union[Type[BaseException], Tuple[Type[BaseException], ...], Callable[[BaseException], object]]
    # A group's message, members, member types (None until needed) and the repr of a sequence not a list or tuple.
    _State = Tuple[str, Tuple[BaseException, ...], Optional[Set[type]], Optional[str]]

# Up to this many distinct member types, construction keeps their set (split's).
_FEW_TYPES = 8


def _class_getitem(cls: type, item: object) -> object:
    return cls


if sys.version_info >= (3, 11):
    _class_getitem = type(list[int])  # types.GenericAlias, without importing types
elif sys.version_info >= (3, 9):
    _GenericAlias: "Any" = type(list[int])

    class _GroupAlias(type(list[int])):  # type: ignore[misc]
        """``ExceptionGroup[T]`` as 3.11 makes it: a ``types.GenericAlias`` that is not a class (3.9/3.10's
        passes ``__class__`` on to its origin, and pytest's ``RaisesExc`` would take it for the class)."""

        def __getattribute__(self, name: str) -> "Any":
            return _GenericAlias if name == "__class__" else super().__getattribute__(name)

        def __reduce__(self) -> "Any":
            return _GenericAlias, (self.__origin__, self.__args__)

    _class_getitem = _GroupAlias


_base_init = BaseException.__init__
# PyUnicode_Check as one method call: any method of str tests the real type (a subclass passes, as in C) and raises
# TypeError for anything else, with no code of the object's run; on 3.8 half the cost of ``type(message) is str``.
_str_method = str.isascii


def _readonly(group: object, value: object = None) -> None:
    raise AttributeError("readonly attribute")


class BaseExceptionGroup(BaseException):
    """A combination of multiple unrelated exceptions."""

    # No __weakref__ here and one on ExceptionGroup: the same as the built-ins.
    # _state, one slot (one store per group made): the message; the members; the set of their types, which
    # lets split classify and rebuild by type (or None; trusted for built-in classes only: see _split._split_open);
    # repr() of a sequence neither a list nor a tuple, taken at construction (3.13.12+, gh-141732), or None.
    __slots__ = ("_state",)
    __module__ = "builtins"
    _state: "_State"

    def __init__(self, *args: object, **kwargs: object) -> None:
        """Initialize self.  See help(type(self)) for accurate signature."""
        # BaseExceptionGroup_init: no keywords, then BaseException's __init__ called directly, so that in
        # ``class G(ExceptionGroup, Other)`` Other.__init__ is never reached.  A function of the class's
        # own, as the built-in has one: ``BaseExceptionGroup.__init__ is not BaseException.__init__``.
        if kwargs or not isinstance(self, BaseExceptionGroup):
            try:
                if kwargs:
                    raise TypeError(f"{type(self).__name__}() takes no keyword arguments")
                # What the slot wrapper says when called unbound on another object.
                raise TypeError(f"descriptor '__init__' requires a 'BaseExceptionGroup' object but received a "
                                f"'{type(self).__name__}'")
            except TypeError as error:
                # As in __new__: no frame of ours, as C shows none.
                _frames.strip(error)
                if sys.version_info < (3, 11):
                    _handled.set_handled(error)
                raise
        _base_init(self, *args)

    def __new__(cls: "Type[_Self]", message: "Any" = MISSING, exceptions: "Any" = MISSING, /, *args: object,
                **kwargs: object) -> "_Self":
        # The two arguments bound positionally (MISSING: not given), with no tuple of them to make and unpack.
        try:
            # The usual call (one of the two classes, a str, a short list or tuple of Exceptions) passes every
            # check of _new_checked: tested here with the fewest calls, as it runs for every group raised.
            if (cls is ExceptionGroup or cls is BaseExceptionGroup) and not args:
                kind = type(exceptions)
                if kind is list or kind is tuple:
                    self: _Self
                    excs: Tuple[BaseException, ...]
                    try:  # TypeError: the message no str, a member's class unhashable (see _split.distinct_types)
                        _str_method(message)
                        count = len(exceptions)
                        if count == 1:
                            # The commonest group, without map's and tuple()'s calls (a sixth of its making on 3.8).
                            # One class: hashed (once), never compared, so kept whatever its metaclass.
                            member, = exceptions
                            member_type = type(member)
                            if issubclass(member_type, Exception):
                                self = _new_exception(ExceptionGroup, message, exceptions)  # type: ignore
                                self._state = message, exceptions if kind is tuple else (member,), {member_type}, None
                                return self
                        elif count == 2:  # a pair, as common: no map or tuple() either (1.7k of 11k instructions, 3.8)
                            member, second = exceptions
                            member_types = {type(member), type(second)}
                            if member_types <= _BUILTIN_EXCEPTIONS or _plain_exceptions(member_types):
                                self = _new_exception(ExceptionGroup, message, exceptions)  # type: ignore
                                excs = exceptions if kind is tuple else (member, second)
                                self._state = message, excs, member_types, None
                                return self
                        elif count <= _SHORT and count:
                            excs = tuple(exceptions)
                            member_types = {*map(type, excs)}
                            if member_types <= _BUILTIN_EXCEPTIONS or _plain_exceptions(member_types):
                                self = _new_exception(ExceptionGroup, message, exceptions)  # type: ignore
                                self._state = message, excs, member_types, None
                                return self
                    except TypeError:
                        pass
            given = (message, exceptions, *args) if exceptions is not MISSING else \
                (message,) if message is not MISSING else ()
            return _new_checked(cls, given)  # type: ignore[return-value]
        except BaseException as error:
            # CPython checks in C: its errors show no frame of ours.  A bare raise adds none (see _handled).
            _frames.strip(error)
            if sys.version_info < (3, 11):  # there the raise takes the traceback from the handled state
                _handled.set_handled(error)
            raise

    message = property(lambda self: self._state[0], _readonly, _readonly, "exception message")
    exceptions = property(lambda self: self._state[1], _readonly, _readonly, "nested exceptions")

    def __str__(self) -> str:
        message, excs, _, _ = self._state
        count = len(excs)
        return f"{message!s} ({count} sub-exception{'s' if count > 1 else ''})"

    def __repr__(self) -> str:
        # BaseExceptionGroup_repr (3.14.1+, gh-141732): the message and the members the group holds, whatever
        # args and the sequence passed in have since become; a list (when args still holds one, alone after the
        # message) shown as a list.
        message, excs, _, excs_repr = self._state
        if excs_repr is None:
            args = self.args
            excs_repr = repr(list(excs) if len(args) == 2 and isinstance(args[1], list) else excs)
        # join, not a format: a str subclass counts for its characters, as %U takes it.
        return "".join((type(self).__name__.rpartition(".")[2], "(", repr_of(message), ", ", excs_repr, ")"))

    __class_getitem__: "Any" = classmethod(_class_getitem)

    def __reduce__(self) -> "Any":
        # The classes claim to live in builtins, as on 3.11, so that tracebacks print "ExceptionGroup";
        # pickle would then look them up there and fail, so the two pickle through a function of ours.
        reduced = super().__reduce__()
        if type(self) in _OWN_CLASSES:
            return (_rebuild, (type(self).__name__, *reduced[1:2]), *reduced[2:])
        return reduced

    def add_note(self, note: str) -> None:
        """Add a note to the exception"""
        add_note_default(self, note)

    def derive(self, excs: "Sequence[BaseException]") -> "BaseExceptionGroup":
        return BaseExceptionGroup(self._state[0], excs)

    def split(self, condition: "_Condition") -> "Tuple[Optional[BaseExceptionGroup], Optional[BaseExceptionGroup]]":
        matcher = matcher_of(condition)
        if matcher(self):
            return self, None
        return _split(self, matcher, True)

    def subgroup(self, condition: "_Condition") -> "Optional[BaseExceptionGroup]":
        matcher = matcher_of(condition)
        if matcher(self):
            return self
        return _split(self, matcher, False)[0]


class ExceptionGroup(BaseExceptionGroup, Exception):
    __module__ = "builtins"


_OWN_CLASSES = (BaseExceptionGroup, ExceptionGroup)
use_classes(BaseExceptionGroup, ExceptionGroup)


def _plain_exceptions(member_types: "Set[type]") -> bool:
    """Whether every class is an Exception whose metaclass is type, hashed by identity (another's may have
    called distinct classes equal, merging them in the set: ``_new_checked`` tells them apart)."""
    for member_type in member_types:  # a loop: no calls to make map() and all()
        if type(member_type) is not type or not issubclass(member_type, Exception):
            return False
    return True


def _new_checked(cls: "Type[BaseExceptionGroup]", args: "Tuple[object, ...]") -> BaseExceptionGroup:
    """BaseExceptionGroup_new: every check, with CPython's errors in its order."""
    if not real_issubclass(BaseExceptionGroup, cls):
        # What type's __new__ wrapper says before it calls BaseExceptionGroup_new.
        raise TypeError(f"BaseExceptionGroup.__new__({cls.__name__}): {cls.__name__} is not a subtype of "
                        "BaseExceptionGroup")
    if len(args) != 2:
        raise TypeError(f"BaseExceptionGroup.__new__() takes exactly 2 arguments ({len(args)} given)")
    message, exceptions = args
    if not real_issubclass(str, type(message)):  # PyUnicode_Check: the real type, whatever __class__ says
        raise TypeError("BaseExceptionGroup.__new__() argument 1 must be str, not "
                        + ("None" if message is None else type(message).__name__))
    excs_repr = None
    kind = type(exceptions)
    if not (real_issubclass(list, kind) or real_issubclass(tuple, kind)):  # PyList_Check, PyTuple_Check
        if not is_sequence(exceptions):
            raise TypeError("second argument (exceptions) must be a sequence")
        # Before the members are looked at: its errors come first.
        excs_repr = repr_of(exceptions)
    excs: Tuple[BaseException, ...] = tuple(exceptions)  # type: ignore[arg-type]
    if not excs:
        raise ValueError("second argument (exceptions) must be a non-empty sequence")

    # C tests each member in turn: an exception by its real type, then an Exception by isinstance(), which asks
    # the __class__ of one whose real type is no Exception (that may run code, and claim Exception).  Per distinct
    # type when every type is an Exception; else member by member, in order.
    # One type found as _split._types_of finds it: a short group's, by hashing (below), with no ==.
    if _PYPY:
        first = type(excs[0])
        one = _one_type(excs, first)
        types = [first] if one else list(map(type, excs))
    else:
        types = list(map(type, excs))
        first, count = types[0], len(types)
        one = count == 1 or (count > _SHORT and types.count(first) == count)
    member_types: Optional[Set[type]]
    if one:
        member_types = {first} if type(first) is type or plain_types((first,)) else None  # tested unhashed
    else:
        # Few distinct types: the set, kept for split (None: a class not plain, only identity tells apart).
        # Many (10,000 classes): checked in the members' order (hash order misses the CPU cache on every one),
        # the set left to the first split.
        member_types = distinct_types(types) if len(types) <= _FEW_TYPES * 8 or \
            len(distinct_types(types[:_FEW_TYPES * 8]) or ()) <= _FEW_TYPES else None
    checked: Any = types if member_types is None else member_types
    # issubclass() with an exact type as the class is the real MRO test (PyObject_IsSubclass's fast path).
    if all(map(issubclass, checked, repeat(Exception))):
        nests_base_exceptions = False
    elif all(map(issubclass, checked, repeat(BaseException))):
        nests_base_exceptions = False in [*map(isinstance, excs, repeat(Exception))]
    else:
        index = next(i for i, t in enumerate(types) if not real_issubclass(BaseException, t))
        # C has asked each member before it isinstance(): for what a __class__ may do or raise.
        [*map(isinstance, excs[:index], repeat(Exception))]
        raise ValueError(f"Item {index} of second argument (exceptions) is not an exception")

    if cls is BaseExceptionGroup:
        if not nests_base_exceptions:
            cls = ExceptionGroup
    elif nests_base_exceptions:
        if cls is ExceptionGroup:
            raise TypeError("Cannot nest BaseExceptions in an ExceptionGroup")
        if real_issubclass(Exception, cls):
            raise TypeError(f"Cannot nest BaseExceptions in {cls.__name__!r}")

    # Keywords are __init__'s to refuse, as in C.
    self: BaseExceptionGroup = _new_exception(cls, message, exceptions)
    self._state = message, excs, member_types, excs_repr  # type: ignore[assignment]  # message: a str, tested
    return self


def _rebuild(name: str, args: "Tuple[Any, ...]") -> BaseException:
    """Unpickle one of the two base classes, as whatever this process uses for them."""
    from exceptstar import _classes

    cls = _classes.ExceptionGroup if name == "ExceptionGroup" else _classes.BaseExceptionGroup
    return cls(*args)


# The two classes are made with BaseException's C __init__ in their type slot, their own staying the visible one.
# Called by type.__call__, BaseExceptionGroup_init is BaseException's (keywords refused in the same words, then
# args set); what ours adds (the unbound call's error, never reaching a mixin's __init__) cannot arise there, and
# its frame was a fifth of making a small group on 3.8.  Assigning BaseException's descriptor sets the slot; the
# real dict (the mappingproxy's) then gets ours back without the slot's update, and setting an attribute resets
# the lookup caches.  Subclasses made later find ours and call it, as they must.  CPython only: PyPy has no slots.
if sys.implementation.name == "cpython":
    import gc

    _own_init = BaseExceptionGroup.__dict__["__init__"]
    BaseExceptionGroup.__init__ = _base_init  # type: ignore[method-assign, assignment]
    gc.get_referents(BaseExceptionGroup.__dict__)[0]["__init__"] = _own_init
    BaseExceptionGroup._cache_reset = None  # type: ignore[attr-defined]
    del BaseExceptionGroup._cache_reset, _own_init  # type: ignore[attr-defined]
