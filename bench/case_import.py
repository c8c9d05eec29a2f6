"""Case 6: ``import exceptstar`` against ``import exceptiongroup``, in fresh processes.

Each run is a new interpreter started with ``-X importtime``; the figure is the
cumulative time of the package's own top-level line, so interpreter start-up
and site are excluded.  On 3.11+ the exceptstar side is measured both with
the pure classes (``EXCEPTSTAR_PURE=1``, as the other cases) and with the
built-in ones, which is what users of 3.11+ actually import.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import _timing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List, Tuple

_LINE = re.compile(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\| ( *)(\S+)")


def import_once(module: str, pure: bool | None) -> Tuple[float, List[str]]:
    """Cumulative seconds of ``import module`` in a fresh process, and its importtime lines."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # the figure is for a cached import
    if pure is not None:
        env.pop("EXCEPTSTAR_PURE", None)
        if pure:
            env["EXCEPTSTAR_PURE"] = "1"
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True, text=True, env=env, check=True,
    )
    lines = [line for line in proc.stderr.splitlines() if line.startswith("import time:")]
    for index, line in enumerate(lines):
        match = _LINE.match(line)
        if match and not match.group(3) and match.group(4) == module:
            return int(match.group(2)) * 1e-6, subtree(lines, index)
    raise RuntimeError(f"no importtime line for {module}:\n{proc.stderr}")


def subtree(lines: List[str], index: int) -> List[str]:
    """The lines of the modules imported by the top-level import at ``index`` (they precede it)."""
    start = index
    while start > 0:
        match = _LINE.match(lines[start - 1])
        if match is None or not match.group(3):
            break
        start -= 1
    return lines[start:index + 1]


def measure(module: str, pure: bool | None, runs: int) -> Dict[str, object]:
    return _timing.measure_processes(lambda: import_once(module, pure)[0], runs)


def main() -> None:
    args = _timing.arguments()
    runs = 5 if args.quick else 7
    # Row -> (module, purity forced on the child or None to inherit the harness's).
    rows: Dict[str, Tuple[str, bool | None]]
    if args.side == "exceptstar":
        rows = {"import": ("exceptstar", None)}
        if _timing.NATIVE:
            rows["import_native"] = ("exceptstar", False)
    else:
        rows = {"import": ("exceptiongroup", None)}
        if _timing.NATIVE:
            rows["import_native"] = ("exceptiongroup", None)
    if args.profile:
        module, pure = rows[args.profile]
        samples = sorted((import_once(module, pure) for _ in range(9)), key=lambda s: s[0])
        seconds, lines = samples[len(samples) // 2]
        print(f"-X importtime of the median of 9 runs ({seconds * 1e3:.2f} ms cumulative):")
        print("import time: self [us] | cumulative | imported package")
        print("\n".join(lines))
        return
    results = {name: measure(module, pure, runs) for name, (module, pure) in rows.items()}
    json.dump({"rows": results}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
