"""Case 14: pyright and basedpyright on case 8's starred package, through the route, against the plain tool.

The project is case 8's 200-module package, every module a ``try`` with two
``except*`` clauses.  The exceptstar side checks it at a 3.9 target with the
settings ``config`` prints, run as ``python -m exceptstar pyright`` (the
typeshed folder already written: the steady state of every run after the
first); the peer runs the plain tool on the same files at a 3.11 target,
which is what a 3.11-only project pays.  Each figure is the CPU time of the
whole process tree (the Python wrapper and node).  The one-time writing of the
typeshed folder is in the row's note.  Without the tool in the benchmark's
environment the row is unavailable.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import sys
import tempfile
import time

import _timing
import case_package

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List

ROWS = {"pyright_route": "pyright", "basedpyright_route": "basedpyright"}


def command(tool: str) -> str | None:
    return shutil.which(tool, path=os.path.dirname(sys.executable))


def main() -> None:
    args = _timing.arguments()
    runs = 2 if args.quick else 3
    mine = args.side == "exceptstar"
    results: Dict[str, object] = {}
    if args.profile:
        print("(no profile: the figures are whole type checker processes)")
        return
    for row, tool in ROWS.items():
        path = command(tool)
        if path is None:
            results[row] = {"unavailable": f"{tool} is not installed"}
            continue
        folder = tempfile.mkdtemp(prefix=f"exceptstar-bench-{tool}-")
        atexit.register(shutil.rmtree, folder, True)
        case_package.write_package(os.path.join(folder, "src"), "app", star=True)
        settings: Dict[str, object] = {"include": ["src"], "typeCheckingMode": "standard"}
        tool_args: List[str] = ["--pythonpath", sys.executable]
        note = ""
        if mine:
            from exceptstar._commands.tools import star_files
            from exceptstar._integrations import pyright

            previous = os.getcwd()
            os.chdir(folder)
            try:
                block = pyright.config_block(tool, star_files(["src"]), "3.9")
                settings.update(json.loads(block[block.index("{"):]))
                with open("pyrightconfig.json", "w") as file:
                    json.dump(settings, file)
                started = time.perf_counter()
                pyright.ensure_typeshed(tool, path, tool_args, folder)
                note = f"typeshed folder written once in {time.perf_counter() - started:.2f} s"
            finally:
                os.chdir(previous)
            argv = [sys.executable, "-m", "exceptstar", tool, *tool_args]
        else:
            settings["pythonVersion"] = "3.11"
            with open(os.path.join(folder, "pyrightconfig.json"), "w") as file:
                json.dump(settings, file)
            argv = [path, *tool_args]
        results[row] = _timing.measure_processes(lambda argv=argv, folder=folder: cpu(argv, folder), runs)
        if note:
            results[row]["note"] = note  # type: ignore[index]
    json.dump({"rows": results}, sys.stdout)
    print()


def cpu(argv: List[str], folder: str) -> float:
    # The package type-checks clean on both sides: a status other than 0 is a failure of the case.
    return case_package.child_cpu(argv, folder)


if __name__ == "__main__":
    main()
