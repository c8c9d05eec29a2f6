"""``python -m exceptstar coldstart``: the modules every start transforms again, checked against real starts.

A "site-packages" folder with ``except*`` modules (and one whose ``except*``
is only in a string) is imported by real starts of a program under the import
hook, which record what the hook transformed; the command's list must be
exactly what a second start transforms: in a really read-only folder (a
read-only bind mount as root, ``chmod`` otherwise), under
``PYTHONDONTWRITEBYTECODE``, with caches the hook wrote, caches written by
``compileall`` (timestamp and hash-based) and stale ones.  The fix it prints
is run as printed.  On 3.11+ the children run pure (``EXCEPTSTAR_PURE=1``).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator, Sequence

import pytest
from support.processes import PURE_HERE, ROOT, child_env

# Every test here starts processes (the tool, the programs it checks).
pytestmark = pytest.mark.needs_processes

SITE = {
    "mylib/__init__.py": "NOTE = 'except* lives in jobs'\n",
    "mylib/jobs.py": (
        "def grab(exc):\n    try:\n        raise ExceptionGroup('eg', [exc])\n"
        "    except* ValueError as eg:\n        caught = eg.exceptions\n    return caught\n"
    ),
    "mylib/sub/__init__.py": "",
    "mylib/sub/deep.py": "try:\n    pass\nexcept* OSError:\n    pass\n",
    "top.py": "try:\n    raise ExceptionGroup('eg', [KeyError(1)])\nexcept* KeyError:\n    pass\n",
    "plain.py": "VALUE = 1\n",
}
STAR = ["mylib/jobs.py", "mylib/sub/deep.py", "top.py"]

# One start of a program: every module imported under the hook; what the hook transformed, as JSON.
START = """\
import json, sys, exceptstar
from exceptstar._compiler import transform
done = []
compile_source = transform.compile_source
def spy(source, filename, *args, **kwargs):
    code, transformed = compile_source(source, filename, *args, **kwargs)
    if transformed:
        done.append(filename)
    return code, transformed
transform.compile_source = spy
exceptstar.install()
import mylib, mylib.jobs, mylib.sub.deep, top, plain
assert repr(mylib.jobs.grab(ValueError(1))) == "(ValueError(1),)"
print(json.dumps(sorted(done)))
"""


def env(site: Path, **extra: str) -> dict[str, str]:
    environ = child_env(PURE_HERE)
    environ.pop("PYTHONDONTWRITEBYTECODE", None)
    environ["PYTHONPATH"] += os.pathsep + str(site)
    environ.update(extra)
    return environ


def make_site(tmp_path: Path) -> Path:
    site = tmp_path / "site-packages"
    for name, text in SITE.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    return site


@contextlib.contextmanager
def read_only(site: Path) -> Iterator[list[str]]:
    """A prefix that runs a command with ``site`` really read-only (root ignores permission bits)."""
    if os.geteuid() == 0:
        prefix = ["unshare", "-m", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$@"', str(site)]
        if shutil.which("unshare") is None or subprocess.run([*prefix, "true"], capture_output=True).returncode:
            pytest.skip("root ignores permission bits, and no read-only mount can be made here")
        yield prefix
        return
    folders = [site, *(path for path in site.rglob("*") if path.is_dir())]
    for folder in folders:
        folder.chmod(0o555)
    try:
        yield []
    finally:
        for folder in folders:
            folder.chmod(0o755)


def start(site: Path, prefix: Sequence[str] = (), **extra: str) -> list[str]:
    proc = subprocess.run([*prefix, sys.executable, "-c", START], cwd=site.parent, capture_output=True, text=True,
                          env=env(site, **extra), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return [os.path.relpath(path, site) for path in json.loads(proc.stdout)]


def coldstart(site: Path, prefix: Sequence[str] = (), default_roots: bool = False,
              **extra: str) -> tuple[int, dict[str, str], list[str]]:
    """(status, {module path relative to site: reason}, the closing lines)."""
    roots = [] if default_roots else [str(site)]
    proc = subprocess.run([*prefix, sys.executable, "-m", "exceptstar", "coldstart", *roots],
                          cwd=site.parent, capture_output=True, text=True, env=env(site, **extra), timeout=120)
    assert proc.stderr == ""
    listed: dict[str, str] = {}
    closing: list[str] = []
    for line in proc.stdout.splitlines():
        path, _, reason = line.partition(": ")
        if not closing and Path(path).is_absolute() and not path.startswith(str(site)):
            continue  # a module elsewhere on sys.path (the default roots): not this test's
        if not closing and path.startswith(str(site)):
            listed[os.path.relpath(path, site)] = reason
        else:
            closing.append(line)
    return proc.returncode, listed, closing


def compileall(site: Path, *options: str) -> None:
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "compileall", "-q", *options, str(site)],
                          capture_output=True, text=True, env=env(site), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_read_only_folder_without_cache_and_the_fix_it_prints(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    with read_only(site) as prefix:
        status, listed, closing = coldstart(site, prefix=prefix)
        # Two starts: the second transforms again, exactly the modules listed.
        assert start(site, prefix) == start(site, prefix) == sorted(listed) == sorted(STAR)
    assert status == 1
    # The folder named is where the cache would go: __pycache__ is not there, so the one it would be made in.
    assert listed == {name: f"no transformed bytecode, and {(site / name).parent} cannot be written" for name in STAR}
    assert closing[0] == ("exceptstar coldstart: 3 modules use except* with no valid transformed bytecode: "
                          "each start that finds none transforms again")
    fix = shlex.split(closing[-1])
    assert fix == [sys.executable, "-m", "exceptstar", "compileall", "-q", f"{site}/mylib", f"{site}/top.py"]
    proc = subprocess.run(fix, capture_output=True, text=True, env=env(site), timeout=120)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    with read_only(site) as prefix:
        status, listed, closing = coldstart(site, prefix=prefix)
        assert start(site, prefix) == []
    assert (status, listed) == (0, {})
    assert closing == ["exceptstar coldstart: every module that uses except* has valid transformed bytecode"]


def test_dont_write_bytecode(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    status, listed, _ = coldstart(site, PYTHONDONTWRITEBYTECODE="1")
    assert start(site, PYTHONDONTWRITEBYTECODE="1") == start(site, PYTHONDONTWRITEBYTECODE="1") == sorted(listed)
    assert sorted(listed) == STAR and status == 1
    assert set(listed.values()) == {
        "no transformed bytecode, and writing bytecode is off (PYTHONDONTWRITEBYTECODE or -B)"}


def test_cache_written_by_the_hook(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    status, listed, _ = coldstart(site)
    assert (status, sorted(listed)) == (1, STAR)
    assert set(listed.values()) == {"no transformed bytecode (the first import here writes it; "
                                    "a new container or copy of this tree starts without it)"}
    assert start(site) == STAR  # the hook writes the cache
    assert coldstart(site)[:2] == (0, {})
    assert start(site) == []


@pytest.mark.parametrize("mode", ["timestamp", "checked-hash", "unchecked-hash"])
def test_compileall_caches_and_a_stale_one(tmp_path: Path, mode: str) -> None:
    site = make_site(tmp_path)
    compileall(site, "--invalidation-mode", mode)
    with read_only(site) as prefix:
        assert coldstart(site, prefix=prefix)[:2] == (0, {})
        assert start(site, prefix) == []
    # Edited after compileall: a new size and mtime (and hash); an unchecked hash-based pyc is trusted as is.
    (site / "top.py").write_text(SITE["top.py"] + "EDITED = True\n")
    os.utime(site / "top.py", (1_800_000_000, 1_800_000_000))
    with read_only(site) as prefix:
        status, listed, _ = coldstart(site, prefix=prefix)
        assert start(site, prefix) == sorted(listed)
    if mode == "unchecked-hash":
        assert (status, listed) == (0, {})
    else:
        reason = f"its transformed bytecode is out of date, and {site}/__pycache__ cannot be written"
        assert (status, listed) == (1, {"top.py": reason})


def test_default_is_sys_path_beyond_the_standard_library(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    status, listed, closing = coldstart(site, default_roots=True)
    assert status == 1 and sorted(listed) == STAR
    assert shlex.split(closing[-1])[-2:] == [f"{site}/mylib", f"{site}/top.py"]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.11+: except* is native")
def test_native_transforms_nothing(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "coldstart", str(site)], capture_output=True,
                          text=True, env=child_env(False), timeout=60)
    assert (proc.returncode, proc.stdout) == (0, "exceptstar coldstart: except* is native on this Python: "
                                                 "no module is transformed\n")


def test_docs_example_is_what_the_command_prints(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "howto" / "compileall.md").read_text()
    block = next(block for block in page.split("```text\n") if block.startswith("$ docker run --rm myimage"))
    shown = block.split("```")[0].splitlines()[1:]
    site = make_site(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "coldstart", str(site)], capture_output=True, text=True,
                          env=env(site, PYTHONDONTWRITEBYTECODE="1"), timeout=60)
    printed = proc.stdout.replace(str(site), "/usr/local/lib/python3.10/site-packages")
    assert printed.replace(sys.executable, "/usr/local/bin/python").splitlines() == shown


def test_a_cache_stale_by_its_size_alone_and_the_fix_it_prints(tmp_path: Path) -> None:
    # An image's files often share one modification time: edited and given it
    # back, only the size tells, which compileall does not look at without -f.
    site = make_site(tmp_path)
    compileall(site)
    stat = (site / "top.py").stat()
    (site / "top.py").write_text(SITE["top.py"] + "EDITED = True\n")
    os.utime(site / "top.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with read_only(site) as prefix:
        status, listed, closing = coldstart(site, prefix=prefix)
        assert start(site, prefix) == sorted(listed) == ["top.py"]
    assert status == 1
    fix = shlex.split(closing[-1])
    assert fix == [sys.executable, "-m", "exceptstar", "compileall", "-q", "-f", f"{site}/top.py"]
    proc = subprocess.run(fix, capture_output=True, text=True, env=env(site), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with read_only(site) as prefix:
        assert coldstart(site, prefix=prefix)[:2] == (0, {})
        assert start(site, prefix) == []


def test_the_fix_keeps_the_bytecode_folder(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    folder = tmp_path / "bytecode"
    proc = subprocess.run([sys.executable, "-X", f"pycache_prefix={folder}", "-m", "exceptstar", "coldstart",
                           str(site)], capture_output=True, text=True, env=env(site), timeout=120)
    fix = shlex.split(proc.stdout.splitlines()[-1])
    assert (proc.returncode, fix[1:3]) == (1, ["-X", f"pycache_prefix={folder}"])
    proc = subprocess.run(fix, capture_output=True, text=True, env=env(site), timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not (site / "__pycache__").exists()
    with read_only(site) as prefix:
        assert coldstart(site, prefix=prefix, PYTHONPYCACHEPREFIX=str(folder))[:2] == (0, {})
        assert start(site, prefix, PYTHONPYCACHEPREFIX=str(folder)) == []


def test_a_path_not_found(tmp_path: Path) -> None:
    missing = tmp_path / "site-packages"
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "coldstart", str(missing)], capture_output=True,
                          text=True, env=env(tmp_path), timeout=60)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", f"exceptstar coldstart: {missing}: no such file "
                                                                  "or folder\n")


def test_an_environment_is_looked_into(tmp_path: Path) -> None:
    # Given an environment's own folder, its site-packages are what it looks at.
    venv = tmp_path / "venv"
    site = make_site(venv / "lib" / "python3.10")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "coldstart", str(venv)], capture_output=True,
                          text=True, env=env(site), timeout=120)
    listed = sorted(os.path.relpath(line.partition(": ")[0], site) for line in proc.stdout.splitlines()
                    if line.startswith(str(site)))
    assert (proc.returncode, listed) == (1, STAR), proc.stdout + proc.stderr


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.11+ (pure): the interpreter's own pyc proves nothing")
def test_pure_a_normal_pyc_is_no_proof(tmp_path: Path) -> None:
    site = make_site(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "compileall", "-q", str(site)], capture_output=True, text=True,
                          env=child_env(False), timeout=120)
    assert proc.returncode == 0, proc.stdout
    with read_only(site) as prefix:
        status, listed, _ = coldstart(site, prefix=prefix)
        assert start(site, prefix) == sorted(listed) == STAR
    assert status == 1


def test_a_folder_inside_a_zip_file_on_sys_path(tmp_path: Path) -> None:
    # `bundle.zip/lib` on sys.path: zipimport imports from the folder inside, and caches nothing.
    import zipfile

    bundle = tmp_path / "bundle.zip"
    with zipfile.ZipFile(bundle, "w") as archive:
        for name, text in SITE.items():
            archive.writestr(f"lib/{name}", text)
        archive.writestr("other/elsewhere.py", SITE["top.py"])
    entry = bundle / "lib"
    program = START.replace("print(json.dumps(sorted(done)))", "print(json.dumps(sorted(done)))\nprint(top.__file__)")
    for _ in range(2):
        proc = subprocess.run([sys.executable, "-c", program], cwd=tmp_path, capture_output=True, text=True,
                              env=env(entry), timeout=120)
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout.splitlines()[0]) == [f"{entry}/{name}" for name in STAR]
    for roots in ([], [str(entry)]):
        proc = subprocess.run([sys.executable, "-m", "exceptstar", "coldstart", *roots], cwd=tmp_path,
                              capture_output=True, text=True, env=env(entry), timeout=120)
        listed = [line for line in proc.stdout.splitlines() if line.startswith(str(bundle))]
        assert (proc.returncode, listed) == (1, [f"{entry}/{name}: in a zip file, where source modules are never "
                                                 "cached" for name in STAR]), proc.stdout + proc.stderr
