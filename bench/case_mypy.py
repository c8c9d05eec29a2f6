"""Case 13: mypy with exceptstar's plugin, against plain mypy.

The project is case 8's 200-module package, checked with
``--check-untyped-defs`` at the newest target below 3.11 that this
interpreter's mypy accepts.  The exceptstar side checks the starred package
with ``plugins = ["exceptstar.mypy"]``; the peer checks the plain twin
(``except`` for ``except*``) with plain mypy, which cannot read the starred one
at that target.  ``mypy_cold`` is the CPU time of a mypy process with an empty
cache (what CI pays: typeshed is parsed too, and mypy 2's native parser is off
under the plugin), ``mypy_warm`` that of a second run from the cache.  Without
mypy in the benchmark's environment both rows are unavailable.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile

import _timing
import case_package

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Dict, List


def target_version() -> str:
    """The newest target below 3.11 that this mypy checks (mypy 2 refuses 3.8 and 3.9)."""
    from importlib.metadata import version

    if int(version("mypy").split(".")[0]) >= 2:
        return "3.10"
    return f"3.{min(sys.version_info[1], 10)}"


def mypy_cpu(args: List[str], cwd: str) -> float:
    """User + system CPU seconds of one mypy process, which must find no error."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(args, cwd=cwd, env=case_package.child_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(proc.stdout + proc.stderr)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    args = _timing.arguments()
    rows = ("mypy_cold", "mypy_warm")
    if importlib.util.find_spec("mypy") is None:
        json.dump({"rows": {row: {"unavailable": "mypy is not installed"} for row in rows}}, sys.stdout)
        print()
        return
    runs = 3 if args.quick else 5
    mine = args.side == "exceptstar"
    folder = tempfile.mkdtemp(prefix="exceptstar-bench-mypy-")
    atexit.register(shutil.rmtree, folder, True)
    case_package.write_package(folder, "bench_package", star=mine)
    if not mine:
        # The twin's handlers get a plain exception: the same work without errors (mypy caches
        # no module with errors, so the warm row would not compare).
        for index in range(case_package.MODULES):
            path = os.path.join(folder, "bench_package", f"m{index}.py")
            with open(path) as file:
                text = file.read()
            with open(path, "w") as file:
                file.write(text.replace("len(group.exceptions)", "len(group.args)"))
    with open(os.path.join(folder, "mypy.ini"), "w") as file:
        file.write("[mypy]\ncheck_untyped_defs = True\n" + ("plugins = exceptstar.mypy\n" if mine else ""))
    cache = os.path.join(folder, "cache")
    mypy = [sys.executable, "-m", "mypy", "--python-version", target_version(), "--cache-dir", cache,
            "-p", "bench_package"]

    def cold() -> float:
        shutil.rmtree(cache, ignore_errors=True)
        return mypy_cpu(mypy, folder)

    def warm() -> float:
        if not os.path.isdir(cache):
            mypy_cpu(mypy, folder)
        return mypy_cpu(mypy, folder)

    samples: Dict[str, Callable[[], float]] = {"mypy_cold": cold, "mypy_warm": warm}
    if args.profile:
        print("(no profile: the figures are whole mypy processes)")
        return
    results = {row: _timing.measure_processes(samples[row], runs) for row in rows}
    for row in rows:
        results[row]["note"] = f"mypy at {target_version()}, {case_package.MODULES} modules"
    json.dump({"rows": results}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
