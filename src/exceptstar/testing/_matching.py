"""Pairing a group's members with the expected exceptions, and saying why they do not pair.

pytest pairs greedily (each expectation takes the first member it accepts), so
it can fail where an assignment exists.  Here the greedy pass runs first, as
pytest's does, so that every verdict it reaches and every message it writes are
pytest's; when it fails, a maximum bipartite matching (augmenting paths, Kuhn's
algorithm) decides, and the group fails only when no complete assignment
exists.  The message is then the one pytest writes for the same failure.
"""

from __future__ import annotations

from textwrap import indent
from typing import Callable, Dict, List, Optional, Sequence

# results[actual][expected]: None when they match, the reason when not; _UNCHECKED before it is asked.
_UNCHECKED = "\0unchecked"
Check = Callable[[int, BaseException], Optional[str]]


class Table:
    """The lazily filled table of ``check(expected index, member)`` answers."""

    def __init__(self, check: Check, n_expected: int, actual: Sequence[BaseException]) -> None:
        self.check = check
        self.actual = actual
        self.n_expected = n_expected
        self.results: List[List[str | None]] = [[_UNCHECKED] * n_expected for _ in actual]

    def get(self, i_exp: int, i_act: int) -> str | None:
        row = self.results[i_act]
        if row[i_exp] is _UNCHECKED:
            row[i_exp] = self.check(i_exp, self.actual[i_act])
        return row[i_exp]

    def fill(self) -> None:
        for i_exp in range(self.n_expected):
            for i_act in range(len(self.actual)):
                self.get(i_exp, i_act)

    def unmatched_actual(self, indexes: List[int]) -> bool:
        return all(self.get(e, a) is not None for a in indexes for e in range(self.n_expected))

    def unmatched_expected(self, indexes: List[int]) -> bool:
        return all(self.get(e, a) is not None for e in indexes for a in range(len(self.actual)))


def greedy(table: Table) -> tuple[Dict[int, int], List[int], List[int]]:
    """pytest's pass: expected in order, each takes the first free member it accepts."""
    remaining = list(range(len(table.actual)))
    failed: List[int] = []
    matches: Dict[int, int] = {}
    for i_exp in range(table.n_expected):
        for i_act in remaining:
            if table.get(i_exp, i_act) is None:
                remaining.remove(i_act)
                matches[i_exp] = i_act
                break
        else:
            failed.append(i_exp)
    return matches, remaining, failed


def complete_assignment(table: Table) -> bool:
    """Whether every member pairs with its own expectation and none is left over (a perfect matching)."""
    if len(table.actual) != table.n_expected:
        return False
    owner: Dict[int, int] = {}  # member index -> expected index

    def augment(i_exp: int, seen: set[int]) -> bool:
        for i_act in range(len(table.actual)):
            if i_act in seen or table.get(i_exp, i_act) is not None:
                continue
            seen.add(i_act)
            if i_act not in owner or augment(owner[i_act], seen):
                owner[i_act] = i_exp
                return True
        return False

    return all(augment(i_exp, set()) for i_exp in range(table.n_expected))


def explain(
    table: Table,
    matches: Dict[int, int],
    remaining: List[int],
    failed: List[int],
    show: Callable[[int], str],
) -> str:
    """The reason pytest gives when its greedy pass fails and no assignment exists.

    ``show(i)`` the short repr of expectation ``i``.
    """
    actual = table.actual
    if len(actual) == table.n_expected == 1:
        return str(table.get(0, 0))
    table.fill()
    done = f"{len(matches)} matched exception{'s' if len(matches) > 1 else ''}. " if matches else ""
    if not failed and table.unmatched_actual(remaining):
        return f"{done}Unexpected exception(s): {[actual[i] for i in remaining]!r}"
    if not remaining and table.unmatched_expected(failed):
        return f"{done}Too few exceptions raised, found no match for: [{', '.join(show(i) for i in failed)}]"
    if len(remaining) == len(failed) == 1 and table.unmatched_actual(remaining) and table.unmatched_expected(failed):
        return f"{done}{table.get(failed[0], remaining[0])}"
    lines = [""]
    if matches:
        lines.append(done)
    if not remaining:
        lines.append("Too few exceptions raised!")
    elif not failed:
        lines.append("Unexpected exception(s)!")
    by_member = {a: e for e, a in matches.items()}
    if failed:
        lines.append("The following expected exceptions did not find a match:")
    for i_exp in failed:
        lines.append(f"  {show(i_exp)}")
        lines.extend(
            f"    It matches `{member!r}` which was paired with `{show(by_member[i_act])}`"
            for i_act, member in enumerate(actual)
            if table.get(i_exp, i_act) is None
        )
    if remaining:
        lines.append("The following raised exceptions did not find a match")
    text = "\n".join(lines)
    for i_act in remaining:
        text += f"\n  {actual[i_act]!r}:"
        for i_exp in range(table.n_expected):
            reason = table.get(i_exp, i_act)
            if i_exp in failed:
                assert reason is not None
                text += ("" if reason[:1] == "\n" else "\n") + indent(reason, "    ")
            if reason is None:
                text += f"\n    It matches `{show(i_exp)}` which was paired with `{actual[matches[i_exp]]!r}`"
    return text
