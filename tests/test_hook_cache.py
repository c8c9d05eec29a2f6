"""The hook's bytecode cache as the interpreter keeps its own: hash-based pycs, ``__cached__``, ``run``'s own.

Hash-based pycs (``compileall --invalidation-mode``, pip under
``SOURCE_DATE_EPOCH``) are read, and written again hash-based, as
``SourceLoader.get_code`` does; ``__cached__`` names the transformed
bytecode of the very module that runs it; and a script run with ``run``
gives its compile warnings at every run, as a main script does, whatever
an import of the same file cached.  Everything runs in fresh processes
(pure on 3.11+).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.processes import child_env

pytestmark = pytest.mark.needs_processes
PURE = sys.version_info >= (3, 11)

STAR = ("def grab(exc):\n    try:\n        raise exc\n    except* ValueError as e:\n        seen = repr(e)\n"
        "    return seen\n")
# `except` and a star in a docstring only: the hook reads it, and finds the normal pyc valid.
WORDS = '"""Handles errors with except* where it must."""\nVALUE = 1\n'

# A start that must not compile anything: the caches are what runs.
REFUSE = textwrap.dedent("""
    import sys, exceptstar, exceptstar._compiler.transform as t
    def refuse(*args, **kwargs):
        raise AssertionError("compiled again")
    t.compile_source = refuse
    exceptstar.install()
    import words, star
    print(star.grab(ValueError(1)), words.VALUE)
""")


def _python(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = child_env(PURE)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] += os.pathsep + str(folder)
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, env=env, timeout=120)


def _flags(pyc: Path) -> int:
    return int.from_bytes(pyc.read_bytes()[4:8], "little")


def _pycs(folder: Path) -> dict[str, Path]:
    return {path.name.split(".")[0] + (".star" if "exceptstar" in path.name else ""): path
            for path in (folder / "__pycache__").iterdir()}


@pytest.mark.skipif(PURE, reason="3.8-3.10: where a normal pyc proves the source holds no except*")
@pytest.mark.parametrize("mode, flags", [("checked-hash", 3), ("unchecked-hash", 1)])
def test_hash_based_pycs_are_read_and_stay_hash_based(tmp_path: Path, mode: str, flags: int) -> None:
    (tmp_path / "words.py").write_text(WORDS)
    (tmp_path / "star.py").write_text(STAR)
    # words.py by the interpreter's own compileall, as pip does; star.py by exceptstar's.
    for command, name in (("compileall", "words.py"), ("exceptstar", "star.py")):
        proc = _python(tmp_path, "-m", *(["exceptstar"] if command == "exceptstar" else []), "compileall", "-q",
                       "--invalidation-mode", mode, str(tmp_path / name))
        assert proc.returncode == 0, proc.stdout + proc.stderr
    pycs = _pycs(tmp_path)
    assert {name: _flags(path) for name, path in pycs.items()} == {"words": flags, "star.star": flags}
    before = {name: path.read_bytes() for name, path in pycs.items()}
    proc = _python(tmp_path, "-c", REFUSE)
    assert proc.stdout == "ExceptionGroup('', (ValueError(1),)) 1\n", proc.stderr
    assert {name: path.read_bytes() for name, path in pycs.items()} == before  # read, not written again
    if mode == "checked-hash":
        # Edited: compiled again, and kept hash-based with the new source's hash (as the interpreter does).
        (tmp_path / "star.py").write_text(STAR.replace("repr(e)", "'edited ' + repr(e)"))
        (tmp_path / "words.py").write_text(WORDS + "EDITED = 1\n")
        proc = _python(tmp_path, "-c", "import exceptstar; exceptstar.install(); import star, words")
        assert proc.returncode == 0, proc.stderr
        assert {name: _flags(path) for name, path in pycs.items()} == {"words": 3, "star.star": 3}
        proc = _python(tmp_path, "-c", REFUSE.replace(", words.VALUE", ", words.EDITED"))
        assert proc.stdout == "edited ExceptionGroup('', (ValueError(1),)) 1\n", proc.stderr


def test_cached_names_the_module_that_runs_the_transformed_bytecode(tmp_path: Path) -> None:
    # A plugin loaded from a file under the name of a module already imported:
    # its own __cached__ names what it runs; the other module's is left alone.
    (tmp_path / "a").mkdir()
    (tmp_path / "plugins").mkdir()
    (tmp_path / "a" / "config.py").write_text(STAR)
    (tmp_path / "plugins" / "config.py").write_text(STAR)
    program = textwrap.dedent(f"""
        import importlib.util, sys, exceptstar
        exceptstar.install()
        sys.path.insert(0, {str(tmp_path / "a")!r})
        import config
        spec = importlib.util.spec_from_file_location("config", {str(tmp_path / "plugins" / "config.py")!r})
        plugin = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(plugin)
        for module in (config, plugin):
            # 3.15's modules have no __cached__: the spec's then.
            print(getattr(module, "__cached__", module.__spec__.cached) == module.__spec__.cached,
                  module.__spec__.cached)
    """)
    for _ in range(2):  # compiled, then read from the cache
        proc = _python(tmp_path, "-c", program)
        lines = proc.stdout.splitlines()
        tag = sys.implementation.cache_tag
        assert [line.split()[0] for line in lines] == ["True", "True"], proc.stderr
        assert [Path(line.split()[1]).relative_to(tmp_path).parts[0] for line in lines] == ["a", "plugins"]
        assert all(f"config.{tag}.exceptstar-" in line for line in lines)


def test_run_gives_a_scripts_warnings_at_every_run(tmp_path: Path) -> None:
    # As the interpreter compiles a main script at every run: an import of the
    # same file, which caches what it compiled, warned or not, changes nothing.
    (tmp_path / "tool.py").write_text(STAR + "\ndef check(x):\n    return x is 1\n\nprint('ran')\n")
    warning = "SyntaxWarning: \"is\" with "  # 3.12 names the literal's type
    for step in ("run", "run", "import", "run", "run"):
        if step == "import":
            proc = _python(tmp_path, "-c", "import exceptstar; exceptstar.install(); import tool")
        else:
            proc = _python(tmp_path, "-m", "exceptstar", "run", "tool.py")
            assert warning in proc.stderr, (step, proc.stderr)
        assert proc.stdout == "ran\n", proc.stderr
    proc = _python(tmp_path, "-W", "error::SyntaxWarning", "-m", "exceptstar", "run", "tool.py")
    assert proc.returncode == 1 and "SyntaxError" in proc.stderr and proc.stdout == ""


def test_run_keeps_a_script_that_warns_of_nothing(tmp_path: Path) -> None:
    (tmp_path / "tool.py").write_text(STAR + "\nprint(grab(ValueError(2)))\n")
    for _ in range(2):
        proc = _python(tmp_path, "-m", "exceptstar", "run", "tool.py")
        assert proc.stdout == "ExceptionGroup('', (ValueError(2),))\n", proc.stderr
    names = sorted(path.name for path in (tmp_path / "__pycache__").iterdir())
    from exceptstar._version import __version__

    assert names == [f"tool.{sys.implementation.cache_tag}.exceptstar-{__version__}-main.pyc"]


# PEP 578: an embedder's open_code hook sees every file the import system runs as code.
OPEN_CODE = textwrap.dedent("""
    import ctypes, io, os
    opened = []
    @ctypes.CFUNCTYPE(ctypes.py_object, ctypes.py_object, ctypes.c_void_p)
    def hook(path, _data):
        opened.append(path)
        # A ctypes callback cannot raise: a missing file reads as empty (an invalid pyc).
        return io.FileIO(path) if os.path.exists(path) else io.BytesIO()
    assert ctypes.pythonapi.PyFile_SetOpenCodeHook(hook, None) == 0
    import exceptstar
    exceptstar.install()
    import star
    print(star.grab(ValueError(1)))
    print(sorted({os.path.basename(p) for p in opened if os.path.basename(p).startswith("star.")}))
""")


@pytest.mark.skipif(sys.implementation.name != "cpython", reason="PyFile_SetOpenCodeHook: CPython's C API")
def test_cached_code_is_read_through_the_open_code_hook(tmp_path: Path) -> None:
    (tmp_path / "star.py").write_text(STAR)
    first = _python(tmp_path, "-c", OPEN_CODE)  # compiles, writes the transformed pyc
    assert first.returncode == 0, first.stderr
    second = _python(tmp_path, "-c", OPEN_CODE)  # reads it
    assert second.returncode == 0, second.stderr
    transformed = _pycs(tmp_path)["star.star"].name
    assert second.stdout.splitlines()[0] == first.stdout.splitlines()[0]
    assert transformed in second.stdout.splitlines()[1], second.stdout
