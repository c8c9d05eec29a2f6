"""``python -m exceptstar check``: every invalid ``except*`` in files and folders.

Which files a folder holds for us (``python_files``: the project's own, not
environments or caches) is decided here, for ``config`` too.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Iterator, List


def check(paths: "List[str]") -> int:
    """Print ``file:line: message`` for every invalid ``except*``; 1 if there was one.

    Code that runs on 3.14 and through exceptstar but that 3.11-3.13 reject
    natively (types without parentheses) gets a ``note:`` line, not an error.
    """
    found = 0
    for path in python_files(paths):
        for line, message in check_file(path):
            print(f"{path}:{line}: {message}")
            found += not message.startswith("note: ")
    return 1 if found else 0


def python_files(paths: "List[str]") -> "Iterator[str]":
    """The ``*.py`` files of ``paths``: files as given, folders walked past ``_skipped_folder``'s."""
    for path in paths:
        if os.path.isdir(path):
            for folder, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not _skipped_folder(folder, d))
                yield from (os.path.join(folder, n) for n in sorted(names) if n.endswith(".py"))
        else:
            yield path


# Folders of installed or generated code, never the project's own: caches,
# installed packages, and what builds write (as ruff and black skip them).
_SKIPPED = frozenset(("__pycache__", "site-packages", "dist-packages", "node_modules", "__pypackages__",
                      "build", "dist", "_build", "buck-out", "eggs", "venv"))
# What makes a folder an environment, whatever its name: venv and virtualenv 20+
# write pyvenv.cfg, conda conda-meta, older virtualenvs only their activation scripts.
_ENVIRONMENT = ("pyvenv.cfg", "conda-meta", os.path.join("bin", "activate"), os.path.join("Scripts", "activate"))


def _skipped_folder(parent: str, name: str) -> bool:
    """Hidden folders (.tox, .nox, .venv, .eggs, ...), caches, build output, eggs and environments.

    A folder named as build output that is a package (``build/__init__.py``)
    is the project's own, and is kept.
    """
    if name.startswith(".") or name.endswith((".egg-info", ".egg", ".dist-info")):
        return True
    folder = os.path.join(parent, name)
    if name in _SKIPPED and not os.path.exists(os.path.join(folder, "__init__.py")):
        return True
    return any(os.path.exists(os.path.join(folder, marker)) for marker in _ENVIRONMENT)


def check_file(path: str) -> "List[Any]":
    """(line, message) of every invalid ``except*`` use in ``path``, in line order
    (and the notes of ``syntax.problems``).

    When there is none, the file is also compiled as ``run`` would compile it,
    so that what passes ``check`` also compiles: the compiler's own errors
    (``async with`` outside an async function, say) and the nesting limit of
    transformed code are reported too.
    """
    from exceptstar._compiler import syntax, transform

    try:
        with open(path, "rb") as file:
            source = file.read()
    except OSError as error:
        return [(0, f"cannot read: {error.strerror}")]
    if not transform.has_except_star(source):
        return []
    nul = source.find(b"\0")
    if nul >= 0:
        # As the interpreter reading the file (3.12+): compile() itself says
        # "source code string" and 3.8-3.10 raise ValueError.
        return [(source.count(b"\n", 0, nul) + 1, "SyntaxError: source code cannot contain null bytes")]
    try:
        found = [(problem.line, problem.msg) for problem in syntax.problems(source, path)]
        errors = [message for _, message in found if not message.startswith("note: ")]
        # 3.11-3.13 compile natively, and reject what the notes are about.
        if not errors and (len(errors) == len(found) or not (3, 11) <= sys.version_info < (3, 14)):
            transform.compile_source(source, path, "exec")
    except SyntaxError as error:
        return [(error.lineno or 0, f"{type(error).__name__}: {error.msg}")]
    return sorted(found, key=lambda item: item[0])
