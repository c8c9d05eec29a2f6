"""``_integrations.typeshed.patched``: the copy of a type checker's typeshed that the pyright route names.

On a small typeshed laid out as typeshed lays its files (the real ones are
checked with the real tools in test_pyright.py): what changes, what does not,
and that a copy is remade exactly when its source or target changes.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from exceptstar._integrations import typeshed

BUILTINS = '''\
import sys
class BaseException: ...

if sys.version_info >= (3, 11):
    _T = TypeVar("_T")

    class BaseExceptionGroup(BaseException, Generic[_T]):
        def derive(self) -> None: ...

    class ExceptionGroup(BaseExceptionGroup[_T], Exception): ...

if sys.version_info >= (3, 13):
    class PythonFinalizationError(RuntimeError): ...
'''

VERSIONS = '''\
# comment: lines with a range
binhex: 3.0-3.10
tomllib: 3.11-
zoneinfo: 3.9-
winreg: 3.0-; win32
os: 3.0-
'''


@pytest.fixture
def source(tmp_path: Path) -> Path:
    root = tmp_path / "typeshed"
    (root / "stdlib").mkdir(parents=True)
    (root / "stdlib" / "builtins.pyi").write_text(BUILTINS)
    (root / "stdlib" / "VERSIONS").write_text(VERSIONS)
    (root / "stubs" / "requests").mkdir(parents=True)
    (root / "stubs" / "requests" / "api.pyi").write_text("def get() -> None: ...\n")
    return root


def test_builtins_have_the_groups_on_every_version(source: Path, tmp_path: Path) -> None:
    folder = Path(typeshed.patched(str(source), (3, 9), str(tmp_path / "copy")))
    text = (folder / "stdlib" / "builtins.pyi").read_text()
    assert "if True:  # exceptstar" in text
    assert "    class BaseExceptionGroup(BaseException, Generic[_T]):" in text
    assert "if sys.version_info >= (3, 13):" in text
    assert (folder / "stubs" / "requests" / "api.pyi").read_text() == "def get() -> None: ...\n"
    # The source is left as it was.
    assert (source / "stdlib" / "builtins.pyi").read_text() == BUILTINS


def test_builtins_import_the_groups(source: Path, tmp_path: Path) -> None:
    folder = Path(typeshed.patched(str(source), (3, 9), str(tmp_path / "copy"), groups="exceptstar._group_types"))
    text = (folder / "stdlib" / "builtins.pyi").read_text()
    assert "from exceptstar._group_types import BaseExceptionGroup as BaseExceptionGroup" in text
    assert "class BaseExceptionGroup" not in text and "_T = TypeVar" not in text
    assert "class PythonFinalizationError" in text


def test_versions_keep_the_targets_modules_at_311(source: Path, tmp_path: Path) -> None:
    folder = Path(typeshed.patched(str(source), (3, 9), str(tmp_path / "copy")))
    lines = [line.split("#")[0].strip() for line in (folder / "stdlib" / "VERSIONS").read_text().splitlines()]
    assert [line for line in lines if line] == [
        "binhex: 3.0-3.11", "tomllib: 3.12-", "zoneinfo: 3.9-", "winreg: 3.0-; win32", "os: 3.0-"]
    lines = [line.split("#")[0].strip()
             for line in Path(typeshed.patched(str(source), (3, 8), str(tmp_path / "copy38")))
             .joinpath("stdlib", "VERSIONS").read_text().splitlines()]
    assert "zoneinfo: 3.12-" in lines


def test_cached_by_content(source: Path, tmp_path: Path) -> None:
    folder = Path(typeshed.patched(str(source), (3, 9), str(tmp_path / "copy")))
    stamp = folder / typeshed.STAMP
    marker = folder / "stdlib" / "marker"
    marker.write_text("left alone while the source is unchanged")
    typeshed.patched(str(source), (3, 9), str(folder))
    assert marker.exists()
    (source / "stdlib" / "os.pyi").write_text("sep: str\n")
    typeshed.patched(str(source), (3, 9), str(folder))
    assert not marker.exists() and (folder / "stdlib" / "os.pyi").exists()
    key = json.loads(stamp.read_text())["key"]
    typeshed.patched(str(source), (3, 10), str(folder))
    assert json.loads(stamp.read_text())["key"] != key
    assert not list(tmp_path.glob("copy.*")), "no temporary folder is left"


def test_default_folder_is_in_the_cache(source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    folder = Path(typeshed.patched(str(source), (3, 9)))
    if sys.platform != "win32":
        assert folder.parent == tmp_path / "cache" / "exceptstar" / "typeshed"
    assert typeshed.patched(str(source), (3, 9)) == str(folder)


def test_unexpected_layout_is_an_error(source: Path, tmp_path: Path) -> None:
    (source / "stdlib" / "builtins.pyi").write_text(BUILTINS.replace("(3, 11)", "(3, 12)"))
    with pytest.raises(ValueError, match=re.escape("not in an 'if sys.version_info >= (3, 11):' block")):
        typeshed.patched(str(source), (3, 9), str(tmp_path / "copy"))
    with pytest.raises(FileNotFoundError):
        typeshed.patched(str(tmp_path / "nowhere"), (3, 9), str(tmp_path / "copy"))


def test_a_typeshed_without_310_is_left_as_it_is(source: Path, tmp_path: Path) -> None:
    # Once typeshed drops 3.10, the classes are at top level: nothing to do.
    top = "class BaseException: ...\nclass BaseExceptionGroup(BaseException): ...\n"
    (source / "stdlib" / "builtins.pyi").write_text(top)
    folder = Path(typeshed.patched(str(source), (3, 9), str(tmp_path / "copy")))
    assert (folder / "stdlib" / "builtins.pyi").read_text() == top
