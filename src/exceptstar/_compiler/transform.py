"""``except*`` for interpreters that cannot compile it: source -> checked tree -> code.

``compile`` is the built-in's drop-in (``exceptstar.compile``); everything
that runs transformed code (the import hook, ``run``, the console, the pytest
plugin, the demo) goes through ``compile_source`` or ``parse`` + ``transform``.
Reading the source is ``source``'s, the ``except*`` SyntaxErrors
``syntax``'s, the rewrite ``rewrite``'s, and what the rewritten code calls
at run time ``runtime``'s.  On 3.11+ (only under ``EXCEPTSTAR_PURE=1``) the
native parser gives ``ast.TryStar`` directly.
"""

import builtins
import sys

from exceptstar._classes import PURE
from exceptstar._compiler import runtime  # noqa: F401 - sets the builtin __exceptstar__ that transformed code calls
from exceptstar._compiler.finally_flow import may_leave_finally
from exceptstar._compiler.source import Scan, has_except_star, mark, quick_scan, source_text
from exceptstar._compiler.syntax import before, check_tree, find_problems
from exceptstar._compiler.syntax import lines as lines_of

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    import os
    from types import CodeType
    from typing import Any, Dict, List, Literal, Optional, Tuple, Union

    from _typeshed import ReadableBuffer

    _Source = Union[str, ReadableBuffer, ast.Module, ast.Expression, ast.Interactive]
    _Filename = Union[str, ReadableBuffer, "os.PathLike[Any]"]

# typing.overload for type checkers; at run time (no ``typing`` import) the last
# definition is the function.  In this order linters see typing's decorator.
if not TYPE_CHECKING:
    def overload(func: object) -> object:
        return func
else:  # pragma: no cover
    from typing import overload


__all__ = ["compile", "has_except_star"]

NATIVE_SYNTAX = sys.version_info >= (3, 11)

_builtin_compile = builtins.compile
_FUTURE_FLAGS = 0
_PyCF_ONLY_AST = 0x400


def _future_flags() -> int:
    global _FUTURE_FLAGS
    if not _FUTURE_FLAGS:
        import __future__

        for name in __future__.all_feature_names:
            _FUTURE_FLAGS |= getattr(__future__, name).compiler_flag
    return _FUTURE_FLAGS


# The built-in's result types: code, or with ast.PyCF_ONLY_AST (1024) a tree.
@overload
def compile(source: "_Source", filename: "_Filename", mode: str, flags: "Literal[0]" = 0,
            dont_inherit: bool = False, optimize: int = -1) -> "CodeType": ...
@overload
def compile(source: "_Source", filename: "_Filename", mode: str, flags: "Literal[1024]",
            dont_inherit: bool = False, optimize: int = -1) -> "ast.AST": ...
@overload
def compile(source: "_Source", filename: "_Filename", mode: str, flags: int,
            dont_inherit: bool = False, optimize: int = -1) -> "Any": ...
def compile(
    source: "Any",
    filename: "Any",
    mode: str,
    flags: int = 0,
    dont_inherit: bool = False,
    optimize: int = -1,
) -> "Any":
    """The built-in ``compile``, understanding ``except*`` on every version.

    Source without ``except*`` (and everything on 3.11+ unless
    ``EXCEPTSTAR_PURE=1``) is handed to the built-in unchanged.  With
    ``ast.PyCF_ONLY_AST`` on 3.8-3.10 the result is the transformed tree (the
    ``ast`` module there has no node for ``except*``).
    """
    if not dont_inherit:
        # The built-in would inherit the future flags of *its* caller: this frame.
        flags |= sys._getframe(1).f_code.co_flags & _future_flags()
    if not PURE:
        return _builtin_compile(source, filename, mode, flags, True, optimize)
    return compile_source(source, filename, mode, flags, optimize)[0]


def compile_source(source: "Any", filename: "Any", mode: str, flags: int = 0,
                   optimize: int = -1, module: bool = False) -> "Tuple[Any, bool]":
    """``compile`` without inheritance, and whether ``except*`` was transformed.

    ``module``: the code runs as a module with the interpreter's builtins (an
    import, ``run``'s main script), never through ``exec`` with builtins of its
    own; that lets the module-level code be compiled natively.
    """
    if isinstance(source, (str, bytes, bytearray, memoryview)):
        data = bytes(source) if not isinstance(source, str) else source
        if not has_except_star(data):
            return _builtin_compile(source, filename, mode, flags, True, optimize), False
    elif not NATIVE_SYNTAX or not _has_try_star(source):
        return _builtin_compile(source, filename, mode, flags, True, optimize), False
    # The trees built here are large (a node object per construct, and the
    # rewrite's), acyclic, and dropped as a whole when this returns: the cyclic
    # garbage collector, which the allocations would set off over and over
    # (each pass over every young node), is paused while they live.  Paused,
    # not forced off: it is enabled again only if it was, whatever is raised.
    import gc

    enabled = gc.isenabled()
    if enabled:
        gc.disable()
    try:
        return _compile_tree(source, filename, mode, flags, optimize, module)
    finally:
        if enabled:
            gc.enable()


def _compile_tree(source: "Any", filename: "Any", mode: str, flags: int,
                  optimize: int, module: bool) -> "Tuple[Any, bool]":
    """``compile_source`` for source that may use ``except*`` (text or a 3.11+ tree)."""
    if isinstance(source, (str, bytes, bytearray, memoryview)):
        data = _decoded(bytes(source)) if not isinstance(source, str) else source
        if not NATIVE_SYNTAX and mode == "exec" and not flags & ~_future_flags():
            data = source_text(data, _filename_text(filename))
            code = _compile_stubbed(data, filename, flags, optimize, module)
            if code is not None:
                return code, True
        tree: Any = parse(data, _filename_text(filename), mode, flags, compiling=not flags & _PyCF_ONLY_AST)
        # Only looked for words in: any source encoding Python reads keeps ASCII as is.
        text = data if isinstance(data, str) else data.decode("latin-1")
    else:
        tree = source
        text = None
        check_tree(tree, {}, _filename_text(filename), None, compiling=not flags & _PyCF_ONLY_AST)
    from exceptstar._compiler.rewrite import transform

    # Shared nodes only in a tree compiled here: with PyCF_ONLY_AST it is the caller's.
    transformed = transform(tree, text, shared=not flags & _PyCF_ONLY_AST)
    if not transformed and tree is not source:
        # `except*` only in a string or a comment: the module is compiled untouched.
        return _builtin_compile(source, filename, mode, flags, True, optimize), False
    if flags & _PyCF_ONLY_AST:
        return tree, transformed
    return _builtin_compile(tree, filename, mode, flags, True, optimize), transformed


def _decoded(data: bytes) -> "Union[str, bytes]":
    """``data`` as text when it is plainly UTF-8 (no BOM, no coding cookie: the
    interpreter's default), else as it is, for ``source_text`` to decode as the
    interpreter does.  Saves the tokenizer's encoding detection (and, in a fresh
    process, importing ``tokenize``) for nearly every file."""
    if not data.startswith(b"\xef\xbb\xbf"):
        # A cookie can only be in the first two lines.
        second = data.find(b"\n", data.find(b"\n") + 1)
        if b"coding" not in (data if second < 0 else data[:second]):
            try:
                return data.decode("utf-8")
            except UnicodeDecodeError:
                pass  # the interpreter's SyntaxError, from source_text
    return data


_CO_NEWLOCALS = 0x2
# The share of a module's lines that must be stub-able (indented, away from the clauses).
_STUB_SHARE = 0.5


def _compile_stubbed(text: str, filename: "Any", flags: int, optimize: int, module: bool) -> "Any":
    """The whole-tree path's code, without the tree of every function body; None
    when it cannot be shown to be the same (then that path runs, and reports
    any error).

    Building the tree costs more than compiling natively, however few the
    ``except*`` clauses.  So the module, its stars blanked, is compiled natively
    (``native``); then the tree is built from the source with the body of each
    top-level function that holds no star (and nothing else the rewrite
    changes) replaced by ``pass``, every line kept where it was; that tree is
    checked, rewritten and compiled as the whole one would be; and each stub's
    code object is replaced by the native code of the same function.  A
    function's code does not depend on what surrounds it; what the module-level
    code makes of it (decorators, defaults, the name) is compiled from the tree.
    Not on 3.11+, whose positions give each ``def`` its end, the body's.

    For a ``module`` (code run with the interpreter's builtins: imported, or
    ``run``'s main script) the module-level code can be the native one, which
    then lacks only the rewrite's prologue (see ``_native_module``).
    """
    native_module = module and text.isascii() and "ExceptionGroup" not in text
    if not (native_module or _stubbing_pays(text)):
        return None
    if may_leave_finally(text):
        return None  # PEP 765 warns: only the whole tree's path gives that, in CPython's order
    quick = quick_scan(text)
    if quick is None or not quick[1]:
        return None
    rewritten, stars = quick
    try:
        native = _builtin_compile(rewritten, filename, "exec", flags, True, optimize)
    except (SyntaxError, ValueError):
        return None
    from bisect import bisect_left

    from exceptstar._compiler.rewrite import TRIGGERS

    source_lines = lines_of(rewritten)
    star_rows = sorted({row for row, _ in stars})

    def holds_star(first: int, end: int) -> bool:
        star = bisect_left(star_rows, first)
        return star < len(star_rows) and star_rows[star] <= end

    if native_module:
        code = _native_module(native, text, source_lines, stars,
                              [(const, first, end) for const, first, _, end
                               in _top_level_functions(native, source_lines, star_rows)
                               if holds_star(first, end)], filename, flags, optimize)
        if code is not None or not _stubbing_pays(text):
            return code
    edited = list(source_lines)
    stubbed = {}  # (name, first line) -> the native code of a stubbed function
    for const, first, body, end in _top_level_functions(native, source_lines):
        if holds_star(first, end):
            continue  # through the tree
        blanked = "".join(source_lines[body - 1:end])
        if not blanked.isascii() or any(trigger in blanked for trigger in TRIGGERS):
            continue  # the rewrite changes more than the stars there
        if "global" in blanked:
            # A `global x` anywhere in a function makes the module's own code
            # store x with STORE_GLOBAL instead of STORE_NAME (CPython's symbol
            # table): with the body stubbed, the module code would differ.
            continue
        line = source_lines[body - 1]
        indent = line[:len(line) - len(line.lstrip(" \t\f"))]
        if not indent:
            return None
        edited[body - 1] = indent + "pass\n"
        edited[body:end] = ["\n"] * (end - body)
        stubbed[(const.co_name, first)] = const
    if not stubbed:
        return None
    compiled = _compile_part("".join(edited), text, stars, filename, flags, optimize)
    return None if compiled is None else _with_functions(compiled, stubbed)


def _stubbing_pays(text: str) -> bool:
    """Whether stubbing pays for its extra native compile: indented lines less about
    12 a clause are at least half the module's (counted in C, before any scan)."""
    indented = text.count("\n ") + text.count("\n\t")
    clauses = text.count("except*") + text.count("except *")
    return (indented - 12 * clauses) >= _STUB_SHARE * text.count("\n")


def _native_module(native: "Any", text: str, source_lines: "List[str]", stars: "Any",
                   starred: "List[Tuple[Any, int, int]]", filename: "Any", flags: int,
                   optimize: int) -> "Any":
    """``native`` with the code of each top-level function that holds a star
    compiled from a tree of those functions alone; None when that cannot be
    the whole-tree path's code but for the prologue.

    What the whole-tree path adds at module level is its prologue: binding
    ``__exceptstar__`` where the builtins lack it (only ``exec`` with builtins
    of its own does that, never an import) and the group names where the module
    uses them (never here: such modules take the other paths).  Everything else
    it changes is inside the starred statements, so when they all sit in
    top-level functions, the module-level code and every other function can be
    the native ones, however much of the module they are.  A star anywhere
    else is blanked with the rest, and the tree then misses it.
    """
    from exceptstar._compiler.rewrite import TRIGGERS

    # The functions' lines kept, every other line blanked: built from slices.
    kept: List[str] = []
    others: List[str] = []
    done = 0  # the lines before this one are placed
    for first, end in sorted((first, end) for _, first, end in starred):
        others.extend(source_lines[done:first - 1])
        kept.append("\n" * (first - 1 - done))
        kept.extend(source_lines[first - 1:end])
        done = end
    others.extend(source_lines[done:])
    kept.append("\n" * (len(source_lines) - done))
    if any(trigger in text for trigger in TRIGGERS):
        blanked = "".join(others)
        if any(trigger in blanked for trigger in TRIGGERS):
            return None  # the rewrite changes more than the stars there
    # Future imports are blanked with the rest: their flags, as the module has them.
    flags |= native.co_flags & _future_flags()
    part = "".join(kept)
    # Only the functions' code is kept: no prologue.
    compiled = _compile_part(part, text, stars, filename, flags, optimize, prologue=False)
    if compiled is None:
        return None
    made = {(const.co_name, const.co_firstlineno): const for const in compiled.co_consts
            if type(const) is type(native)}
    wanted = [(const.co_name, first) for const, first, _ in starred]
    if not all(key in made for key in wanted):
        return None
    return _with_functions(native, {key: made[key] for key in wanted})


def _with_functions(code: "Any", functions: "Dict[Tuple[str, int], Any]") -> "Any":
    """``code`` with each function code object among its constants replaced by the one
    of ``functions`` with its name and first line; None unless every one was used."""
    left = dict(functions)
    consts = tuple(left.pop((const.co_name, const.co_firstlineno), const) if type(const) is type(code)
                   else const for const in code.co_consts)
    return None if left else code.replace(co_consts=consts)


def _compile_part(part: str, text: str, stars: "Any", filename: "Any", flags: int, optimize: int,
                  prologue: bool = True) -> "Any":
    """Code from the tree of ``part``: ``text`` with lines blanked or stubbed, ``except*``
    blanked; None if its stars are not all there or it is not valid."""
    import warnings

    from exceptstar._compiler.rewrite import transform

    try:
        with warnings.catch_warnings():
            # The native compile gave the module's warnings, once.
            warnings.simplefilter("ignore")
            tree = _builtin_compile(part, filename, "exec", flags | _PyCF_ONLY_AST, True)
            if mark(tree, stars) != len(stars):
                return None
            check_tree(tree, stars, _filename_text(filename), text)
            if not transform(tree, part, prologue, shared=True):
                return None
            return _builtin_compile(tree, filename, "exec", flags, True, optimize)
    except SyntaxError:
        return None


def _top_level_functions(native: "Any", source_lines: "List[str]",
                         star_rows: "Optional[List[int]]" = None) -> "List[Tuple[Any, int, int, int]]":
    """(code, first line, first line of the body, last line) of each top-level ``def``
    whose body starts on a line of its own; a function's lines run to the line
    before the next module-level code, so trailing lines with no code of their
    own (brackets, comments) go with it.  With ``star_rows`` (sorted), only the functions
    that may hold one of them (a body's first line walks the function's line table).

    No module-level code runs between a body's first line and the function's
    end (defaults, decorators and annotations are evaluated before the body),
    so the next module-level line after the body's first is where the next
    statement starts: the function's own last line is never needed.
    """
    from bisect import bisect_left, bisect_right

    code_type = type(native)
    heads = []
    for const in native.co_consts:
        if type(const) is not code_type or not const.co_flags & _CO_NEWLOCALS or const.co_name.startswith("<"):
            continue  # a class body (kept whole), a lambda or a comprehension
        first = const.co_firstlineno
        if first > len(source_lines) or source_lines[first - 1][:1] in (" ", "\t", "\f", "\n", "\r"):
            continue  # not a top-level statement
        heads.append((first, const))
    if star_rows is not None:  # a function's lines end before the next top-level function's first
        heads.sort(key=lambda head: head[0])
        afters = [first for first, _ in heads[1:]] + [len(source_lines) + 1]
        heads = [head for head, after in zip(heads, afters)
                 if bisect_left(star_rows, head[0]) < bisect_left(star_rows, after)]
    module_lines = sorted(set(_lines(native)))
    functions = []
    for first, const in heads:
        body = min(_lines(const), default=first)  # the first line of its own code
        if body <= first or body > len(source_lines):
            continue  # the body starts on the header's first line
        following = bisect_right(module_lines, body)
        end = module_lines[following] - 1 if following < len(module_lines) else len(source_lines)
        functions.append((const, first, body, end))
    return functions


def _lines(code: "Any") -> "List[int]":
    """The lines of a code object's own line table."""
    if sys.version_info >= (3, 10):
        from operator import itemgetter

        return list(filter(None, map(itemgetter(2), code.co_lines())))  # no line is 0 in code from source
    from itertools import accumulate, compress

    # dis.findlinestarts in C loops, without dis: a pair with no bytecode step only carries a long line step on.
    table = code.co_lnotab
    if not table:
        return [code.co_firstlineno]
    steps = memoryview(table).cast("b")[1::2]
    lines = list(accumulate(steps, initial=code.co_firstlineno))  # the line before each pair, then the last
    return [*compress(lines, table[0::2]), lines[-1]]


def _filename_text(filename: object) -> str:
    if isinstance(filename, bytes):
        return filename.decode(sys.getfilesystemencoding(), "surrogateescape")
    return str(filename)


def _has_try_star(tree: object) -> bool:
    import ast

    try_star = getattr(ast, "TryStar", None)
    return try_star is not None and any(isinstance(node, try_star) for node in ast.walk(tree))  # type: ignore[arg-type]


def parse(source: "Union[str, bytes]", filename: str, mode: str = "exec", flags: int = 0,
          compiling: bool = False) -> "ast.AST":
    """Parse source that may use ``except*`` into a checked tree ready for ``transform``.

    Raises SyntaxError for anything the interpreter (or 3.14, for ``except*``)
    rejects; ``compiling`` (a tree for code) adds the compiler's warnings.  On
    3.8-3.10 the starred handlers are marked ``exceptstar_star = True``.
    """
    text = source_text(source, filename)
    if NATIVE_SYNTAX:
        tree = _builtin_compile(text, filename, mode, flags | _PyCF_ONLY_AST, True)
        if find_problems(tree, {}, text):
            # The compiler's errors (break/continue/return): its own words and order.
            _builtin_compile(text, filename, mode, flags, True)
        return tree  # type: ignore[no-any-return]
    quick = quick_scan(text)
    if quick is not None:
        rewritten, stars = quick
        try:
            tree = _builtin_compile(rewritten, filename, mode, flags | _PyCF_ONLY_AST, True)
        except SyntaxError:
            pass
        else:
            if mark(tree, stars) == len(stars):  # else: in a string, or `except*:`
                check_tree(tree, stars, filename, text, [], rewritten, mode, compiling)
                return tree  # type: ignore[no-any-return]
    # The tokenizer's view: slower, but exact when an `except*` look-alike sits
    # in a string or a comment, and it finds the clauses the parser rejects.
    scan = Scan(text)
    try:
        tree = _builtin_compile(scan.rewritten, filename, mode, flags | _PyCF_ONLY_AST, True)
    except SyntaxError as error:
        if scan.errors and before(scan.errors[0], error):
            raise scan.errors[0].exception(filename) from None
        scan.restore_text(error)
        raise
    mark(tree, scan.stars, scan.tuples())
    check_tree(tree, scan.stars, filename, text, list(scan.errors), scan.rewritten, mode, compiling)
    return tree  # type: ignore[no-any-return]
