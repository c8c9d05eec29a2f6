"""``except*`` for interpreters that cannot compile it: source -> AST -> code.

Also the run-time namespace of transformed code, which reaches it as the
builtin name ``__exceptstar__`` (set when this module is imported: every path
that produces transformed code imports it first).  A builtin rather than an
injected import, so that transformed code also works when it is executed with
arbitrary globals (``exec(code, {})``, separate locals, a REPL namespace).

How the source is read on 3.8-3.10, whose parsers reject ``except*``: the
tokenizer finds every ``except`` keyword followed by a ``*`` operator; the
``*`` is replaced by a space (so every line and column stays where it was),
the result is parsed, and the handlers found at the recorded positions are the
starred ones.  On 3.11+ (only under ``EXCEPTSTAR_PURE=1``) the native parser
gives ``ast.TryStar`` directly.  The invalid forms are detected here with
CPython 3.13's messages and positions.

Every starred ``try`` becomes (``N`` is the nesting depth, so nested
statements never share names; dunder names escape class-private mangling)::

    try:
        BODY
    except __exceptstar__.BaseException:
        __es_star_N__ = __exceptstar__.Star()     # takes sys.exc_info()
        __es_part_N__ = None
        try:
            __es_part_N__ = __es_star_N__.match(T1)
        except __exceptstar__.BaseException:
            del __es_star_N__, __es_part_N__
            __exceptstar__.hide_frames()
            raise
        if __es_part_N__ is not None:
            e = __es_part_N__
            try:
                H1
            except __exceptstar__.BaseException as __es_raised_N__:
                __es_star_N__.raised(__es_raised_N__)
            e = None
            del e
        ...                     (the same for every clause)
        try:
            __es_part_N__ = __es_star_N__.finish()
        except ...:             (as above)
        if __es_part_N__:
            del __es_star_N__, __es_part_N__
            raise
        del __es_star_N__, __es_part_N__
    else:
        ELSE
    finally:
        FINALLY

Generated nodes carry the position of the user construct they stand for (a
clause's machinery that of its ``except*`` line), so tracebacks, line events
and coverage only ever see the user's lines.  Transformed modules also get
``ExceptionGroup`` and ``BaseExceptionGroup`` in their globals (unless they
bind them) and, before 3.11, ``exc.add_note(...)`` on every exception.
"""

import builtins
import sys

from . import _types
from ._engine import Star as Star  # what transformed code calls: __exceptstar__.Star
from ._notes import add_note, add_note_default

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Any, Callable, Dict, List, Optional, Tuple, Union

    _Key = Tuple[int, int]
    _Position = Tuple[int, int, int, int]

__all__ = ["compile", "has_except_star"]

# --- the run-time namespace of transformed code -------------------------------

# Looked up here rather than as a plain name so that a module rebinding
# ``BaseException`` cannot change what the generated handlers catch.
BaseException = builtins.BaseException
ExceptionGroup = _types.ExceptionGroup
BaseExceptionGroup = _types.BaseExceptionGroup


def note_method(obj: object) -> "Callable[..., None]":
    """``obj.add_note`` as 3.11+ resolves it (3.8-3.10: BaseException lacks the method).

    Where the lookup would have reached ``BaseException``: an exception, a
    ``super()`` proxy past the exception's own overrides, or an exception class
    (``BaseException.add_note(exc, note)``).
    """
    try:
        return obj.add_note  # type: ignore[attr-defined,no-any-return]
    except AttributeError:
        if isinstance(obj, BaseException):
            return add_note.__get__(obj)  # type: ignore[no-any-return]
        instance = getattr(obj, "__self__", None) if isinstance(obj, super) else None
        if isinstance(instance, BaseException):
            return add_note_default.__get__(instance)  # type: ignore[no-any-return]
        if isinstance(obj, type) and issubclass(obj, BaseException):
            return add_note_default
        raise


def provide_group_names() -> None:
    """Give the calling module ``ExceptionGroup`` and ``BaseExceptionGroup``, as 3.11's builtins.

    Only names it does not have yet: its own bindings, made when they run,
    replace these, as they would shadow the builtins.
    """
    module_globals = sys._getframe(1).f_globals
    module_globals.setdefault("ExceptionGroup", ExceptionGroup)
    module_globals.setdefault("BaseExceptionGroup", BaseExceptionGroup)


# Frames of this package: what the engine runs on the user's behalf, which
# CPython runs in C, without frames.
_OWN_FILES = __file__.rpartition("_transform")[0]


def hide_frames() -> None:
    """Drop exceptstar's frames from the traceback of the exception being handled.

    Run by a transformed ``try`` on whatever leaves its ``except*`` clauses: a
    TypeError for invalid types, or an error of a group's own ``split``, then
    shows the user's frames only, as CPython's does.
    """
    tb = sys.exc_info()[2]
    while tb is not None:
        after = tb.tb_next
        while after is not None and after.tb_frame.f_code.co_filename.startswith(_OWN_FILES):
            after = after.tb_next
        if after is not tb.tb_next:
            tb.tb_next = after
        tb = after


builtins.__exceptstar__ = sys.modules[__name__]  # type: ignore[attr-defined]

# --- the transformation ---------------------------------------------------------

# True where this interpreter cannot compile except* itself or EXCEPTSTAR_PURE asks
# for the transformation anyway; elsewhere everything here defers to the built-ins.
ACTIVE = _types.PURE
NATIVE_SYNTAX = sys.version_info >= (3, 11)


_MIXED = "cannot have both 'except' and 'except*' on the same 'try'"
_NO_TYPES = "expected one or more exception types"
_NOT_PARENTHESIZED = "multiple exception types must be parenthesized"
_FLOW = "'break', 'continue' and 'return' cannot appear in an except* block"

_builtin_compile = builtins.compile
_FUTURE_FLAGS = 0
_PyCF_ONLY_AST = 0x400


def has_except_star(source: "Union[str, bytes]") -> bool:
    """Cheap test: could ``source`` contain ``except*`` (False: it certainly does not)."""
    if isinstance(source, str):
        source = source.encode("utf-8", "surrogatepass")
    size = len(source)
    index = source.find(b"except")
    while index >= 0:
        index += 6
        # Whitespace or line continuations may separate the keyword from the star.
        while index < size and source[index] in b" \t\f\\\r\n":
            index += 1
        if source[index:index + 1] == b"*":
            return True
        index = source.find(b"except", index)
    return False


def _future_flags() -> int:
    global _FUTURE_FLAGS
    if not _FUTURE_FLAGS:
        import __future__

        for name in __future__.all_feature_names:
            _FUTURE_FLAGS |= getattr(__future__, name).compiler_flag
    return _FUTURE_FLAGS


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
    if not ACTIVE:
        return _builtin_compile(source, filename, mode, flags, True, optimize)
    return compile_source(source, filename, mode, flags, optimize)[0]


def compile_source(source: "Any", filename: "Any", mode: str, flags: int = 0,
                   optimize: int = -1) -> "Tuple[Any, bool]":
    """``compile`` without inheritance, and whether ``except*`` was transformed."""
    if isinstance(source, (str, bytes, bytearray, memoryview)):
        data = bytes(source) if not isinstance(source, str) else source
        if not has_except_star(data):
            return _builtin_compile(source, filename, mode, flags, True, optimize), False
        tree: Any = parse(data, _filename_text(filename), mode, flags)
    else:
        tree = source
        if not NATIVE_SYNTAX or not _has_try_star(tree):
            return _builtin_compile(source, filename, mode, flags, True, optimize), False
        check_tree(tree, {}, _filename_text(filename), None)
    transformed = transform(tree)
    if not transformed and tree is not source:
        # `except*` only in a string or a comment: the module is compiled untouched.
        return _builtin_compile(source, filename, mode, flags, True, optimize), False
    if flags & _PyCF_ONLY_AST:
        return tree, transformed
    return _builtin_compile(tree, filename, mode, flags, True, optimize), transformed


def _filename_text(filename: object) -> str:
    if isinstance(filename, bytes):
        return filename.decode(sys.getfilesystemencoding(), "surrogateescape")
    return str(filename)


def _has_try_star(tree: object) -> bool:
    import ast

    try_star = getattr(ast, "TryStar", None)
    return try_star is not None and any(isinstance(node, try_star) for node in ast.walk(tree))  # type: ignore[arg-type]


def source_text(source: "Union[str, bytes]", filename: str = "<unknown>") -> str:
    """Decode source bytes as the interpreter would (coding cookie, BOM).

    Undecodable source is the interpreter's SyntaxError, with its message and
    position: its own compiler reports it, on the source with each ``except*``
    blanked so that nothing before the bad byte stops it first.
    """
    if isinstance(source, str):
        return source
    import io
    import re
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        text = source.decode(encoding)
    except (SyntaxError, UnicodeDecodeError) as error:
        blanked = re.sub(rb"(except\s*)\*", rb"\1 ", source)
        _builtin_compile(blanked, filename, "exec", _PyCF_ONLY_AST, True)
        raise SyntaxError(str(error)) from None
    return text[1:] if text.startswith("\ufeff") else text


def parse(source: "Union[str, bytes]", filename: str, mode: str = "exec", flags: int = 0) -> "ast.AST":
    """Parse source that may use ``except*`` into a checked tree ready for ``transform``.

    Raises SyntaxError for anything the interpreter (or CPython 3.13, for the
    ``except*`` forms) rejects.  On 3.8-3.10 the starred handlers are marked
    with ``exceptstar_star = True``.
    """
    text = source_text(source, filename)
    if NATIVE_SYNTAX:
        tree = _builtin_compile(text, filename, mode, flags | _PyCF_ONLY_AST, True)
        if find_errors(tree, {}, text):
            # The compiler's errors (break/continue/return): its own words and order.
            _builtin_compile(text, filename, mode, flags, True)
        return tree  # type: ignore[no-any-return]
    quick = _quick_scan(text)
    if quick is not None:
        rewritten, stars = quick
        try:
            tree = _builtin_compile(rewritten, filename, mode, flags | _PyCF_ONLY_AST, True)
        except SyntaxError:
            pass
        else:
            if _mark(tree, stars) == len(stars):  # else: in a string, or `except*:`
                check_tree(tree, stars, filename, text, [], rewritten, mode)
                return tree  # type: ignore[no-any-return]
    # The tokenizer's view: slower, but exact when an `except*` look-alike sits
    # in a string or a comment, and it finds the clauses the parser rejects.
    scan = _Scan(text)
    try:
        tree = _builtin_compile(scan.rewritten, filename, mode, flags | _PyCF_ONLY_AST, True)
    except SyntaxError as error:
        if scan.errors and _before(scan.errors[0], error):
            raise scan.errors[0].exception(filename) from None
        scan.restore_text(error)
        raise
    _mark(tree, scan.stars)
    check_tree(tree, scan.stars, filename, text, list(scan.errors), scan.rewritten, mode)
    return tree  # type: ignore[no-any-return]


def _quick_scan(text: str) -> "Optional[Tuple[str, Dict[_Key, _Key]]]":
    """Every ``except`` + ``*`` in the text taken as a clause: the source without the
    stars and where they were, as ``_Scan`` gives them; None when one is certainly
    not a clause as written (then only the tokenizer can tell).

    The caller checks that the parsed tree has a handler at each place.
    """
    import re

    lines = _lines(text)
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    chars = list(text)
    stars: Dict[_Key, _Key] = {}
    row = 0
    for match in re.finditer(r"(?<![\w.])except(?:[ \t\f]|\\\r?\n|\\\r)*\*", text):
        begin, star = match.start(), match.end() - 1
        while starts[row + 1] <= begin:
            row += 1
        star_row = row
        while starts[star_row + 1] <= star:
            star_row += 1
        if star + 1 < len(text) and text[star + 1] in "*=":
            return None  # `**` or `*=`: not a clause
        col = begin - starts[row]
        stars[(row + 1, len(lines[row][:col].encode("utf-8")))] = (star_row + 1, star - starts[star_row] + 1)
        chars[star] = " "
    return "".join(chars), stars


class _Error:
    """A SyntaxError to raise, with CPython's position (1-based offsets)."""

    def __init__(self, msg: str, position: "_Position", text: "Optional[str]",
                 order: "Optional[_Key]" = None) -> None:
        self.msg = msg
        self.position = position
        self.text = text
        # Where the error sits for ordering against other errors (a lost
        # position, -1, still has a place in the source).
        self.order = order or (position[0], position[1])

    def exception(self, filename: str) -> SyntaxError:
        lineno, offset, end_lineno, end_offset = self.position
        text = self.text
        if text is None and lineno > 0:
            # As PyErr_ProgramTextObject: compiler errors quote the file, if there is one.
            text = _file_line(filename, lineno)
        details: Tuple[Any, ...] = (filename, lineno, offset, text)
        if sys.version_info >= (3, 10):
            details += (end_lineno, end_offset)
        return SyntaxError(self.msg, details)


def _file_line(filename: str, lineno: int) -> "Optional[str]":
    try:
        with open(filename, "rb") as file:
            for number, line in enumerate(file, 1):
                if number == lineno:
                    return line.decode("utf-8", "replace")
    except (OSError, ValueError):
        pass
    return None


def _before(error: _Error, other: SyntaxError) -> bool:
    return error.order <= ((other.lineno or 0), (other.offset or 0))


class _Scan:
    """The tokenizer's view: where the starred handlers are, and what the parser must reject."""

    def __init__(self, text: str) -> None:
        import tokenize

        self.lines = _lines(text)
        # (line, byte column of `except`) -> (line, character column just past the `*`)
        self.stars: Dict[_Key, _Key] = {}
        self.errors: List[_Error] = []
        edits: List[Tuple[int, int, str]] = []
        skipped = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
        tokens = []
        try:
            for tok in tokenize.generate_tokens(iter(self.lines).__next__):
                if tok.type not in skipped:
                    tokens.append(tok)
        except (tokenize.TokenError, SyntaxError):
            # The parser reports it, in the interpreter's own words; what was read
            # so far still counts (incomplete input at an interactive prompt).
            pass
        for index, tok in enumerate(tokens[:-1]):
            star = tokens[index + 1]
            if tok.type != tokenize.NAME or tok.string != "except" or star.string != "*":
                continue
            row, col = tok.start
            self.stars[(row, self._byte_col(row, col))] = star.end
            edits.append((star.start[0], star.start[1], " "))
            self._check_types(tokens, index + 2, edits)
        self.errors.sort(key=lambda error: error.order)
        lines = list(self.lines)
        for row, col, replacement in edits:
            line = lines[row - 1]
            lines[row - 1] = line[:col] + replacement + line[col + 1:]
        self.rewritten = "".join(lines)

    def restore_text(self, error: SyntaxError) -> None:
        """Quote the user's line, not its rewritten form, in a parser error."""
        if error.lineno and error.text is not None:
            rewritten = _lines(self.rewritten)
            row = error.lineno
            if 0 < row <= len(rewritten) and error.text == rewritten[row - 1]:
                error.text = self.lines[row - 1]

    def _byte_col(self, row: int, col: int) -> int:
        return len(self.lines[row - 1][:col].encode("utf-8"))

    def _line(self, row: int) -> str:
        return self.lines[row - 1] if 0 < row <= len(self.lines) else ""

    def _check_types(self, tokens: "List[Any]", start: int, edits: "List[Tuple[int, int, str]]") -> None:
        """The clause's types, from the token after ``*`` to the ``:`` ending the clause."""
        first = tokens[start] if start < len(tokens) else None
        if first is None:
            return
        if first.string == ":":
            row, col = first.start
            self.errors.append(_Error(_NO_TYPES, (row, col + 1, row, col + 2), self._line(row)))
            return
        depth = 0
        commas = []
        for tok in tokens[start:]:
            if _bracket(tok) > 0:
                depth += 1
            elif _bracket(tok) < 0:
                depth -= 1
            elif depth == 0 and tok.string == ",":
                commas.append(tok)
            elif (depth == 0 and tok.string == ":") or tok.string == "\n" or depth < 0:
                break
        else:
            return
        if not commas or tok.string != ":":
            return
        if any(tokens[tokens.index(comma) + 1].string in (":", "as") for comma in commas):
            return  # `except* A,:` is plain invalid syntax, the parser's to report
        for comma in commas:
            # `A, B` -> `A| B`: still one expression, so the rest of the file parses.
            edits.append((comma.start[0], comma.start[1], "|"))
        row, col = _expression_start(tokens, start)
        end_row, end_col = tok.start
        self.errors.append(_Error(_NOT_PARENTHESIZED, (row, col + 1, end_row, end_col + 1),
                                  self._line(row)))


def _lines(text: str) -> "List[str]":
    """Source lines as the tokenizer numbers them (str.splitlines also breaks at \\f and others)."""
    import io

    return io.StringIO(text, newline="").readlines()


def _bracket(tok: "Any") -> int:
    """1 for an opening bracket token, -1 for a closing one, else 0."""
    import tokenize

    if tok.type != tokenize.OP:
        return 0
    return 1 if tok.string in "([{" else -1 if tok.string in ")]}" else 0


def _expression_start(tokens: "List[Any]", start: int) -> "_Key":
    """Where the AST puts the first type: inside the parentheses if it is just parenthesized."""
    while tokens[start].string == "(":
        depth = 0
        for index in range(start, len(tokens)):
            depth += _bracket(tokens[index])
            if depth == 0:
                break
        if tokens[index + 1].string not in (",", ":", "as"):
            break
        start += 1
    return tokens[start].start  # type: ignore[no-any-return]


def _mark(tree: "ast.AST", stars: "Dict[_Key, _Key]") -> int:
    """Mark the handlers found at ``stars`` as starred; how many of them name types."""
    import ast

    found = 0
    if stars:
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler) and (node.lineno, node.col_offset) in stars:
                node.exceptstar_star = True  # type: ignore[attr-defined]
                found += node.type is not None
    return found


def _is_star_try(node: "ast.AST") -> bool:
    kind = type(node).__name__
    if kind == "TryStar":
        return True
    return kind == "Try" and any(
        getattr(handler, "exceptstar_star", False) for handler in node.handlers  # type: ignore[attr-defined]
    )


def check_tree(tree: "ast.AST", stars: "Dict[_Key, _Key]", filename: str, text: "Optional[str]",
               parser_errors: "Optional[List[_Error]]" = None, rewritten: "Optional[str]" = None,
               mode: str = "exec") -> None:
    """Raise the SyntaxError CPython raises first for ``except*`` misuse in ``tree``, if any."""
    errors = find_errors(tree, stars, text, parser_errors or [])
    if not errors:
        return
    first = errors[0]
    if first.msg == _FLOW and rewritten is not None:
        # A compiler error: symbol-table errors and the compiler's own earlier
        # errors (here, the rewritten source compiled natively) come first.
        try:
            _builtin_compile(rewritten, filename, mode, 0, True)
        except SyntaxError as error:
            if not _before(first, error) or _is_symtable_error(rewritten, filename, mode):
                raise
    raise first.exception(filename)


def _is_symtable_error(text: str, filename: str, mode: str) -> bool:
    import symtable

    try:
        symtable.symtable(text, filename, mode)
    except SyntaxError:
        return True
    return False


def find_errors(tree: "ast.AST", stars: "Dict[_Key, _Key]", text: "Optional[str]",
                parser_errors: "Optional[List[_Error]]" = None) -> "List[_Error]":
    """Every ``except*`` misuse in ``tree``: the parser's first (in source order), then the compiler's."""
    lines = _lines(text) if text is not None else []
    finder = _ErrorFinder(stars, lines)
    finder.statements(getattr(tree, "body", []), None, False)
    parsing = sorted([*(parser_errors or []), *finder.parser_errors], key=lambda error: error.order)
    return parsing + finder.compiler_errors


class _ErrorFinder:
    """Walks statements as the compiler does, tracking what a break/continue/return would leave."""

    def __init__(self, stars: "Dict[_Key, _Key]", lines: "List[str]") -> None:
        self.stars = stars
        self.lines = lines
        self.parser_errors: List[_Error] = []
        self.compiler_errors: List[_Error] = []

    def _line(self, row: int) -> str:
        return self.lines[row - 1] if 0 < row <= len(self.lines) else ""

    def statements(self, body: "List[Any]", handler: "Optional[Tuple[bool, bool]]",
                   in_function: bool) -> None:
        """``handler``: None outside an except* block, else (inside a loop, position lost)."""
        for node in body:
            kind = type(node).__name__
            if kind in ("FunctionDef", "AsyncFunctionDef"):
                self.statements(node.body, None, True)
            elif kind == "ClassDef":
                self.statements(node.body, None, False)
            elif kind in ("Try", "TryStar"):
                self._try(node, handler, in_function)
            elif kind in ("For", "AsyncFor", "While"):
                inner = None if handler is None else (True, handler[1])
                self.statements(node.body, inner, in_function)
                self.statements(node.orelse, handler, in_function)
            elif kind in ("With", "AsyncWith"):
                # Leaving a `with` body runs its exit code, compiled without a
                # location: CPython then reports the error at line -1.
                inner = None if handler is None else (handler[0], True)
                self.statements(node.body, inner, in_function)
            elif kind == "Return":
                if handler is not None and in_function:
                    where = node.value if node.value is not None else node
                    self._flow(where, handler[1])
            elif kind in ("Break", "Continue"):
                if handler is not None and not handler[0]:
                    self._flow(node, handler[1])
            else:
                for field in ("body", "orelse"):
                    self.statements(getattr(node, field, []), handler, in_function)
                for case in getattr(node, "cases", []):
                    self.statements(case.body, handler, in_function)

    def _try(self, node: "Any", handler: "Optional[Tuple[bool, bool]]", in_function: bool) -> None:
        kinds = [type(node).__name__ == "TryStar" or getattr(h, "exceptstar_star", False)
                 for h in node.handlers]
        if len(set(kinds)) > 1:
            odd = node.handlers[kinds.index(not kinds[0])]
            self._mixed(odd, kinds[0])
        protected = handler
        if handler is not None and node.finalbody:
            protected = (handler[0], True)
        self.statements(node.body, protected, in_function)
        for h, is_star in zip(node.handlers, kinds):
            self.statements(h.body, (False, False) if is_star else protected, in_function)
        self.statements(node.orelse, protected, in_function)
        self.statements(node.finalbody, handler, in_function)

    def _mixed(self, odd: "Any", first_is_star: bool) -> None:
        row, col = odd.lineno, odd.col_offset
        line = self._line(row)
        char_col = len(line.encode("utf-8")[:col].decode("utf-8", "replace")) if line else col
        if first_is_star:
            end_col = char_col + len("except")
        else:
            end_col = self.stars.get((row, col), (row, char_col + len("except*")))[1]
        self.parser_errors.append(
            _Error(_MIXED, (row, char_col + 1, row, end_col + 1), line or None)
        )

    def _flow(self, node: "Any", lost: bool) -> None:
        if lost:
            position = (-1, 0, -1, 0)
        else:
            line = self._line(node.lineno)
            col = _char_col(line, node.col_offset)
            end_line = self._line(node.end_lineno)
            end_col = _char_col(end_line, node.end_col_offset)
            position = (node.lineno, col + 1, node.end_lineno, end_col + 1)
        self.compiler_errors.append(
            _Error(_FLOW, position, None, (node.lineno, node.col_offset + 1))
        )


def _char_col(line: str, byte_col: int) -> int:
    if not line or line.isascii():
        return byte_col
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


# --- the rewrite --------------------------------------------------------------

_GROUP_NAMES = ("ExceptionGroup", "BaseExceptionGroup")


def transform(tree: "ast.AST") -> bool:
    """Rewrite every starred ``try`` in ``tree`` (in place); False (untouched) when there is none."""
    import ast

    if not any(_is_star_try(node) for node in ast.walk(tree)):
        return False
    _Rewriter().visit(tree)
    body = getattr(tree, "body", None)
    if isinstance(body, list) and body and any(
        isinstance(node, ast.Name) and node.id in _GROUP_NAMES for node in ast.walk(tree)
    ):
        # The names go into the module's globals, not in place of each use, so
        # that Python's own scoping decides: a local, a parameter or a module-level
        # binding of the same name (even one that never runs, such as an import
        # under TYPE_CHECKING) keeps its meaning, exactly as with a builtin.
        first = 0
        while first < len(body) and _is_prologue(body[first], first):
            first += 1
        at = body[first] if first < len(body) else body[-1]
        provide = ast.Expr(ast.Call(_runtime("provide_group_names"), [], []))
        _place([provide], at)
        body.insert(first, provide)
    return True


def _is_prologue(node: "Any", index: int) -> bool:
    """A module docstring, or a ``from __future__`` import: what must stay first."""
    import ast

    if isinstance(node, ast.ImportFrom) and node.module == "__future__":
        return True
    return index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
        and isinstance(node.value.value, str)


def _runtime(attr: str) -> "ast.expr":
    import ast

    return ast.Attribute(ast.Name("__exceptstar__", ast.Load()), attr, ast.Load())


def _name(name: str, store: bool = False) -> "ast.Name":
    import ast

    return ast.Name(name, ast.Store() if store else ast.Load())


def _place(nodes: "List[Any]", where: "Any", exact: bool = False) -> None:
    """Give generated nodes (those without a position yet) the position of ``where``.

    For a clause (not ``exact``) that is its ``except`` keyword only: 3.12+
    reports an attribute load at its node's *end* line, which for a whole
    clause would be the last line of its handler.
    """
    import ast

    lineno, col = where.lineno, where.col_offset
    position = {"lineno": lineno, "col_offset": col, "end_lineno": lineno,
                "end_col_offset": col + len("except")}
    if exact:
        position.update(end_lineno=where.end_lineno, end_col_offset=where.end_col_offset)
    todo = list(nodes)
    while todo:
        node = todo.pop()
        if not node._attributes or hasattr(node, "lineno"):
            continue
        for key, value in position.items():
            setattr(node, key, value)
        for child in ast.iter_child_nodes(node):
            todo.append(child)


class _Rewriter:
    def __init__(self) -> None:
        import ast

        self.ast = ast
        self.rewrite_notes = sys.version_info < (3, 11)
        self.depth = 0

    def visit(self, node: "Any") -> "Any":
        ast = self.ast
        if _is_star_try(node):
            self.depth += 1
            self._children(node)
            self.depth -= 1
            return self._star_try(node)
        self._children(node)
        if (self.rewrite_notes and isinstance(node, ast.Attribute) and node.attr == "add_note"
                and isinstance(node.ctx, ast.Load)):
            call = ast.Call(_runtime("note_method"), [node.value], [])
            _place([call], node, exact=True)
            return call
        return node

    def _children(self, node: "Any") -> None:
        ast = self.ast
        for field, old in ast.iter_fields(node):
            if isinstance(old, list):
                new = []
                for item in old:
                    if isinstance(item, ast.AST):
                        item = self.visit(item)
                    new.append(item)
                old[:] = new
            elif isinstance(old, ast.AST):
                setattr(node, field, self.visit(old))

    def _star_try(self, node: "Any") -> "Any":
        ast = self.ast
        n = self.depth + 1
        star, part, raised = (f"__es_{what}_{n}__" for what in ("star", "part", "raised"))

        def release() -> "Any":
            return ast.Delete([ast.Name(star, ast.Del()), ast.Name(part, ast.Del())])

        def engine_call(method: str, args: "List[Any]") -> "Any":
            # Only the engine's own calls are guarded, not the handler bodies:
            # every try around a body costs one of CPython's 20 nested blocks.
            call = ast.Call(ast.Attribute(_name(star), method, ast.Load()), args, [])
            on_error = ast.ExceptHandler(_runtime("BaseException"), None, [
                release(), ast.Expr(ast.Call(_runtime("hide_frames"), [], [])), ast.Raise(),
            ])
            return ast.Try([ast.Assign([_name(part, True)], call)], [on_error], [], [])

        clauses: List[Any] = []
        first = node.handlers[0]
        for index, handler in enumerate(node.handlers):
            # Everything a handler raises is caught and recorded, so what follows
            # its try always runs: no `finally` needed.
            record = ast.ExceptHandler(
                _runtime("BaseException"), raised,
                [ast.Expr(ast.Call(ast.Attribute(_name(star), "raised", ast.Load()), [_name(raised)], []))],
            )
            run: List[Any] = []
            cleanup: List[Any] = []
            if handler.name:
                run.append(ast.Assign([_name(handler.name, True)], _name(part)))
                cleanup = [
                    ast.Assign([_name(handler.name, True)], ast.Constant(None)),
                    ast.Delete([ast.Name(handler.name, ast.Del())]),
                ]
            if sys.version_info >= (3, 10):
                # What runs after the handler body belongs to where execution goes
                # next (the next clause, or the end of the statement), so that line
                # events never step back to this clause, as CPython's do not.  Not
                # before PEP 626 (3.10): there a jump into the middle of a line's
                # code reports no event, so the next clause's line would be lost.
                after = node.handlers[index + 1] if index + 1 < len(node.handlers) else first
                _place([record, *cleanup], after)
            run.append(ast.Try(handler.body, [record], [], []))
            run.extend(cleanup)
            matched = ast.If(ast.Compare(_name(part), [ast.IsNot()], [ast.Constant(None)]), run, [])
            generated = [engine_call("match", [handler.type]), matched]
            _place(generated, handler)
            clauses.extend(generated)
        finish = [
            engine_call("finish", []),
            ast.If(_name(part), [release(), ast.Raise()], []),
            release(),
        ]
        body: List[Any] = [
            ast.Assign([_name(star, True)], ast.Call(_runtime("Star"), [], [])),
            ast.Assign([_name(part, True)], ast.Constant(None)),
            *clauses,
            *finish,
        ]
        # No `as` name: the engine takes the exception from sys.exc_info(), and each
        # level of except* nested in a handler then uses two of CPython's 20
        # nested blocks, as native code does, instead of three.
        outer = ast.ExceptHandler(_runtime("BaseException"), None, body)
        _place([outer], first)
        result = ast.Try(node.body, [outer], node.orelse, node.finalbody)
        return ast.copy_location(result, node)


def all_errors(source: "Union[str, bytes]", filename: str) -> "List[_Error]":
    """Every invalid ``except*`` use in ``source`` (not just the first), on any version.

    A syntax error of another kind ends the list: past it nothing can be parsed.
    """
    text = source_text(source, filename)
    scan = _Scan(text)
    try:
        tree = _builtin_compile(scan.rewritten, filename, "exec", _PyCF_ONLY_AST, True)
    except SyntaxError as error:
        scan.restore_text(error)
        position = (error.lineno or 0, error.offset or 0, 0, 0)
        return [*(e for e in scan.errors if _before(e, error)),
                _Error(f"SyntaxError: {error.msg}", position, error.text)]
    _mark(tree, scan.stars)
    return find_errors(tree, scan.stars, text, scan.errors)
