"""A type checker's typeshed as it is under exceptstar on 3.8-3.10, for checking ``except*`` at those targets.

``patched(typeshed, target)`` copies a typeshed folder (the one a type checker
bundles: ``stdlib/`` and ``stubs/``) with two changes:

- ``stdlib/builtins.pyi`` defines ``BaseExceptionGroup`` and ``ExceptionGroup``
  on every version, as the builtins have them at run time once exceptstar is
  imported (typeshed's own classes, so that the names bound by ``except*`` are
  typed exactly as at 3.11);
- ``stdlib/VERSIONS`` says for 3.11 what it says for ``target``, so that code
  checked as 3.11 code for its ``except*`` (a type checker's 3.11 section for
  those files) still finds only the modules of the real target: ``tomllib``
  stays missing at 3.9.  Other versions read it as before.

Nothing else changes: the stubs are bound at the project's own target, so the
rest of the standard library keeps its version checks.  Copies are cached by
content (the stdlib's bytes, the target, this module's patch version), so a
checker's upgrade makes a new copy and an unchanged one costs a hash.  Used by
``_integrations.pyright``; imported only when a type checker is set up.
"""

import hashlib
import json
import os
import shutil
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import List, Optional, Tuple

# Bumped when the patch changes, so that existing copies are remade.
PATCH_VERSION = 1
# The version at which type checkers accept except*: the section they give those files.
STAR_VERSION = (3, 11)
STAMP = "exceptstar-typeshed.json"


def patched(typeshed: str, target: "Tuple[int, int]", folder: "Optional[str]" = None,
            groups: "Optional[str]" = None) -> str:
    """The folder of the patched copy of ``typeshed`` for projects targeting ``target``.

    ``groups`` names a module whose ``BaseExceptionGroup`` and
    ``ExceptionGroup`` the builtins then import in place of typeshed's
    (``"exceptstar._group_types"``: the builtins' classes and exceptstar's are
    one, as at run time); by default typeshed's own classes are defined on
    every version.  ``folder`` is where the copy goes (made or remade there
    when its stamp differs); by default a folder of the user's cache named by
    the content key.  Returns at once when the copy is current.
    """
    stdlib = os.path.join(typeshed, "stdlib")
    if not os.path.isfile(os.path.join(stdlib, "builtins.pyi")):
        raise FileNotFoundError(f"no typeshed in {typeshed} (stdlib/builtins.pyi is missing)")
    key = content_key(stdlib, target, groups)
    if folder is None:
        folder = os.path.join(cache_root(), "typeshed", key[:24])
    if _stamp(folder) == key:
        return folder
    # Built beside the folder, then swapped in: a checker started meanwhile
    # sees the old copy or the new one, never half of one.
    parent = os.path.dirname(os.path.abspath(folder))
    os.makedirs(parent, exist_ok=True)
    building = f"{folder}.{os.getpid()}.tmp"
    shutil.rmtree(building, ignore_errors=True)
    shutil.copytree(stdlib, os.path.join(building, "stdlib"))
    _link_or_copy(os.path.join(typeshed, "stubs"), os.path.join(building, "stubs"))
    _patch_builtins(os.path.join(building, "stdlib", "builtins.pyi"), groups)
    _patch_versions(os.path.join(building, "stdlib", "VERSIONS"), target)
    with open(os.path.join(building, STAMP), "w") as file:
        json.dump({"key": key, "source": os.path.abspath(typeshed), "target": _dotted(target)}, file)
    old = f"{folder}.{os.getpid()}.old"
    try:
        if os.path.lexists(folder):
            os.rename(folder, old)
        os.rename(building, folder)
    except OSError:
        # Another process swapped its copy in meanwhile: the same content, or it is remade next time.
        if _stamp(folder) is None:
            raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    return folder


def content_key(stdlib: str, target: "Tuple[int, int]", groups: "Optional[str]" = None) -> str:
    """A hash of the stdlib stubs' paths and bytes, the target, ``groups`` and the patch version."""
    digest = hashlib.sha256(f"{PATCH_VERSION} {target[0]}.{target[1]} {groups}".encode())
    for root, dirs, files in os.walk(stdlib):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            digest.update(os.path.relpath(path, stdlib).replace(os.sep, "/").encode() + b"\0")
            with open(path, "rb") as file:
                digest.update(file.read())
    return digest.hexdigest()


def cache_root() -> str:
    """exceptstar's folder in the user's cache (``$XDG_CACHE_HOME``, else the system's usual place)."""
    base = os.environ.get("XDG_CACHE_HOME")
    if not base:
        home = os.path.expanduser("~")
        if sys.platform == "win32":
            base = os.environ.get("LOCALAPPDATA") or os.path.join(home, "AppData", "Local")
        elif sys.platform == "darwin":
            base = os.path.join(home, "Library", "Caches")
        else:
            base = os.path.join(home, ".cache")
    return os.path.join(base, "exceptstar")


def _stamp(folder: str) -> "Optional[str]":
    try:
        with open(os.path.join(folder, STAMP)) as file:
            key = json.load(file).get("key")
    except (OSError, ValueError, AttributeError):
        return None
    return key if isinstance(key, str) else None


def _link_or_copy(source: str, destination: str) -> None:
    # The third-party stubs are read as they are: a link where the system
    # allows one (Windows may not), else a copy.
    if not os.path.isdir(source):
        return
    try:
        os.symlink(os.path.abspath(source), destination, target_is_directory=True)
    except (OSError, NotImplementedError):
        shutil.copytree(source, destination)


def _patch_builtins(path: str, groups: "Optional[str]") -> None:
    """Make the ``if sys.version_info >= (3, 11):`` block of the group classes hold on every version.

    With ``groups``, the block becomes that module's import of the two names.
    Line by line, not parsed: the interpreter running this may not parse the
    stubs' syntax.  A typeshed that has dropped 3.10 defines them at top level
    and is left as it is.
    """
    with open(path, encoding="utf-8", newline="") as file:
        lines = file.read().splitlines(keepends=True)
    start = None
    for number, line in enumerate(lines):
        if line.lstrip().startswith("class BaseExceptionGroup("):
            if not line[:1].isspace():
                return
            # The block opens on the nearest line above at column 0.
            start = next((back for back in range(number - 1, -1, -1)
                          if lines[back].strip() and not lines[back][:1].isspace()
                          and not lines[back].startswith("#")), None)
            break
    if start is None or not lines[start].replace(" ", "").startswith("ifsys.version_info>=(3,11):"):
        raise ValueError(f"{path}: the group classes are not in an 'if sys.version_info >= (3, 11):' block")
    ending = lines[start][len(lines[start].rstrip("\r\n")):]
    if groups is None:
        lines[start] = "if True:  # exceptstar: the builtins have them on every version" + ending
    else:
        end = start + 1
        while end < len(lines) and (lines[end][:1].isspace() or not lines[end].strip()):
            end += 1
        lines[start:end] = [
            "# exceptstar: the builtins have them on every version, and they are exceptstar's" + ending,
            f"from {groups} import BaseExceptionGroup as BaseExceptionGroup, ExceptionGroup as ExceptionGroup"
            + ending + ending,
        ]
    with open(path, "w", encoding="utf-8", newline="") as file:
        file.write("".join(lines))


def _version(text: str) -> "Tuple[int, int]":
    major, minor = text.strip().split(".")
    return int(major), int(minor)


def _dotted(version: "Tuple[int, int]") -> str:
    return f"{version[0]}.{version[1]}"


def _within(version: "Tuple[int, int]", low: "Tuple[int, int]", high: "Optional[Tuple[int, int]]") -> bool:
    return low <= version and (high is None or version <= high)


def _patch_versions(path: str, target: "Tuple[int, int]") -> None:
    """Give 3.11 the target's modules: each range whose answer differs at the two is moved past 3.11."""
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as file:
        lines = file.read().splitlines()
    out: List[str] = []
    for line in lines:
        name, _, span = line.split("#", 1)[0].partition(":")
        # A range may be followed by "; platforms", kept as it is.
        span, semicolon, platforms = span.partition(";")
        low_text, _, high_text = span.strip().partition("-")
        try:
            low = _version(low_text)
            high = _version(high_text) if high_text.strip() else None
        except ValueError:
            out.append(line)
            continue

        at_target, at_star = _within(target, low, high), _within(STAR_VERSION, low, high)
        if at_target and not at_star:
            # Removed between the target and 3.11 (binhex, 3.0-3.10): there until 3.11.
            high = STAR_VERSION
        elif at_star and not at_target:
            # New between the target and 3.11 (tomllib, 3.11-): from 3.12 on.
            low = (STAR_VERSION[0], STAR_VERSION[1] + 1)
        else:
            out.append(line)
            continue
        span = f"{_dotted(low)}-{_dotted(high) if high is not None else ''}{semicolon}{platforms.rstrip()}"
        out.append(f"{name.strip()}: {span}  # exceptstar: as at {_dotted(target)}")
    with open(path, "w", encoding="utf-8") as file:
        file.write("\n".join(out) + "\n")
