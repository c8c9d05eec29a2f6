"""A group raised in a Dask ``distributed`` worker reaches the client as on native 3.11+ with the same Dask.

The worker's task handles part of a group with ``except*`` (its module
transformed in the worker process) and the rest reaches the client, where
``except*`` handles it: members, notes, each member's traceback and the whole
printed group must be what native 3.13 with the same ``distributed`` prints
(3.8-3.10 draw no carets: those lines are left out, and so is the
environment's own path).  Two ways the workers get exceptstar: a
``LocalCluster`` whose worker processes are spawned by a program that called
``exceptstar.install()``, and a ``dask worker`` started on its own, which
gets it from a preload file.  On 3.11+ the native run alone is checked (under
``EXCEPTSTAR_PURE=1`` the unpickled group is exceptstar's pure class, which
3.13's own ``traceback`` does not print as a group).  Dask is heavy: the matrix installs it in
the 3.10 and 3.13 environments only.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.heavy import require
from support.processes import ROOT, child_env

require("distributed", what="dask[distributed] is")
import distributed  # noqa: E402

PROGRAM = {
    # What the worker runs: except* handles the KeyErrors there; the ValueErrors go on to the client.
    "tasks.py": (
        "def check(i):\n    if i % 2:\n        raise ValueError(f'odd {i}')\n    raise KeyError(i)\n\n\n"
        "def work(n):\n    errors = []\n    for i in range(n):\n        try:\n            check(i)\n"
        "        except Exception as error:\n            error.add_note(f'item {i}')\n"
        "            errors.append(error)\n"
        "    try:\n        raise ExceptionGroup('work failed', errors)\n    except* KeyError:\n        pass\n"
    ),
    "client_app.py": (
        "import traceback\n\nimport tasks\n\n\ndef run(client):\n"
        "    future = client.submit(tasks.work, 4, pure=False)\n    try:\n        future.result()\n"
        "    except* ValueError as eg:\n"
        "        print(type(eg).__name__, repr(eg.message), [repr(e) for e in eg.exceptions])\n"
        "        for error in eg.exceptions:\n            print(error.__notes__)\n"
        "            print(''.join(traceback.format_tb(error.__traceback__)))\n"
        "        print(''.join(traceback.format_exception(type(eg), eg, eg.__traceback__)))\n"
    ),
    # As the README says: a worker started on its own gets exceptstar from a preload.
    "exceptstar_preload.py": "import exceptstar\n\nexceptstar.install()\n",
    "local.py": (
        "import exceptstar\n\nexceptstar.install()\n\nimport client_app\n"
        "from distributed import Client, LocalCluster\n\nif __name__ == '__main__':\n"
        "    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:\n"
        "        with Client(cluster) as client:\n            client_app.run(client)\n"
    ),
    "remote.py": (
        "import subprocess, sys\n\nimport exceptstar\n\nexceptstar.install()\n\nimport client_app\n"
        "from distributed import Client, LocalCluster\n\nif __name__ == '__main__':\n"
        "    with LocalCluster(n_workers=0, dashboard_address=None) as cluster:\n"
        "        worker = subprocess.Popen([sys.executable, '-m', 'distributed.cli.dask_worker',\n"
        "                                   cluster.scheduler_address, '--nworkers', '1', '--nthreads', '1',\n"
        "                                   '--no-dashboard', '--preload', 'exceptstar_preload.py'])\n"
        "        try:\n            with Client(cluster) as client:\n"
        "                client.wait_for_workers(1, timeout=60)\n                client_app.run(client)\n"
        "        finally:\n            worker.terminate()\n            worker.wait()\n"
    ),
}
NATIVE_ENV = ROOT / ".venvs" / "py313" / "bin" / "python"


def native() -> str:
    """The interpreter of the reference run."""
    if sys.version_info >= (3, 11):
        return sys.executable
    if not NATIVE_ENV.exists():
        pytest.skip("no 3.13 environment with dask[distributed] to compare with")
    return str(NATIVE_ENV)


def run(exe: str, root: Path, script: str) -> str:
    env = child_env(False)
    # The worker started on its own imports the preload from here, as the client does.
    env["PYTHONPATH"] += os.pathsep + str(root)
    proc = subprocess.run([exe, script], cwd=root, capture_output=True, text=True, env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr
    # 3.11+'s carets (3.8-3.10 have no column positions), and where each environment keeps distributed.
    lines = [line for line in proc.stdout.splitlines() if not re.fullmatch(r"[ |]*[~^]+", line)]
    return re.sub(r'"[^"]*/site-packages/', '"SITE/', "\n".join(lines))


@pytest.mark.parametrize("script", ["local.py", "remote.py"])
def test_group_from_a_worker_is_handled_by_the_client_as_natively(tmp_path: Path, script: str) -> None:
    for name, text in PROGRAM.items():
        (tmp_path / name).write_text(text)
    exe = native()
    version = subprocess.run([exe, "-c", "import distributed; print(distributed.__version__)"],
                             capture_output=True, text=True, env=child_env(False), timeout=60).stdout.strip()
    assert version == distributed.__version__, "the same Dask on both sides"
    theirs = run(exe, tmp_path, script)
    ours = run(sys.executable, tmp_path, script) if exe != sys.executable else theirs
    assert ours == theirs
    assert "ExceptionGroup 'work failed' [\"ValueError('odd 1')\", \"ValueError('odd 3')\"]\n['item 1']\n" in ours
    assert ours.count(f'File "{tmp_path}/tasks.py", line 3, in check') == 4  # each member's traceback, twice
    assert "  | ExceptionGroup: work failed (2 sub-exceptions)\n" in ours and "    | item 3\n" in ours
