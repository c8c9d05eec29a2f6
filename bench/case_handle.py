"""Case 4: handling a naked ValueError and a 3-leaf group with two clauses.

exceptstar's rows are ``except*`` compiled by ``exceptstar.compile`` (the
source cannot be parsed natively before 3.11) and ``exceptstar.catch()``.
The peer is the backport's ``catch()`` on 3.8-3.10 and native ``except*`` on
3.11+.  Each iteration raises the same prepared exception again, its traceback
cleared first so that it does not grow; the handlers do nothing, so the
figure is the cost of raising, matching and handling.

``except_star_group`` is the partial match: each of its two clauses takes
part of the group.  ``except_star_deep`` handles a group nested 1,200 levels
deep (each level [ValueError, next level], a TypeError at the bottom) with the
same two clauses; a side that cannot (RecursionError) reports it unavailable.
"""

from __future__ import annotations

import _timing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict

    from _timing import Rows

STAR_NAKED = """
def loop(n, exc):
    for _ in range(n):
        exc.__traceback__ = None
        try:
            raise exc
        except* ValueError:
            pass
"""

STAR_GROUP = """
def loop(n, exc):
    for _ in range(n):
        exc.__traceback__ = None
        try:
            raise exc
        except* ValueError:
            pass
        except* TypeError:
            pass
"""

CATCH_NAKED = """
def loop(n, exc):
    for _ in range(n):
        exc.__traceback__ = None
        with catch({ValueError: ignore}):
            raise exc
"""

CATCH_GROUP = """
def loop(n, exc):
    for _ in range(n):
        exc.__traceback__ = None
        with catch({ValueError: ignore, TypeError: ignore}):
            raise exc
"""


DEEP = 1200


def deep_group(eg_type: Any) -> BaseException:
    group = eg_type("bottom", [ValueError(-1), TypeError(-1)])
    for level in range(DEEP - 1):
        group = eg_type("level", [ValueError(level), group])
    return group  # type: ignore[no-any-return]


def deep_row(source: str, compiler: Callable[..., Any], catch: object, exc: BaseException) -> Any:
    try:
        return make_loop(source, compiler, catch, exc)
    except RecursionError as error:
        return f"RecursionError at depth {DEEP}: {error}"


def ignore(group: BaseException) -> None:
    pass


def make_loop(source: str, compiler: Callable[..., Any], catch: object, exc: BaseException
              ) -> _timing.Loop:
    namespace: Dict[str, Any] = {"__name__": "bench_case_handle", "catch": catch, "ignore": ignore}
    exec(compiler(source, "<bench case 4>", "exec"), namespace)
    loop = namespace["loop"]

    def run(n: int) -> None:
        loop(n, exc)

    run(1)  # fails loudly if the exception is not handled
    return run


def build(side: str) -> Rows:
    _, eg_type = _timing.group_types(side)
    naked = ValueError("naked")
    group = eg_type("three", [ValueError(1), TypeError(2), ValueError(3)])
    rows: Rows = {}
    if side == "exceptstar":
        reason = _timing.missing_api("_compiler.transform", "compile")
        for key, source, exc in (("except_star_naked", STAR_NAKED, naked),
                                 ("except_star_group", STAR_GROUP, group)):
            rows[key] = reason or make_loop(source, _timing.api("compile"), None, exc)
        rows["except_star_deep"] = reason or deep_row(STAR_GROUP, _timing.api("compile"), None,
                                                      deep_group(eg_type))
        reason = _timing.missing_api("_catch", "catch")
        for key, source, exc in (("catch_naked", CATCH_NAKED, naked),
                                 ("catch_group", CATCH_GROUP, group)):
            rows[key] = reason or make_loop(source, compile, _timing.api("catch"), exc)
    elif _timing.NATIVE:
        for prefix in ("except_star", "catch"):
            rows[prefix + "_naked"] = make_loop(STAR_NAKED, compile, None, naked)
            rows[prefix + "_group"] = make_loop(STAR_GROUP, compile, None, group)
        rows["except_star_deep"] = deep_row(STAR_GROUP, compile, None, deep_group(eg_type))
    else:
        import exceptiongroup

        for prefix in ("except_star", "catch"):
            rows[prefix + "_naked"] = make_loop(CATCH_NAKED, compile, exceptiongroup.catch, naked)
            rows[prefix + "_group"] = make_loop(CATCH_GROUP, compile, exceptiongroup.catch, group)
        rows["except_star_deep"] = deep_row(CATCH_GROUP, compile, exceptiongroup.catch,
                                            deep_group(eg_type))
    return rows


if __name__ == "__main__":
    _timing.main(build)
