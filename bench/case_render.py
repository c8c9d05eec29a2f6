"""Case 11: what the rendering integrations cost when no group is shown (issue 20).

The exceptstar side imports exceptstar first, the peer does not: everything
else is the same.  ``render_import_*``: the package imported in a fresh
process started with ``-X importtime``; the figure is the cumulative time of
the top-level imports other than exceptstar's own, so the ratio is what our
meta-path step and the package's adaptation add to the package's import.
``render_log_*``: a log call without an exception (structlog, loguru, rich's
handler) to a sink that discards, timed in the process.  On 3.11+ nothing is
adapted; the ratio shows the meta-path step's own cost.  A package missing
from the benchmark's environment makes its rows unavailable.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys

import _timing

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Dict, Union

    Result = Dict[str, object]

_LINE = re.compile(r"import time:\s+(\d+)\s+\|\s+(\d+)\s+\| (\S+)")

# Row suffix -> the module imported.
IMPORTS = {"rich": "rich.traceback", "structlog": "structlog", "sentry_sdk": "sentry_sdk", "loguru": "loguru"}

# Row suffix -> statements that configure a logger writing to a sink that discards, bound to ``log``.
LOG_SETUP = {
    "structlog": "import structlog\nstructlog.configure(logger_factory=structlog.ReturnLoggerFactory())\n"
                 "log = structlog.get_logger()\n",
    "loguru": "from loguru import logger\nlogger.remove()\nlogger.add(lambda message: None)\nlog = logger\n",
    "rich": "import io, logging\nfrom rich.console import Console\nfrom rich.logging import RichHandler\n"
            "log = logging.getLogger('bench')\nlog.propagate = False\nlog.setLevel(logging.INFO)\n"
            "log.addHandler(RichHandler(console=Console(file=io.StringIO()), rich_tracebacks=True))\n",
}


def import_seconds(module: str, first: bool) -> float:
    """Cumulative import time of the top-level imports but exceptstar's, in a fresh process."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    code = ("import exceptstar; " if first else "") + f"import {module}"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                          capture_output=True, text=True, env=env, check=True)
    total = 0
    for line in proc.stderr.splitlines():
        match = _LINE.match(line)
        if match and match.group(3) != "exceptstar":
            total += int(match.group(2))
    return total * 1e-6


def log_loop(package: str) -> Callable[[int], object]:
    namespace: Dict[str, object] = {}
    exec(LOG_SETUP[package], namespace)
    info = namespace["log"].info  # type: ignore[attr-defined]

    def calls(n: int) -> None:
        for _ in range(n):
            info("x")

    return calls


def main() -> None:
    args = _timing.arguments()
    first = args.side == "exceptstar"
    if first:
        import exceptstar  # noqa: F401  (what the exceptstar side is: the packages imported after it)
    runs = 5 if args.quick else 7
    rows: Dict[str, Union[Result, str]] = {}
    loops: Dict[str, Callable[[int], object]] = {}
    for package, module in IMPORTS.items():
        if importlib.util.find_spec(package) is None:
            rows[f"render_import_{package}"] = f"{package} is not installed"
            if package in LOG_SETUP:
                rows[f"render_log_{package}"] = f"{package} is not installed"
            continue
        rows[f"render_import_{package}"] = _timing.measure_processes(
            lambda module=module: import_seconds(module, first), runs)  # type: ignore[misc]
        if package in LOG_SETUP:
            loops[f"render_log_{package}"] = log_loop(package)
    if args.profile:
        loop = loops.get(args.profile)
        print(_timing.profile(loop) if loop else "(no profile: the figure is whole processes' import time)", end="")
        return
    for name, loop in loops.items():
        rows[name] = _timing.measure(loop, args.quick)
    results = {name: {"unavailable": row} if isinstance(row, str) else row for name, row in rows.items()}
    json.dump({"rows": results}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
