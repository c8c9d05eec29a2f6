"""CPython 3.14.2 as Pyodide 314.0.7 (the npm package ``pyodide``, run by Node.js): the colour tests' oracle.

``run_pyodide(program, env)`` runs one Python file in a fresh Pyodide with
``env`` as its environment and returns what it wrote to stdout.  The file's
folder is mounted at ``/mnt/case`` (its frames there show that path).  The
package is installed with npm once per machine, in the temporary folder; where
Node.js or npm is missing the test is skipped (a failure under CI, which has
both).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

VERSION = "314.0.7"
MOUNT = "/mnt/case"
REQUIRED = bool(os.environ.get("CI") or os.environ.get("EXCEPTSTAR_REQUIRE_LINT"))

# Pyodide replaces sys.excepthook with traceback.print_exception; the
# interpreter's own hook (the one a CPython program ends with) is
# sys.__excepthook__, which the programs call.
_RUNNER = """
const fs = require("fs");
const [home, dir, mount, envJson, file] = process.argv.slice(2);
const { loadPyodide } = require(home + "/pyodide.js");
(async () => {
  const py = await loadPyodide({ env: JSON.parse(envJson), stdout: () => {}, stderr: () => {} });
  const out = (fd) => ({ write: (buf) => { fs.writeSync(fd, buf); return buf.length; } });
  py.setStdout(out(1));
  py.setStderr(out(2));
  py.FS.mkdirTree(mount);
  py.FS.mount(py.FS.filesystems.NODEFS, { root: dir }, mount);
  try {
    py.runPython(fs.readFileSync(file, "utf8"), { filename: mount + "/" + require("path").basename(file) });
    py.runPython("import sys; sys.stdout.flush(); sys.stderr.flush()");
  } catch (error) {
    fs.writeSync(2, String(error));
    process.exit(1);
  }
})();
"""


def _unavailable(why: str) -> None:
    if REQUIRED:
        pytest.fail(why)
    pytest.skip(why)


def pyodide_home() -> Path:
    """The installed npm package's folder (installed on first use)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        _unavailable("Node.js and npm are needed to run CPython 3.14 (Pyodide)")
    home = Path(tempfile.gettempdir()) / f"exceptstar-pyodide-colour-{VERSION}"
    package = home / "node_modules" / "pyodide"
    if not (package / "pyodide.js").exists():
        # Installed beside, then moved into place: two interpreters of the
        # matrix may get here at once.
        staging = Path(tempfile.mkdtemp(prefix="pyodide-install-"))
        proc = subprocess.run([str(npm), "install", "--no-audit", "--no-fund", "--prefix", str(staging),
                               f"pyodide@{VERSION}"], capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            _unavailable(f"npm install pyodide@{VERSION} failed: {proc.stderr[-2000:]}")
        try:
            os.replace(staging, home)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    runner = home / "run_colour.js"
    if not runner.exists() or runner.read_text(encoding="utf-8") != _RUNNER:
        partial = home / f"run_colour.js.{os.getpid()}"
        partial.write_text(_RUNNER, encoding="utf-8")
        os.replace(partial, runner)
    return package


def run_pyodide(program: Path, env: dict[str, str]) -> str:
    """Run ``program`` in CPython 3.14 (Pyodide) with ``env``; its stdout.

    The same program in the same environment prints the same: the answer is
    kept (per machine, beside the package), so that each interpreter of the
    matrix does not start Pyodide again for it.
    """
    package = pyodide_home()
    key = hashlib.sha256(json.dumps([program.read_text(encoding="utf-8"), env, program.name]).encode())
    kept = package.parent.parent / "answers" / f"{key.hexdigest()}.out"
    if kept.exists():
        return kept.read_text(encoding="utf-8")
    proc = subprocess.run(
        ["node", str(package.parent.parent / "run_colour.js"), str(package), str(program.parent), MOUNT,
         json.dumps(env), str(program)],
        capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    kept.parent.mkdir(exist_ok=True)
    partial = kept.with_name(f"{kept.name}.{os.getpid()}")
    partial.write_text(proc.stdout, encoding="utf-8")
    os.replace(partial, kept)
    return proc.stdout
