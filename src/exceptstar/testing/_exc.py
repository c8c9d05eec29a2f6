"""``RaisesExc``: one expected exception (type, ``match``, ``check``), as pytest 9's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Pattern, Tuple, Type, TypeVar, Union, overload

from exceptstar.testing._base import AbstractRaises, check_raw_type, fail, new_info, pattern_repr, type_name

# unittest leaves frames of modules that set this out of its failure reports.
__unittest = True

if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType

    from typing_extensions import TypeGuard
    from typing_extensions import TypeVar as TypeVarDefault

    from exceptstar.testing._base import ExceptionInfo

    # RaisesExc() with only match or check is RaisesExc[BaseException].
    BaseExcT_co_default = TypeVarDefault(
        "BaseExcT_co_default", bound=BaseException, default=BaseException, covariant=True
    )
else:
    BaseExcT_co_default = TypeVar("BaseExcT_co_default", bound=BaseException, covariant=True)


class RaisesExc(AbstractRaises[BaseExcT_co_default]):
    """Expect one exception: of a type (or of a tuple's), whose message and notes ``match``, passing ``check``.

    As a context manager it is ``pytest.raises``; inside ``RaisesGroup`` it
    expects one member; ``matches(exc)`` tests any exception.
    """

    @overload
    def __init__(
        self,
        expected_exception: Union[Type[BaseExcT_co_default], Tuple[Type[BaseExcT_co_default], ...]],
        /,
        *,
        match: Union[str, Pattern[str], None] = ...,
        check: Callable[[BaseExcT_co_default], bool] | None = ...,
    ) -> None: ...

    @overload
    def __init__(
        self: RaisesExc[BaseException],
        /,
        *,
        match: Union[str, Pattern[str], None],
        check: Callable[[BaseException], bool] | None = ...,
    ) -> None: ...

    @overload
    def __init__(self: RaisesExc[BaseException], /, *, check: Callable[[BaseException], bool]) -> None: ...

    def __init__(
        self,
        expected_exception: Union[Type[Any], Tuple[Type[Any], ...], None] = None,
        /,
        *,
        match: Union[str, Pattern[str], None] = None,
        check: Callable[[Any], bool] | None = None,
    ) -> None:
        super().__init__(match=match, check=check)
        if isinstance(expected_exception, tuple):
            expected: Tuple[object, ...] = expected_exception
        elif expected_exception is None:
            expected = ()
        else:
            expected = (expected_exception,)
        if expected == () and match is None and check is None:
            raise ValueError("You must specify at least one parameter to match on.")
        self.expected_exceptions: Tuple[Type[BaseException], ...] = tuple(
            self._parse_exc(e, expected="a BaseException type") for e in expected
        )
        self._just_propagate = False

    def matches(self, exception: BaseException | None) -> TypeGuard[BaseExcT_co_default]:
        """Whether ``exception`` is as expected; if not, ``fail_reason`` says why."""
        self._just_propagate = False
        if exception is None:
            self._fail_reason = "exception is None"
            return False
        self._fail_reason = check_raw_type(self.expected_exceptions, exception)
        if self._fail_reason is not None:
            self._just_propagate = True
            return False
        if not self._check_match(exception):
            return False
        return self._check_check(exception)

    def __repr__(self) -> str:
        parameters = []
        if self.expected_exceptions:
            parameters.append(type_name(self.expected_exceptions))
        if self.match is not None:
            parameters.append(f"match={pattern_repr(self.match)!r}")
        if self.check is not None:
            parameters.append(f"check={self.check!r}")
        return f"RaisesExc({', '.join(parameters)})"

    def __enter__(self) -> ExceptionInfo[BaseExcT_co_default]:
        self.excinfo: ExceptionInfo[BaseExcT_co_default] = new_info()
        return self.excinfo

    def __exit__(
        self,
        exc_type: Type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool:
        __tracebackhide__ = True
        if exc_type is None or exc_val is None:
            names = [t.__name__ for t in self.expected_exceptions]
            if not names:
                fail("DID NOT RAISE any exception", self._failure)
            if len(names) == 1:
                fail(f"DID NOT RAISE {names[0]}", self._failure)
            fail(f"DID NOT RAISE any of ({', '.join(names)})", self._failure)
        if not self.matches(exc_val):
            if self._just_propagate:
                return False
            raise (self._failure or AssertionError)(self._fail_reason) from None
        self.excinfo.fill_unfilled((exc_type, exc_val, exc_tb))  # type: ignore[arg-type]
        return True
