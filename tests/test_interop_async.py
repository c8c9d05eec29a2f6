"""A Trio nursery and an anyio task group whose children raise, handled by ``except*``.

The children raise our groups and plain exceptions; the nursery wraps them in
a group of its own (the backport's name, before 3.11).  The program is run
through ``python -m exceptstar run`` before 3.11 (it uses ``except*`` and the
built-in names) and compared with the same program on native 3.11+.  Trio
may run children in any order, so the program prints each handled part as a
tree with sorted members.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support.interop import native, ours, reference_python

PROGRAM = '''
import sys

def tree(exc):
    if isinstance(exc, BaseExceptionGroup):
        return f"{type(exc).__name__}[" + ", ".join(sorted(map(tree, exc.exceptions))) + "]"
    return repr(exc)

async def inner_group():
    raise ExceptionGroup("inner", [KeyError("k")])

async def plain_error():
    raise ValueError("v")

async def oserror():
    err = OSError("o")
    err.add_note("from a child")
    raise err

def run_all():
{run}

try:
    run_all()
except* KeyError as e:
    print("KeyError part:", tree(e))
except* ValueError as e:
    print("ValueError part:", tree(e), sys.exception() is e)
except* OSError as e:
    print("OSError part:", tree(e), [x.__notes__ for x in e.exceptions])
print("done")
'''

RUNNERS = {
    "trio": '''
    import trio
    async def main():
        async with trio.open_nursery() as nursery:
            for child in (inner_group, plain_error, oserror):
                nursery.start_soon(child)
    trio.run(main)
''',
    "anyio": '''
    import anyio
    async def main():
        async with anyio.create_task_group() as group:
            for child in (inner_group, plain_error, oserror):
                group.start_soon(child)
    anyio.run(main)
''',
}


@pytest.mark.needs_processes
@pytest.mark.parametrize("library", sorted(RUNNERS))
def test_task_group_children_handled_by_except_star(tmp_path: Path, library: str) -> None:
    pytest.importorskip(library)
    program = tmp_path / f"{library}_program.py"
    program.write_text(PROGRAM.replace("{run}", textwrap.indent(textwrap.dedent(RUNNERS[library]), "    ")),
                       encoding="utf-8")
    result = ours(program)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # Every child's error reached its clause, nested as the task group nests it.
    assert lines[0].startswith("KeyError part: ExceptionGroup[ExceptionGroup[KeyError('k')]]"), lines
    assert lines[1] == "ValueError part: ExceptionGroup[ValueError('v')] True"
    assert lines[2] == "OSError part: ExceptionGroup[OSError('o')] [['from a child']]"
    assert lines[3] == "done"
    reference = reference_python(library)
    if reference is None:
        pytest.skip(f"no 3.11+ environment with {library} to compare with")
    expected = native(reference, program)
    assert expected.returncode == 0, expected.stderr
    assert result.stdout == expected.stdout
