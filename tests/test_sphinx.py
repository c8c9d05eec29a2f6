"""Sphinx and ``except*`` (issue 19, part 7): autodoc and viewcode as on native 3.11+.

A tiny docs project documents a module that uses ``except*``: ``#:``
attribute comments, ``autodoc_member_order = "bysource"``, a type comment
and a preserved default on functions that use ``except*``, and viewcode
pages.  Built here with ``exceptstar.install()`` in ``conf.py`` and by the
reference environment (3.11+) without it, the text output and what viewcode
made must be the same.  Sphinx is heavy: it is installed, and built, in the
3.10 and 3.13 environments only.
"""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.coverage_project import missing, require
from support.interop import environment, native, ours, reference_python
from support.interpreters import native_python

HEAVY = pytest.mark.skipif(sys.version_info[:2] not in ((3, 10), (3, 13)),
                           reason="Sphinx is installed and built in the 3.10 and 3.13 environments only")

LIB = '''\
"""A library that handles groups with except*."""

#: How many times to retry.
RETRIES = 3

TIMEOUT = 1.5  #: Seconds to wait.


def zeta(x, tries=RETRIES):  # type: (object, int) -> int
    """Last by name, first in the source."""
    try:
        x()
    except* ValueError:
        got = 1
    else:
        got = 0
    return got


class Job:
    """A job."""

    #: The job's name.
    name = "job"

    def run(self):
        """Run it."""
        try:
            pass
        except* OSError as group:
            #: Not an attribute: inside a handler.
            self.failed = group

    def abort(self):
        """Abort it."""


def alpha(x=RETRIES):
    """First by name, last in the source."""
    return x
'''

CONF = '''\
import os, sys
sys.path.insert(0, os.path.abspath("."))
if os.environ.get("DOCS_INSTALL"):
    import exceptstar
    exceptstar.install()
extensions = ["sphinx.ext.autodoc", "sphinx.ext.viewcode"]
autodoc_member_order = "bysource"
autodoc_preserve_defaults = True
'''

INDEX = '''\
lib
===

.. automodule:: lib
   :members:
   :undoc-members:
'''

BUILD = '''\
import sys
from sphinx.cmd.build import build_main
source, out = sys.argv[1:]
for builder in ("text", "html"):
    status = build_main(["-q", "-E", "-b", builder, source, out + "/" + builder])
    if status:
        sys.exit(status)
'''


def build(python: str, folder: Path, name: str, env: dict[str, str]) -> dict[str, object]:
    """The docs built by ``python``: the text page, and viewcode's links and pages (their text)."""
    proc = subprocess.run([python, "-c", BUILD, str(folder), str(folder / name)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = folder / name
    page = (out / "html" / "index.html").read_text()
    modules = {str(path.relative_to(out / "html")): _text(path.read_text())
               for path in sorted((out / "html" / "_modules").rglob("*.html"))}
    blocks = re.findall(r'class="viewcode-block" id="([^"]+)"',
                        (out / "html" / "_modules" / "lib.html").read_text()) if modules else []
    return {
        "text": (out / "text" / "index.txt").read_text(),
        "source_links": re.findall(r'href="(_modules/[^"]+)"', page),
        "module_pages": modules,
        "viewcode_blocks": blocks,
        "warnings": proc.stderr,
    }


def _text(page: str) -> str:
    """The highlighted source of a viewcode page, as text."""
    body = page[page.find('<div class="highlight">'):]
    body = body[:body.find("</pre>")]
    return html.unescape(re.sub(r"<[^>]+>", "", body))


@HEAVY
def test_autodoc_and_viewcode_as_native(tmp_path: Path) -> None:
    require("sphinx")
    reference = reference_python("sphinx")
    if reference is None:
        missing("no 3.11+ environment has sphinx")
    for name, text in [("lib.py", LIB), ("conf.py", CONF), ("index.rst", INDEX)]:
        (tmp_path / name).write_text(text)
    native = build(reference, tmp_path, "native", environment())
    # The reference shows what is at stake.
    assert "How many times to retry." in str(native["text"])
    assert "Not an attribute" not in str(native["text"])
    assert str(native["text"]).index("zeta") < str(native["text"]).index("alpha")
    assert "zeta(x: object, tries: int = RETRIES) -> int" in str(native["text"])
    assert native["viewcode_blocks"] == ["zeta", "Job", "Job.run", "Job.abort", "alpha"]
    ours = build(sys.executable, tmp_path, "ours", environment(DOCS_INSTALL="1"))
    assert ours == native


def test_inspect_getsource_of_a_class(tmp_path: Path) -> None:
    """What autodoc asks of a class (``inspect.getsource``, which parses the whole module from 3.9 on)."""
    exe = native_python()
    if exe is None:
        pytest.skip("no CPython 3.11+ on this machine")
    (tmp_path / "lib.py").write_text(LIB)
    program = tmp_path / "show.py"
    program.write_text("import inspect, lib\nprint(inspect.getsource(lib.Job))\nprint(inspect.getsource(lib.zeta))\n")
    here, there = ours(program), native(exe, program)
    assert there.returncode == 0 and "except* OSError" in there.stdout, there.stderr
    assert (here.returncode, here.stdout, here.stderr) == (there.returncode, there.stdout, there.stderr)
