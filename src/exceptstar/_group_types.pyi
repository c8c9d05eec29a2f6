# What type checkers see as exceptstar's group classes on 3.8-3.10 targets.
#
# The runtime classes (_groups) are plain classes; type checkers need them
# generic in their members, with the precise split/subgroup/derive results that
# the built-in classes have on 3.11+, so that code written against
# exceptstar.ExceptionGroup checks the same on every target.  Only _classes
# imports this stub, and only for type checkers; nothing imports it at run time.

from collections.abc import Callable, Sequence
from typing import Generic, overload

from typing_extensions import Self, TypeVar

# The members' type, read-only (hence covariant); a bare ExceptionGroup is one
# of Exceptions, as for the built-ins.  Named as typeshed names the built-ins'
# TypeVars, so that a checker's messages read as they do at 3.11 (the pyright
# route's builtins are these classes).
_BaseExceptionT_co = TypeVar("_BaseExceptionT_co", bound=BaseException, covariant=True, default=BaseException)
_ExceptionT_co = TypeVar("_ExceptionT_co", bound=Exception, covariant=True, default=Exception)
# The type a split or subgroup selects.
_BaseExceptionT = TypeVar("_BaseExceptionT", bound=BaseException)
_ExceptionT = TypeVar("_ExceptionT", bound=Exception)

class BaseExceptionGroup(BaseException, Generic[_BaseExceptionT_co]):
    def __new__(cls, message: str, exceptions: Sequence[_BaseExceptionT_co], /) -> Self: ...
    def __init__(self, message: str, exceptions: Sequence[_BaseExceptionT_co], /) -> None: ...
    @property
    def message(self) -> str: ...
    # A member is a leaf of the member type or a nested group of them.
    @property
    def exceptions(self) -> tuple[_BaseExceptionT_co | BaseExceptionGroup[_BaseExceptionT_co], ...]: ...
    # Selecting Exception types gives an ExceptionGroup (the runtime picks the
    # class by the members' types); a predicate keeps the member type.
    @overload
    def subgroup(
        self, condition: type[_ExceptionT] | tuple[type[_ExceptionT], ...], /
    ) -> ExceptionGroup[_ExceptionT] | None: ...
    @overload
    def subgroup(
        self, condition: type[_BaseExceptionT] | tuple[type[_BaseExceptionT], ...], /
    ) -> BaseExceptionGroup[_BaseExceptionT] | None: ...
    @overload
    def subgroup(
        self, condition: Callable[[_BaseExceptionT_co | Self], bool], /
    ) -> BaseExceptionGroup[_BaseExceptionT_co] | None: ...
    @overload
    def split(
        self, condition: type[_ExceptionT] | tuple[type[_ExceptionT], ...], /
    ) -> tuple[ExceptionGroup[_ExceptionT] | None, BaseExceptionGroup[_BaseExceptionT_co] | None]: ...
    @overload
    def split(
        self, condition: type[_BaseExceptionT] | tuple[type[_BaseExceptionT], ...], /
    ) -> tuple[BaseExceptionGroup[_BaseExceptionT] | None, BaseExceptionGroup[_BaseExceptionT_co] | None]: ...
    @overload
    def split(
        self, condition: Callable[[_BaseExceptionT_co | Self], bool], /
    ) -> tuple[BaseExceptionGroup[_BaseExceptionT_co] | None, BaseExceptionGroup[_BaseExceptionT_co] | None]: ...
    @overload
    def derive(self, excs: Sequence[_ExceptionT], /) -> ExceptionGroup[_ExceptionT]: ...
    @overload
    def derive(self, excs: Sequence[_BaseExceptionT], /) -> BaseExceptionGroup[_BaseExceptionT]: ...

class ExceptionGroup(BaseExceptionGroup[_ExceptionT_co], Exception):
    def __new__(cls, message: str, exceptions: Sequence[_ExceptionT_co], /) -> Self: ...
    def __init__(self, message: str, exceptions: Sequence[_ExceptionT_co], /) -> None: ...
    @property
    def exceptions(self) -> tuple[_ExceptionT_co | ExceptionGroup[_ExceptionT_co], ...]: ...
    # Everything in an ExceptionGroup is an Exception, so both sides of a split
    # stay ExceptionGroups: narrower than the base class's results, hence the
    # ignored override checks.
    @overload  # type: ignore[override]
    def subgroup(
        self, condition: type[_ExceptionT] | tuple[type[_ExceptionT], ...], /
    ) -> ExceptionGroup[_ExceptionT] | None: ...
    @overload
    def subgroup(
        self, condition: Callable[[_ExceptionT_co | Self], bool], /
    ) -> ExceptionGroup[_ExceptionT_co] | None: ...
    @overload  # type: ignore[override]
    def split(
        self, condition: type[_ExceptionT] | tuple[type[_ExceptionT], ...], /
    ) -> tuple[ExceptionGroup[_ExceptionT] | None, ExceptionGroup[_ExceptionT_co] | None]: ...
    @overload
    def split(
        self, condition: Callable[[_ExceptionT_co | Self], bool], /
    ) -> tuple[ExceptionGroup[_ExceptionT_co] | None, ExceptionGroup[_ExceptionT_co] | None]: ...
