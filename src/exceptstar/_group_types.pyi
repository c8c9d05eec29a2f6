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
# of Exceptions, as for the built-ins.
_MemberT_co = TypeVar("_MemberT_co", bound=BaseException, covariant=True, default=BaseException)
_ExcMemberT_co = TypeVar("_ExcMemberT_co", bound=Exception, covariant=True, default=Exception)
# The type a split or subgroup selects.
_SelectedT = TypeVar("_SelectedT", bound=BaseException)
_SelectedExcT = TypeVar("_SelectedExcT", bound=Exception)

class BaseExceptionGroup(BaseException, Generic[_MemberT_co]):
    def __new__(cls, message: str, exceptions: Sequence[_MemberT_co], /) -> Self: ...
    def __init__(self, message: str, exceptions: Sequence[_MemberT_co], /) -> None: ...
    @property
    def message(self) -> str: ...
    # A member is a leaf of the member type or a nested group of them.
    @property
    def exceptions(self) -> tuple[_MemberT_co | BaseExceptionGroup[_MemberT_co], ...]: ...
    # Selecting Exception types gives an ExceptionGroup (the runtime picks the
    # class by the members' types); a predicate keeps the member type.
    @overload
    def subgroup(
        self, condition: type[_SelectedExcT] | tuple[type[_SelectedExcT], ...], /
    ) -> ExceptionGroup[_SelectedExcT] | None: ...
    @overload
    def subgroup(
        self, condition: type[_SelectedT] | tuple[type[_SelectedT], ...], /
    ) -> BaseExceptionGroup[_SelectedT] | None: ...
    @overload
    def subgroup(
        self, condition: Callable[[_MemberT_co | Self], bool], /
    ) -> BaseExceptionGroup[_MemberT_co] | None: ...
    @overload
    def split(
        self, condition: type[_SelectedExcT] | tuple[type[_SelectedExcT], ...], /
    ) -> tuple[ExceptionGroup[_SelectedExcT] | None, BaseExceptionGroup[_MemberT_co] | None]: ...
    @overload
    def split(
        self, condition: type[_SelectedT] | tuple[type[_SelectedT], ...], /
    ) -> tuple[BaseExceptionGroup[_SelectedT] | None, BaseExceptionGroup[_MemberT_co] | None]: ...
    @overload
    def split(
        self, condition: Callable[[_MemberT_co | Self], bool], /
    ) -> tuple[BaseExceptionGroup[_MemberT_co] | None, BaseExceptionGroup[_MemberT_co] | None]: ...
    @overload
    def derive(self, excs: Sequence[_SelectedExcT], /) -> ExceptionGroup[_SelectedExcT]: ...
    @overload
    def derive(self, excs: Sequence[_SelectedT], /) -> BaseExceptionGroup[_SelectedT]: ...

class ExceptionGroup(BaseExceptionGroup[_ExcMemberT_co], Exception):
    def __new__(cls, message: str, exceptions: Sequence[_ExcMemberT_co], /) -> Self: ...
    def __init__(self, message: str, exceptions: Sequence[_ExcMemberT_co], /) -> None: ...
    @property
    def exceptions(self) -> tuple[_ExcMemberT_co | ExceptionGroup[_ExcMemberT_co], ...]: ...
    # Everything in an ExceptionGroup is an Exception, so both sides of a split
    # stay ExceptionGroups: narrower than the base class's results, hence the
    # ignored override checks.
    @overload  # type: ignore[override]
    def subgroup(
        self, condition: type[_SelectedExcT] | tuple[type[_SelectedExcT], ...], /
    ) -> ExceptionGroup[_SelectedExcT] | None: ...
    @overload
    def subgroup(
        self, condition: Callable[[_ExcMemberT_co | Self], bool], /
    ) -> ExceptionGroup[_ExcMemberT_co] | None: ...
    @overload  # type: ignore[override]
    def split(
        self, condition: type[_SelectedExcT] | tuple[type[_SelectedExcT], ...], /
    ) -> tuple[ExceptionGroup[_SelectedExcT] | None, ExceptionGroup[_ExcMemberT_co] | None]: ...
    @overload
    def split(
        self, condition: Callable[[_ExcMemberT_co | Self], bool], /
    ) -> tuple[ExceptionGroup[_ExcMemberT_co] | None, ExceptionGroup[_ExcMemberT_co] | None]: ...
