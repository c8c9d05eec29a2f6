# Typing only: what the name bound by `except* T as e` is, for the stubs that
# exceptstar._compiler.stubs writes into the wheels of projects that use except*.
#
# Such a stub turns each `except* T` into `except group(T)`: `group` gives the
# class whose instances 3.11's checkers give the name, ExceptionGroup of the
# union of the types when every one is an Exception, else BaseExceptionGroup
# (mypy's rule, and the runtime's).  A tuple gets one type variable per class,
# so that the union keeps each class (a single variable would be solved to
# their join); past six classes, or a tuple of unknown length, it is the join.
# Nothing imports this at run time.  The overloads overlap where a tuple of
# Exceptions is also one of BaseExceptions: the first that applies is meant.
# mypy: disable-error-code="overload-overlap"

from typing import TypeVar, overload

from exceptstar import BaseExceptionGroup, ExceptionGroup

_E1 = TypeVar("_E1", bound=Exception)
_E2 = TypeVar("_E2", bound=Exception)
_E3 = TypeVar("_E3", bound=Exception)
_E4 = TypeVar("_E4", bound=Exception)
_E5 = TypeVar("_E5", bound=Exception)
_E6 = TypeVar("_E6", bound=Exception)
_B1 = TypeVar("_B1", bound=BaseException)
_B2 = TypeVar("_B2", bound=BaseException)
_B3 = TypeVar("_B3", bound=BaseException)
_B4 = TypeVar("_B4", bound=BaseException)
_B5 = TypeVar("_B5", bound=BaseException)
_B6 = TypeVar("_B6", bound=BaseException)

@overload
def group(types: type[_E1], /) -> type[ExceptionGroup[_E1]]: ...
@overload
def group(types: type[_B1], /) -> type[BaseExceptionGroup[_B1]]: ...
@overload
def group(types: tuple[type[_E1]], /) -> type[ExceptionGroup[_E1]]: ...
@overload
def group(types: tuple[type[_B1]], /) -> type[BaseExceptionGroup[_B1]]: ...
@overload
def group(types: tuple[type[_E1], type[_E2]], /) -> type[ExceptionGroup[_E1 | _E2]]: ...
@overload
def group(types: tuple[type[_B1], type[_B2]], /) -> type[BaseExceptionGroup[_B1 | _B2]]: ...
@overload
def group(types: tuple[type[_E1], type[_E2], type[_E3]], /) -> type[ExceptionGroup[_E1 | _E2 | _E3]]: ...
@overload
def group(types: tuple[type[_B1], type[_B2], type[_B3]], /) -> type[BaseExceptionGroup[_B1 | _B2 | _B3]]: ...
@overload
def group(
    types: tuple[type[_E1], type[_E2], type[_E3], type[_E4]], /
) -> type[ExceptionGroup[_E1 | _E2 | _E3 | _E4]]: ...
@overload
def group(
    types: tuple[type[_B1], type[_B2], type[_B3], type[_B4]], /
) -> type[BaseExceptionGroup[_B1 | _B2 | _B3 | _B4]]: ...
@overload
def group(
    types: tuple[type[_E1], type[_E2], type[_E3], type[_E4], type[_E5]], /
) -> type[ExceptionGroup[_E1 | _E2 | _E3 | _E4 | _E5]]: ...
@overload
def group(
    types: tuple[type[_B1], type[_B2], type[_B3], type[_B4], type[_B5]], /
) -> type[BaseExceptionGroup[_B1 | _B2 | _B3 | _B4 | _B5]]: ...
@overload
def group(
    types: tuple[type[_E1], type[_E2], type[_E3], type[_E4], type[_E5], type[_E6]], /
) -> type[ExceptionGroup[_E1 | _E2 | _E3 | _E4 | _E5 | _E6]]: ...
@overload
def group(
    types: tuple[type[_B1], type[_B2], type[_B3], type[_B4], type[_B5], type[_B6]], /
) -> type[BaseExceptionGroup[_B1 | _B2 | _B3 | _B4 | _B5 | _B6]]: ...
@overload
def group(types: tuple[type[_E1], ...], /) -> type[ExceptionGroup[_E1]]: ...
@overload
def group(types: tuple[type[_B1], ...], /) -> type[BaseExceptionGroup[_B1]]: ...
