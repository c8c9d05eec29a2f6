"""Case 11: what the rendering integrations cost when no group is shown (issue 20).

Each package is imported in fresh processes started with ``-X importtime``,
alone and after ``import exceptstar``; the figure is the cumulative time of the
top-level imports other than exceptstar's own, so the ratio is what our
meta-path step and the package's ``patch`` add to the package's import.  A log
call without an exception (structlog, loguru, rich's handler) is timed in the
same two ways.  On 3.11+ there is nothing to patch; the ratio shows the step's
own cost.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Dict, List

_LINE = re.compile(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\| (\S+)")

IMPORTS = {"rich": "rich.traceback", "structlog": "structlog", "sentry_sdk": "sentry_sdk", "loguru": "loguru"}

# Statements timed (seconds per call) after the setup, which configures a sink that discards.
LOG_SETUP = {
    "structlog": "import structlog; structlog.configure(logger_factory=structlog.ReturnLoggerFactory()); "
                 "log = structlog.get_logger()",
    "loguru": "from loguru import logger; logger.remove(); logger.add(lambda message: None); log = logger",
    "rich": "import io, logging; from rich.console import Console; from rich.logging import RichHandler; "
            "log = logging.getLogger('b'); log.propagate = False; log.setLevel(logging.INFO); "
            "log.addHandler(RichHandler(console=Console(file=io.StringIO()), rich_tracebacks=True))",
}


def import_seconds(module: str, first: bool) -> float:
    env = {key: value for key, value in os.environ.items() if not key.startswith("EXCEPTSTAR_")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    code = ("import exceptstar; " if first else "") + f"import {module}"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                          capture_output=True, text=True, env=env, check=True)
    total = 0
    for line in proc.stderr.splitlines():
        match = _LINE.match(line)
        if match and match.group(3) != "exceptstar":
            total += int(match.group(2))
    return total * 1e-6


def log_seconds(package: str, first: bool) -> float:
    code = (("import exceptstar\n" if first else "") + LOG_SETUP[package].replace("; ", "\n") + "\n"
            "import timeit\n"
            "print(min(timeit.repeat(\"log.info('x')\", globals=globals(), number=2000, repeat=5)) / 2000)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(proc.stdout.split()[-1])


def row(sample: Dict[bool, List[float]]) -> Dict[str, float]:
    alone, after = statistics.median(sample[False]), statistics.median(sample[True])
    return {"alone": alone, "with_exceptstar": after, "ratio": after / alone}


def main() -> None:
    runs = 5 if "--quick" in sys.argv else 9
    rows: Dict[str, Dict[str, float]] = {}
    for package, module in IMPORTS.items():
        try:
            import_seconds(module, False)
        except subprocess.CalledProcessError:
            continue  # not installed here
        sample: Dict[bool, List[float]] = {False: [], True: []}
        for _ in range(runs):
            for first in (False, True):  # interleaved, so drift hits both sides
                sample[first].append(import_seconds(module, first))
        rows[f"import {module}"] = row(sample)
        if package in LOG_SETUP:
            calls = {first: [log_seconds(package, first) for _ in range(3)] for first in (False, True)}
            rows[f"{package} log call, no exception"] = row(calls)
    if "--json" in sys.argv:
        json.dump({"rows": rows}, sys.stdout)
        print()
        return
    print(f"Python {sys.version.split()[0]}")
    for name, figures in rows.items():
        print(f"{name:40} {figures['alone'] * 1e3:9.3f} ms {figures['with_exceptstar'] * 1e3:9.3f} ms"
              f"   x{figures['ratio']:.2f}")


if __name__ == "__main__":
    main()
