"""``suppress()``: Python 3.12's ``contextlib.suppress``, on every version.

A group is split with its own ``split`` (ours, a built-in one, the
``exceptiongroup`` backport's); the rest leaves ``__exit__`` with a bare
``raise``, so no frame of exceptstar ends up in a traceback.
"""

from exceptstar import _handled
from exceptstar._catch import _Settle
from exceptstar._classes import group_classes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import Optional, Type

    _ExcType = Optional[Type[BaseException]]
    _Traceback = Optional[TracebackType]


class suppress:
    """Suppress the given exceptions, as Python 3.12's ``contextlib.suppress``, on every version.

    ``with exceptstar.suppress(FileNotFoundError): os.remove(path)``

    A matching exception is suppressed.  From an exception group (ours, a
    built-in one or the ``exceptiongroup`` backport's) the matching part is
    taken out with the group's own ``split`` and the rest, if any, is raised,
    with the original group as its ``__context__``; a group that matches
    entirely is suppressed.
    """

    __slots__ = ("_exceptions",)

    def __init__(self, *exceptions: "Type[BaseException]") -> None:
        self._exceptions = exceptions

    def __enter__(self) -> None:
        return None

    # bool, as typeshed declares contextlib.suppress's: type checkers then know
    # that the with statement may swallow, so the code after it is reachable.
    def __exit__(self, exc_type: "_ExcType", exc: "Optional[BaseException]", tb: "_Traceback") -> bool:
        if exc_type is None:
            return None  # type: ignore[return-value]  # what contextlib's returns
        if issubclass(exc_type, self._exceptions):
            return True
        if issubclass(exc_type, group_classes()):
            _match, rest = exc.split(self._exceptions)  # type: ignore[union-attr]
            if rest is None:
                return True
            _chain(rest, exc)  # type: ignore[arg-type]
            try:
                raise _Settle
            except _Settle:
                # Handled only within this block: see _catch.catch.__exit__.
                _handled.set_handled(rest)
                raise
        return False


def _chain(raised: BaseException, handled: BaseException) -> None:
    """The ``__context__`` that ``raise raised`` would set while ``handled`` is handled.

    As CPython's _PyErr_SetObject: a link in ``handled``'s context chain that
    leads back to ``raised`` is cut so that no cycle forms.
    """
    if raised is handled:
        return
    seen = set()
    node = handled
    while node is not None and id(node) not in seen:
        seen.add(id(node))
        context = node.__context__
        if context is raised:
            node.__context__ = None
            break
        node = context  # type: ignore[assignment]
    raised.__context__ = handled
