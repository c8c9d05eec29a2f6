"""``except*`` for interpreters that cannot compile it: source -> checked tree -> code.

``compile`` is the built-in's drop-in (``exceptstar.compile``); everything
that runs transformed code (the import hook, ``run``, the console, the pytest
plugin, the demo) goes through ``compile_source`` or ``parse`` + ``transform``.
Reading the source is ``source``'s, the ``except*`` SyntaxErrors
``syntax``'s, the rewrite ``rewrite``'s, and what the rewritten code calls
at run time ``runtime``'s; on 3.8-3.10 ``native_parts`` compiles what holds
no star natively.  On 3.11+ (only under ``EXCEPTSTAR_PURE=1``) the
native parser gives ``ast.TryStar`` directly.
"""

import builtins
import sys

from exceptstar._classes import PURE
from exceptstar._compiler import runtime  # noqa: F401 - sets the builtin __exceptstar__ that transformed code calls
from exceptstar._compiler.quiet import Filters
from exceptstar._compiler.scan import Scan
from exceptstar._compiler.source import filename_text, future_flags, has_except_star, mark, quick_scan, source_text
from exceptstar._compiler.syntax import check_tree, find_problems

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    import os
    from types import CodeType
    from typing import Any, Literal, Tuple, Union

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
_PYPY = sys.implementation.name == "pypy"

_builtin_compile = builtins.compile
_PyCF_ONLY_AST = 0x400


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
        flags |= sys._getframe(1).f_code.co_flags & future_flags()
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
        if not NATIVE_SYNTAX and mode == "exec" and not flags & ~future_flags():
            data = source_text(data, filename_text(filename))
            from exceptstar._compiler.native_parts import compile_stubbed

            code = compile_stubbed(data, filename, flags, optimize, module)
            if code is not None:
                return code, True
        tree: Any = parse(data, filename_text(filename), mode, flags, compiling=not flags & _PyCF_ONLY_AST)
        # Only looked for words in: any source encoding Python reads keeps ASCII as is.
        text = data if isinstance(data, str) else data.decode("latin-1")
    else:
        tree = source
        text = None
        check_tree(tree, {}, filename_text(filename), None, compiling=not flags & _PyCF_ONLY_AST)
    from exceptstar._compiler.rewrite import transform

    # Shared nodes only in a tree compiled here: with PyCF_ONLY_AST it is the caller's.
    transformed = transform(tree, text, shared=not flags & _PyCF_ONLY_AST)
    if not transformed and tree is not source:
        # `except*` only in a string or a comment: the module is compiled untouched,
        # but for the parser's warnings, which parsing it gave already.
        import re

        escapes = re.compile("invalid escape sequence", re.I)
        with Filters(leave_out=("ignore", escapes, DeprecationWarning, None, 0)):
            return _builtin_compile(source, filename, mode, flags, True, optimize), False
    if flags & _PyCF_ONLY_AST:
        return tree, transformed
    try:
        return _builtin_compile(tree, filename, mode, flags, True, optimize), transformed
    except SyntaxError as error:
        if NATIVE_SYNTAX or text is None:
            raise
        failed = error
    # Raised outside the handler: CPython's own error has no context.
    raise _newest_compile_error(failed, data, filename_text(filename), mode, flags)


def _newest_compile_error(error: SyntaxError, data: "Union[str, bytes]", filename: str, mode: str,
                          flags: int) -> SyntaxError:
    """The error 3.14+ give first where the running compiler gave ``error`` for a
    transformed tree: its symbol table's, which runs before its code generator."""
    from exceptstar._compiler.symtable_errors import first_error, from_future, newest_words

    if from_future(error):
        return error
    text = source_text(data, filename)
    tree = parse(text, filename, mode, flags & ~_PyCF_ONLY_AST)
    # The source as the running parser reads it (the tokenizer's edits: lists of types joined).
    rewritten = Scan(text).rewritten
    return first_error(tree, rewritten, filename, mode) or newest_words(error)


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
        found = find_problems(tree, {}, text)
        if found:
            # The compiler's errors (break/continue/return): its own words and order; PyPy's
            # code generator words the flow error its own way, so there the error is 3.15's.
            pypy_flow = False
            try:
                _builtin_compile(text, filename, mode, flags, True)
            except SyntaxError as error:
                pypy_flow = _PYPY and str(error.msg).endswith("cannot appear in an except* block")
                if not pypy_flow:
                    raise
            if pypy_flow:
                raise found[0].exception(filename)
        return tree  # type: ignore[no-any-return]
    quick = quick_scan(text)
    if quick is not None:
        rewritten, stars = quick
        try:
            # The parser's warnings (invalid escapes) only for the parse that is kept.
            with Filters(record=True) as warned:
                tree = _builtin_compile(rewritten, filename, mode, flags | _PyCF_ONLY_AST, True)
        except SyntaxError:
            pass
        else:
            if mark(tree, stars) == len(stars):  # else: in a string, or `except*:`
                if warned:  # given again under the caller's filters (which may make one an error)
                    tree = _builtin_compile(rewritten, filename, mode, flags | _PyCF_ONLY_AST, True)
                    mark(tree, stars)
                check_tree(tree, stars, filename, text, [], rewritten, mode, compiling)
                return tree  # type: ignore[no-any-return]
    # The tokenizer's view: slower, but exact when an `except*` look-alike sits
    # in a string or a comment, and it finds the clauses the parser rejects.
    scan = Scan(text)
    try:
        tree = _builtin_compile(scan.rewritten, filename, mode, flags | _PyCF_ONLY_AST, True)
    except SyntaxError as error:
        settled = scan.settle(error, filename)
        if settled is error:
            raise
        raise settled from None
    mark(tree, scan.stars, scan.tuples())
    check_tree(tree, scan.stars, filename, text, list(scan.errors), scan.rewritten, mode, compiling)
    return tree  # type: ignore[no-any-return]
