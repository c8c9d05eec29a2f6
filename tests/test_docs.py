"""The documentation site says what is true, builds cleanly and opens in a browser.

Every page of ``docs/`` is checked as the README was before it: each ```python block
whose first line names a file (``# script.py``, ``# pkg/mod.py``) is written out as that
file, in a folder of the page's own; each ``$ python -m exceptstar ...`` line of a
```console block (not the demo, whose ports vary, nor lines with a ``#`` comment, which
illustrate forms) is run there and must print exactly the lines shown under it, ``$ echo $?``
checks its status, and ``$ python -m pytest`` lines must pass.  This runs on every
interpreter of the matrix, so on 3.8 and the newest.

The site is built (Sphinx, warnings as errors, nitpicky: a broken internal link or a public
name missing from the reference fails), opened in headless Chromium, and the package is
built, checked by twine and installed from its wheel into fresh environments: those only in
``DOCS_ENV``, the matrix's heavy environment whose ``except*`` is exceptstar's.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest
from support.interpreters import find_interpreters, make_venv
from support.processes import ROOT, SRC, child_env

# Every check here runs programs, tools or a browser in processes of their own.
pytestmark = pytest.mark.needs_processes

DOCS = ROOT / "docs"
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)
PURE = sys.version_info >= (3, 11)
DOCS_ENV = (3, 10)
HERE_IS_DOCS_ENV = sys.version_info[:2] == DOCS_ENV
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def blocks(page: Path) -> List[Tuple[str, str]]:
    return BLOCK.findall(page.read_text())


def files(page: Path) -> Dict[str, str]:
    found = {}
    for kind, code in blocks(page):
        match = re.match(r"# ([\w/]+\.py)\b", code)
        if kind == "python" and match:
            found[match.group(1)] = code
    return found


def sessions(page: Path) -> Iterator[Tuple[str, List[str]]]:
    for kind, code in blocks(page):
        if kind == "console":
            for chunk in re.split(r"(?m)^(?=\$ )", code):
                command, *output = chunk.rstrip("\n").split("\n")
                if command.startswith("$ ") and " #" not in command:
                    yield command[2:], output


CHECKED = [page for page in PAGES if files(page) or any(True for _ in sessions(page))]


@pytest.mark.parametrize("page", CHECKED, ids=[str(p.relative_to(DOCS)) for p in CHECKED])
def test_page_examples_do_what_is_shown(page: Path, tmp_path: Path) -> None:
    for name, code in files(page).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(code)
    status = None
    ran = 0
    for command, output in sessions(page):
        if command == "echo $?":
            assert [str(status)] == output, page
            continue
        if command.startswith("python -m pytest"):
            proc = subprocess.run([sys.executable, *command.split()[1:], "-p", "exceptstar", "-p", "no:cacheprovider"],
                                  cwd=tmp_path, capture_output=True, text=True, env=child_env(PURE), timeout=120)
            assert proc.returncode == 0, proc.stdout + proc.stderr
            ran += 1
            continue
        if not command.startswith("python -m exceptstar ") or command.split()[3:4] == ["demo"]:
            continue
        proc = subprocess.run([sys.executable, *command.split()[1:]], cwd=tmp_path, capture_output=True, text=True,
                              env=child_env(PURE), timeout=60)
        assert (proc.stdout + proc.stderr).splitlines() == output, command
        status = proc.returncode
        ran += 1
    tests = [name for name in files(page) if Path(name).name.startswith("test_")]
    if tests and "python -m pytest" not in page.read_text():
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "exceptstar", "-p", "no:cacheprovider",
                               *tests], cwd=tmp_path, capture_output=True, text=True, env=child_env(PURE), timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        ran += 1
    assert ran or not any(True for _ in sessions(page)) or files(page), page


FRAGMENT = re.compile(r"^(% fragment: [^\n]*\n)?```python\n(.*?)^```", re.S | re.M)
UNNAMED = [(page, bool(mark), code) for page in PAGES for mark, code in FRAGMENT.findall(page.read_text())
           if not re.match(r"# ([\w/]+\.py)\b", code)]


@pytest.mark.parametrize("page, fragment, code", UNNAMED,
                         ids=[f"{p.relative_to(DOCS)}-{i}" for i, (p, _, _) in enumerate(UNNAMED)])
def test_every_other_python_example_runs_or_compiles(page: Path, fragment: bool, code: str, tmp_path: Path) -> None:
    # A block marked "% fragment: why" (a MyST comment, not shown) needs names from the reader's
    # program: it must compile, as 3.11 compiles it (top-level await for an "async with" part).
    # Every other block is a whole program and must run without error.
    (tmp_path / "example.py").write_text(code)
    if fragment:
        import ast

        import exceptstar
        exceptstar.compile(code, str(page), "exec", flags=getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0))
        return
    proc = subprocess.run([sys.executable, "-m", "exceptstar", "run", "example.py"], cwd=tmp_path,
                          capture_output=True, text=True, env=child_env(PURE), timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_pages_that_moved_from_the_readme_keep_their_examples() -> None:
    named = {name for page in PAGES for name in files(page)}
    assert {"script.py", "test_things.py", "jobs.py", "fetch.py", "test_fetch.py", "figure.py"} <= named
    commands = [command for page in PAGES for command, _ in sessions(page)]
    assert sum(command.startswith("python -m exceptstar ") for command in commands) >= 6


def test_tutorial_module_is_the_one_autodoc_reads() -> None:
    assert files(DOCS / "tutorial.md")["fetch.py"] == (DOCS / "tutorial_project" / "fetch.py").read_text()


def test_figure_is_drawn_from_a_real_run() -> None:
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import draw_split
    finally:
        sys.path.remove(str(ROOT / "tools"))
    assert draw_split.svg() == (DOCS / "_static" / "split.svg").read_text()
    _, seen = draw_split.run()
    # The figure's columns, as the interpreter left them.
    assert [(title, repr(part)) for title, _, part in seen] == [
        ("except* ValueError", "ExceptionGroup('batch', [ValueError('bad row 3'), "
                               "ExceptionGroup('retry', [ValueError('bad row 9')])])"),
        ("except* OSError", "ExceptionGroup('batch', [OSError('disk full'), ExceptionGroup('retry', "
                            "[TimeoutError('slow')])])"),
        ("propagated", "ExceptionGroup('batch', [OSError('disk full'), ExceptionGroup('retry', "
                       "[TimeoutError('slow')]), KeyError('id')])"),
    ]


docs_env_only = pytest.mark.skipif(not HERE_IS_DOCS_ENV, reason=f"the site and the package are built on "
                                   f"{DOCS_ENV[0]}.{DOCS_ENV[1]} only (tools/matrix.py's heavy environment)")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "sphinx", "-W", "-n", "--keep-going", "-E", "-q", "-b", "html",
                           str(DOCS), str(out)], capture_output=True, text=True, timeout=600,
                          env={k: v for k, v in os.environ.items() if k != "EXCEPTSTAR_PURE"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


# The site builds with warnings as errors on every interpreter that has its tools (the matrix
# puts them into the 3.10 and 3.13 environments and the newest one): autodoc reads what each
# version's exceptstar is (on 3.11-3.14 the asyncio TaskGroup is a class of exceptstar's own).
HAS_SITE_TOOLS = all(importlib.util.find_spec(name) is not None for name in ("sphinx", "myst_parser", "furo"))


@pytest.mark.skipif(not HAS_SITE_TOOLS, reason="Sphinx, MyST and furo are not installed here")
def test_site_builds_without_warnings(site: Path) -> None:
    assert (site / "index.html").exists()
    reference = (site / "reference" / "api.html").read_text()
    for name in ("exceptstar.catch", "exceptstar.ExceptionGroup", "exceptstar.leaf_exceptions"):
        assert f'id="{name}"' in reference
    # autodoc read the tutorial's module, whose except* 3.10's parser rejects.
    assert 'id="fetch.fetch_or_default"' in (site / "tutorial.html").read_text()


@docs_env_only
def test_a_missing_public_name_fails_the_build(tmp_path: Path) -> None:
    sys.path.insert(0, str(DOCS))
    try:
        import conf
    finally:
        sys.path.remove(str(DOCS))
    warnings = []

    class Env:
        domaindata = {"py": {"objects": {f"exceptstar.{n}": None for n in conf.PUBLIC["exceptstar"] if n != "catch"}}}

    logger = __import__("sphinx.util", fromlist=["logging"]).logging.getLogger("conf")
    original = type(logger).warning
    type(logger).warning = lambda self, msg, *args, **kw: warnings.append(msg % args)  # type: ignore[method-assign]
    try:
        conf._check_reference(None, Env())
    finally:
        type(logger).warning = original  # type: ignore[method-assign]
    assert "public name exceptstar.catch missing from the reference" in warnings


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        if os.environ.get("EXCEPTSTAR_REQUIRE_BROWSER"):
            pytest.fail("chromium not found (.ci/run installs Debian's chromium)")
        pytest.skip("chromium not found (apt-get install chromium; .ci/run does)")
    return exe


def dom(url: str, tmp_path: Path) -> str:
    profile = tmp_path / "profile"
    profile.mkdir(exist_ok=True)
    proc = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={profile}", "--virtual-time-budget=15000", "--dump-dom", url],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@docs_env_only
def test_site_renders_in_a_browser_and_search_finds_raisesgroup(site: Path, tmp_path: Path) -> None:
    home = dom((site / "index.html").as_uri(), tmp_path)
    assert "Tutorial: a 3.9 project adopts" in home and "split.svg" in home
    howto = dom((site / "howto" / "pytest.html").as_uri(), tmp_path)
    assert "test_things.py" in howto
    reference = dom((site / "reference" / "testing.html").as_uri(), tmp_path)
    assert 'id="exceptstar.testing.RaisesGroup"' in reference
    found = dom((site / "search.html").as_uri() + "?q=RaisesGroup", tmp_path)
    results = re.search(r'<ul[^>]*class="search"[^>]*>(.*?)</ul>', found, re.S)
    assert results, found[-3000:]
    assert "reference/testing.html" in results.group(1)


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


@docs_env_only
def test_package_builds_with_complete_metadata(dist: Path) -> None:
    wheel, = dist.glob("*.whl")
    sdist, = dist.glob("*.tar.gz")
    proc = subprocess.run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "exceptstar/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    for minor in range(8, 16):
        assert f"Classifier: Programming Language :: Python :: 3.{minor}\n" in metadata
    with tarfile.open(sdist) as archive:
        members = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"tests/test_docs.py", "docs/conf.py", "docs/index.md", "CHANGELOG.md", "LICENSE"} <= members


@docs_env_only
@pytest.mark.parametrize("which", ["oldest", "newest"])
def test_wheel_installs_and_runs_the_demo(dist: Path, which: str, tmp_path: Path) -> None:
    interpreters = find_interpreters()
    version = (min if which == "oldest" else max)(interpreters)
    python = make_venv(interpreters[version], tmp_path / "venv")
    wheel, = dist.glob("*.whl")
    subprocess.run([python, "-m", "pip", "install", "-q", "--no-index",
                    "--disable-pip-version-check", str(wheel)], check=True, timeout=300)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "EXCEPTSTAR_PURE")}
    # The console script, as the environment's own interpreter runs it.
    proc = subprocess.run([python, str(tmp_path / "venv" / "bin" / "exceptstar"), "demo"], capture_output=True,
                          text=True, timeout=120, cwd=tmp_path, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    import exceptstar
    provided = "transformed for CPython" if version < (3, 11) else "natively by CPython"
    assert f"except* was provided {'by exceptstar ' + exceptstar.__version__ + ': ' if version < (3, 11) else ''}" \
           f"{provided}" in proc.stdout.splitlines()[-1], proc.stdout


SMALL = "try:\n    work()\nexcept* ValueError as e:\n    print(e)\n"


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="3.11+ parse except* themselves")
def test_pytest_cov_needs_no_setting_and_a_standalone_report_does(tmp_path: Path) -> None:
    # docs/howto/coverage.md and the table of docs/howto/index.md.
    (tmp_path / "mod.py").write_text("def f():\n    try:\n        raise ExceptionGroup('x', [ValueError(1)])\n"
                                     "    except* ValueError:\n        done = 1\n    return done\n")
    (tmp_path / "test_mod.py").write_text("from mod import f\n\n\ndef test_f():\n    assert f() == 1\n")
    env = child_env(PURE)
    env["PYTHONPATH"] = os.pathsep.join([str(SRC), str(tmp_path)])
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=mod",
                           "--cov-report=term", "test_mod.py"], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0 and re.search(r"mod\.py\s+6\s+0\s+100%", proc.stdout), proc.stdout + proc.stderr
    report = subprocess.run([sys.executable, "-m", "coverage", "report"], cwd=tmp_path, capture_output=True,
                            text=True, env=env, timeout=60)
    assert "Couldn't parse" in report.stdout + report.stderr


@docs_env_only
def test_readme_builds_and_opens_the_site_with_its_one_command(dist: Path, tmp_path: Path) -> None:
    """The README's command, as written, in the unpacked sdist: a fresh venv, the site, a browser opened on it."""
    command, = re.findall(r"^python3 -m venv \.venvs/docs .*$", (ROOT / "README.md").read_text(), re.M)
    sdist, = dist.glob("*.tar.gz")
    with tarfile.open(sdist) as archive:
        archive.extractall(tmp_path)
    project, = (path for path in tmp_path.iterdir() if path.is_dir())
    # The browser webbrowser starts ($BROWSER, "%s" for the address) records what it was asked to open.
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {opened}\n')
    browser.chmod(0o755)
    bin_dir = Path(sys.executable).parent  # its python3: this interpreter
    env = {k: v for k, v in os.environ.items() if k not in ("EXCEPTSTAR_PURE", "PYTHONPATH")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", BROWSER=f"{browser} %s")
    proc = subprocess.run(["bash", "-c", command], cwd=project, capture_output=True, text=True, timeout=900,
                          env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    index = project / "docs" / "_build" / "html" / "index.html"
    assert opened.read_text() == f"file://{project}/docs/_build/html/index.html"
    assert "exceptstar" in index.read_text() and (index.parent / "reference" / "api.html").exists()
