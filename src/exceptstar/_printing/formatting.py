"""Tracebacks of exception groups and notes: the ``traceback``-style public API.

Three cases, chosen once at import:

* 3.13+ with the built-in groups: the standard library already does all of
  it, so its objects are re-exported unchanged.
* 3.11 and 3.12 with the built-in groups: the standard library's
  ``TracebackException`` gains only what those versions lack,
  ``format_exception_only(show_group=...)``.
* 3.8-3.10, and any version with ``EXCEPTSTAR_PURE=1``: exceptstar's own
  ``TracebackException`` (``pure_traceback``) and the functions around it.

This module is only imported on first use (lazy ``__getattr__`` in the
package, or the printing hooks of ``patches``), so it may import ``traceback``.
"""

import sys

# First, before pure_traceback: on 3.8-3.10 this import is what makes
# patches put exceptstar's class into the traceback module.
import traceback

from exceptstar import _classes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import IO, Any, Iterator, List, Optional, Tuple, Type

# typing.overload for type checkers; at run time (no ``typing`` import) the last
# definition is the function.  In this order linters see typing's decorator.
if not TYPE_CHECKING:
    def overload(func: object) -> object:
        return func
else:  # pragma: no cover
    from typing import overload

__all__ = [
    "TracebackException",
    "format_exc",
    "format_exception",
    "format_exception_only",
    "print_exc",
    "print_exception",
]

class _Sentinel:
    def __repr__(self) -> str:
        return "<implicit>"


_sentinel: "Any" = _Sentinel()


def _parse_value_tb(exc: object, value: object, tb: object) -> "Tuple[Any, Any]":
    """Accept both ``(exc)`` and ``(type, value, tb)``, as 3.10+ does."""
    if (value is _sentinel) != (tb is _sentinel):
        raise ValueError("Both or neither of value and tb must be given")
    if value is _sentinel:
        if exc is None:
            return None, None
        if isinstance(exc, BaseException):
            return exc, exc.__traceback__
        raise TypeError(f"Exception expected for value, {type(exc).__name__} found")
    return value, tb


# Each function takes the exception alone or the (type, value, tb) triple, as
# the standard library's do since 3.10: one overload per call form, as typeshed
# declares them, so that type checkers of any target accept both.
@overload
def _format_exception_only(
    exc: "Optional[Type[BaseException]]", /, value: "Optional[BaseException]" = ..., *,
    show_group: bool = False,
) -> "List[str]": ...
@overload
def _format_exception_only(exc: BaseException, /, *, show_group: bool = False) -> "List[str]": ...
def _format_exception_only(
    exc: "Any", /, value: "Any" = _sentinel, *, show_group: bool = False, **kwargs: "Any"
) -> "List[str]":
    """The message lines of an exception, then its notes; with ``show_group``, its members."""
    if value is _sentinel:
        value = exc
    te = TracebackException(type(value), value, None, compact=True)
    return list(te.format_exception_only(show_group=show_group, colorize=kwargs.get("colorize", False)))


# Type checkers take the standard library's types on 3.11+ (the pure class is a
# subclass of its TracebackException there); EXCEPTSTAR_PURE=1 is the tests' switch.
if sys.version_info >= (3, 13) and (TYPE_CHECKING or not _classes.PURE):  # pragma: no cover - mypy: the pure branch
    from traceback import (
        TracebackException,
        format_exc,
        format_exception,
        format_exception_only,
        print_exc,
        print_exception,
    )

elif sys.version_info >= (3, 11) and (TYPE_CHECKING or not _classes.PURE):  # pragma: no cover - 3.11/3.12
    from traceback import format_exc, format_exception, print_exc, print_exception

    from exceptstar._printing.layout import Layout, group_lines

    _StdTracebackException = traceback.TracebackException

    def _std_layout(node: "Any") -> Layout:
        exc_type = node.exc_type
        lines = _StdTracebackException.format_exception_only(node)
        if exc_type is None:
            return Layout(lines, False, False)
        return Layout(lines, not issubclass(exc_type, SyntaxError), True)

    class TracebackException(_StdTracebackException):  # type: ignore[no-redef]
        __doc__ = _StdTracebackException.__doc__
        # Members are made this class too (below).
        exceptions: "Optional[List[TracebackException]]"

        def __init__(self, *args: "Any", **kwargs: "Any") -> None:
            super().__init__(*args, **kwargs)
            # The standard library builds causes, contexts and members as its
            # own class; make them ours, so that they too take show_group.
            pending = [self.__cause__, self.__context__, *(self.exceptions or ())]
            seen = {id(self)}
            while pending:
                node = pending.pop()
                if node is None or id(node) in seen:
                    continue
                seen.add(id(node))
                if type(node) is _StdTracebackException:
                    node.__class__ = type(self)
                pending.extend((node.__cause__, node.__context__, *(node.exceptions or ())))

        def format_exception_only(  # type: ignore[override]
            self, *, show_group: bool = False, _depth: int = 0, **kwargs: "Any"
        ) -> "Iterator[str]":
            """Format the exception part of the traceback (``show_group`` as 3.13)."""
            return group_lines(self, _std_layout, show_group, _depth)

    format_exception_only = _format_exception_only  # type: ignore[assignment]

else:
    from exceptstar._printing.pure_traceback import TracebackException

    @overload
    def print_exception(
        exc: "Optional[Type[BaseException]]", /, value: "Optional[BaseException]" = ...,
        tb: "Optional[TracebackType]" = ..., limit: "Optional[int]" = None,
        file: "Optional[IO[str]]" = None, chain: bool = True,
    ) -> None: ...
    @overload
    def print_exception(
        exc: BaseException, /, *, limit: "Optional[int]" = None, file: "Optional[IO[str]]" = None,
        chain: bool = True,
    ) -> None: ...
    def print_exception(
        exc: "Any", /, value: "Any" = _sentinel, tb: "Any" = _sentinel,
        limit: "Optional[int]" = None, file: "Optional[IO[str]]" = None, chain: bool = True,
        **kwargs: "Any",
    ) -> None:
        """Print an exception, its chain and its group members to ``file`` (stderr).

        Called as ``print_exception(exc)`` or as ``print_exception(type, value, tb)``.
        """
        value, tb = _parse_value_tb(exc, value, tb)
        te = TracebackException(type(value), value, tb, limit=limit, compact=True)
        te.print(file=file, chain=chain, colorize=kwargs.get("colorize", False))

    @overload
    def format_exception(
        exc: "Optional[Type[BaseException]]", /, value: "Optional[BaseException]" = ...,
        tb: "Optional[TracebackType]" = ..., limit: "Optional[int]" = None, chain: bool = True,
    ) -> "List[str]": ...
    @overload
    def format_exception(
        exc: BaseException, /, *, limit: "Optional[int]" = None, chain: bool = True,
    ) -> "List[str]": ...
    def format_exception(
        exc: "Any", /, value: "Any" = _sentinel, tb: "Any" = _sentinel,
        limit: "Optional[int]" = None, chain: bool = True, **kwargs: "Any",
    ) -> "List[str]":
        """The lines ``print_exception`` prints, each ending in a newline."""
        value, tb = _parse_value_tb(exc, value, tb)
        te = TracebackException(type(value), value, tb, limit=limit, compact=True)
        return list(te.format(chain=chain, colorize=kwargs.get("colorize", False)))

    format_exception_only = _format_exception_only

    def print_exc(limit: "Optional[int]" = None, file: "Optional[IO[str]]" = None,
                  chain: bool = True, **kwargs: "Any") -> None:
        """Print the exception being handled, as ``print_exception`` (which gets ``kwargs``, as on 3.15)."""
        print_exception(sys.exc_info()[1], limit=limit, file=file, chain=chain, **kwargs)

    def format_exc(limit: "Optional[int]" = None, chain: bool = True) -> str:
        """The text ``print_exc`` prints, as one string."""
        return "".join(format_exception(sys.exc_info()[1], limit=limit, chain=chain))

