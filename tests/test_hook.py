"""The import hook: what it covers, the bytecode cache, modules without except*.

Everything runs in a subprocess of this interpreter (with ``EXCEPTSTAR_PURE=1``
on 3.11+, where the hook is otherwise a no-op) against packages written into
a temporary folder.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.processes import child_env, run_python

PURE = sys.version_info >= (3, 11)

STAR_MODULE = textwrap.dedent("""\
    def grab(exc):
        try:
            raise exc
        except* ValueError as e:
            seen = repr(e)
        return seen
    """)

PLAIN_MODULE = "def grab(exc):\n    return 'plain'\n"


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _run(tmp_path: Path, code: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {"PYTHONDONTWRITEBYTECODE": "", **env}
    return run_python(sys.executable, f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n" + code,
                      pure=PURE, env=full_env)


def _transformed(module: str) -> str:
    return f"('__exceptstar__' in {module}.grab.__code__.co_names)"


@pytest.mark.needs_processes
def test_scoped_install_covers_only_the_package(tmp_path: Path) -> None:
    _tree(tmp_path, {
        "mylib/__init__.py": "import exceptstar\nexceptstar.install(__name__)\n",
        "mylib/star.py": STAR_MODULE,
        "mylib/sub/__init__.py": "",
        "mylib/sub/deep.py": STAR_MODULE,
        "other.py": STAR_MODULE,
    })
    code = textwrap.dedent(f"""
        import mylib.star, mylib.sub.deep
        print(mylib.star.grab(ValueError(1)))
        print({_transformed('mylib.star')}, {_transformed('mylib.sub.deep')})
        try:
            import other
            print({_transformed('other')})
        except SyntaxError as error:
            print("SyntaxError", error.filename.endswith("other.py"))
    """)
    proc = _run(tmp_path, code)
    lines = proc.stdout.splitlines()
    assert lines[:2] == ["ExceptionGroup('', (ValueError(1),))", "True True"], proc.stderr
    # Outside the package: the interpreter's own compile (which rejects except* before 3.11).
    assert lines[2] == ("False" if sys.version_info >= (3, 11) else "SyntaxError True")


@pytest.mark.needs_processes
def test_global_install_and_uninstall(tmp_path: Path) -> None:
    _tree(tmp_path, {"a.py": STAR_MODULE, "b.py": STAR_MODULE})
    code = textwrap.dedent(f"""
        import exceptstar, json
        exceptstar.install()
        import a
        exceptstar.uninstall()
        try:
            import b
            b_transformed = {_transformed('b')}
        except SyntaxError:
            b_transformed = False
        exceptstar.install()
        import colorsys  # the standard library is never covered
        print(json.dumps([{_transformed('a')}, b_transformed, type(a.__loader__).__name__,
                          type(colorsys.__loader__).__name__]))
    """)
    proc = _run(tmp_path, code)
    assert json.loads(proc.stdout) == [True, False, "ExceptStarLoader", "SourceFileLoader"], proc.stderr


@pytest.mark.needs_processes
def test_cache_beside_the_normal_pyc_and_rebuilt_on_change(tmp_path: Path) -> None:
    _tree(tmp_path, {"star.py": STAR_MODULE, "plain.py": PLAIN_MODULE})
    from exceptstar._version import __version__

    first = textwrap.dedent("""
        import exceptstar
        exceptstar.install()
        import star, plain
        print(star.grab(ValueError(2)))
    """)
    proc = _run(tmp_path, first)
    assert proc.stdout.strip() == "ExceptionGroup('', (ValueError(2),))", proc.stderr
    names = sorted(os.listdir(tmp_path / "__pycache__"))
    tag = sys.implementation.cache_tag
    assert names == [f"plain.{tag}.pyc", f"star.{tag}.exceptstar-{__version__}.pyc"]

    # A second import comes from the cache: the transformation is not even imported
    # (_transform is, for its run-time half, but parse() must not run).
    cached = textwrap.dedent("""
        import exceptstar, exceptstar._compiler.transform as t
        def refuse(*args, **kwargs):
            raise AssertionError("compiled again")
        t.parse = t.compile_source = refuse
        exceptstar.install()
        import star
        print(star.grab(ValueError(3)))
    """)
    proc = _run(tmp_path, cached)
    assert proc.stdout.strip() == "ExceptionGroup('', (ValueError(3),))", proc.stderr

    # Changing the source (size and mtime) rebuilds it.
    (tmp_path / "star.py").write_text(STAR_MODULE.replace("= repr(e)", "= 'changed ' + repr(e)"))
    os.utime(tmp_path / "star.py", (1, 1))
    proc = _run(tmp_path, first)
    assert proc.stdout.strip() == "changed ExceptionGroup('', (ValueError(2),))", proc.stderr


@pytest.mark.needs_processes
def test_cache_ignored_when_broken(tmp_path: Path) -> None:
    _tree(tmp_path, {"star.py": STAR_MODULE})
    code = "import exceptstar\nexceptstar.install()\nimport star\nprint(star.grab(ValueError(4)))\n"
    assert _run(tmp_path, code).returncode == 0
    (pyc,) = (tmp_path / "__pycache__").iterdir()
    pyc.write_bytes(pyc.read_bytes()[:20])
    proc = _run(tmp_path, code)
    assert proc.stdout.strip() == "ExceptionGroup('', (ValueError(4),))", proc.stderr
    os.chmod(tmp_path / "__pycache__", 0o500)
    try:
        pyc.unlink() if os.access(tmp_path / "__pycache__", os.W_OK) else None
        proc = _run(tmp_path, code)
        assert proc.stdout.strip() == "ExceptionGroup('', (ValueError(4),))", proc.stderr
    finally:
        os.chmod(tmp_path / "__pycache__", 0o700)


@pytest.mark.needs_processes
def test_module_without_except_star_is_untouched(tmp_path: Path) -> None:
    _tree(tmp_path, {"plain.py": PLAIN_MODULE + "try:\n    pass\nexcept ValueError:\n    pass\n"})
    code = textwrap.dedent("""
        import exceptstar
        exceptstar.install()
        import plain
        with open(plain.__file__) as f:
            native = compile(f.read(), plain.__file__, "exec")
        print(plain.grab.__code__.co_code == native.co_consts[0].co_code,
              plain.__spec__.cached == __import__("importlib.util").util.cache_from_source(plain.__file__))
    """)
    proc = _run(tmp_path, code)
    assert proc.stdout.strip() == "True True", proc.stderr


@pytest.mark.needs_processes
def test_modules_get_the_names_the_interpreter_gives(tmp_path: Path) -> None:
    # 3.14 gives a module no __annotations__ (PEP 649/749), 3.15 no __cached__:
    # a module the hook transforms has exactly the dunder names of one imported plainly.
    sources = {"star": STAR_MODULE, "plain": PLAIN_MODULE}
    files = {f"{name}.py": text for name, text in sources.items()}
    files.update({f"{name}_pkg/__init__.py": text for name, text in sources.items()})
    _tree(tmp_path, files)
    import zipfile

    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as archive:
        for name, text in sources.items():
            archive.writestr(f"z{name}.py", text)
    names = "sorted(n for n in vars(m) if n.startswith('__'))"
    code = textwrap.dedent(f"""
        import importlib, json
        sys.path.insert(0, {str(tmp_path / "lib.zip")!r})
        if sys.argv[1] == "star":
            import exceptstar
            exceptstar.install()
        out = {{}}
        for name in ("{{0}}", "{{0}}_pkg", "z{{0}}"):
            m = importlib.import_module(name.format(sys.argv[1]))
            out[name] = {names}
        print(json.dumps(out))
    """)
    results = []
    for which in ("star", "plain"):
        proc = run_python(sys.executable, f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n" + code,
                          pure=PURE, args=(which,))
        assert proc.returncode == 0, proc.stderr
        results.append(json.loads(proc.stdout))
    assert results[0] == results[1]
    assert ("__cached__" in results[1]["{0}"]) == (sys.version_info < (3, 15))


ENCODED = "S = '\u00e9\u20ac'\n" + STAR_MODULE


@pytest.mark.needs_processes
@pytest.mark.parametrize(("prefix", "encoding"), [
    (b"", "utf-8"),
    (b"\xef\xbb\xbf", "utf-8"),
    (b"# -*- coding: latin-1 -*-\n", "latin-1"),
    (b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n", "cp1252"),
])
def test_source_is_decoded_as_the_interpreter_decodes_it(tmp_path: Path, prefix: bytes, encoding: str) -> None:
    # Plain UTF-8 is decoded without the tokenizer's encoding detection (and
    # without importing tokenize); a BOM or a coding cookie still takes it.
    text = ENCODED if encoding == "utf-8" else ENCODED.replace("\u20ac", "")
    (tmp_path / "encoded.py").write_bytes(prefix + text.encode(encoding))
    code = textwrap.dedent(f"""
        import sys, exceptstar
        exceptstar.install()
        import encoded
        print(ascii(encoded.S), {_transformed("encoded")}, "tokenize" in sys.modules)
    """)
    proc = _run(tmp_path, code)
    expected = ascii(text.split("'")[1])
    assert proc.stdout.split() == [expected, "True", str(prefix != b"")], proc.stderr


@pytest.mark.needs_processes
def test_tracebacks_and_linecache_keep_the_users_lines(tmp_path: Path) -> None:
    source = textwrap.dedent("""\
        import sys


        def fail(n):
            try:
                raise ExceptionGroup("eg", [ValueError(n), TypeError(n)])
            except* ValueError:
                raise KeyError(n)
            except* TypeError as e:
                e.add_note("seen")
                raise
        """)
    _tree(tmp_path, {"lines_mod.py": source})
    code = textwrap.dedent("""
        import exceptstar, linecache, json
        exceptstar.install()
        import lines_mod
        out = []
        try:
            lines_mod.fail(1)
        except BaseException as group:
            for leaf in [group, *group.exceptions]:
                for sub in [leaf, *getattr(leaf, "exceptions", [])]:
                    tb = sub.__traceback__
                    while tb is not None:
                        if tb.tb_frame.f_code.co_filename == lines_mod.__file__:
                            out.append([tb.tb_lineno, linecache.getline(lines_mod.__file__, tb.tb_lineno).strip()])
                        elif "exceptstar" in tb.tb_frame.f_code.co_filename:
                            out.append(["exceptstar frame", tb.tb_frame.f_code.co_filename])
                        tb = tb.tb_next
        print(json.dumps(out))
    """)
    proc = _run(tmp_path, code)
    got = json.loads(proc.stdout)
    assert [6, 'raise ExceptionGroup("eg", [ValueError(n), TypeError(n)])'] in got, proc.stderr
    assert [8, "raise KeyError(n)"] in got
    assert not [entry for entry in got if entry[0] == "exceptstar frame"]
    lines = source.splitlines()
    for lineno, text in got:
        assert lines[lineno - 1].strip() == text


@pytest.mark.needs_processes
def test_install_is_a_no_op_natively() -> None:
    proc = run_python(sys.executable, "import exceptstar, sys\nexceptstar.install()\n"
                      "print(any(type(f).__name__ == 'ExceptStarFinder' for f in sys.meta_path))")
    assert proc.stdout.strip() == ("False" if sys.version_info >= (3, 11) else "True"), proc.stderr


@pytest.mark.needs_processes
def test_cached_code_names_the_tree_where_it_now_is(tmp_path: Path) -> None:
    # As the normal loader does: a moved tree's cached code gets the new file names.
    before = _tree(tmp_path / "before", {"star.py": STAR_MODULE, "plain.py": PLAIN_MODULE})
    program = textwrap.dedent("""
        import exceptstar
        exceptstar.install()
        import star, plain
        print(star.grab.__code__.co_filename, plain.grab.__code__.co_filename)
    """)
    assert _run(before, program).stdout.split() == [str(before / "star.py"), str(before / "plain.py")]
    after = tmp_path / "after"
    before.rename(after)
    proc = _run(after, program)
    assert proc.stdout.split() == [str(after / "star.py"), str(after / "plain.py")], proc.stderr


BAD_MODULE = "try:\n    pass\nexcept*:\n    pass\n"


def test_a_syntax_error_at_import_is_shown_as_natively(tmp_path: Path) -> None:
    """An import statement's SyntaxError shows the statement alone, as CPython shows its own; an
    ``importlib.import_module`` shows importlib's frames; neither ever shows one of ours."""
    from support.interpreters import native_python

    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    (tmp_path / "bad.py").write_text(BAD_MODULE)
    (tmp_path / "by_statement.py").write_text("import exceptstar\nexceptstar.install()\nimport bad\n")
    (tmp_path / "by_importlib.py").write_text("import exceptstar\nexceptstar.install()\n"
                                              "import importlib\nimportlib.import_module('bad')\n")

    def stderr(python: str, script: str, env: dict[str, str]) -> str:
        proc = subprocess.run([python, script], cwd=tmp_path, capture_output=True, text=True, env=env)
        assert proc.returncode == 1
        # 3.11+ underlines the calls; 3.8 names the script as given.
        return re.sub(r"(?m)^ *[~^]+\n", "", proc.stderr).replace(f"{tmp_path}/", "")

    from support.processes import child_env

    ours = stderr(sys.executable, "by_statement.py", child_env(PURE))
    assert ours == stderr(native, "by_statement.py", child_env(False))
    assert ours.count('  File "') == 2  # the import statement, then the SyntaxError's place
    by_importlib = stderr(sys.executable, "by_importlib.py", child_env(PURE))
    assert "exceptstar" not in by_importlib
    assert by_importlib.endswith("SyntaxError: expected one or more exception types\n")


@pytest.mark.needs_processes
def test_a_hash_based_transformed_pyc_is_read(tmp_path: Path) -> None:
    # Its source hash is keyed by the magic number, which 3.14's importlib keeps under another name.
    _tree(tmp_path, {"star.py": STAR_MODULE})
    compiled = subprocess.run([sys.executable, "-m", "exceptstar", "compileall", "-q", "--invalidation-mode",
                               "checked-hash", str(tmp_path)], capture_output=True, text=True,
                              env=child_env(PURE), timeout=120)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    code = "import exceptstar\nexceptstar.install()\nimport star\nprint(star.grab(ValueError(1)))\n"
    for _ in range(2):  # the pyc checked against the source, then (unchanged) again
        proc = _run(tmp_path, code)
        assert proc.stdout == "ExceptionGroup('', (ValueError(1),))\n", proc.stderr
    assert [name for name in os.listdir(tmp_path / "__pycache__") if ".exceptstar-" in name]
