"""``python -m exceptstar show FILE`` and ``config ruff|mypy|pyright|flake8|black|coverage PATH...``.

Linters and type checkers refuse ``except*`` when they target a version
below 3.11, and none can be told to accept it.  ``config`` prints the settings
that make each tool check the files that use ``except*`` (found as ``check``
finds them) as 3.11 code, or leave them out, and everything else as before
(for coverage: the plugin that makes its reports read them on 3.8-3.10);
``show`` prints what actually runs on 3.8-3.10, for debugging and for tools
that must see plain Python.  ``catch()`` needs none of this: it is plain code
that every tool checks for every target.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Dict, List, Optional, Tuple

TOOLS = ("ruff", "mypy", "pyright", "flake8", "black", "coverage")


# --- show -------------------------------------------------------------------------

def show(path: str) -> int:
    """Print the transformed source of ``path``, each statement after its original line number."""
    import ast

    from exceptstar._compiler import rewrite, transform

    try:
        with open(path, "rb") as file:
            source = file.read()
    except OSError as error:
        sys.stderr.write(f"exceptstar show: cannot read {path}: {error.strerror}\n")
        return 2
    try:
        tree = transform.parse(source, path)
    except SyntaxError as error:
        sys.stderr.write(f"{path}:{error.lineno}: {type(error).__name__}: {error.msg}\n")
        return 1
    marks = _user_marks(tree)
    rewrite.transform(tree)
    # 3.8 has no ast.unparse: our unparse writes the same text there.
    if sys.version_info >= (3, 9):
        text = ast.unparse(tree)
    else:
        from exceptstar._compiler.unparse import unparse

        text = unparse(tree)
    origins = _line_origins(tree, ast.parse(text), marks)
    width = len(str(max(origins.values(), default=1)))
    for number, line in enumerate(text.splitlines(), 1):
        origin = origins.get(number)
        sys.stdout.write(f"{'' if origin is None else origin:>{width}} | {line}\n")
    return 0


def _user_marks(tree: "ast.AST") -> "Dict[int, Tuple[object, int]]":
    """What of the user's tree the rewrite keeps -> the line of the source it belongs to.

    Taken before the rewrite: each statement (its own line), each block of
    statements (the line of the statement or ``except`` clause that holds it)
    and each clause's type (the clause's line).  Keyed by identity, the object
    kept beside its line so that no id is reused.
    """
    import ast

    marks: Dict[int, Tuple[object, int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        marks[id(node)] = (node, node.lineno)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if type(block) is list and block:
                marks[id(block)] = (block, node.lineno)
        for handler in getattr(node, "handlers", ()):
            marks[id(handler.body)] = (handler.body, handler.lineno)
            if handler.type is not None:
                marks[id(handler.type)] = (handler.type, handler.lineno)
    return marks


def _first_mark(node: "ast.AST", marks: "Dict[int, Tuple[object, int]]") -> "Optional[int]":
    """The line of the first of the user's pieces inside generated ``node``, in source order."""
    todo: List[object] = [node]
    while todo:
        item = todo.pop()
        mark = marks.get(id(item))
        if mark is not None and mark[0] is item and item is not node:
            return mark[1]
        children = item if type(item) is list else [getattr(item, field, None) for field in item._fields]  # type: ignore[attr-defined]
        todo.extend(child for child in reversed(children) if type(child) is list or hasattr(child, "_fields"))
    return None


def _line_origins(transformed: "ast.AST", reparsed: "ast.AST",
                  marks: "Dict[int, Tuple[object, int]]") -> "Dict[int, int]":
    """Line of the unparsed text -> line of the original source, for each statement.

    A statement of the user's has its own line.  One the rewrite made has the
    line of the first piece of the user's it holds (the ``except*`` clause
    whose types it matches or whose body it runs, the ``try`` whose body it
    holds), else that of the statement around it; none at module level.  Not
    the positions the rewrite gives (which differ by version, for tracing):
    so the map is the same on every version.  The unparsed text parses back
    into the same shape, so its statements pair with the transformed ones in order.
    """
    import ast

    origin: Dict[int, Optional[int]] = {}
    todo: List[Tuple[ast.AST, Optional[int]]] = [(transformed, None)]
    while todo:
        node, around = todo.pop()
        if isinstance(node, ast.stmt):
            mark = marks.get(id(node))
            own = mark[1] if mark is not None and mark[0] is node else _first_mark(node, marks)
            around = origin[id(node)] = own if own is not None else around
        todo.extend((child, around) for child in ast.iter_child_nodes(node))
    pairs = zip(
        (node for node in ast.walk(transformed) if isinstance(node, ast.stmt)),
        (node for node in ast.walk(reparsed) if isinstance(node, ast.stmt)),
    )
    return {new.lineno: line for old, new in pairs if (line := origin[id(old)]) is not None}


# --- config -----------------------------------------------------------------------

def config(tool: str, paths: "List[str]") -> int:
    """Print the settings, for ``tool``, that keep its 3.8-3.10 checks off the ``except*`` files."""
    if tool not in TOOLS:
        sys.stderr.write(f"exceptstar config: unknown tool {tool!r} (one of {', '.join(TOOLS)})\n")
        return 2
    files = star_files(paths or ["."])
    if not files:
        sys.stderr.write("exceptstar config: no file uses except*; nothing to configure\n")
        return 0
    text = {"ruff": _ruff, "mypy": _mypy, "pyright": _pyright,
            "flake8": _flake8, "black": _black, "coverage": _coverage}[tool](files)
    sys.stdout.write(text)
    return 0


def star_files(paths: "List[str]") -> "List[str]":
    """The Python files under ``paths`` that use ``except*``, as ``check`` finds them, '/'-separated."""
    from exceptstar._commands.check import python_files
    from exceptstar._compiler.transform import has_except_star

    found = []
    for path in python_files(paths):
        try:
            with open(path, "rb") as file:
                if not has_except_star(file.read()):
                    continue
        except OSError:
            continue
        found.append(os.path.normpath(path).replace(os.sep, "/"))
    return found


def _toml_list(items: "List[str]", indent: str = "    ") -> str:
    return "".join(f"{indent}{_toml_string(item)},\n" for item in items)


def _toml_string(text: str) -> str:
    # A TOML literal string: no escapes, so a regex or a path stays as it is.
    return f"'{text}'"


def _ruff(files: "List[str]") -> str:
    # ruff parses each file for its own target version: these as 3.11 code.
    # pyupgrade's rules would then offer 3.9+ syntax that 3.8 cannot run.
    targets = "".join(f"{_toml_string(path)} = \"py311\"\n" for path in files)
    ignores = "".join(f"{_toml_string(path)} = [\"UP\"]\n" for path in files)
    return ("# pyproject.toml (in ruff.toml: [per-file-target-version], [lint.per-file-ignores])\n"
            "[tool.ruff.per-file-target-version]\n" + targets + "\n"
            "[tool.ruff.lint.per-file-ignores]\n" + ignores)


def _module_name(path: str) -> str:
    """The dotted module name mypy gives ``path``: up through the packages that hold it."""
    folder, name = os.path.split(os.path.abspath(path))
    parts = [name[:-3]] if name != "__init__.py" else []
    while os.path.exists(os.path.join(folder, "__init__.py")):
        folder, package = os.path.split(folder)
        parts.insert(0, package)
    return ".".join(parts)


def _mypy(files: "List[str]") -> str:
    # mypy has one python_version for the whole run: the except* files are left
    # out, both when it walks the folders (exclude) and when other modules
    # import them (follow_imports, which also makes their names Any).
    excludes = [f"^{_regex(path)}$" for path in files]
    modules = sorted({_module_name(path) for path in files})
    return ("# pyproject.toml\n"
            "[tool.mypy]\n"
            "exclude = [\n" + _toml_list(excludes) + "]\n"
            "\n"
            "[[tool.mypy.overrides]]\n"
            "module = [\n" + _toml_list(modules) + "]\n"
            "follow_imports = \"skip\"\n")


def _regex(path: str) -> str:
    import re

    return re.escape(path)


def _pyright(files: "List[str]") -> str:
    # Not checked, as with mypy: an execution environment of pythonVersion 3.11
    # takes the syntax error away, but pyright (1.1.414) still judges the
    # except* clauses against the project's 3.8 builtins, which have no groups.
    import json

    return ("// pyrightconfig.json (in pyproject.toml: [tool.pyright] ignore = [...])\n"
            + json.dumps({"ignore": files}, indent=2) + "\n")


def _flake8(files: "List[str]") -> str:
    # flake8 (pyflakes, pycodestyle) parses with the interpreter it runs on:
    # under 3.11+ it accepts except*, under 3.8-3.10 the files can only be left
    # out (E999 stops every other check of the file anyway).  Paths with a '/'
    # are taken relative to the folder of the config file.
    return ("# .flake8, setup.cfg or tox.ini: only where flake8 runs on Python 3.8-3.10\n"
            "[flake8]\n"
            "extend-exclude =\n" + "".join(f"    {path}\n" for path in files))


def _black(files: "List[str]") -> str:
    # black's own parser reads except* for any target-version, but its safety
    # check compares the interpreter's ASTs, which 3.8-3.10 cannot build for
    # these files: there black fails on them whenever they need reformatting.
    # force-exclude also covers files named on the command line (pre-commit).
    pattern = "|".join(_regex(path) for path in files)
    return ("# pyproject.toml: only where black runs on Python 3.8-3.10\n"
            "[tool.black]\n"
            f"force-exclude = '^/({pattern})$'\n")


def _coverage(files: "List[str]") -> str:
    # One setting for every file: the plugin (exceptstar.coverage_init) reads
    # except* wherever coverage meets it, and does nothing on 3.11+.  Before
    # 3.11 coverage reads pyproject.toml only with tomli (coverage[toml]).
    return ("# pyproject.toml (read on 3.8-3.10 with coverage[toml] installed)\n"
            "[tool.coverage.run]\n"
            "plugins = [\"exceptstar\"]\n"
            "\n"
            "# or .coveragerc ([coverage:run] in setup.cfg or tox.ini)\n"
            "[run]\n"
            "plugins = exceptstar\n")
