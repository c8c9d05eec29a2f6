"""coverage's static analysis of ``except*`` modules, here with the plugin and on native 3.11+.

Thirty random modules (``support.coverage_programs``: nested ``try``/``except*``
in every kind of block, jumps, multi-line statements, pragmas; some 18,000
lines) are analysed by coverage's ``FileReporter`` here, with
``plugins = exceptstar``, and on the reference interpreter without it, with
the same coverage: statements, exclusions, arcs, exit counts, the
description of every missing arc, regions and source tokens must be equal.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import coverage_project as project
from support.coverage_programs import ANALYSIS, program
from support.interpreters import native_python

SEEDS = range(30)


def analyse(python: str, folder: Path, rc: str, env: dict[str, str]) -> dict[str, object]:
    files = [f"gen{seed}.py" for seed in SEEDS]
    proc = subprocess.run([python, "-c", ANALYSIS, rc, *files], cwd=folder, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


@pytest.mark.needs_processes
def test_static_analysis_equals_native(tmp_path: Path) -> None:
    project.require("coverage")
    exe = native_python()
    if exe is None:
        project.missing("no CPython 3.11+ on this machine")
    for seed in SEEDS:
        (tmp_path / f"gen{seed}.py").write_text(program(seed))
    (tmp_path / "plain.rc").write_text("[run]\n")
    (tmp_path / "plugged.rc").write_text("[run]\nplugins = exceptstar\n")
    native = analyse(exe, tmp_path, "plain.rc", project.native_env(tmp_path))
    # Every module was read, and the programs hold what is compared.
    assert all(isinstance(facts, dict) for facts in native.values()), native
    assert sum(len(facts["arcs"]) for facts in native.values()) > 1000  # type: ignore[index,arg-type]
    assert any(facts["excluded"] for facts in native.values())  # type: ignore[index]
    ours = analyse(sys.executable, tmp_path, "plugged.rc", project.here_env())
    for name in native:
        assert ours[name] == native[name], name
