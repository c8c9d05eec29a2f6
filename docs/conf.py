"""Sphinx settings for exceptstar's documentation.

Built by ``python -m sphinx -W -n -b html docs docs/_build/html`` (tests/test_docs.py runs
it wherever Sphinx is installed: the matrix's 3.10 environment, where the tutorial's module,
which uses ``except*``, is read through exceptstar's own Sphinx support, 3.13's and the newest's).
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "src"), str(HERE / "tutorial_project")]

import exceptstar  # noqa: E402

# Sphinx's readers (autodoc, viewcode) get except* on 3.8-3.10: the how-to of docs/howto/sphinx.md.
exceptstar.install()

project = "exceptstar"
author = "the exceptstar developers"
release = version = exceptstar.__version__
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.viewcode"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
html_theme = "furo"
html_title = f"exceptstar {release}"
html_static_path = ["_static"]
exclude_patterns = ["_build", "tutorial_project"]
autodoc_member_order = "bysource"
# exceptstar.mypy is imported by mypy only; its one name is documented without mypy installed.
autodoc_mock_imports = ["mypy"]
autodoc_typehints = "description"
# Broken internal links and references fail the build (-n -W); names of the standard
# library and of the Python-level type parameters are not ours to document.
nitpicky = True
nitpick_ignore_regex = [(r"py:.*", r"(?!exceptstar\b).*"), (r"py:.*", r"exceptstar\.(.*\.)?_.*")]

# Every public name must be in the reference: a missing one is a warning, so an error under -W.
PUBLIC = {
    "exceptstar": [n for n in exceptstar.__all__ if n != "__version__"],
    "exceptstar.testing": None,
    "exceptstar.asyncio": None,
    "exceptstar.socket": None,
    "exceptstar.mypy": ["plugin"],  # its import needs mypy
}


def _check_reference(app, env):  # type: ignore[no-untyped-def]
    import importlib

    from sphinx.util import logging

    documented = set(env.domaindata["py"]["objects"])
    for module, names in PUBLIC.items():
        for name in names if names is not None else importlib.import_module(module).__all__:
            if f"{module}.{name}" not in documented:
                logging.getLogger(__name__).warning("public name %s.%s missing from the reference", module, name)


def _own_docstring(app, what, name, obj, options, lines):  # type: ignore[no-untyped-def]
    # From 3.15 exceptstar.asyncio.TaskGroup is asyncio's own class, whose docstring is not valid
    # reST (a definition list without a blank line): the reference shows exceptstar's text for it,
    # the same class's on every version.
    if name == "exceptstar.asyncio.TaskGroup" and obj.__module__.startswith("asyncio"):
        import inspect

        from exceptstar.asyncio import _taskgroup

        lines[:] = inspect.cleandoc(_taskgroup.TaskGroup.__doc__ or "").splitlines()


def setup(app):  # type: ignore[no-untyped-def]
    app.connect("env-check-consistency", _check_reference)
    app.connect("autodoc-process-docstring", _own_docstring)
