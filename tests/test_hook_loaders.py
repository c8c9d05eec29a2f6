"""Ways of loading a file that ``install()`` covers besides a plain import.

Modules inside zip files, ``importlib.util.spec_from_file_location`` +
``exec_module``, and ``runpy.run_path`` (a file, a folder, a zip file): each
runs a module that uses ``except*`` with the result the native interpreter
gives the same program.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from support.interpreters import native_python
from support.processes import run_python

PURE = sys.version_info >= (3, 11)

MODULE = textwrap.dedent("""\
    seen = []
    try:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    except* ValueError as e:
        seen.append(repr(e))
    except* TypeError as e:
        seen.append(repr(e.exceptions))
    RESULT = " ".join(seen)
    """)

DRIVER = textwrap.dedent("""\
    import sys
    {setup}
    import importlib.util, runpy
    root = sys.argv[1]
    sys.path.insert(0, root + "/lib.zip")
    import zipped, zippkg.inner
    print("zip", zipped.RESULT, zippkg.inner.RESULT, zippkg.__path__, zippkg.inner.__file__)
    print("source for tracebacks", zipped.__loader__.get_source("zipped").splitlines()[1])
    spec = importlib.util.spec_from_file_location("by_location", root + "/star.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    print("location", module.RESULT)
    print("run_path file", runpy.run_path(root + "/star.py")["RESULT"])
    print("run_path folder", runpy.run_path(root + "/app")["RESULT"])
    print("run_path zip", runpy.run_path(root + "/app.pyz")["RESULT"])
    """)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "star.py").write_text(MODULE)
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "__main__.py").write_text(MODULE)
    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as archive:
        archive.writestr("zipped.py", MODULE)
        archive.writestr("zippkg/__init__.py", "")
        archive.writestr("zippkg/inner.py", MODULE)
    with zipfile.ZipFile(tmp_path / "app.pyz", "w") as archive:
        archive.writestr("__main__.py", MODULE)
    return tmp_path


def test_loaders_covered_as_native(tree: Path) -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    reference = run_python(native, DRIVER.format(setup=""), args=(str(tree),))
    assert reference.returncode == 0, reference.stderr
    ours = run_python(sys.executable, DRIVER.format(setup="import exceptstar; exceptstar.install()"),
                      pure=PURE, args=(str(tree),))
    assert (ours.stdout, ours.stderr, ours.returncode) == (reference.stdout, reference.stderr, 0)
    assert "zip ExceptionGroup('eg', [ValueError(1)])" in ours.stdout


@pytest.mark.needs_processes
def test_uninstall_restores_the_direct_loaders(tree: Path) -> None:
    code = textwrap.dedent(f"""\
        import importlib.util, runpy, exceptstar
        before = (importlib.util.spec_from_file_location, vars(runpy).get("compile"))
        exceptstar.install()
        assert importlib.util.spec_from_file_location is not before[0]
        exceptstar.uninstall()
        assert (importlib.util.spec_from_file_location, vars(runpy).get("compile")) == before
        spec = importlib.util.spec_from_file_location("m", {str(tree / 'star.py')!r})
        print(type(spec.loader).__name__)
        """)
    ours = run_python(sys.executable, code, pure=PURE)
    assert ours.stdout == "SourceFileLoader\n", ours.stderr


@pytest.mark.needs_processes
def test_install_for_one_package_leaves_direct_loading_alone(tree: Path) -> None:
    code = textwrap.dedent(f"""\
        import importlib.util, runpy, exceptstar
        exceptstar.install("somepkg")
        spec = importlib.util.spec_from_file_location("m", {str(tree / 'star.py')!r})
        print(type(spec.loader).__name__, "compile" in vars(runpy))
        """)
    ours = run_python(sys.executable, code, pure=PURE)
    assert ours.stdout == "SourceFileLoader False\n", ours.stderr


# setuptools' editable finder and pip: the same pure-Python import machinery on PyPy.
@pytest.mark.pypy_full_only
@pytest.mark.needs_processes
def test_setuptools_editable_install(tmp_path: Path) -> None:
    # A flat project installed with `pip install -e`: setuptools' finder, which a
    # .pth imports at start-up (before install() can run), finds its modules.
    project = tmp_path / "project"
    (project / "edpkg").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[build-system]\nrequires = ["setuptools>=64"]\n'
                                            'build-backend = "setuptools.build_meta"\n'
                                            '[project]\nname = "edpkg"\nversion = "1"\n')
    (project / "edpkg" / "__init__.py").write_text(MODULE)
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
                           "--target", str(tmp_path / "site"), "-e", str(project)], capture_output=True, text=True,
                          timeout=600)
    if proc.returncode:
        pytest.skip(f"pip could not make the editable install here: {proc.stderr[-300:]}")
    assert any(path.name.startswith("__editable___") for path in (tmp_path / "site").iterdir())
    code = textwrap.dedent(f"""\
        import site
        site.addsitedir({str(tmp_path / "site")!r})  # the .pth, as at start-up
        {{setup}}
        import edpkg
        print(edpkg.RESULT, type(edpkg.__loader__).__name__)
        """)
    ours = run_python(sys.executable, code.format(setup="import exceptstar; exceptstar.install()"), pure=PURE)
    assert ours.stdout == "ExceptionGroup('eg', [ValueError(1)]) (TypeError(2),) ExceptStarLoader\n", ours.stderr
    native = native_python()
    if native is not None:  # the same program, natively
        reference = run_python(native, code.format(setup=""))
        assert reference.stdout == "ExceptionGroup('eg', [ValueError(1)]) (TypeError(2),) SourceFileLoader\n"


@pytest.mark.needs_processes
def test_a_zipped_module_keeps_its_zip_resources(tmp_path: Path) -> None:
    # Its loader is a zipimporter, which is what pkg_resources looks for to read
    # a zipped package's data (a plain object there: "unregistered loader type").
    with zipfile.ZipFile(tmp_path / "lib.zip", "w") as archive:
        archive.writestr("zippkg/__init__.py", MODULE)
        archive.writestr("zippkg/data.txt", "the data")
    code = textwrap.dedent(f"""\
        import sys, warnings, zipimport
        warnings.simplefilter("ignore")  # pkg_resources' own deprecation
        import exceptstar
        exceptstar.install()
        sys.path.insert(0, {str(tmp_path / "lib.zip")!r})
        import zippkg
        try:
            import pkg_resources
        except ImportError:
            pkg_resources = None
        print(isinstance(zippkg.__loader__, zipimport.zipimporter), zippkg.RESULT)
        if pkg_resources is not None:
            print(*(read("zippkg", "data.txt") for read in (pkg_resources.resource_exists,
                                                            pkg_resources.resource_string)))
        """)
    ours = run_python(sys.executable, code, pure=PURE)
    lines = ours.stdout.splitlines()
    assert lines[0] == "True ExceptionGroup('eg', [ValueError(1)]) (TypeError(2),)", ours.stderr
    assert lines[1:] in ([], ["True b'the data'"]), ours.stderr
