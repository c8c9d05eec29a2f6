"""Native CPython 3.14 and 3.15 (and PyPy 3.11) from Debian sid, on a Debian 12 host.

Debian's registry has ``python3.14``, ``python3.15`` and sid's ``pypy3`` (PyPy 3.11) only in sid,
whose C library is newer than the host's, so they live in a minimal sid root (debootstrap), made
once per machine under ``/var/cache/exceptstar`` (``$EXCEPTSTAR_SID`` to put it elsewhere) and
reused by every checkout.  Host commands run them through small wrappers in its ``bin/``
(``python3.14``, ``python3.15``, ``pypy3.11``; ``in-sid CMD...`` for any command of the root):
each enters the root with ``chroot`` in the caller's working directory, with its arguments and
environment.  The host's own folders (the checkouts, ``/tmp``, ``/root`` with pyenv, ``/opt``
with the pip wheels) are bind-mounted at the same paths, so a path means the same on both sides:
a virtual environment made inside the root and the tests' temporary files included.

Root and Debian packages only, as on every machine here; nothing is done on a machine that is not
Debian or where the user is not root (``ensure`` returns None: the matrix goes on without them).

    python3 tools/sid.py        # make the root (about a minute), print the wrappers' folder
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable

HOME = Path(os.environ.get("EXCEPTSTAR_SID") or "/var/cache/exceptstar")
ROOT = HOME / "sid"
BIN = HOME / "bin"
MIRROR = "http://deb.debian.org/debian"
# Node.js for pyright, whose PyPI package runs the machine's node (it cannot download its own here).
PACKAGES = ["python3.14", "python3.14-venv", "python3.15", "python3.15-venv", "libpython3.14-testsuite",
            "libpython3.15-testsuite", "pypy3", "pypy3-venv", "pypy3-dev", "ca-certificates", "nodejs"]
# Every interpreter's name inside the root, and the wrapper's name outside.
COMMANDS = {"python3.14": "/usr/bin/python3.14", "python3.15": "/usr/bin/python3.15", "pypy3.11": "/usr/bin/pypy3"}
# The host's folders a test may name: everything at the top but the operating system's own
# (the root has its own /usr, /etc, /var; /proc and /dev are the host's, bound recursively).
SYSTEM = {"bin", "boot", "etc", "lib", "lib32", "lib64", "libx32", "lost+found", "media", "run", "sbin", "sys",
          "usr", "var", "old_root"}
STAMP = " ".join(PACKAGES)

WRAPPER = """#!/bin/sh
# Made by tools/sid.py: runs {inside} in the Debian sid root {root}, in this working directory.
R={root}
[ -e "$R/proc/self" ] || flock "$R.lock" sh -c '[ -e "$0/proc/self" ] || for d in $1; do \
[ -d "$d" ] && mkdir -p "$0$d" && mount --rbind "$d" "$0$d"; done; true' "$R" "{mounts}"
# A working directory that the top-level binds leave out (a checkout under /var, say) is bound
# where it is; never one of the operating system's own folders, which the root has of its own.
# The binds outlive the checkout: a CI runner that deletes its checkout and clones again at the
# same path finds the old bind still there, on a deleted folder that nothing can be mounted on.
# So a bind at that path or above it that no longer shows the host's folder is taken away first.
case "$PWD" in /*/*) case "${{PWD#/}}" in {system}) ;; *) [ "$R$PWD" -ef "$PWD" ] || flock "$R.lock" \
sh -c '[ "$0$1" -ef "$1" ] && exit; set -f; IFS=/; p=; for c in ${{1#/}}; do p="$p/$c"; \
while ! [ "$0$p" -ef "$p" ] && mountpoint -q "$0$p"; do umount -l "$0$p" || exit; done; done; \
mkdir -p "$0$1" && mount --rbind "$1" "$0$1"' "$R" "$PWD" || exit;; esac;; esac
exec chroot "$R" /usr/bin/env -C "$PWD" {inside} "$@"
"""
# Never bound as a working directory: the root's own system folders (/var and /run are not among
# them: a checkout or a runner's work folder may live there).
OWN = ["bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "usr"]


def host_folders() -> list[str]:
    """The host's top-level folders to bind into the root: /proc and /dev first, then the rest."""
    rest = sorted(f"/{entry.name}" for entry in Path("/").iterdir()
                  if entry.is_dir() and not entry.is_symlink() and entry.name not in SYSTEM | {"proc", "dev"})
    return ["/proc", "/dev", *rest]


def usable() -> bool:
    return sys.platform == "linux" and os.geteuid() == 0 and Path("/etc/debian_version").exists()


def wrapper(name: str) -> Path:
    return BIN / name


def _write_wrappers() -> None:
    BIN.mkdir(parents=True, exist_ok=True)
    mounts = " ".join(host_folders())
    system = "|".join(f"{folder}/*" for folder in OWN)
    for name, inside in [("in-sid", ""), *COMMANDS.items()]:
        # Written aside and renamed: a test of another checkout may be running the old one.
        path = wrapper(name)
        new = path.with_name(f".{name}.{os.getpid()}")
        new.write_text(WRAPPER.format(root=ROOT, mounts=mounts, inside=inside, system=system))
        new.chmod(0o755)
        os.replace(new, path)


def _build(say: Callable[[str], None], log: Path) -> None:
    """debootstrap the root where there is none; then (again, when the list changed) its packages and settings."""
    with log.open("w") as out:
        def run(*cmd: str) -> None:
            out.write(f"$ {' '.join(cmd)}\n")
            out.flush()
            subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=True, stdin=subprocess.DEVNULL)

        if not (ROOT / "usr/bin/apt-get").exists():
            if shutil.which("debootstrap") is None:
                say("installing debootstrap with apt-get")
                run("apt-get", "update", "-qq")
                run("apt-get", "install", "-y", "-qq", "debootstrap")
            if ROOT.exists():
                _unmount()
                shutil.rmtree(ROOT)
            say(f"debootstrap of a minimal Debian sid into {ROOT}")
            # A download cut off midway fails the whole bootstrap: once more from nothing before giving up.
            for attempt in (1, 2):
                try:
                    run("debootstrap", "--variant=minbase", "sid", str(ROOT), MIRROR)
                    break
                except subprocess.CalledProcessError:
                    if attempt == 2:
                        raise
                    _unmount()
                    shutil.rmtree(ROOT, ignore_errors=True)
        say(f"installing {' '.join(PACKAGES)} in the sid root")
        # sid's Release file is often older than apt's validity window; a second try resumes downloads.
        install = ("apt-get -qq -o Acquire::Check-Valid-Until=false update && DEBIAN_FRONTEND=noninteractive "
                   f"apt-get install -y -qq --no-install-recommends {' '.join(PACKAGES)}")
        run("chroot", str(ROOT), "sh", "-c", f"{install} || {{ sleep 5; {install}; }}")
        # The host's settings, after the packages (ca-certificates writes its own bundle): the same
        # names (a test that connects to localhost reaches the same addresses), CA bundle and pip index.
        for name in ("etc/hosts", "etc/resolv.conf", "etc/pip.conf", "etc/ssl/certs/ca-certificates.crt"):
            if (Path("/") / name).exists():
                (ROOT / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(Path("/") / name, ROOT / name)
        if Path("/etc/xdg/pip").is_dir():
            shutil.copytree("/etc/xdg/pip", ROOT / "etc/xdg/pip", dirs_exist_ok=True)


def _unmount() -> None:
    mounts = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
    for point in sorted((m for m in mounts if m == str(ROOT) or m.startswith(f"{ROOT}/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], stderr=subprocess.DEVNULL)


def check(folder: Path) -> str | None:
    """Why the wrappers cannot run their interpreters in ``folder`` (a checkout), or None when they can.

    Starting is not enough: each must see ``folder`` itself there, not another folder left at its path."""
    here = folder.stat()
    identity = "import os; s = os.stat('.'); print(s.st_dev, s.st_ino)"
    for command in COMMANDS:
        try:
            result = subprocess.run([str(wrapper(command)), "-c", identity], cwd=folder, capture_output=True,
                                    text=True, timeout=300, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"{command}: {error}"
        if result.returncode:
            return f"{command} exits with {result.returncode}: {(result.stderr or result.stdout).strip()[-500:]}"
        if result.stdout.split() != [str(here.st_dev), str(here.st_ino)]:
            return f"{command} does not see {folder} in the root: {result.stderr.strip()[-500:]}"
    return None


def ensure(say: Callable[[str], None] = print, log: Path | None = None) -> Path | None:
    """The wrappers' folder, the root made first if it is missing or out of date; None where it cannot be."""
    if not usable():
        return None
    HOME.mkdir(parents=True, exist_ok=True)
    stamp = HOME / "sid.stamp"
    with open(HOME / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (stamp.exists() and stamp.read_text() == STAMP and (ROOT / "usr/bin/python3.15").exists()):
            try:
                _build(say, log or HOME / "build.log")
            except (OSError, subprocess.CalledProcessError) as error:
                say(f"the sid root could not be made ({error}; log {log or HOME / 'build.log'})")
                return None
            stamp.write_text(STAMP)
        _write_wrappers()
    return BIN


if __name__ == "__main__":
    folder = ensure()
    print(folder if folder else "no sid root here: not root, or not Debian")
    sys.exit(0 if folder else 1)
