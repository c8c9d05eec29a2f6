"""pytest's own tests of ``RaisesGroup``/``RaisesExc``, fetched from its sdist and pointed at ``exceptstar.testing``.

The sdist of the installed pytest is downloaded once per machine into a cache
outside the repository (``pip download``); nothing of it is kept in the tree.
Without a network the oracle skips, unless ``EXCEPTSTAR_REQUIRE_LINT`` or
``CI`` says it must run, and then it fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

REQUIRED = bool(os.environ.get("EXCEPTSTAR_REQUIRE_LINT") or os.environ.get("CI"))
CACHE = Path(os.environ.get("EXCEPTSTAR_SDIST_CACHE") or Path(tempfile.gettempdir()) / "exceptstar-sdists")
TEST_FILE = "testing/python/raises_group.py"


def pytest_test_source() -> str:
    """The text of pytest's ``testing/python/raises_group.py`` for the installed pytest."""
    version = pytest.__version__
    folder = CACHE / f"pytest-{version}"
    folder.mkdir(parents=True, exist_ok=True)
    archive = folder / f"pytest-{version}.tar.gz"
    if not archive.exists():
        command = [sys.executable, "-m", "pip", "download", f"pytest=={version}", "--no-binary", ":all:"]
        command += ["--no-deps", "--disable-pip-version-check", "-q", "-d", str(folder)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        if done.returncode != 0 or not archive.exists():
            reason = f"pytest {version}'s sdist could not be downloaded: {done.stderr.strip()[-500:]}"
            if REQUIRED:
                pytest.fail(reason)
            pytest.skip(reason)
    with tarfile.open(archive) as tar:
        member = tar.extractfile(f"pytest-{version}/{TEST_FILE}")
        assert member is not None, f"{TEST_FILE} is not in pytest {version}'s sdist"
        return member.read().decode("utf-8")


def pointed_at_ours(source: str) -> str:
    """pytest's test module with pytest's classes replaced by exceptstar's, in imports and in pytester's programs."""
    for name in ("RaisesExc", "RaisesGroup"):
        old = f"from _pytest.raises import {name}\n"
        assert old in source, f"pytest's test no longer imports {name} as expected"
        source = source.replace(old, f"from exceptstar.testing import {name}\n")
        source = source.replace(f"pytest.{name}", f"exceptstar.testing.{name}")
    return re.sub(r"^(\s*)import pytest$", r"\1import pytest\n\1import exceptstar.testing", source, flags=re.M)


def outcomes(source: str, where: Path) -> dict[str, str]:
    """Run the module with pytest in a child process: each test's name and "passed", "failed" or "skipped"."""
    test = where / "test_pytest_raises_group.py"
    test.write_text(source, encoding="utf-8")
    report = where / "report.xml"
    command = [sys.executable, "-m", "pytest", "-p", "pytester", "-p", "no:cacheprovider", "-q"]
    command += [f"--junitxml={report}", "--rootdir", str(where), str(test)]
    done = subprocess.run(command, cwd=where, capture_output=True, text=True, timeout=600, check=False)
    assert report.exists(), done.stdout + done.stderr
    found: dict[str, str] = {}
    for case in ET.parse(report).iter("testcase"):
        kinds = {child.tag for child in case}
        outcome = "failed" if kinds & {"failure", "error"} else "skipped" if "skipped" in kinds else "passed"
        found[case.attrib["name"]] = outcome
    return found
