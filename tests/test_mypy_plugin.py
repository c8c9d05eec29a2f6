"""mypy with ``plugins = ["exceptstar.mypy"]`` checks ``except*`` code at 3.8-3.10 targets as at 3.11.

The oracle is the same mypy release on a native 3.11+ interpreter at a 3.11
target, without the plugin, on the same files (``support.typed_project``):
every diagnostic it gives is given at the older target too, word for word
(but for how the target makes mypy spell a union), and the only additions are
the planted uses of newer APIs (``# below 3.X``), which the target still
reports.  Each mypy release is the one that runs here and checks the target
(the issue's cases: 1.14 run by 3.8, 1.19 run by 3.9 and by 3.11, 2.4 run by
3.10, by 3.12 and by 3.15; 3.13 and 3.14 would repeat 3.12's runs), installed at
test time for this interpreter and the native one.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support import typed_project
from support.processes import SRC, child_env
from support.render_native import installed, reference

# Every test here starts processes (the tool, the programs it checks); mypy, installed for a PyPy
# at test time and run uncompiled there, is the slowest on it and checks nothing of PyPy's.
pytestmark = [pytest.mark.needs_processes, pytest.mark.pypy_full_only]

HERE = sys.version_info[:2]
# The mypy release this interpreter runs, and the targets below 3.11 it checks here.
RELEASES = {(3, 8): ("1.14.1", ["3.8", "3.10"]), (3, 9): ("1.19.1", ["3.9"]), (3, 10): ("2.4.1", ["3.10"]),
            (3, 11): ("1.19.1", ["3.9"])}
RELEASE, TARGETS = RELEASES.get(HERE, ("2.4.1", ["3.10"]))
if (3, 12) < HERE < (3, 15):
    # The release and target that 3.12 and the newest run: mypy's verdict is the same whichever runs it.
    pytestmark.append(pytest.mark.skip(reason="mypy 2.4 at 3.10 is checked on 3.12 and on the newest"))
if sys.implementation.name == "pypy" and RELEASE == "1.19.1":
    # mypy 1.19 imports librt, which it does not install on PyPy (a dependency marked not for PyPy).
    RELEASE = "1.18.2"
CONFIG = '[tool.mypy]\nstrict = true\nmypy_path = "src"\n'
PLUGIN = 'plugins = ["exceptstar.mypy"]\n'
DIAGNOSTIC = re.compile(r"^src/(\S+):(\d+): (error|note): (.*)$")


def mypy_here(project: Path, *args: str, command: str = "mypy") -> subprocess.CompletedProcess[str]:
    target = installed(sys.executable, [f"mypy=={RELEASE}"], deps=True)
    env = {**child_env(False), "PYTHONPATH": os.pathsep.join([str(target), str(SRC)])}
    script = ("import sys; from mypy.dmypy.client import console_entry as main" if command == "dmypy"
              else "import sys; from mypy.__main__ import console_entry as main")
    return subprocess.run([sys.executable, "-c", f"{script}; sys.argv[0] = {command!r}; main()", *args],
                          cwd=project, env=env, capture_output=True, text=True)


def mypy_native(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The same mypy on a native 3.11+, without the plugin."""
    native = sys.executable if HERE >= (3, 11) else reference()
    target = installed(native, [f"mypy=={RELEASE}"], deps=True)
    return subprocess.run([native, "-m", "mypy", *args], cwd=project,
                          env={**child_env(False), "PYTHONPATH": str(target)}, capture_output=True, text=True)


@functools.lru_cache(maxsize=None)
def oracle(folder: Path) -> tuple[str, ...]:
    """The native mypy's diagnostics at a 3.11 target."""
    project = folder / "oracle"
    typed_project.write(project)
    (project / "pyproject.toml").write_text(CONFIG)
    proc = mypy_native(project, "--python-version", "3.11", "-p", "gatherkit")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = diagnostics(proc.stdout, (3, 11))
    assert found, proc.stdout
    return tuple(found)


@pytest.fixture(scope="module")
def native_diagnostics(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, ...]:
    return oracle(tmp_path_factory.mktemp("mypy-oracle"))


def diagnostics(output: str, target: tuple[int, int]) -> list[str]:
    """The diagnostics of lines that do not depend on the target, with unions spelt as at 3.10+.

    The planted newer-API lines must each have an error at this target: they are checked and
    left out.
    """
    gated = typed_project.gated_lines(target)
    unreported = set(gated)
    found = []
    for line in output.splitlines():
        match = DIAGNOSTIC.match(line)
        if match is None:
            continue
        name, number, severity, message = match.groups()
        where = (name, int(number))
        if where in gated:
            unreported.discard(where)
            continue
        found.append(f"{name}:{number}: {severity}: {pep604(message)}")
    assert not unreported, f"not reported at {target}: {sorted(unreported)}\n{output}"
    return sorted(found)


def pep604(text: str) -> str:
    """``Union[A, B]`` as ``A | B`` and ``Optional[A]`` as ``A | None``: how mypy writes them at 3.10+ targets."""
    while True:
        match = re.search(r"\b(Union|Optional)\[", text)
        if match is None:
            return text
        depth, parts, start = 0, [], match.end()
        for index in range(match.end(), len(text)):
            char = text[index]
            if char == "[":
                depth += 1
            elif char == "]" and depth:
                depth -= 1
            elif char in ",]" and not depth:
                parts.append(text[start:index].strip())
                start = index + 1
                if char == "]":
                    break
        if match.group(1) == "Optional":
            parts.append("None")
        text = text[:match.start()] + " | ".join(parts) + text[index + 1:]


def project(folder: Path, plugin: bool) -> Path:
    typed_project.write(folder)
    (folder / "pyproject.toml").write_text(CONFIG + (PLUGIN if plugin else ""))
    return folder


@pytest.mark.parametrize("target", TARGETS)
def test_diagnostics_as_at_311(target: str, tmp_path: Path, native_diagnostics: tuple[str, ...]) -> None:
    proc = mypy_here(project(tmp_path, plugin=True), "--python-version", target, "-p", "gatherkit")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    version = tuple(map(int, target.split(".")))
    assert diagnostics(proc.stdout, version) == list(native_diagnostics), proc.stdout  # type: ignore[arg-type]


def test_without_the_plugin_nothing_is_checked(tmp_path: Path, native_diagnostics: tuple[str, ...]) -> None:
    # The control: what the comparison above sees when the plugin is not there.
    proc = mypy_here(project(tmp_path, plugin=False), "--python-version", TARGETS[0], "-p", "gatherkit")
    assert proc.returncode == 2 or "requires Python 3.11" in proc.stdout, proc.stdout + proc.stderr
    assert [line for line in proc.stdout.splitlines() if "Revealed type" in line] != \
        [line for line in native_diagnostics if "Revealed type" in line]


def test_the_group_names_are_builtins_the_rest_keeps_the_target(tmp_path: Path) -> None:
    # Under exceptstar, 3.8-3.10 builtins have the two group names, and nothing else of 3.11.
    folder = project(tmp_path, plugin=True)
    (folder / "src" / "names.py").write_text(
        "reveal_type(ExceptionGroup)\nreveal_type(BaseExceptionGroup)\nValueError().add_note('x')\n")
    proc = mypy_here(folder, "--python-version", TARGETS[0], "src/names.py")
    assert 'names.py:1: note: Revealed type is "def' in proc.stdout, proc.stdout
    assert 'names.py:2: note: Revealed type is "def' in proc.stdout, proc.stdout
    assert 'names.py:3: error: "ValueError" has no attribute "add_note"' in proc.stdout, proc.stdout


@pytest.mark.parametrize("source", [
    "try:\n    pass\nexcept* ValueError:\n    pass\nexcept TypeError:\n    pass\n",
    "try:\n    pass\nexcept*:\n    pass\n",
    "try:\n    pass\nexcept* ValueError, TypeError as e:\n    pass\n",
    "try:\n    pass\n# except* in a comment\nexcept ValueError:\n    'except* in a string'\n",
], ids=["mixed", "no-types", "unparenthesized", "look-alikes"])
def test_parser_errors_are_311s(source: str, tmp_path: Path) -> None:
    folder = project(tmp_path, plugin=True)
    (folder / "src" / "bad.py").write_text(source)
    proc = mypy_here(folder, "--python-version", TARGETS[0], "src/bad.py")
    native = mypy_native(folder, "--python-version", "3.11", "--config-file", "/dev/null", "src/bad.py")
    if "as e" in source:
        # Words that differ by version: 3.13's parser says "multiple exception types must be
        # parenthesized", 3.14's (exceptstar's, the newest) adds "when using 'as'", and mypy 2's
        # native parser "... when using `as`". The line, the place and the rest are the same.
        words = re.compile(r"([Mm]ultiple exception types must be parenthesized)[^\[]*  \[syntax\]")
        assert words.sub(r"\1  [syntax]", proc.stdout) == words.sub(r"\1  [syntax]", native.stdout), proc.stdout
        assert "ultiple exception types must be parenthesized when using 'as'" in proc.stdout, proc.stdout
        assert proc.returncode == native.returncode
        return
    assert (proc.returncode, proc.stdout) == (native.returncode, native.stdout)


@pytest.mark.skipif(HERE != (3, 10), reason="one interpreter is enough for the daemon (mypy 2.4 on 3.10)")
def test_dmypy(tmp_path: Path, native_diagnostics: tuple[str, ...]) -> None:
    folder = project(tmp_path, plugin=True)
    try:
        proc = mypy_here(folder, "run", "--", "--python-version", TARGETS[0], "-p", "gatherkit", command="dmypy")
        assert diagnostics(proc.stdout, (3, 10)) == list(native_diagnostics), proc.stdout + proc.stderr
        # A second run is the daemon's incremental check, from its in-memory state.
        (folder / "src" / "gatherkit" / "plain.py").write_text((folder / "src/gatherkit/plain.py").read_text() + "\n")
        again = mypy_here(folder, "run", "--", "--python-version", TARGETS[0], "-p", "gatherkit", command="dmypy")
        assert diagnostics(again.stdout, (3, 10)) == list(native_diagnostics), again.stdout + again.stderr
    finally:
        mypy_here(folder, "stop", command="dmypy")


PRE_COMMIT = """\
repos:
  - repo: local
    hooks:
      - id: mypy
        name: mypy
        entry: mypy
        language: python
        types_or: [python, pyi]
        require_serial: true
        args: ["--python-version", "{target}"]
        additional_dependencies: ["mypy=={release}", "exceptstar @ {source}"]
"""


@pytest.mark.skipif(HERE != (3, 10), reason="one interpreter is enough for pre-commit (mypy 2.4 on 3.10)")
def test_pre_commit_hook(tmp_path: Path, native_diagnostics: tuple[str, ...]) -> None:
    # exceptstar in the hook's own environment (additional_dependencies), as users add it.
    folder = project(tmp_path / "repo", plugin=True)
    (folder / ".pre-commit-config.yaml").write_text(
        PRE_COMMIT.format(target=TARGETS[0], release=RELEASE, source=SRC.parent.as_uri()))
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True)
    subprocess.run(["git", "add", "-A"], cwd=folder, check=True)
    tool = installed(sys.executable, ["pre-commit"], deps=True)
    env = {**child_env(False), "PYTHONPATH": str(tool), "PRE_COMMIT_HOME": str(tmp_path / "home")}
    proc = subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=folder, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert diagnostics(proc.stdout, (3, 10)) == list(native_diagnostics), proc.stdout
