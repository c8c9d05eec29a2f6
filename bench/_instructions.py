"""Instructions per iteration of the in-process rows, counted with callgrind: the figure no neighbour moves.

Timings on a shared VM stray by ±10% and more between processes, and a ratio of two of them
more still; the number of instructions an iteration executes does not depend on what else the
machine runs.  So beside each time, ``bench/run.py`` gives the engine's rows (construction, split,
handling, leaves, formatting) a ratio in instructions: each side's case script is run under
``valgrind --tool=callgrind`` twice per counted row, building and warming up that row alone
(``bench/_timing.py``'s ``--count ROW``): once as a baseline, once with the row's loop run N
times; the difference over N is an iteration's instructions.  ``PYTHONHASHSEED=0`` keeps
the set and dict orders, and with them the work, the same in every process.

Instructions are not time: a C-level pass over a list costs fewer cycles an instruction than the
interpreter's dispatch, so the two ratios differ by the kind of work each side does.  The
targets stay in time; this column is the check that anyone can repeat to the instruction.

Native 3.14 and 3.15 run in the Debian sid root, which gets its own valgrind (apt-get, as the
root's other packages); PyPy is not counted (its JIT makes an iteration's count depend on how
warm the loop is).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Collection, Dict, List

from tests.support.interpreters import SID_BIN  # run.py puts the checkout on sys.path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent

# The rows counted, and how many iterations: in-process loops whose ratio the engine sets.  Whole-process
# rows (imports, compiles, cold starts) are left to time: under valgrind their start-up would be most of
# the count.  N is fixed, not sized from a timing, because an iteration's count is not quite the same
# at every N: freeing and reusing large blocks (a 1000-member tuple) costs malloc more or less with the
# heap's history, so the count is repeatable for a given N only.  Each N makes the exceptstar side
# count 10-40M instructions on 3.10: a baseline's few thousand instructions of difference between
# processes are below 0.1% of it.
COUNTED: Dict[str, Dict[str, int]] = {
    "case_groups.py": {"construct": 100, "construct_small": 500, "construct_distinct": 5, "split_flat": 20,
                       "subgroup_flat": 20, "split_nested": 10},
    "case_handle.py": {"except_star_naked": 1000, "except_star_group": 500, "catch_naked": 500,
                       "catch_group": 500},
    "case_format.py": {"format": 5},
    "case_leaves.py": {"leaves": 5, "collapse": 500},
}
COLLECTED = re.compile(r"==\d+== Collected : (\d+)")


def valgrind_prefix(python: Path) -> List[str] | None:
    """The command that runs ``python`` under callgrind, or None where valgrind cannot be had.

    A sid root interpreter (its environment's ``host-python`` enters the root) runs the root's
    valgrind on the environment's own ``python``."""
    tool = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null"]
    if python.name == "host-python":
        in_sid = SID_BIN / "in-sid"
        have = subprocess.run([str(in_sid), "sh", "-c", "command -v valgrind"], capture_output=True)
        if have.returncode != 0:
            install = ("apt-get -qq -o Acquire::Check-Valid-Until=false update && DEBIAN_FRONTEND=noninteractive "
                       "apt-get install -y -qq --no-install-recommends valgrind")
            if subprocess.run([str(in_sid), "sh", "-c", install], capture_output=True).returncode != 0:
                return None
        return [str(in_sid), *tool, str(python.parent / "python")]
    if shutil.which("valgrind") is None:
        if os.geteuid() != 0 or shutil.which("apt-get") is None:
            return None
        subprocess.run(["apt-get", "install", "-y", "-qq", "valgrind"], capture_output=True)
        if shutil.which("valgrind") is None:
            return None
    return [*tool, str(python)]


def collected(prefix: List[str], script: str, side: str, env: Dict[str, str], row: str, number: int) -> int:
    cmd = [*prefix, str(BENCH / script), "--side", side, "--count", row, "--number", str(number)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=1800,
                          env={**env, "PYTHONHASHSEED": "0"})
    found = COLLECTED.findall(proc.stderr)
    if proc.returncode != 0 or not found:
        raise RuntimeError(f"{script} --side {side} --count {row!r} under callgrind exited {proc.returncode}:\n"
                           + proc.stderr[-2000:])
    return int(found[-1])


def count_script(prefix: List[str], script: str, side: str, env: Dict[str, str],
                 measured: Collection[str]) -> Dict[str, float]:
    """Instructions per iteration of each counted row of ``script`` that this side ``measured``.

    Each row is counted in two processes that build and warm up that row alone: one runs nothing
    more (the baseline), one runs the row's N iterations."""
    counts: Dict[str, float] = {}
    for row, number in COUNTED.get(script, {}).items():
        if row in measured:
            baseline = collected(prefix, script, side, env, row, 0)
            counts[row] = (collected(prefix, script, side, env, row, number) - baseline) / number
    return counts
