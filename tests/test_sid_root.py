"""tools/sid.py's wrappers, which run native CPython 3.14 and 3.15 in a Debian sid root.

A checkout outside the root's top-level binds is bound at its own path.  CI runners delete their
checkout and clone again at the same path; the bind of the old one must not hide the new one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
try:
    import sid
finally:
    sys.path.remove(str(ROOT / "tools"))

# The wrappers are shell scripts: one interpreter's environment is enough to run them.
pytestmark = [
    pytest.mark.skipif(sys.version_info[:2] != (3, 13) or sys.implementation.name != "cpython",
                       reason="the wrappers are checked from the 3.13 environment"),
    pytest.mark.skipif(not sid.usable(), reason="the sid root is made only as root, on Debian"),
]


@pytest.fixture
def checkout() -> Iterator[Path]:
    """A folder under /var/tmp, which the root's top-level binds leave out."""
    if not sid.wrapper("in-sid").exists():
        if os.environ.get("CI"):
            pytest.fail("the matrix makes the sid root before the tests, but there are no wrappers")
        pytest.skip("no sid root here (python3 tools/sid.py makes it)")
    folder = Path(tempfile.mkdtemp(prefix="exceptstar-sid-", dir="/var/tmp")) / "checkout"
    try:
        yield folder
    finally:
        inside = f"{sid.ROOT}{folder.parent}"
        points = [line.split()[1] for line in Path("/proc/self/mounts").read_text().splitlines()]
        for point in sorted((p for p in points if p.startswith(f"{inside}/")), key=len, reverse=True):
            subprocess.run(["umount", "-l", point], check=True)
        shutil.rmtree(folder.parent)
        shutil.rmtree(inside, ignore_errors=True)


def listing(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(sid.wrapper("in-sid")), "ls"], cwd=folder, capture_output=True, text=True,
                          env={**os.environ, "PWD": str(folder)}, timeout=120)


def test_a_checkout_cloned_again_at_the_same_path_is_seen(checkout: Path) -> None:
    checkout.mkdir()
    (checkout / "first").touch()
    assert listing(checkout).stdout.split() == ["first"]
    shutil.rmtree(checkout)
    checkout.mkdir()
    (checkout / "second").touch()
    result = listing(checkout)
    assert (result.returncode, result.stdout.split(), result.stderr) == (0, ["second"], "")
    assert sid.check(checkout) is None


def test_a_folder_below_a_deleted_checkout_is_seen(checkout: Path) -> None:
    checkout.mkdir()
    assert listing(checkout).returncode == 0
    shutil.rmtree(checkout)
    (checkout / "tests").mkdir(parents=True)
    (checkout / "tests" / "here").touch()
    result = listing(checkout / "tests")
    assert (result.returncode, result.stdout.split(), result.stderr) == (0, ["here"], "")


@pytest.mark.parametrize(("script", "seen"), [("exec", True), ("cd / && exec", False)])
def test_check_wants_the_folder_itself_not_only_a_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         script: str, seen: bool) -> None:
    # A wrapper that starts its interpreter somewhere else, as the old ones did on a stale bind.
    monkeypatch.setattr(sid, "BIN", tmp_path)
    monkeypatch.setattr(sid, "COMMANDS", {"python3.15": "/usr/bin/python3.15"})
    wrapper = tmp_path / "python3.15"
    wrapper.write_text(f"#!/bin/sh\n{script} {sys.executable} \"$@\"\n")
    wrapper.chmod(0o755)
    problem = sid.check(ROOT)
    assert (problem is None) == seen, problem
    if not seen:
        assert problem == f"python3.15 does not see {ROOT} in the root: "
