"""``python -m exceptstar nuitka``: Nuitka compiles a program whose modules use ``except*`` on 3.8-3.10.

Plain Nuitka stops on the first ``except*`` (its parser is the
interpreter's); built through the command, the compiled program (its main
module and a followed module both use ``except*``) prints, exits and shows
its traceback, with the source's line numbers, as native 3.13 running the
source does.  Nuitka is heavy and a build takes a minute or more: it is
installed in the 3.10 environment only, and this is one build.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from support.heavy import require
from support.processes import child_env
from test_tools_runners import reference

require("nuitka", versions=((3, 10),), what="Nuitka is")

PROGRAM = {
    "jobs.py": (
        "def run_jobs():\n    handled = []\n    try:\n"
        "        raise ExceptionGroup('jobs failed', [ValueError('bad input'), OSError('disk')])\n"
        "    except* ValueError as eg:\n        handled.append(repr(eg.exceptions))\n"
        "    except* OSError as eg:\n        handled.append(repr(eg.exceptions))\n    return handled\n"
    ),
    # Neither module imports exceptstar: the compiled main imports it itself.
    "main.py": (
        '"""A program compiled by Nuitka."""\nimport jobs\n\nprint(jobs.run_jobs())\ntry:\n'
        "    raise ExceptionGroup('left', [KeyError('unhandled'), TypeError('handled')])\n"
        "except* TypeError as eg:\n    eg.exceptions[0].add_note('a note')\n"
        "    print(repr(eg), eg.exceptions[0].__notes__)\n"
    ),
}
# Accelerated mode: jobs is compiled into the program; exceptstar is imported from the environment.
OPTIONS = ["--follow-import-to=jobs", "--nofollow-import-to=exceptstar", "--assume-yes-for-downloads", "--quiet",
           "main.py"]


def write(root: Path) -> None:
    for name, text in PROGRAM.items():
        (root / name).write_text(text)


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="3.11+ parses except*")
def test_plain_nuitka_cannot_parse_except_star(tmp_path: Path) -> None:
    write(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "nuitka", *OPTIONS], cwd=tmp_path, capture_output=True, text=True,
                          env=child_env(False), timeout=300)
    assert proc.returncode == 1 and "SyntaxError" in proc.stdout + proc.stderr
    assert not (tmp_path / "main.bin").exists()


def test_compiled_program_runs_as_the_source_does_natively(tmp_path: Path) -> None:
    write(tmp_path)
    build = subprocess.run([sys.executable, "-m", "exceptstar", "nuitka", *OPTIONS], cwd=tmp_path,
                           capture_output=True, text=True, env=child_env(False), timeout=900)
    assert build.returncode == 0, build.stdout + build.stderr
    compiled = subprocess.run([str(tmp_path / "main.bin")], cwd=tmp_path, capture_output=True, text=True,
                              env=child_env(False), timeout=60)
    native = subprocess.run([reference(), "main.py"], cwd=tmp_path, capture_output=True, text=True,
                            env=child_env(False), timeout=60)
    assert (compiled.returncode, compiled.stdout, compiled.stderr) == (native.returncode, native.stdout, native.stderr)
    assert compiled.stdout == ("[\"(ValueError('bad input'),)\", \"(OSError('disk'),)\"]\n"
                               "ExceptionGroup('left', [TypeError('handled')]) ['a note']\n")
    assert f'File "{tmp_path}/main.py", line 6, in <module>' in compiled.stderr
