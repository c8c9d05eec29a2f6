"""A small typed library whose modules use ``except*``, for the type checkers' tests.

Errors are planted inside handlers, outside them, in modules with and without
``except*``.  A line whose error depends on the target carries ``# below 3.X``:
the checker reports it at targets below 3.X only (a 3.10/3.11-only API), and
every other diagnostic is the one the same checker reports at a 3.11 target.
"""

from __future__ import annotations

import re
from pathlib import Path

FILES = {
    "gatherkit/__init__.py": '''\
from gatherkit.fanout import gather
from gatherkit.retry import attempt
from gatherkit.validate import check

__all__ = ["attempt", "check", "gather"]
''',
    "gatherkit/retry.py": '''\
from typing import Callable, List, TypeVar

T = TypeVar("T")


def attempt(work: Callable[[], T], times: int) -> T:
    errors: List[Exception] = []
    for _ in range(times):
        try:
            return work()
        except* OSError as group:
            reveal_type(group)
            errors.extend(group.exceptions)
            oops: int = "not an int"
        except* (ValueError, KeyError) as group:
            reveal_type(group)
            count: str = len(group.exceptions)
    raise ExceptionGroup("gave up", errors)


def interrupted() -> None:
    try:
        pass
    except* KeyboardInterrupt as stop:
        reveal_type(stop)
        stop.no_such_attribute
    except* ExceptionGroup:
        pass


def flows() -> int:
    for _ in range(3):
        try:
            pass
        except* ValueError:
            return 1
    return "two"


def pairs() -> List[tuple[int, int]]:  # below 3.9
    return list(zip([1], [2], strict=True))  # below 3.10
''',
    "gatherkit/fanout.py": '''\
import tomllib  # below 3.11
from typing import Awaitable, Callable, List


async def gather(jobs: List[Callable[[], Awaitable[int]]]) -> List[int]:
    results: List[int] = []
    for job in jobs:
        try:
            results.append(await job())
        except* TimeoutError as timeouts:
            for timeout in timeouts.exceptions:
                reveal_type(timeout)
            results.append("late")
    return results


def prefix(name: str) -> str:
    return name.removeprefix("job-")  # below 3.9
''',
    "gatherkit/validate.py": '''\
from typing import Dict, List


def check(record: Dict[str, object]) -> None:
    problems = []
    for key, value in record.items():
        if value is None:
            problems.append(ValueError(key))
    try:
        if problems:
            raise ExceptionGroup("invalid record", problems)
    except* ValueError as invalid:
        names: List[int] = [str(error) for error in invalid.exceptions]
        raise invalid.derive(invalid.exceptions) from None


def count(record: Dict[str, object]) -> int:
    return len(record) + "1"
''',
    "gatherkit/plain.py": '''\
import tomllib  # below 3.11


def pairs() -> None:
    list(zip([1], [2], strict=True))  # below 3.10


def wrong() -> int:
    return "plain"
''',
}

STAR_MODULES = ["gatherkit/retry.py", "gatherkit/fanout.py", "gatherkit/validate.py"]


def write(folder: Path) -> Path:
    """The project in ``folder`` (a ``src/`` layout); returns the ``src`` folder."""
    src = folder / "src"
    for name, text in FILES.items():
        path = src / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (src / "gatherkit" / "py.typed").write_text("")
    return src


def gated_lines(target: tuple[int, int]) -> set[tuple[str, int]]:
    """(file, line) of every line whose error this target adds to the 3.11 target's."""
    lines = set()
    for name, text in FILES.items():
        for number, line in enumerate(text.splitlines(), 1):
            match = re.search(r"# below 3\.(\d+)", line)
            if match and target < (3, int(match.group(1))):
                lines.add((name, number))
    return lines
