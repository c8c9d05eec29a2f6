"""Which of ruff's rules advise, at a 3.11 target, what a 3.8 target cannot run: asked of ruff itself.

``config ruff`` parses the files that use ``except*`` at ``py311``; a rule whose
diagnostics or fixes there differ from those at ``py38`` gives advice that the
project's real target may not run (``zip(..., strict=True)``, ``X | None``,
``datetime.UTC``).  The probes are ruff's own: every Python example in every
stable rule's documentation (``ruff rule --all``), and one module shaped as the
files ``config`` lists (the group names imported from exceptstar, a handler).
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

# A module of the kind config lists: written for 3.8, with one except*.
PROBE = '''\
import sys
from typing import List, Optional

from exceptstar import BaseExceptionGroup, ExceptionGroup

if sys.version_info >= (3, 9):
    from functools import cache
else:
    cache = None


def _fail(message: str):
    raise ValueError(message)


class Jobs:
    @staticmethod
    def first(jobs: List[str]):
        return 1 if jobs else None

    @classmethod
    def last(cls, jobs: List[str]):
        return 1 if jobs else None


def run(jobs: List[str], limits: List[int], name: Optional[str] = None) -> int:
    try:
        raise ExceptionGroup("jobs", [ValueError(job) for job in jobs])
    except* ValueError as group:
        pairs = list(zip(jobs, limits))
        return len(group.exceptions) + len(pairs) + isinstance(group, BaseExceptionGroup)
'''


def write_probes(ruff: str, folder: Path) -> None:
    rules = json.loads(subprocess.run([ruff, "rule", "--all", "--output-format", "json"],
                                      capture_output=True, text=True, check=True).stdout)
    for rule in rules:
        if rule.get("preview"):
            continue
        for index, example in enumerate(re.findall(r"```python\n(.*?)```", rule["explanation"], re.S)):
            (folder / f"{rule['code']}_{index}.py").write_text(example)
    (folder / "probe.py").write_text(PROBE)


def diagnostics(ruff: str, folder: Path, target: str) -> set[tuple[str, ...]]:
    """Every stable rule's diagnostics on the probes at ``target``, with their fixes."""
    proc = subprocess.run([ruff, "check", "--isolated", "--no-cache", "--select", "ALL", "--target-version",
                           target, "--output-format", "json", "--exit-zero", str(folder)],
                          capture_output=True, text=True, check=True)
    return {(item["filename"], item["code"], str(item["location"]), item["message"],
             json.dumps(item["fix"], sort_keys=True))
            for item in json.loads(proc.stdout)
            if re.fullmatch(r"[A-Z]+[0-9]+", item["code"] or "")}  # not the syntax errors


def gated_at_311(ruff: str, folder: Path) -> dict[str, str]:
    """The rules whose advice at py311 is not theirs at py38: code -> one such message."""
    write_probes(ruff, folder)
    at_38 = diagnostics(ruff, folder, "py38")
    return {item[1]: f"{Path(item[0]).name}: {item[3]}"
            for item in sorted(diagnostics(ruff, folder, "py311") - at_38)}
