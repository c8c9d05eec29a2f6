"""Users of a library that uses ``except*`` type-check against its wheel, with nothing to configure.

The library (``support.downstream``) is built by ``python -m build`` with
setuptools and with hatchling, exceptstar in its ``build-system.requires``:
the wheel has a ``.pyi`` stub for each module that uses ``except*`` and for
no other, the sdist is the sources.  The wheel is installed into 3.8, 3.9
and 3.10 environments, where a user's module with planted errors is checked
by ``mypy --strict`` (the newest mypy that runs on each: 1.14 on 3.8, 1.19 on
3.9, 2.x on 3.10) at that target and by pyright and basedpyright (strict) there;
the reports must be those of the same tool version on native 3.11+ at a 3.11
target, with the library's modules themselves installed (the same wheel, its
stubs taken out).  Both wheels are compared file by file; each is checked
by its users at some of the targets.  Run once, in the newest linting
environment: it makes the others itself (once per machine).  mypy starts
each run with no cache: a module read from the cache gets no "defined here" notes.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from support.downstream import LIBRARY, PYPROJECT, STARRED, USER, build, install, normalized, venv, write_library
from support.interpreters import find_interpreters, native_python
from support.linters import tool
from support.processes import ROOT

from exceptstar._compiler.stubs import stub

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11),
                                reason="run in the newest environment (it makes the old ones itself)")

BACKENDS = ["setuptools", "hatchling"]
CHECKED = [("setuptools", "3.8"), ("hatchling", "3.8"), ("hatchling", "3.9"), ("setuptools", "3.10")]
# The newest mypy that runs on each interpreter, for that interpreter's target.
MYPY = {"3.8": "mypy==1.14.1", "3.9": "mypy==1.19.1", "3.10": "mypy==2.4.1"}
# mypy spells types as the target can (List and Union below 3.9 and 3.10): the native side at a
# 3.11 target is told to spell them so.
SPELLING = {"3.8": ["--force-uppercase-builtins", "--force-union-syntax"], "3.9": ["--force-union-syntax"], "3.10": []}


def interpreter(target: str) -> str:
    found = find_interpreters().get(tuple(map(int, target.split("."))))  # type: ignore[arg-type]
    if found is None:
        pytest.skip(f"no CPython {target} on this machine")
    return found


@pytest.fixture(scope="module")
def builder() -> str:
    tool("basedpyright")  # only in the newest linting environment: one run makes and uses the environments
    # editables: what hatchling asks for to build an editable wheel.
    return venv(sys.executable, ["build", "setuptools>=64", "hatchling", "editables", "pyright", "-e", str(ROOT)])


@pytest.fixture(scope="module")
def built(builder: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    return {backend: build(builder, write_library(tmp_path_factory.mktemp(backend), backend))
            for backend in BACKENDS}


@pytest.mark.parametrize("backend", BACKENDS)
def test_wheel_has_a_stub_for_each_except_star_module_and_the_sdist_the_sources(
        backend: str, built: dict[str, tuple[Path, Path]]) -> None:
    wheel, sdist = built[backend]
    with zipfile.ZipFile(wheel) as archive:
        files = {name: archive.read(name).decode() for name in archive.namelist() if name.startswith("gatherkit/")}
    assert sorted(name for name in files if name.endswith(".pyi")) == [name + "i" for name in STARRED]
    for name, text in LIBRARY.items():
        assert files[name[len("src/"):]] == text
    old = interpreter("3.8")
    for name in STARRED:
        source = LIBRARY[f"src/{name}"]
        assert files[name + "i"] == stub(source, name)
        assert files[name + "i"].splitlines()[:source.count("\n")] != source.splitlines()
        assert len(files[name + "i"].splitlines()) == source.count("\n") + 1  # every line in place, one added
        # The stub parses where except* does not.
        subprocess.run([old, "-c", "import ast, sys; ast.parse(sys.stdin.read())"], input=files[name + "i"],
                       text=True, check=True)
    with tarfile.open(sdist) as archive:
        members = {member.name.split("/", 1)[1]: member for member in archive.getmembers() if member.isfile()}
        assert not [name for name in members if name.endswith(".pyi")]
        for name, text in LIBRARY.items():
            extracted = archive.extractfile(members[name])
            assert extracted is not None
            assert io.TextIOWrapper(extracted).read() == text


def _sources_installed(python: str, wheel: Path) -> Path:
    """The native side: the wheel installed, its stubs taken out (the library's own modules)."""
    site = install(python, wheel)
    for name in STARRED:
        (site / (name + "i")).unlink(missing_ok=True)  # none there without the build hook
    return site


def _user_folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "user.py").write_text(USER)
    return folder


def _mypy(python: str, target: str, folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([python, "-m", "mypy", "--strict", *options, "--python-version", target,
                           "--cache-dir", str(folder / ".cache"), "user.py"],
                          cwd=folder, capture_output=True, text=True)


def _sides(target: str, wheel: Path) -> tuple[str, str, Path]:
    """The user's interpreter at ``target`` with ``wheel`` installed (and its site folder), and the native one."""
    native = native_python()
    assert native is not None
    user = venv(interpreter(target), [MYPY[target], "-e", str(ROOT)])
    reference = venv(native, [MYPY[target], "-e", str(ROOT)])
    return user, reference, install(user, wheel)


@pytest.mark.parametrize(("backend", "target"), CHECKED)
def test_mypy_strict_downstream(backend: str, target: str, built: dict[str, tuple[Path, Path]],
                                tmp_path: Path) -> None:
    wheel, _ = built[backend]
    user, reference, site = _sides(target, wheel)
    checked = _mypy(user, target, _user_folder(tmp_path, "user"))
    native_site = _sources_installed(reference, wheel)
    expected = _mypy(reference, "3.11", _user_folder(tmp_path, "native"), *SPELLING[target])
    assert expected.returncode == 1 and "error: Incompatible types in assignment" in expected.stdout, expected
    assert (checked.returncode, normalized(checked.stdout + checked.stderr, site)) == \
        (expected.returncode, normalized(expected.stdout + expected.stderr, native_site))


def _pyright(command: list[str], python: str, target: str, folder: Path) -> subprocess.CompletedProcess[str]:
    (folder / "pyrightconfig.json").write_text(json.dumps({"pythonVersion": target, "typeCheckingMode": "strict"}))
    return subprocess.run([*command, "--pythonpath", python, "user.py"], cwd=folder, capture_output=True, text=True)


@pytest.mark.parametrize("checker", ["basedpyright", "pyright"])
@pytest.mark.parametrize(("backend", "target"), CHECKED)
def test_pyright_downstream(checker: str, backend: str, target: str, built: dict[str, tuple[Path, Path]],
                            builder: str, tmp_path: Path) -> None:
    # basedpyright: the linting environment's; pyright: the builder's (the same on both sides).
    command = [tool("basedpyright")] if checker == "basedpyright" else [builder, "-m", "pyright"]
    wheel, _ = built[backend]
    user, reference, site = _sides(target, wheel)
    checked = _pyright(command, user, target, _user_folder(tmp_path, "user"))
    native_site = _sources_installed(reference, wheel)
    expected = _pyright(command, reference, "3.11", _user_folder(tmp_path, "native"))
    assert expected.returncode == 1 and "reportArgumentType" in expected.stdout, expected
    assert normalized(checked.stdout, site).replace(str(tmp_path / "user"), "<user>") == \
        normalized(expected.stdout, native_site).replace(str(tmp_path / "native"), "<user>")


def test_docs_show_the_settings_built_here() -> None:
    section = (ROOT / "docs" / "howto" / "depending.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", section, re.S)
    assert len(blocks) == len(BACKENDS)
    for backend, block in zip(BACKENDS, blocks):
        for table in block.split("\n\n"):
            assert table.strip() + "\n" in PYPROJECT[backend]


@pytest.mark.parametrize("backend", BACKENDS)
def test_editable_install_and_sources_get_no_stub(backend: str, builder: str, tmp_path: Path) -> None:
    """The project's own checks read its modules: nothing is written beside them, nor installed for them."""
    project = write_library(tmp_path / "project", backend)
    proc = subprocess.run([builder, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                           "--no-build-isolation", "--target", str(tmp_path / "site"), "-e", str(project)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert sorted(path.name for path in tmp_path.rglob("*.pyi")) == []
    assert sorted(str(path.relative_to(project)) for path in project.rglob("*.py")) == \
        sorted(name for name in LIBRARY if name.endswith(".py"))
