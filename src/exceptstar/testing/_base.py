"""What ``RaisesExc`` and ``RaisesGroup`` share: the ``match``/``check`` tests, failing, the info object.

A failure is pytest's ``fail()`` while pytest runs a test (``PYTEST_CURRENT_TEST``
is set and pytest is loaded), so it reports as pytest's own classes do; anywhere
else it is an ``AssertionError``, which unittest reports as a failure.  pytest is
never imported here: only used when it is already in ``sys.modules``.
"""

from __future__ import annotations

import os
import re
import sys
import warnings
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Generic,
    Pattern,
    Tuple,
    Type,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
)

from exceptstar._classes import group_classes

# unittest leaves frames of modules that set this out of its failure reports.
__unittest = True

if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType

    from typing_extensions import NoReturn, TypeGuard

    from exceptstar._classes import BaseExceptionGroup

BaseExcT_co = TypeVar("BaseExcT_co", bound=BaseException, covariant=True)
BaseExcT_1 = TypeVar("BaseExcT_1", bound=BaseException)
E = TypeVar("E", bound=BaseException)

# String patterns have the unicode flag by default; a pattern without others prints as its text.
_NO_FLAGS = re.compile("").flags


def is_group(exc: object) -> bool:
    return isinstance(exc, group_classes())


def _pytest_running() -> bool:
    return "_pytest.outcomes" in sys.modules and "PYTEST_CURRENT_TEST" in os.environ


def fail(message: str, failure: Type[BaseException] | None = None) -> NoReturn:
    """Fail the test: ``failure`` if given (unittest's ``failureException``), else as explained above."""
    __tracebackhide__ = True
    if failure is None and _pytest_running():
        sys.modules["_pytest.outcomes"].fail(message)
    raise (failure or AssertionError)(message)


def type_name(e: Union[type, Tuple[type, ...]]) -> str:
    if isinstance(e, type):
        return e.__name__
    if len(e) == 1:
        return e[0].__name__
    return "(" + ", ".join(t.__name__ for t in e) + ")"


def backquote(s: str) -> str:
    return "`" + s + "`"


def pattern_repr(match: Pattern[str]) -> Union[str, Pattern[str]]:
    return match.pattern if match.flags == _NO_FLAGS else match


def stringify(exc: BaseException) -> str:
    """The text ``match`` searches: the message (a group's own, not its members') and the notes."""
    notes = getattr(exc, "__notes__", None)
    message = exc.message if is_group(exc) else str(exc)  # type: ignore[attr-defined]
    return "\n".join([message, *(notes if isinstance(notes, (list, tuple)) else [])])


def check_raw_type(
    expected: Union[Type[BaseException], Tuple[Type[BaseException], ...], None], exception: BaseException
) -> str | None:
    if expected is None or expected == () or isinstance(exception, expected):
        return None
    actual = backquote(type_name(type(exception)) + "()")
    wanted = backquote(type_name(expected))
    if is_group(exception) and isinstance(expected, type) and not issubclass(expected, group_classes()):
        return f"Unexpected nested {actual}, expected {wanted}"
    return f"{actual} is not an instance of {wanted}"


def _fully_escaped(s: str) -> bool:
    return not any(c in "{}()+.*?^$[]|" for c in re.sub(r"\\.", "", s))


def _unescape(s: str) -> str:
    return re.sub(r"\\([{}()+-.*?^$\[\]\s\\|])", r"\1", s)


class AbstractRaises(Generic[BaseExcT_co]):
    """Common ground of ``RaisesExc`` and ``RaisesGroup`` (``match``, ``check``, ``fail_reason``)."""

    is_baseexception: bool

    def __init__(self, *, match: Union[str, Pattern[str], None], check: Callable[[Any], bool] | None) -> None:
        __tracebackhide__ = True
        self.match: Pattern[str] | None
        if isinstance(match, str):
            try:
                compiled: Pattern[str] | None = re.compile(match)
                error = None
            except re.error as e:
                compiled, error = None, e
            if error is not None:
                fail(f"Invalid regex pattern provided to 'match': {error}")
            self.match = compiled
            if match == "":
                warnings.warn(
                    _warning_class()(
                        "matching against an empty string will *always* pass. If you want "
                        "to check for an empty message you need to pass '^$'. If you don't "
                        "want to match you should pass `None` or leave out the parameter."
                    ),
                    stacklevel=3,
                )
        else:
            self.match = match
        # A fully escaped ^...$ pattern is a literal text: a mismatch is shown as a diff.
        self.rawmatch: str | None = None
        text = match.pattern if isinstance(match, Pattern) and match.flags == _NO_FLAGS else match
        if isinstance(text, str) and text[:1] == "^" and text[-1:] == "$" and _fully_escaped(text[1:-1]):
            self.rawmatch = _unescape(text[1:-1])
        self.check = check
        self._fail_reason: str | None = None
        # A nested expectation does not repeat its check's repr in its parent's message.
        self._nested = False
        self.is_baseexception = False
        # Set by the unittest mixin: the exception a mismatch raises there.
        self._failure: Type[BaseException] | None = None

    def _parse_exc(self, exc: object, expected: str) -> Type[BaseException]:
        # Asked first: on 3.9 and 3.10 ``types.GenericAlias`` passes ``isinstance(alias, type)``.
        origin = get_origin(exc)
        if origin is None and isinstance(exc, type) and issubclass(exc, BaseException):
            if not issubclass(exc, Exception):
                self.is_baseexception = True
            return exc
        if isinstance(origin, type) and issubclass(origin, BaseException) and issubclass(origin, group_classes()):
            member = get_args(exc)[0]
            plain = issubclass(origin, Exception)
            if (plain and member in (Exception, Any)) or member in (BaseException, Any):
                if not plain:
                    self.is_baseexception = True
                # (mypy on 3.8 loses the narrowing of origin here)
                return origin  # type: ignore[return-value,unused-ignore]
            raise ValueError(
                f"Only `ExceptionGroup[Exception]` or `BaseExceptionGroup[BaseException]` "
                f"are accepted as generic types but got `{exc}`. "
                f"As `raises` will catch all instances of the specified group regardless of the "
                f"generic argument specific nested exceptions has to be checked "
                f"with `RaisesGroup`."
            )
        msg = f"Expected {expected}, but got "
        if isinstance(exc, type):
            raise ValueError(msg + f"{exc.__name__!r}")
        if isinstance(exc, BaseException):
            raise TypeError(msg + f"an exception instance: {type(exc).__name__}")
        raise TypeError(msg + repr(type(exc).__name__))

    @property
    def fail_reason(self) -> str | None:
        """Why the last call of ``matches()`` returned False (None after a match)."""
        return self._fail_reason

    def _check_check(self, exception: BaseException) -> bool:
        if self.check is None or self.check(exception):
            return True
        shown = "" if self._nested else " " + repr(self.check)
        self._fail_reason = f"check{shown} did not return True"
        return False

    def _check_match(self, e: BaseException) -> bool:
        if self.match is None:
            return True
        text = stringify(e)
        if re.search(self.match, text):
            return True
        if self.rawmatch is not None:
            diff = _pytest_diff(self.rawmatch, text)
            if diff is not None:
                self._fail_reason = ("\n" if diff[0][:1] == "-" else "") + "\n".join(diff)
                return False
        which = f" the `{type_name(type(e))}()`" if is_group(e) else ""
        self._fail_reason = (
            f"Regex pattern did not match{which}.\n"
            f"  Expected regex: {pattern_repr(self.match)!r}\n"
            f"  Actual message: {text!r}"
        )
        if pattern_repr(self.match) == text:
            self._fail_reason += "\n Did you mean to `re.escape()` the regex?"
        return False

    def matches(self, exception: BaseException | None) -> TypeGuard[Any]:  # pragma: no cover (abstract)
        raise NotImplementedError


def _warning_class() -> Type[Warning]:
    found = getattr(sys.modules.get("_pytest.warning_types"), "PytestWarning", None)
    return found if isinstance(found, type) and issubclass(found, Warning) else UserWarning


def _pytest_diff(left: str, right: str) -> list[str] | None:
    """The diff of two texts that the running pytest writes for a literal ``match``; None elsewhere.

    pytest 9 has it in ``compare_text`` and asks the verbosity, 8.4 in ``util``;
    8.3 (the last on 3.8) writes no diff, and neither do we: the message says it in words.
    """
    if not _pytest_running():
        return None
    util: Any = sys.modules.get("_pytest.assertion.util")
    try:
        from _pytest.assertion.compare_text import _diff_text  # type: ignore[import-not-found,unused-ignore]
        from _pytest.assertion.highlight import dummy_highlighter  # type: ignore[import-not-found,unused-ignore]
        from _pytest.config import Config
    except ImportError:
        if util is None or not hasattr(util, "dummy_highlighter"):
            return None
        return list(util._diff_text(left, right, util.dummy_highlighter))
    config = getattr(util, "_config", None)
    verbose = config.get_verbosity(Config.VERBOSITY_ASSERTIONS) if config is not None else 0
    return list(_diff_text(left, right, dummy_highlighter, verbose))


class ExceptionInfo(Generic[E]):
    """What the context managers return when pytest is not loaded: pytest's ``ExceptionInfo`` in brief."""

    def __init__(self) -> None:
        self._info: Tuple[Type[E], E, TracebackType | None] | None = None

    @classmethod
    def for_later(cls) -> ExceptionInfo[E]:
        return cls()

    def fill_unfilled(self, info: Tuple[Type[E], E, TracebackType | None]) -> None:
        assert self._info is None, "ExceptionInfo was already filled"
        self._info = info

    def _filled(self) -> Tuple[Type[E], E, TracebackType | None]:
        assert self._info is not None, ".value can only be used after the context manager exits"
        return self._info

    @property
    def type(self) -> Type[E]:
        return self._filled()[0]

    @property
    def value(self) -> E:
        return self._filled()[1]

    @property
    def tb(self) -> TracebackType | None:
        return self._filled()[2]

    @property
    def typename(self) -> str:
        return self.type.__name__

    def errisinstance(self, exc: Union[Type[BaseException], Tuple[Type[BaseException], ...]]) -> bool:
        return isinstance(self.value, exc)

    def match(self, regexp: Union[str, Pattern[str]]) -> bool:
        __tracebackhide__ = True
        value = _full_text(self.value)
        assert re.search(regexp, value), (
            f"Regex pattern did not match.\n  Expected regex: {regexp!r}\n  Actual message: {value!r}"
        )
        return True

    def group_contains(
        self,
        expected_exception: Union[Type[BaseException], Tuple[Type[BaseException], ...]],
        *,
        match: Union[str, Pattern[str], None] = None,
        depth: int | None = None,
    ) -> bool:
        assert is_group(self.value), "Captured exception is not an instance of `BaseExceptionGroup`"
        assert depth is None or depth >= 1, "`depth` must be >= 1 if specified"
        return _contains(self.value, expected_exception, match, depth, 1)  # type: ignore[arg-type]


def _contains(
    group: BaseExceptionGroup[BaseException],
    expected: Union[Type[BaseException], Tuple[Type[BaseException], ...]],
    match: Union[str, Pattern[str], None],
    depth: int | None,
    current: int,
) -> bool:
    if depth is not None and current > depth:
        return False
    for exc in group.exceptions:
        if is_group(exc) and _contains(exc, expected, match, depth, current + 1):  # type: ignore[arg-type]
            return True
        if depth is not None and current != depth:
            continue
        if isinstance(exc, expected) and (match is None or re.search(match, _full_text(exc))):
            return True
    return False


def _full_text(exc: BaseException) -> str:
    notes = getattr(exc, "__notes__", None)
    return "\n".join([str(exc), *(notes if isinstance(notes, (list, tuple)) else [])])


def new_info() -> ExceptionInfo[Any]:
    """pytest's ``ExceptionInfo`` when pytest is loaded (typed as ours, its subset), else ours."""
    found: Any = getattr(sys.modules.get("_pytest._code"), "ExceptionInfo", None)
    return cast("ExceptionInfo[Any]", (found if found is not None else ExceptionInfo).for_later())
