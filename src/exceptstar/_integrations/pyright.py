"""pyright and basedpyright at 3.8-3.10 targets, on modules that use ``except*``.

Both tools parse ``except*`` only in a file whose Python version is 3.11+,
and type its names from the builtins' ``BaseExceptionGroup``, which their
typeshed gives only at 3.11+.  The route, in settings the tools load
themselves (the command line, pre-commit and editors alike):

- an execution environment at 3.11 for each file that uses ``except*``
  (``config_block``): the syntax parses and its names are typed as at 3.11;
- ``typeshedPath`` naming a copy of the tool's own typeshed whose builtins
  have the group classes at every version, and they are exceptstar's (its
  typed ``_group_types``), as at run time under exceptstar: so the names of
  ``except*`` and ``exceptstar.ExceptionGroup`` are one class
  (``_integrations.typeshed``).  The stubs are still bound at the project's
  target, so the standard library keeps its version checks in every file,
  and the copy's VERSIONS keeps the target's modules for the 3.11 section
  (``tomllib`` is still missing at 3.9).

The copy must match the tool in use: ``ensure_typeshed`` (run by ``python -m
exceptstar pyright|basedpyright``, before the tool) writes it into the folder
the configuration names, from the tool it is about to run, and rewrites it
only when that typeshed changes.  Imported only by that command and ``config``.
"""

import json
import os
import re
import subprocess
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import List, Optional, Sequence, Tuple

TOOLS = ("pyright", "basedpyright")
STAR_VERSION = "3.11"
# The folder, beside the configuration, that holds the patched typeshed for a target.
FOLDER = ".exceptstar/typeshed-{target}"
_OURS = re.compile(r"(?:^|[/\\])\.exceptstar[/\\]typeshed-(3)\.(\d+)[/\\]?$")
_TYPESHED_PATH = re.compile(r"""["']?typeshedPath["']?\s*[:=]\s*["']([^"'\n]+)["']""")


def config_block(tool: str, files: "Sequence[str]", target: str) -> str:
    """What to paste into ``pyrightconfig.json`` for ``tool``: ``files`` use ``except*``, ``target`` is "3.9"."""
    settings = {
        "pythonVersion": target,
        "typeshedPath": FOLDER.format(target=target),
        "executionEnvironments": [{"root": path, "pythonVersion": STAR_VERSION} for path in files],
    }
    table = "[tool.basedpyright] (or [tool.pyright])" if tool == "basedpyright" else "[tool.pyright]"
    return (f"// pyrightconfig.json (the same keys in pyproject.toml's {table});\n"
            f"// these environments before any of your own. Run {tool} as `python -m exceptstar {tool} ARGS...`:\n"
            f"// it writes {FOLDER.format(target=target)} from the {tool} it runs, then runs it.\n"
            + json.dumps(settings, indent=2) + "\n")


def find_config(args: "Sequence[str]", start: str) -> "Optional[str]":
    """The configuration file that the tool reads for ``args`` run in ``start``, as it finds it."""
    project = None
    for index, arg in enumerate(args):
        if arg in ("-p", "--project") and index + 1 < len(args):
            project = args[index + 1]
        elif arg.startswith("--project="):
            project = arg.split("=", 1)[1]
    if project is not None:
        path = os.path.join(start, project)
        if os.path.isfile(path):
            return path
        start = path
    # pyrightconfig.json here or above, else a pyproject.toml here or above.
    for name in ("pyrightconfig.json", "pyproject.toml"):
        folder = os.path.abspath(start)
        while True:
            candidate = os.path.join(folder, name)
            if os.path.isfile(candidate):
                return candidate
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent
    return None


def our_folders(config: str) -> "List[Tuple[str, Tuple[int, int]]]":
    """The typeshed folders named in ``config`` that are exceptstar's, each with its target."""
    try:
        with open(config, encoding="utf-8") as file:
            text = file.read()
    except OSError:
        return []
    found = []
    for match in _TYPESHED_PATH.finditer(text):
        ours = _OURS.search(match.group(1).strip())
        if ours:
            folder = os.path.join(os.path.dirname(os.path.abspath(config)), match.group(1).strip())
            found.append((os.path.normpath(folder), (int(ours.group(1)), int(ours.group(2)))))
    return found


def bundled_typeshed(tool: str, command: str) -> str:
    """The typeshed folder that ``command`` (``tool``'s) bundles."""
    # The PyPI packages installed beside this interpreter: found where they put it.
    if os.path.dirname(os.path.abspath(command)) == os.path.dirname(os.path.abspath(sys.executable)):
        import importlib.util

        spec = importlib.util.find_spec(tool)
        if spec is not None and spec.origin:
            package = os.path.dirname(spec.origin)
            inner = ["dist"] if tool == "basedpyright" else ["dist", "dist"]
            candidate = os.path.join(package, *inner, "typeshed-fallback")
            forced = tool == "pyright" and os.environ.get("PYRIGHT_PYTHON_FORCE_VERSION")
            if os.path.isdir(candidate) and not forced:
                return candidate
    return _probe(command)


def _probe(command: str) -> str:
    # Anywhere else (npm, pyright-python's own download) the tool says where,
    # in its verbose search paths, on an empty project.
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "pyrightconfig.json"), "w") as file:
            file.write("{}")
        open(os.path.join(folder, "empty.py"), "w").close()
        out = subprocess.run([command, "--verbose", "empty.py"], cwd=folder, capture_output=True,
                             text=True).stdout
    for line in out.splitlines():
        path = line.strip()
        if "typeshed" in path and os.path.basename(path) == "stdlib" and os.path.isdir(path):
            return os.path.dirname(path)
    raise FileNotFoundError(f"{command} did not say where its typeshed is")


def ensure_typeshed(tool: str, command: str, args: "Sequence[str]", start: str) -> "List[str]":
    """Write, from ``command``'s typeshed, each exceptstar typeshed folder that the configuration names.

    Returns the folders.  A folder already made from the same typeshed is left
    as it is; a configuration that names none of ours changes nothing.
    """
    config = find_config(args, start)
    folders = our_folders(config) if config else []
    if not folders:
        return []
    from exceptstar._integrations.typeshed import patched

    source = bundled_typeshed(tool, command)
    done = []
    for folder, target in folders:
        patched(source, target, folder, groups="exceptstar._group_types")
        _ignore_in_git(os.path.dirname(folder))
        done.append(folder)
    return done


def _ignore_in_git(folder: str) -> None:
    # Generated, per machine: like a tool's cache folder, it says so itself.
    path = os.path.join(folder, ".gitignore")
    if not os.path.exists(path):
        with open(path, "w") as file:
            file.write("# written by exceptstar: the typeshed copies for pyright and basedpyright\n*\n")
