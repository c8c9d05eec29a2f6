"""``python -m exceptstar coldstart [PATH...]``: the modules that every start of a program transforms again.

The import hook transforms a module that uses ``except*`` once and keeps the
result in its bytecode cache (``_compiler.hook``).  Where no valid cache is
there to read, every process start pays the transformation again: the cache
was never written (pip's install-time compile fails on such files without a
word), it is stale, its folder cannot be written (root-owned site-packages, a
read-only image) or writing is off (``PYTHONDONTWRITEBYTECODE``, ``-B``); a
new container starts from its image, so a cache written in one is gone in the
next.  The command reads the caches exactly as the hook reads them (its own
functions), for this interpreter and its flags, lists each such module with
the reason, and prints the one command that writes them: ``compileall``.
Without PATH it looks at everything on ``sys.path`` beyond the standard
library and the current folder.  Modules inside a zip file are listed too,
unless a valid legacy ``mod.pyc`` is beside them there (``compileall -b``
before zipping): zipimport never caches source modules.  Exit status 1 when
a module is listed, 2 when a PATH does not exist.  On 3.11+ nothing is
transformed (unless ``EXCEPTSTAR_PURE=1``).
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, Iterator, List, Optional, Tuple


def main(args: "List[str]") -> int:
    if args[:1] in (["-h"], ["--help"]):
        sys.stdout.write(USAGE)
        return 0
    from exceptstar._classes import PURE

    if not PURE:
        print("exceptstar coldstart: except* is native on this Python: no module is transformed")
        return 0
    roots = list(args) if args else _installed_roots()
    zips = {root: _in_zip(root) for root in roots}
    missing = [root for root in roots if zips[root] is None and not os.path.exists(root)]
    if missing:
        for root in missing:
            print(f"exceptstar coldstart: {root}: no such file or folder", file=sys.stderr)
        return 2
    cold: List[Tuple[str, str, str]] = []  # (root, file, reason)
    zipped: List[str] = []
    seen = set()
    for root in roots:
        archive = zips[root]
        if archive is not None:
            zipped.extend(_zipped_star_modules(*archive))
            continue
        for path in _python_files(root):
            reason = None if path in seen else cold_reason(path)
            seen.add(path)
            if reason is not None:
                cold.append((root, path, reason))
    for _, path, reason in cold:
        print(f"{path}: {reason}")
    for path in zipped:
        print(f"{path}: in a zip file, where source modules are never cached")
    if not cold and not zipped:
        print("exceptstar coldstart: every module that uses except* has valid transformed bytecode")
        return 0
    count = len(cold) + len(zipped)
    print(f"exceptstar coldstart: {count} module{' uses' if count == 1 else 's use'} except* with no valid "
          "transformed bytecode: each start that finds none transforms again")
    if cold:
        print("fix: where these files can be written (a Dockerfile's RUN, a package's postinst), run")
        print("    " + fix_command([(root, path) for root, path, _ in cold],
                                 any(reason.startswith(STALE) for _, _, reason in cold)))
    if zipped:
        print("fix, for a zip: before zipping, run on the folder that is zipped (zipimport runs mod.pyc beside mod.py)")
        print("    " + _python() + " -m exceptstar compileall -q -b FOLDER")
    return 1


USAGE = """\
usage: python -m exceptstar coldstart [PATH...]

Lists the modules that use except* and have no valid transformed bytecode,
which every start of the program transforms again, and the command that fixes it.
PATH: folders (an image's site-packages) or files; default: sys.path beyond the
standard library. Run it with the interpreter, and the flags (-O, -X pycache_prefix),
that run the program. Exit status: 1 when a module is listed, 2 for a PATH not found.
"""


def cold_reason(path: str) -> "Optional[str]":
    """Why the hook would transform ``path`` at every start, or None when it reads a cache (or has no ``except*``)."""
    from exceptstar._compiler import pycache, transform

    try:
        stat = os.stat(path)
        with open(path, "rb") as file:
            source = file.read()
    except OSError:
        return None
    if not transform.has_except_star(source):
        return None
    paths = pycache.cache_paths(path)
    header = pycache.pyc_header(stat)
    if paths is not None and (pycache.read_pyc(paths[1], header, path) is not None
                              or (not transform.NATIVE_SYNTAX  # as the hook: see its get_code
                                  and pycache.read_pyc(paths[0], header, path) is not None)):
        return None
    if not _uses_except_star(source, path):
        return None
    state = "no transformed bytecode" if paths is None or not os.path.exists(paths[1]) else STALE
    if paths is None:
        return f"{state} (this interpreter keeps no bytecode cache)"
    if sys.dont_write_bytecode:
        return f"{state}, and writing bytecode is off (PYTHONDONTWRITEBYTECODE or -B)"
    folder = _existing_folder(os.path.dirname(paths[1]))
    if not os.access(folder, os.W_OK):
        return f"{state}, and {folder} cannot be written"
    return f"{state} (the first import here writes it; a new container or copy of this tree starts without it)"


STALE = "its transformed bytecode is out of date"


def _python_files(root: str) -> "Iterator[str]":
    """The ``*.py`` files of ``root`` (a file, or a folder walked but for caches and hidden folders:
    an environment's own site-packages are what an image runs)."""
    if not os.path.isdir(root):
        yield root
        return
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        yield from (os.path.join(folder, name) for name in sorted(names) if name.endswith(".py"))


def _uses_except_star(source: bytes, path: str) -> bool:
    """Whether the source really holds ``except*``: the cheap test also finds it in strings and comments."""
    import ast

    try:
        tree = ast.parse(source, path)
    except SyntaxError:
        return True  # 3.8-3.10's parser refuses except* (the import of a broken file fails either way)
    except ValueError:  # NUL bytes: the import fails either way
        return False
    # Pure on 3.11+ (EXCEPTSTAR_PURE=1): the native parser reads it, and the hook transforms it still.
    return any(type(node).__name__ == "TryStar" for node in ast.walk(tree))


def _existing_folder(folder: str) -> str:
    """The folder the cache is written in, or the nearest existing one above it, where it would be made."""
    while not os.path.isdir(folder):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        folder = parent
    return folder


def fix_command(cold: "List[Tuple[str, str]]", stale: bool = False) -> str:
    """``python -m exceptstar compileall -q`` over the top-level packages and modules holding the cold files;
    with ``-f`` where a ``stale`` cache is among them (compileall reads a source of the same mtime as unchanged)."""
    import shlex

    targets: Dict[str, None] = {}
    for root, path in cold:
        relative = os.path.relpath(path, root) if os.path.isdir(root) else "."
        first = relative.split(os.sep)[0]
        targets[path if first in (".", relative) else os.path.join(root, first)] = None
    words = ["-m", "exceptstar", "compileall", "-q", *(["-f"] if stale else []), *sorted(targets)]
    return _python() + " " + " ".join(shlex.quote(word) for word in words)


def _python() -> str:
    """This interpreter with its optimization flag and its bytecode folder, as shell words."""
    import shlex

    flags = ["-" + "O" * sys.flags.optimize] if sys.flags.optimize else []
    if sys.pycache_prefix is not None:
        flags += ["-X", f"pycache_prefix={sys.pycache_prefix}"]
    return " ".join(shlex.quote(word) for word in [sys.executable or "python", *flags])


def _installed_roots() -> "List[str]":
    """``sys.path`` entries the hook covers: not the standard library, not the current folder."""
    from exceptstar._compiler.hook import _stdlib_dirs

    stdlib = _stdlib_dirs()
    here = os.getcwd()
    roots: List[str] = []
    for entry in sys.path:
        folder = os.path.abspath(entry or here)
        if folder == here or folder in roots or not (os.path.exists(folder) or _in_zip(folder)):
            continue
        inside = os.path.join(folder, "")
        if any(inside.startswith(lib) or lib.startswith(inside) for lib in stdlib) and not _is_site(folder):
            continue
        roots.append(folder)
    return roots


def _is_site(folder: str) -> bool:
    return os.path.basename(folder) in ("site-packages", "dist-packages")


def _in_zip(path: str) -> "Optional[Tuple[str, str]]":
    """(the zip file, the folder in it, "" for none) of a path such as ``app.pyz`` or
    ``bundle.zip/lib`` (as ``sys.path`` may hold), else None."""
    archive, inner = path, ""
    while not os.path.exists(archive):
        parent, name = os.path.split(archive)
        if not name:
            return None
        archive, inner = parent, f"{name}/{inner}"
    import zipfile

    if os.path.isdir(archive) or (not inner and archive.endswith(".py")) or not zipfile.is_zipfile(archive):
        return None
    return archive, inner


def _zipped_star_modules(archive: str, inner: str) -> "List[str]":
    """The modules in a zip file (under the folder ``inner``) that use ``except*`` and
    have no valid legacy ``mod.pyc`` beside them."""
    import zipfile

    from exceptstar._compiler import transform

    found: List[str] = []
    try:
        with zipfile.ZipFile(archive) as zipped:
            for name in sorted(zipped.namelist()):
                source = zipped.read(name) if name.endswith(".py") and name.startswith(inner) else b""
                if (transform.has_except_star(source) and _uses_except_star(source, name)
                        and not _zipped_pyc_valid(zipped, name, source)):
                    found.append(os.path.join(archive, name))
    except (OSError, zipfile.BadZipFile):
        pass
    return found


def _zipped_pyc_valid(zipped: "Any", name: str, source: bytes) -> bool:
    """Whether zipimport runs ``mod.pyc`` for ``mod.py`` (3.10's ``_unmarshal_code``): a pyc of this
    interpreter, valid for the source by its hash or by the zip entry's time (within a second) and size."""
    import _imp
    import time
    from importlib.util import MAGIC_NUMBER, source_hash

    try:
        data = zipped.read(name[:-3] + ".pyc")
    except KeyError:
        return False
    flags = int.from_bytes(data[4:8], "little")
    if data[:4] != MAGIC_NUMBER or flags & ~0b11:
        return False
    if flags & 0b01:
        check = _imp.check_hash_based_pycs
        if check == "never" or (check == "default" and not flags & 0b10):
            return True
        return bool(source_hash(source) == data[8:16])
    info = zipped.getinfo(name)
    mtime = time.mktime((*info.date_time, 0, 0, -1))
    size = int.from_bytes(data[12:16], "little")
    return abs(int.from_bytes(data[8:12], "little") - mtime) <= 1 and size == len(source)


__all__ = ["cold_reason", "fix_command", "main"]
