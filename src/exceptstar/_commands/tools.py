"""``python -m exceptstar show FILE`` and ``config TOOL PATH...`` (``BLOCKS``: ruff, mypy, pyright, ...).

Linters and type checkers refuse ``except*`` when they target a version
below 3.11, and none can be told to accept it.  ``config`` prints the settings
that make each tool check the files that use ``except*`` (found as ``check``
finds them) as 3.11 code, or leave them out, and everything else as before
(for coverage: the plugin that makes its reports read them on 3.8-3.10);
``show`` prints what actually runs on 3.8-3.10, for debugging and for tools
that must see plain Python.  ``catch()`` needs none of this: it is plain code
that every tool checks for every target.  Each tool's block is one function
of ``BLOCKS``, given the files (found by ``star_files``).
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Callable, Dict, List, Optional, Tuple

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
    """Print the settings with which ``tool`` copes with the ``except*`` files at 3.8-3.10 targets."""
    if tool not in TOOLS:
        sys.stderr.write(f"exceptstar config: unknown tool {tool!r} (one of {', '.join(TOOLS)})\n")
        return 2
    # pyright/basedpyright: the project's target, --target=3.X (3.8 by default).
    target = next((arg.split("=", 1)[1] for arg in paths if arg.startswith("--target=")), "3.8")
    paths = [arg for arg in paths if not arg.startswith("--target=")]
    files = star_files(paths or ["."])
    if not files:
        sys.stderr.write("exceptstar config: no file uses except*; nothing to configure\n")
        return 0
    if tool in ("pyright", "basedpyright"):
        from exceptstar._integrations.pyright import config_block

        sys.stdout.write(config_block(tool, files, target))
        return 0
    sys.stdout.write(BLOCKS[tool](files))
    return 0


def star_files(paths: "List[str]") -> "List[str]":
    """The Python files under ``paths`` whose tokens hold an ``except*`` clause, '/'-separated.

    Folders are walked as ``check`` walks them (``python_files``: no
    environments, build output or caches); an ``except*`` in a comment, a
    docstring or a string does not count.
    """
    from exceptstar._commands.check import python_files
    from exceptstar._compiler.source import uses_except_star

    found = []
    for path in python_files(paths):
        try:
            with open(path, "rb") as file:
                if not uses_except_star(file.read()):
                    continue
        except OSError:
            continue
        found.append(_shown(path))
    return found


def _shown(path: str) -> str:
    """``path`` as the tools match it: relative to the current folder when under it
    (mypy's ``exclude`` sees no other form), '/'-separated."""
    relative = os.path.relpath(path)
    if os.path.isabs(path) and not relative.startswith(os.pardir):
        path = relative
    return os.path.normpath(path).replace(os.sep, "/")


def _toml_list(items: "List[str]", indent: str = "    ") -> str:
    return "".join(f"{indent}{_toml_string(item)},\n" for item in items)


def _toml_string(text: str) -> str:
    # A TOML literal string: no escapes, so a regex or a path stays as it is.
    return f"'{text}'"


# Rules whose advice at py311 (the target the except* files are parsed at)
# is not what 3.8 can run: their diagnostics or fixes differ from py38's.
# Found by asking ruff (tests/support/ruff_rules.py: every stable rule's own
# examples, and a module like the ones listed, at both targets; ruff 0.17):
# pyupgrade's rules (all of them: upgrading to the target is what they do),
# B905 zip(strict=), return annotations written `X | None` or `Never`,
# str.removeprefix, int.bit_count, itertools.pairwise, inspect.get_annotations,
# Path.readlink, datetime.UTC, the group names "shadowing" their builtins.
RUFF_311_ONLY = ("UP", "A004", "ANN201", "ANN202", "ANN205", "ANN206", "ASYNC109", "B905", "FAST002",
                 "FURB161", "FURB162", "FURB188", "PTH115", "PYI061", "RUF007", "RUF013", "RUF063")


def _ruff(files: "List[str]") -> str:
    # ruff parses each file for its own target version: these as 3.11 code,
    # without the rules whose advice there would not run on the real target.
    ignored = ", ".join(f'"{code}"' for code in RUFF_311_ONLY)
    targets = "".join(f"{_toml_string(path)} = \"py311\"\n" for path in files)
    ignores = "".join(f"{_toml_string(path)} = [{ignored}]\n" for path in files)
    return ("# pyproject.toml, ruff 0.13+ (in ruff.toml: [per-file-target-version], [lint.per-file-ignores];\n"
            "# ruff 0.10-0.12 does not know RUF063: leave it out there)\n"
            "[tool.ruff.per-file-target-version]\n" + targets + "\n"
            "[tool.ruff.lint.per-file-ignores]\n" + ignores)


def _mypy(files: "List[str]") -> str:
    # The plugin reads except* at any target, so every file stays checked: the
    # list is not needed, only the line that loads the plugin.
    return ("# pyproject.toml (mypy.ini or setup.cfg: plugins = exceptstar.mypy under [mypy])\n"
            "[tool.mypy]\n"
            "plugins = [\"exceptstar.mypy\"]\n")


def _regex(path: str) -> str:
    import re

    return re.escape(path)


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


# One function per tool: the files that use except* -> the text to paste.
BLOCKS: "Dict[str, Callable[[List[str]], str]]" = {
    "ruff": _ruff, "mypy": _mypy, "flake8": _flake8, "black": _black, "coverage": _coverage,
}
# pyright's and basedpyright's blocks also name the project's target: _integrations.pyright.
TOOLS = ("ruff", "mypy", "pyright", "basedpyright", "flake8", "black", "coverage")
