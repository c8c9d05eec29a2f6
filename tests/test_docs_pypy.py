"""The reproducers of PyPy 3.11's own ``except*`` differences print what the page shows.

``docs/explanation/differences.md`` lists each difference with a program (a ```python
block whose first line names a ``pypy_*.py`` file) and, in the ```console block after it,
what CPython 3.15 (``$ python3.15 F``), PyPy 3.11 (``$ pypy3.11 F``) and PyPy 3.11 under
exceptstar's transformation (``$ EXCEPTSTAR_PURE=1 pypy3.11 -m exceptstar run F``) print.
Each command is run here with the real interpreters and must print exactly those lines
(the program's folder shown as ``…``).  They run once per matrix, as the README's commands
on PyPy do (``support.interpreters.pypys_to_ask``): what they print depends on neither the
running interpreter nor anything of this process.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
from support.interpreters import find_interpreters, pypys_to_ask
from support.processes import ROOT, child_env

pytestmark = pytest.mark.needs_processes

PAGE = ROOT / "docs" / "explanation" / "differences.md"
PAIR = re.compile(r"^```python\n# (pypy_\w+\.py)\b(.*?)^```\n\n```console\n(.*?)^```", re.S | re.M)


def reproducers() -> List[Tuple[str, str, List[Tuple[str, List[str]]]]]:
    """(file name, program, [(command, output lines)]) for each reproducer on the page."""
    found = []
    for match in PAIR.finditer(PAGE.read_text()):
        name, console = match.group(1), match.group(3)
        program = f"# {name}{match.group(2)}"
        sessions = []
        for chunk in re.split(r"(?m)^(?=\$ )", console)[1:]:
            command, *output = chunk.rstrip("\n").split("\n")
            sessions.append((command[2:], output))
        found.append((name, program, sessions))
    return found


REPRODUCERS = reproducers()
COMMANDS = {"python3.15 {}": (False, False), "pypy3.11 {}": (False, False),
            "EXCEPTSTAR_PURE=1 pypy3.11 -m exceptstar run {}": (True, True)}


def test_the_page_has_a_reproducer_for_each_kind_of_difference() -> None:
    assert len(REPRODUCERS) >= 8
    for name, _, sessions in REPRODUCERS:
        # Every reproducer shows all three runs, in the page's order.
        assert [command for command, _ in sessions] == [c.format(name) for c in COMMANDS], name


def interpreters() -> Dict[str, str]:
    if (3, 11) not in pypys_to_ask() or (3, 15) not in find_interpreters():
        pytest.skip("PyPy 3.11 and CPython 3.15 are asked from the newest CPython on PyPy 3.11's side")
    return {"python3.15": find_interpreters()[(3, 15)], "pypy3.11": pypys_to_ask()[(3, 11)]}


@pytest.mark.parametrize("name, program, sessions", REPRODUCERS, ids=[r[0] for r in REPRODUCERS])
def test_the_reproducer_prints_what_the_page_shows(name: str, program: str, sessions: List[Tuple[str, List[str]]],
                                                   tmp_path: Path) -> None:
    exes = interpreters()
    (tmp_path / name).write_text(program)
    for command, output in sessions:
        pure, with_exceptstar = COMMANDS[command.replace(name, "{}")]
        words = command.split()[1:] if pure else command.split()
        env = child_env(pure)
        if not with_exceptstar:
            del env["PYTHONPATH"]  # the interpreter alone
        proc = subprocess.run([exes[words[0]], *words[1:]], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=120)
        shown = (proc.stdout + proc.stderr).replace(f"{tmp_path}/", "…/")
        assert shown.splitlines() == output, command
