"""Case 9: coverage.py with exceptstar's plugin, against plain coverage.

The program is case 8's 200-module package (each module one ``try`` with two
``except*`` clauses) and a main script that imports it and calls a handler of
every module.  The exceptstar side measures it with ``plugins = exceptstar``
in coverage's settings (``coverage run main.py``), then writes the JSON
report; the peer does the same for the plain twin (``except`` for
``except*``) with plain coverage, which cannot read the starred package on
3.8-3.10.  ``coverage_run`` is the CPU time of the ``coverage run`` process
(measuring: the plugin traces nothing, the transformed code runs from
exceptstar's bytecode cache), ``coverage_report`` that of the ``coverage
json`` process (reporting: coverage reads the 200 modules' source, through the
plugin's parser on the exceptstar side).  Without coverage in the benchmark's
environment both rows are unavailable.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import shutil
import sys
import tempfile

import _timing
import case_package

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Dict

MAIN = """
import bench_package.all as everything
log = []
for i in range(case_package_modules):
    getattr(getattr(everything, f"m{i}"), f"handle_{i}")([0], log)
print(len(log))
"""


def main() -> None:
    args = _timing.arguments()
    rows = ("coverage_run", "coverage_report")
    if importlib.util.find_spec("coverage") is None:
        json.dump({"rows": {row: {"unavailable": "coverage is not installed"} for row in rows}}, sys.stdout)
        print()
        return
    runs = 5 if args.quick else 7
    mine = args.side == "exceptstar"
    folder = tempfile.mkdtemp(prefix="exceptstar-bench-coverage-")
    atexit.register(shutil.rmtree, folder, True)
    case_package.write_package(folder, "bench_package", star=mine)
    with open(os.path.join(folder, "main.py"), "w") as file:
        file.write(MAIN.replace("case_package_modules", str(case_package.MODULES)))
    with open(os.path.join(folder, ".coveragerc"), "w") as file:
        file.write("[run]\nsource = .\n" + ("plugins = exceptstar\n" if mine else ""))
    coverage = [sys.executable, "-m", "coverage"]
    samples: Dict[str, Callable[[], float]] = {
        "coverage_run": lambda: case_package.child_cpu([*coverage, "run", "main.py"], folder),
        "coverage_report": lambda: case_package.child_cpu([*coverage, "json", "-q", "-o", "report.json"], folder),
    }
    if args.profile:
        print("(no profile: the figures are whole coverage processes)")
        return
    results = {row: _timing.measure_processes(samples[row], runs) for row in rows}
    with open(os.path.join(folder, "report.json")) as file:
        totals = json.load(file)["totals"]
    # The work done, compared between the sides: the same statements measured.
    _timing.NOTES["coverage_report"] = f"{totals['num_statements']} statements, {totals['covered_lines']} run"
    for row in rows:
        if row in _timing.NOTES:
            results[row]["note"] = _timing.NOTES[row]
    json.dump({"rows": results}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
