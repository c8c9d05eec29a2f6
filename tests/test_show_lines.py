"""``python -m exceptstar show``: the same text, line numbers included, on every version.

The rewrite gives its statements positions that differ by version (for line
events: on 3.10 some have none, written -1); ``show`` numbers each statement
after the user's source it belongs to instead: its own line for the user's
statements, the clause's line for what an ``except*`` clause runs, the
``try``'s for the rest of the statement, none for the module's prologue.
Run with every interpreter found (3.8-3.13) and compared.
"""

from __future__ import annotations

import subprocess

import pytest
from support.interpreters import find_interpreters
from support.processes import child_env

PROGRAM = '''\
"""A module."""
import asyncio


def handle():
    try:
        raise ExceptionGroup("x", [ValueError(1)])
    except* ValueError as e:
        print("v", e)
        try:
            raise KeyError(2)
        except* KeyError:
            pass
    except* (TypeError, OSError):
        pass
    else:
        print("no error")
    finally:
        print("done")


async def main():
    try:
        await asyncio.sleep(0)
    except* OSError:
        return_value = None


try:
    handle()
except* Exception as top:
    print(top)
'''


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("show")
    (folder / "jobs.py").write_text(PROGRAM, encoding="utf-8")
    found = find_interpreters()
    if len(found) < 2:
        pytest.skip(f"needs two CPythons (found {sorted(found)})")
    texts = {}
    for version, exe in sorted(found.items()):
        proc = subprocess.run([exe, "-m", "exceptstar", "show", "jobs.py"], cwd=folder, capture_output=True,
                              text=True, env=child_env(False), timeout=120)
        assert proc.returncode == 0, proc.stderr
        texts[f"{version[0]}.{version[1]}"] = proc.stdout
    return texts


def test_same_on_every_version(shown: dict[str, str]) -> None:
    first, *others = shown
    for version in others:
        assert shown[version] == shown[first], (first, version)


def numbered(text: str) -> list[tuple[int | None, str]]:
    rows = []
    for line in text.splitlines():
        number, code = line.split(" | ", 1)
        rows.append((int(number) if number.strip() else None, code.strip()))
    return rows


def test_lines_of_the_source(shown: dict[str, str]) -> None:
    rows = numbered(next(iter(shown.values())))
    assert all(number is None or number > 0 for number, _ in rows)
    source = PROGRAM.splitlines()
    # A statement is numbered with its own line (the user's) or with that of the
    # try or except* clause it was made for.
    for number, code in rows:
        if number is not None:
            line = source[number - 1].replace("'", '"')
            assert code.replace("'", '"') in line or line.strip().startswith(("try:", "except*")), (number, code)
    lines = dict((code, number) for number, code in reversed(rows))
    assert lines["__es_part_1__ = __es_star_1__.match(ValueError, 5, True)"] == 8  # the clause's types
    assert lines["__es_part_2__ = __es_star_2__.match(KeyError, 1, True)"] == 12   # a nested clause
    assert lines["__es_part_1__ = __es_star_1__.match((TypeError, OSError), 1, False)"] == 14
    assert lines["e = None"] == 8                                          # the clause's cleanup
    assert lines["__es_part_1__ = __es_star_1__.outcome()"] == 6           # the try's own work
    # The prologue that finds the runtime is no line of the user's.
    assert rows[:2] == [(1, "\"\"\"A module.\"\"\""), (None, "try:")]
