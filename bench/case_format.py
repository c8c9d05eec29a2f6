"""Case 5: formatting a raised group of 100 leaves, each raised with its own traceback.

exceptstar's ``format_exception`` against the backport's on 3.8-3.10 and
``traceback.format_exception`` on 3.11+.  The note records the size of the
output, so that the report can tell when the two sides did not print the same.
"""

from __future__ import annotations

import _timing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, List, Type

    from _timing import Rows

LEAVES = 100


def fail(index: int) -> None:
    check(index)


def check(index: int) -> None:
    raise ValueError(f"leaf {index} is not valid")


def raise_group(eg_type: Type[BaseException], leaves: List[BaseException]) -> None:
    raise eg_type("validation failed", leaves)


def build_group(eg_type: Type[BaseException]) -> BaseException:
    leaves: List[BaseException] = []
    for index in range(LEAVES):
        try:
            fail(index)
        except ValueError as exc:
            leaves.append(exc)
    try:
        raise_group(eg_type, leaves)
    except BaseException as exc:
        return exc
    raise AssertionError("unreachable")


def build(side: str) -> Rows:
    _, eg_type = _timing.group_types(side)
    group = build_group(eg_type)
    formatter: Callable[[BaseException], Any]
    if side == "exceptstar":
        reason = _timing.missing_api("_printing.formatting", "format_exception")
        if reason:
            return {"format": reason}
        formatter = _timing.api("format_exception")
    elif _timing.NATIVE:
        import traceback

        formatter = traceback.format_exception
    else:
        import exceptiongroup

        formatter = exceptiongroup.format_exception
    text = "".join(formatter(group))
    _timing.NOTES["format"] = f"{len(text.splitlines())} lines"

    def run(n: int) -> None:
        for _ in range(n):
            formatter(group)

    return {"format": run}


if __name__ == "__main__":
    _timing.main(build)
