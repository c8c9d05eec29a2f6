"""``python -m exceptstar compileall``: compileall's options, output and exit status, with the hook's cache.

Files without ``except*`` get exactly what ``python -m compileall`` of this
interpreter gives them (output, status, the same ``.pyc`` bytes); files with
it print what native 3.11 prints for them, and get the transformed cache that
an import from a read-only tree then uses without transforming anything.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import child_env
from test_tools_runners import reference

PLAIN = {
    "app/__init__.py": "",
    "app/plain.py": "VALUE = 1\n",
    "app/broken.py": "x = (\n",
    "app/sub/deep.py": "def f():\n    return 2\n",
}
STAR = {
    "app/__init__.py": "",
    "app/star.py": (
        "def grab(exc):\n    caught = None\n    try:\n        raise ExceptionGroup('eg', [exc])\n"
        "    except* ValueError as eg:\n        caught = eg.exceptions\n    return caught\n"
    ),
    "app/sub/bad.py": "try:\n    pass\nexcept* ValueError:\n    break\n",
    "app/sub/mixed.py": "try:\n    pass\nexcept* ValueError:\n    pass\nexcept KeyError:\n    pass\n",
}
OPTIONS = [[], ["-q"], ["-f"], ["-l"], ["-r", "0"], ["-x", "bad|broken"], ["-b"], ["-d", "/installed"],
           ["-j", "2"], ["--invalidation-mode", "checked-hash"], ["-i", "-"], ["-h"]]
if sys.version_info >= (3, 9):  # compileall's -s, -p, -o and --hardlink-dupes are 3.9's
    OPTIONS += [["-s", "app", "-p", "/site"], ["-o", "0", "-o", "2", "--hardlink-dupes"]]
PURE = sys.version_info < (3, 11)
# The interpreter's cache tag ("cpython-310", "pypy39").
TAG = sys.implementation.cache_tag


# The modification time every source file gets.  A timestamp .pyc holds its
# source's mtime (in whole seconds), so two trees written one after the other
# compile to the same bytes only when their files share it: left to the clock,
# a second boundary between writing "mine" and "native" (likelier under load)
# made the byte comparison fail.
SOURCE_MTIME = 1_700_000_000


def tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
        os.utime(root / name, (SOURCE_MTIME, SOURCE_MTIME))
    return root


def compileall(exe: str | None, cwd: Path, options: list[str]) -> subprocess.CompletedProcess[str]:
    command = [exe, "-m", "compileall"] if exe else [sys.executable, "-m", "exceptstar", "compileall"]
    stdin = "app/plain.py\napp/star.py\n" if "-i" in options else None
    return subprocess.run([*command, *options, *([] if "-i" in options or "-h" in options else ["app"])],
                          cwd=cwd, input=stdin, capture_output=True, text=True, env=child_env(False), timeout=120)


def output(proc: subprocess.CompletedProcess[str], options: list[str]) -> object:
    # Parallel workers (-j) print in whatever order they finish, even mid-line: the names then.
    if "-j" in options:
        return proc.returncode, sorted(re.findall(r"'([^']+)'", proc.stdout)), proc.stderr
    stdout = proc.stdout
    if sys.version_info < (3, 10):
        # 3.8/3.9 draw one caret under any SyntaxError (their traceback knows no end_offset).
        stdout = re.sub(r"(?m)^ *\^+$", "^", stdout)
    return proc.returncode, stdout, proc.stderr


def pycs(root: Path) -> dict[str, bytes]:
    return {str(path.relative_to(root)): path.read_bytes() for path in sorted(root.rglob("*.pyc"))}


@pytest.mark.needs_processes
@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
def test_files_without_except_star_as_compileall(tmp_path: Path, options: list[str]) -> None:
    mine, native = tree(tmp_path / "mine", PLAIN), tree(tmp_path / "native", PLAIN)
    ours, theirs = compileall(None, mine, options), compileall(sys.executable, native, options)
    assert output(ours, options) == output(theirs, options)
    assert pycs(mine) == pycs(native)
    if "-h" not in options and "-i" not in options:
        assert pycs(mine), "nothing compiled"


@pytest.mark.needs_processes
@pytest.mark.parametrize("options", OPTIONS, ids=" ".join)
def test_files_with_except_star_as_native(tmp_path: Path, options: list[str]) -> None:
    mine, native = tree(tmp_path / "mine", STAR), tree(tmp_path / "native", STAR)
    ours, theirs = compileall(None, mine, options), compileall(reference(), native, options)
    assert ours.returncode == theirs.returncode
    if "-h" in options:  # the usage text is this interpreter's compileall's
        assert ours.stdout == compileall(sys.executable, native, options).stdout
        return
    assert output(ours, options) == output(theirs, options)
    names = {Path(name).name.split(".")[0] for name in pycs(mine)}
    assert names == {Path(name).name.split(".")[0] for name in pycs(native)}
    if PURE and "-i" not in options and "-x" not in options:
        tagged = [name for name in pycs(mine) if ".exceptstar-" in name]
        levels = [options[i + 1] for i, option in enumerate(options) if option == "-o"] or ["0"]
        tags = [f"{TAG}{'' if level == '0' else '.opt-' + level}"
                for level in levels]
        expected = [f"app/__pycache__/star.{tag}.exceptstar-{_version()}.pyc" for tag in tags]
        assert tagged == ([] if "-b" in options else expected)


def _version() -> str:
    from exceptstar import __version__

    return __version__


# Whether the parser ran: its C module is imported by the first parse (PyPy has
# its _ast built in from the start, and parses without importing ast: there the
# rewrite alone tells).
PARSER = "exceptstar._compiler.rewrite" if sys.implementation.name == "pypy" else "_ast"
IMPORT = f"""\
import sys, exceptstar
exceptstar.install()
import app.star
print(app.star.grab(ValueError(1)), {PARSER!r} in sys.modules, "exceptstar._compiler.rewrite" in sys.modules)
"""


@pytest.mark.needs_processes
@pytest.mark.parametrize(("mode", "flags"), [("timestamp", []), ("checked-hash", []), ("unchecked-hash", []),
                                             ("timestamp", ["-O"])])
def test_read_only_tree_transforms_nothing(tmp_path: Path, mode: str, flags: list[str]) -> None:
    root = tree(tmp_path, STAR)
    shutil.rmtree(root / "app" / "sub")
    # Under -O compileall writes the opt-1 cache, which an import under -O looks for.
    command = [sys.executable, *flags, "-m", "exceptstar", "compileall", "-q", "--invalidation-mode", mode, "app"]
    assert subprocess.run(command, cwd=root, env=child_env(False)).returncode == 0
    # Nothing may be written now: what the import uses is what compileall left.
    env = {**child_env(False), "PYTHONDONTWRITEBYTECODE": "1"}
    importing = [sys.executable, *flags, "-c", IMPORT]
    proc = subprocess.run(importing, cwd=root, capture_output=True, text=True, env=env)
    assert proc.stdout == "(ValueError(1),) False False\n", proc.stderr
    # Not vacuous: without the cache the same import transforms (and so parses) the module.
    for pyc in (root / "app" / "__pycache__").glob("star.*"):
        pyc.unlink()
    proc = subprocess.run(importing, cwd=root, capture_output=True, text=True, env=env)
    assert proc.stdout == f"(ValueError(1),) {PURE} {PURE}\n", proc.stderr


SPAWNED = """\
import multiprocessing, sys
from exceptstar._commands.cli import main
multiprocessing.set_start_method("spawn")
sys.exit(main(["compileall", "-q", "-j", "2", "app"]))
"""


@pytest.mark.needs_processes
@pytest.mark.skipif(sys.implementation.name == "pypy" and sys.version_info < (3, 10),
                    reason="PyPy 3.9's ProcessPoolExecutor starts no spawned worker (its _adjust_process_count "
                           "is missing): python -m compileall -j fails there under spawn")
def test_spawned_workers_write_the_transformed_cache(tmp_path: Path) -> None:
    # macOS and Windows start compileall's -j workers afresh: they must transform too.
    root = tree(tmp_path, STAR)
    shutil.rmtree(root / "app" / "sub")
    proc = subprocess.run([sys.executable, "-c", SPAWNED], cwd=root, capture_output=True, text=True,
                          env=child_env(False), timeout=120)
    assert (proc.returncode, proc.stdout) == (0, ""), proc.stderr
    tag = TAG + (f".exceptstar-{_version()}" if PURE else "")
    assert sorted(pycs(root)) == [f"app/__pycache__/__init__.{TAG}.pyc", f"app/__pycache__/star.{tag}.pyc"]


@pytest.mark.needs_processes
def test_a_second_run_finds_the_transformed_cache_up_to_date(tmp_path: Path) -> None:
    root = tree(tmp_path, STAR)
    shutil.rmtree(root / "app" / "sub")
    compileall(None, root, [])
    assert compileall(None, root, []).stdout == "Listing 'app'...\n"


@pytest.mark.skipif(not PURE, reason="on 3.11+ the legacy pyc is the interpreter's own")
def test_legacy_layout_runs_without_the_source(tmp_path: Path) -> None:
    root = tree(tmp_path, STAR)
    shutil.rmtree(root / "app" / "sub")
    assert compileall(None, root, ["-q", "-b"]).returncode == 0
    (root / "app" / "star.py").unlink()
    proc = subprocess.run([sys.executable, "-c", IMPORT], cwd=root, capture_output=True, text=True,
                          env={**child_env(False), "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.stdout == "(ValueError(1),) False False\n", proc.stderr
