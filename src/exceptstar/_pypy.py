"""What PyPy does otherwise than CPython where the ``except*`` engine runs, and how the engine makes up for it.

Only the engine calls these, and only on PyPy: ``calls_match`` (an interrupt
a tracer raises at ``match``'s call event, which PyPy gives no traceback
entry), and on PyPy 3.11, where an exception's first ``__context__`` is kept
for good, ``split_builtin`` (the built-in groups' split as CPython's, which
leaves a None context unset) and ``settle_context``.
"""

import builtins

from exceptstar._rules import matcher_of
from exceptstar._split import _split

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import List, Optional, Tuple

    from exceptstar._groups import BaseExceptionGroup
    from exceptstar._rules import Matcher
    from exceptstar._split import _Walk

_BUILTIN_GROUP: type = getattr(builtins, "BaseExceptionGroup", BaseException)
_BUILTIN_SPLIT = getattr(_BUILTIN_GROUP, "split", None)


def calls_match(tb: "TracebackType") -> bool:
    """Whether the instruction of ``tb`` is the guard's call of ``match``: the next one stores its part."""
    import dis

    found = False
    for instruction in dis.get_instructions(tb.tb_frame.f_code):
        if found and instruction.opname != "EXTENDED_ARG":
            return instruction.opname.startswith("STORE_") and str(instruction.argval).startswith("__es_part_")
        found = found or instruction.offset == tb.tb_lasti
    return False


def split_builtin(group: BaseException, types: object) -> object:
    """``group.split(types)``, PyPy 3.11's built-in split done as CPython does it (``split_any``)."""
    if getattr(type(group), "split", None) is _BUILTIN_SPLIT:
        return split_any(group, types, _BUILTIN_GROUP)
    return group.split(types)  # type: ignore[attr-defined]


def split_any(
    group: BaseException, condition: object, groups: type
) -> "Tuple[Optional[BaseException], Optional[BaseException]]":
    """``group.split(condition)`` as CPython's C code splits it, for a group of any class.

    ``groups``: the class whose instances are groups (CPython's
    ``_PyBaseExceptionGroup_Check``).  Parts are made by ``subset``: for the
    engine on PyPy 3.11, whose own split assigns each part its ``__context__``
    (None too), which PyPy then never replaces when the part is raised.
    """
    matcher = matcher_of(condition)
    if matcher(group):
        return group, None
    return _split(group, matcher, True, groups, _walk_members)  # type: ignore[arg-type]


def _walk_members(group: "BaseExceptionGroup", matcher: "Matcher", construct_rest: bool, stack: "List[_Walk]") -> None:
    """``_split``'s opener for groups of any class: every member is walked (and matched) one by one."""
    stack.append((group, iter(group.exceptions), [], [], None))


def settle_context(result: BaseException, orig: "Optional[BaseException]") -> None:
    """On PyPy 3.11, keep the ``__context__`` of ``result`` as it is when a bare ``raise`` re-raises it.

    PyPy 3.11 gives an exception whose ``__context__`` was never set one the
    first time it is raised or re-raised, from the exception handled where it
    arrives: after a bare raise, the one handled before the statement, which
    the body's exception got as its own.  An assigned None is kept for good
    (PyPy never replaces a context, where CPython gives one at each raise), so
    it is assigned only where one would come.
    """
    if result.__context__ is None and orig is not None and orig.__context__ is not None:
        result.__context__ = None
