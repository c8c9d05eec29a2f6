"""The bytecode cache of transformed code: where it is kept, reading and writing it.

Transformed bytecode is kept beside the normal ``.pyc``, under a tag with
exceptstar's version (``mod.cpython-310.exceptstar-0.4.0.pyc``), as the
interpreter keeps its own: a timestamp pyc keyed on the source's mtime and
size, or a hash-based one (``compileall --invalidation-mode``, pip under
``SOURCE_DATE_EPOCH``) checked as the interpreter checks its own, and kept
hash-based when written again.  ``run``'s main script has a file of its own
(``...exceptstar-0.4.0-main.pyc``), written only when compiling it warned of
nothing: the interpreter compiles a main script, and gives its warnings, on
every run, and a module's cache, which an import writes whatever it warned,
cannot repeat them.
"""

import _imp
import marshal
import os
import sys
from _io import open_code

# From the (always loaded) module that defines them, not from importlib.util,
# which would add ~6 ms to interpreter start-up when install() runs from sitecustomize.
from importlib._bootstrap_external import MAGIC_NUMBER, cache_from_source
from importlib.machinery import SourceFileLoader

from exceptstar._classes import PURE
from exceptstar._compiler import transform
from exceptstar._version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import CodeType
    from typing import Dict, Optional, Tuple

# Cached code calls runtime's names: a release that changes what the rewrite
# generates has a new version, and so never reads an older release's code.
CACHE_TAG = f"exceptstar-{__version__}"


def transformed_pyc(normal_pyc: str, main: bool = False) -> str:
    """Where transformed bytecode is kept, beside the normal ``.pyc`` path given (``main``: ``run``'s)."""
    return f"{normal_pyc[:-len('.pyc')]}.{CACHE_TAG}{'-main' if main else ''}.pyc"


def cache_paths(source_path: str) -> "Optional[Tuple[str, str]]":
    """The normal and the transformed bytecode paths of ``source_path`` (None: no cache)."""
    try:
        bytecode_path = cache_from_source(source_path)
    except (NotImplementedError, ValueError):
        return None
    return bytecode_path, transformed_pyc(bytecode_path)


_TIMESTAMP_PYC = MAGIC_NUMBER + b"\0\0\0\0"


def pyc_header(stat: "os.stat_result") -> bytes:
    """The header of a timestamp pyc for a source with ``stat``."""
    return (_TIMESTAMP_PYC + (int(stat.st_mtime) & 0xFFFFFFFF).to_bytes(4, "little")
            + (stat.st_size & 0xFFFFFFFF).to_bytes(4, "little"))


def read_pyc(path: str, header: bytes, source_path: str) -> "Optional[CodeType]":
    """The code in a timestamp pyc with exactly ``header``, or in a hash-based pyc
    valid for ``source_path``; None if missing, stale or broken."""
    try:
        # As importlib reads code (PEP 578): an embedder's hook sees it.
        with open_code(path) as file:
            data = file.read()
    except OSError:
        return None
    if data[:16] != header and not _hash_pyc_valid(data, source_path):
        return None
    try:
        # A view, as importlib reads its own: the code is not copied first.
        code = marshal.loads(memoryview(data)[16:])
    except (EOFError, ValueError, TypeError):
        return None
    return code if type(code) is type(read_pyc.__code__) else None


def _hash_based(data: bytes) -> int:
    """The flags of a hash-based pyc of this interpreter (1, or 3: checked against its source), else 0."""
    flags = int.from_bytes(data[4:8], "little")
    return flags if data[:4] == MAGIC_NUMBER and flags & 0b01 and not flags & ~0b11 else 0


def _hash_pyc_valid(data: bytes, source_path: str) -> bool:
    """A hash-based pyc checked as the interpreter checks its own: unchecked ones
    trusted, unless ``--check-hash-based-pycs``."""
    flags = _hash_based(data)
    if not flags:
        return False
    check = _imp.check_hash_based_pycs
    if check == "never" or (check == "default" and not flags & 0b10):
        return True
    try:
        with open_code(source_path) as file:
            source = file.read()
    except OSError:
        return False
    return bool(_source_hash(source) == data[8:16])


def _source_hash(source: bytes) -> bytes:
    # The magic as a number: importlib's _RAW_MAGIC_NUMBER before 3.14, which removed it.
    return _imp.source_hash(int.from_bytes(MAGIC_NUMBER, "little"), source)


def write_pyc(path: str, code: "CodeType", source: bytes, stat: "os.stat_result") -> None:
    """Keep ``code`` at ``path`` (unless writing bytecode is off), as the interpreter
    writes its own: hash-based if the pyc there was (its check flag kept), else a
    timestamp pyc; the folder made if needed, written atomically, errors ignored."""
    if sys.dont_write_bytecode:
        return
    try:
        with open(path, "rb") as file:
            flags = _hash_based(file.read(8))
    except OSError:
        flags = 0
    header = MAGIC_NUMBER + flags.to_bytes(4, "little") + _source_hash(source) if flags else pyc_header(stat)
    mode = (stat.st_mode & 0o777) | 0o200
    SourceFileLoader("", path).set_data(path, header + marshal.dumps(_shared(code, {})), _mode=mode)


def _shared(code: "CodeType", seen: "Dict[bytes, bytes]") -> "CodeType":
    """``code`` with its equal bytecode strings and line tables one object each."""
    # CPython 3.8 and 3.9 give each code object its own, which marshal then
    # writes out and loads once per code: the rewrite's alike handlers would
    # double the file and the time to load it.  3.10+ compile equal ones as
    # one object; PyPy's marshal writes a code's strings whole anyway.
    if sys.version_info >= (3, 10) or sys.implementation.name != "cpython":
        return code
    consts = tuple(_shared(const, seen) if type(const) is type(code) else const for const in code.co_consts)
    return code.replace(co_consts=consts, co_code=seen.setdefault(code.co_code, code.co_code),
                        co_lnotab=seen.setdefault(code.co_lnotab, code.co_lnotab))


def main_code(source: bytes, filename: str, path: "Optional[str]") -> "CodeType":
    """The code of ``run``'s main script, ``exceptstar.compile(source, filename, "exec",
    dont_inherit=True)``, kept in a cache of its own if transformed.

    ``python`` compiles its main script on every run, which is cheap; the
    transformation is not.  The cache is used only for a ``.py`` file that
    still holds ``source`` exactly as read (not changed since, no NUL bytes
    dropped by the reader), and written only when compiling warned about
    nothing, since a cached run cannot repeat the compiler's warnings.
    """
    cache = _main_cache(source, path) if PURE and path is not None else None
    if cache is None or path is None:
        return transform.compile(source, filename, "exec", dont_inherit=True)
    pyc, stat = cache
    code = read_pyc(pyc, pyc_header(stat), path)
    if code is not None:
        _imp._fix_co_filename(code, filename)  # type: ignore[attr-defined]
        return code
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            compiled, transformed = transform.compile_source(source, filename, "exec", module=True)
        except SyntaxError:
            caught.append(None)  # type: ignore[arg-type]
    if caught:
        # Again under the user's own warning filters: what they show, or the
        # SyntaxError (perhaps a warning turned error), exactly as without a cache.
        return transform.compile(source, filename, "exec", dont_inherit=True)
    if transformed:
        write_pyc(pyc, compiled, source, stat)
    return compiled  # type: ignore[no-any-return]


def _main_cache(source: bytes, path: str) -> "Optional[Tuple[str, os.stat_result]]":
    """(its cache's path, the file's stat) for a main script, or None."""
    if not path.endswith(".py"):
        return None
    try:
        stat = os.stat(path)
        with open(path, "rb") as file:
            if file.read() != source:
                return None
        normal = cache_from_source(path)
    except (OSError, NotImplementedError, ValueError):
        return None
    return transformed_pyc(normal, main=True), stat
