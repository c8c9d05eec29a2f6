"""``RaisesGroup``: the expected members of an exception group, pytest 9's API with optimal and ordered matching."""

from __future__ import annotations

from textwrap import indent
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    List,
    Pattern,
    Sequence,
    Tuple,
    Type,
    TypeVar,
    Union,
    overload,
)

from exceptstar.testing import _matching
from exceptstar.testing._base import (
    AbstractRaises,
    BaseExcT_1,
    BaseExcT_co,
    check_raw_type,
    fail,
    is_group,
    new_info,
    pattern_repr,
    type_name,
)
from exceptstar.testing._exc import RaisesExc

# unittest leaves frames of modules that set this out of its failure reports.
__unittest = True

if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType

    from typing_extensions import Literal, TypeGuard

    from exceptstar._classes import BaseExceptionGroup, ExceptionGroup
    from exceptstar.testing._base import ExceptionInfo

BaseExcT_2 = TypeVar("BaseExcT_2", bound=BaseException)
ExcT_1 = TypeVar("ExcT_1", bound=Exception)
ExcT_2 = TypeVar("ExcT_2", bound=Exception)
Expected = Union[Type[BaseException], "RaisesExc[BaseException]", "RaisesGroup[BaseException]"]


class RaisesGroup(AbstractRaises["BaseExceptionGroup[BaseExcT_co]"]):
    """Expect an exception group whose members are the expected exceptions, in any order.

    Exactly pytest 9's ``RaisesGroup`` (``allow_unwrapped``, ``flatten_subgroups``,
    ``match``, ``check``), except that it fails only when no assignment of the
    members to the expectations exists, and that ``ordered=True`` asks for the
    members in the order given.
    """

    @overload
    def __init__(
        self,
        expected_exception: Union[Type[BaseExcT_co], RaisesExc[BaseExcT_co]],
        /,
        *,
        allow_unwrapped: Literal[True],
        flatten_subgroups: bool = False,
        ordered: bool = False,
    ) -> None: ...

    @overload
    def __init__(
        self,
        expected_exception: Union[Type[BaseExcT_co], RaisesExc[BaseExcT_co]],
        /,
        *other_exceptions: Union[Type[BaseExcT_co], RaisesExc[BaseExcT_co]],
        flatten_subgroups: Literal[True],
        match: Union[str, Pattern[str], None] = None,
        check: Callable[[BaseExceptionGroup[BaseExcT_co]], bool] | None = None,
        ordered: bool = False,
    ) -> None: ...

    @overload
    def __init__(
        self: RaisesGroup[ExcT_1],
        expected_exception: Union[Type[ExcT_1], RaisesExc[ExcT_1]],
        /,
        *other_exceptions: Union[Type[ExcT_1], RaisesExc[ExcT_1]],
        match: Union[str, Pattern[str], None] = None,
        check: Callable[[ExceptionGroup[ExcT_1]], bool] | None = None,
        ordered: bool = False,
    ) -> None: ...

    @overload
    def __init__(
        self: RaisesGroup[ExceptionGroup[ExcT_2]],
        expected_exception: RaisesGroup[ExcT_2],
        /,
        *other_exceptions: RaisesGroup[ExcT_2],
        match: Union[str, Pattern[str], None] = None,
        check: Callable[[ExceptionGroup[ExceptionGroup[ExcT_2]]], bool] | None = None,
        ordered: bool = False,
    ) -> None: ...

    @overload
    def __init__(
        self: RaisesGroup[Union[ExcT_1, ExceptionGroup[ExcT_2]]],
        expected_exception: Union[Type[ExcT_1], RaisesExc[ExcT_1], RaisesGroup[ExcT_2]],
        /,
        *other_exceptions: Union[Type[ExcT_1], RaisesExc[ExcT_1], RaisesGroup[ExcT_2]],
        match: Union[str, Pattern[str], None] = None,
        check: Callable[[ExceptionGroup[Union[ExcT_1, ExceptionGroup[ExcT_2]]]], bool] | None = None,
        ordered: bool = False,
    ) -> None: ...

    @overload
    def __init__(
        self: RaisesGroup[BaseExcT_1],
        expected_exception: Union[Type[BaseExcT_1], RaisesExc[BaseExcT_1]],
        /,
        *other_exceptions: Union[Type[BaseExcT_1], RaisesExc[BaseExcT_1]],
        match: Union[str, Pattern[str], None] = None,
        check: Callable[[BaseExceptionGroup[BaseExcT_1]], bool] | None = None,
        ordered: bool = False,
    ) -> None: ...

    @overload
    def __init__(
        self: RaisesGroup[BaseExceptionGroup[BaseExcT_2]],
        expected_exception: RaisesGroup[BaseExcT_2],
        /,
        *other_exceptions: RaisesGroup[BaseExcT_2],
        match: Union[str, Pattern[str], None] = None,
        check: Callable[[BaseExceptionGroup[BaseExceptionGroup[BaseExcT_2]]], bool] | None = None,
        ordered: bool = False,
    ) -> None: ...

    @overload
    def __init__(
        self: RaisesGroup[Union[BaseExcT_1, BaseExceptionGroup[BaseExcT_2]]],
        expected_exception: Union[Type[BaseExcT_1], RaisesExc[BaseExcT_1], RaisesGroup[BaseExcT_2]],
        /,
        *other_exceptions: Union[Type[BaseExcT_1], RaisesExc[BaseExcT_1], RaisesGroup[BaseExcT_2]],
        match: Union[str, Pattern[str], None] = None,
        check: Callable[[BaseExceptionGroup[Union[BaseExcT_1, BaseExceptionGroup[BaseExcT_2]]]], bool] | None = None,
        ordered: bool = False,
    ) -> None: ...

    def __init__(
        self,
        expected_exception: Any,
        /,
        *other_exceptions: Any,
        allow_unwrapped: bool = False,
        flatten_subgroups: bool = False,
        match: Union[str, Pattern[str], None] = None,
        check: Callable[[Any], bool] | None = None,
        ordered: bool = False,
    ) -> None:
        super().__init__(match=match, check=check)
        self.allow_unwrapped = allow_unwrapped
        self.flatten_subgroups = flatten_subgroups
        self.ordered = ordered
        if allow_unwrapped and other_exceptions:
            raise ValueError(
                "You cannot specify multiple exceptions with `allow_unwrapped=True.`"
                " If you want to match one of multiple possible exceptions you should"
                " use a `RaisesExc`."
                " E.g. `RaisesExc(check=lambda e: isinstance(e, (...)))`",
            )
        if allow_unwrapped and isinstance(expected_exception, RaisesGroup):
            raise ValueError(
                "`allow_unwrapped=True` has no effect when expecting a `RaisesGroup`."
                " You might want it in the expected `RaisesGroup`, or"
                " `flatten_subgroups=True` if you don't care about the structure.",
            )
        if allow_unwrapped and (match is not None or check is not None):
            raise ValueError(
                "`allow_unwrapped=True` bypasses the `match` and `check` parameters"
                " if the exception is unwrapped. If you intended to match/check the"
                " exception you should use a `RaisesExc` object. If you want to match/check"
                " the exceptiongroup when the exception *is* wrapped you need to"
                " do e.g. `if isinstance(exc.value, ExceptionGroup):"
                " assert RaisesGroup(...).matches(exc.value)` afterwards.",
            )
        self.expected_exceptions: Tuple[Expected, ...] = tuple(
            self._parse_expected(e, "a BaseException type, RaisesExc, or RaisesGroup")
            for e in (expected_exception, *other_exceptions)
        )

    def _parse_expected(self, exc: object, expected: str) -> Expected:
        if isinstance(exc, RaisesGroup) and self.flatten_subgroups:
            raise ValueError(
                "You cannot specify a nested structure inside a RaisesGroup with"
                " `flatten_subgroups=True`. The parameter will flatten subgroups"
                " in the raised exceptiongroup before matching, which would never"
                " match a nested structure.",
            )
        if isinstance(exc, (RaisesGroup, RaisesExc)):
            self.is_baseexception |= exc.is_baseexception
            exc._nested = True
            return exc
        if isinstance(exc, tuple):
            raise TypeError(
                f"Expected {expected}, but got {type(exc).__name__!r}.\n"
                "RaisesGroup does not support tuples of exception types when expecting one of "
                "several possible exception types like RaisesExc.\n"
                "If you meant to expect a group with multiple exceptions, list them as separate arguments."
            )
        return self._parse_exc(exc, expected)

    @overload
    def __enter__(self: RaisesGroup[ExcT_1]) -> ExceptionInfo[ExceptionGroup[ExcT_1]]: ...

    @overload
    def __enter__(self: RaisesGroup[BaseExcT_1]) -> ExceptionInfo[BaseExceptionGroup[BaseExcT_1]]: ...

    def __enter__(self) -> ExceptionInfo[Any]:
        self.excinfo: ExceptionInfo[Any] = new_info()
        return self.excinfo

    def __repr__(self) -> str:
        shown = [e.__name__ if isinstance(e, type) else repr(e) for e in self.expected_exceptions]
        for name in ("allow_unwrapped", "flatten_subgroups", "ordered"):
            if getattr(self, name):
                shown.append(f"{name}=True")
        if self.match is not None:
            shown.append(f"match={pattern_repr(self.match)!r}")
        if self.check is not None:
            shown.append(f"check={self.check!r}")
        return f"RaisesGroup({', '.join(shown)})"

    @staticmethod
    def _flatten(exceptions: Sequence[BaseException]) -> List[BaseException]:
        flat: List[BaseException] = []
        for exc in exceptions:
            flat.extend(RaisesGroup._flatten(exc.exceptions) if is_group(exc) else [exc])  # type: ignore[attr-defined]
        return flat

    @overload
    def matches(self: RaisesGroup[ExcT_1], exception: BaseException | None) -> TypeGuard[ExceptionGroup[ExcT_1]]: ...

    @overload
    def matches(
        self: RaisesGroup[BaseExcT_1], exception: BaseException | None
    ) -> TypeGuard[BaseExceptionGroup[BaseExcT_1]]: ...

    def matches(self, exception: BaseException | None) -> bool:
        """Whether ``exception`` is a group as expected; if not, ``fail_reason`` says why."""
        self._fail_reason = None
        if exception is None:
            self._fail_reason = "exception is None"
            return False
        if not is_group(exception):
            not_group = f"`{type(exception).__name__}()` is not an exception group"
            if len(self.expected_exceptions) > 1:
                self._fail_reason = not_group
                return False
            reason = _check_expected(self.expected_exceptions[0], exception)
            if reason is None and self.allow_unwrapped:
                return True
            if reason is None:
                self._fail_reason = f"{not_group}, but would match with `allow_unwrapped=True`"
            else:
                self._fail_reason = reason if self.allow_unwrapped else not_group
            return False
        members: Sequence[BaseException] = exception.exceptions  # type: ignore[attr-defined]
        if self.flatten_subgroups:
            members = self._flatten(members)
        if not self._check_match(exception):
            self._hint_match(members)
            return False
        if not self._check_members(members):
            self._hint_flatten(exception)
            return False
        if not self._check_check(exception):
            self._hint_check(exception, members)
            return False
        return True

    def _hint_match(self, members: Sequence[BaseException]) -> None:
        reason = str(self._fail_reason)
        expected = self.expected_exceptions[0]
        if (
            len(members) == len(self.expected_exceptions) == 1
            and isinstance(expected, type)
            and isinstance(members[0], expected)
            and self._check_match(members[0])
        ):
            assert self.match is not None
            reason += (
                f"\n but matched the expected `{_repr_expected(expected)}`.\n"
                f" You might want "
                f"`RaisesGroup(RaisesExc({expected.__name__}, match={pattern_repr(self.match)!r}))`"
            )
        self._fail_reason = reason

    def _hint_flatten(self, exception: BaseException) -> None:
        reason = str(self._fail_reason)
        members = exception.exceptions  # type: ignore[attr-defined]
        if (
            not self.flatten_subgroups
            and not any(isinstance(e, RaisesGroup) for e in self.expected_exceptions)
            and any(is_group(e) for e in members)
            and self._check_members(self._flatten(members))
        ):
            # A one-line reason gets the hint indented under it; a multi-line one has its own indented lines.
            reason += "\n" + ("  " if "\n" not in reason else "") + "Did you mean to use `flatten_subgroups=True`?"
        self._fail_reason = reason

    def _hint_check(self, exception: BaseException, members: Sequence[BaseException]) -> None:
        reason = f"{self._fail_reason} on the {type(exception).__name__}"
        expected = self.expected_exceptions[0]
        if (
            len(members) == len(self.expected_exceptions) == 1
            and isinstance(expected, type)
            and self._check_check(members[0])
        ):
            reason += (
                f", but did return True for the expected {_repr_expected(expected)}."
                f" You might want RaisesGroup(RaisesExc({expected.__name__}, check=<...>))"
            )
        self._fail_reason = reason

    def _check_members(self, members: Sequence[BaseException]) -> bool:
        table = _matching.Table(
            lambda i, member: _check_expected(self.expected_exceptions[i], member),
            len(self.expected_exceptions),
            members,
        )
        return self._check_in_order(table) if self.ordered else self._check_any_order(table)

    def _check_any_order(self, table: _matching.Table) -> bool:
        matches, remaining, failed = _matching.greedy(table)
        if (not remaining and not failed) or _matching.complete_assignment(table):
            return True
        self._fail_reason = _matching.explain(
            table, matches, remaining, failed, lambda i: _repr_expected(self.expected_exceptions[i])
        )
        return False

    def _check_in_order(self, table: _matching.Table) -> bool:
        same_length = len(table.actual) == table.n_expected
        wrong = [i for i in range(table.n_expected) if table.get(i, i) is not None] if same_length else []
        if same_length and not wrong:
            return True
        if not self._check_any_order(table):
            return False
        # They pair, but not in the order given.
        lines = ["The raised exceptions match, but not in the expected order (`ordered=True`):"]
        for i in wrong:
            reason = str(table.get(i, i))
            lines.append(f"  {i}: `{table.actual[i]!r}` is not `{_repr_expected(self.expected_exceptions[i])}`:")
            lines.append(("" if reason[:1] == "\n" else "    ") + reason.replace("\n", "\n    "))
        self._fail_reason = "\n".join(lines)
        return False

    def __exit__(
        self,
        exc_type: Type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool:
        __tracebackhide__ = True
        if exc_type is None or exc_val is None:
            fail(f"DID NOT RAISE any exception, expected `{self.expected_type()}`", self._failure)
        kind = "(group)" if self.allow_unwrapped and not is_group(exc_val) else "group"
        if not self.matches(exc_val):
            fail(f"Raised exception {kind} did not match: {self._fail_reason}", self._failure)
        self.excinfo.fill_unfilled((exc_type, exc_val, exc_tb))
        return True

    def expected_type(self) -> str:
        """The expected group written as a constructor call: ``ExceptionGroup(ValueError, ...)``."""
        shown = []
        for e in self.expected_exceptions:
            if isinstance(e, RaisesGroup):
                shown.append(e.expected_type())
            elif isinstance(e, type):
                shown.append(e.__name__)
            else:
                shown.append(repr(e))
        return f"{'Base' if self.is_baseexception else ''}ExceptionGroup({', '.join(shown)})"


def _check_expected(expected: Expected, exception: BaseException) -> str | None:
    if isinstance(expected, type):
        return check_raw_type(expected, exception)
    if expected.matches(exception):
        return None
    reason = str(expected.fail_reason)
    if reason.startswith("\n"):
        return f"\n{expected!r}: {indent(reason, '  ')}"
    return f"{expected!r}: {reason}"


def _repr_expected(e: Expected) -> str:
    return type_name(e) if isinstance(e, type) else repr(e)
