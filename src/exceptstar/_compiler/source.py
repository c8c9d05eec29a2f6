"""Reading source that may use ``except*``, on interpreters whose parser rejects it.

Decoding follows the interpreter (coding cookie, BOM, its own SyntaxError for
undecodable bytes).  Finding the starred handlers: every ``except`` keyword
followed by a ``*`` operator has the ``*`` replaced by a space (so every line
and column stays where it was), the result is parsed, and the handlers found
at the recorded positions are the starred ones (``mark``).  A quick scan with
``str`` methods finds them in most files; the tokenizer (``scan.Scan``) is the
exact fallback when an ``except*`` look-alike sits in a string or a comment,
and it also reports the clauses the parser would reject.
"""

import builtins
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

    from exceptstar._compiler.problem import Key

_builtin_compile = builtins.compile
_PyCF_ONLY_AST = 0x400
_FUTURE_FLAGS = 0


def future_flags() -> int:
    """Every ``__future__`` feature's compiler flag (what ``compile`` may inherit)."""
    global _FUTURE_FLAGS
    if not _FUTURE_FLAGS:
        import __future__

        for name in __future__.all_feature_names:
            _FUTURE_FLAGS |= getattr(__future__, name).compiler_flag
    return _FUTURE_FLAGS


def filename_text(filename: object) -> str:
    """A ``compile`` filename (str, bytes or path) as the text its code objects and errors carry."""
    if isinstance(filename, bytes):
        return filename.decode(sys.getfilesystemencoding(), "surrogateescape")
    return str(filename)


def has_except_star(source: "Union[str, bytes]") -> bool:
    """Cheap test: could ``source`` contain ``except*`` (False: it certainly does not)."""
    if isinstance(source, str):
        source = source.encode("utf-8", "surrogatepass")
    # A loop turn per star that follows an ``except``, not per ``except``: the
    # searches pass over every ``except`` between two stars.  A 3.11+ import
    # under the hook runs this on every module's source (a valid normal .pyc
    # proves nothing there), so it should cost about one search of the text.
    find = source.find
    index = find(b"except")
    while index >= 0:
        star = find(b"*", index + 6)
        if star < 0:
            return False
        # Whitespace or line continuations may separate the keyword from the
        # star: only the last ``except`` before the star can reach it.
        index = source.rfind(b"except", index, star) + 6
        while index < star and source[index] in b" \t\f\\\r\n":
            index += 1
        if index == star:
            return True
        index = find(b"except", star + 1)
    return False


def uses_except_star(source: "Union[str, bytes]") -> bool:
    """Exact test: does ``source`` hold an ``except*`` clause (not in a comment or a string).

    The keyword ``except`` followed by the ``*`` operator is a clause, valid or
    not; nothing else is.  A clause starts its line, so only source with such a
    line is read further: as ``parse`` reads it (the stars at the starts of
    lines blanked, the tree asked for handlers there), or, when that source
    does not parse, by the tokenizer.  Undecodable source holds none.
    """
    if not has_except_star(source):
        return False
    try:
        text = source_text(source)
    except SyntaxError:
        return False
    quick = quick_scan(text)
    if quick is not None:
        rewritten, stars = quick
        if not stars:
            return False
        try:
            tree = _builtin_compile(rewritten, "<source>", "exec", _PyCF_ONLY_AST, True)
        except (SyntaxError, ValueError):  # ValueError: a null byte (3.8-3.11)
            pass
        else:
            return _marks_a_handler(tree, stars, text)
    import tokenize

    skipped = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
    after_except = False
    try:
        for tok in tokenize.generate_tokens(iter(tokenizer_lines(lines(text))).__next__):
            if tok.type in skipped:
                continue
            if after_except and tok.string == "*":
                return True
            after_except = tok.type == tokenize.NAME and tok.string == "except"
    except (tokenize.TokenError, SyntaxError):
        pass  # a clause before the error was found; what follows cannot be read
    return False


def lines(text: str) -> "List[str]":
    """Source lines as the tokenizer numbers them (str.splitlines also breaks at \\f and others)."""
    if text.isascii() and not any(other in text for other in "\v\f\x1c\x1d\x1e"):
        return text.splitlines(True)  # the same lines, in half the time
    import io

    return io.StringIO(text, newline="").readlines()


def tokenizer_lines(source_lines: "List[str]") -> "List[str]":
    """``source_lines`` for ``tokenize``, lines ending in a lone ``\\r`` ending in ``\\n``:
    the interpreter ends a line at either, but ``tokenize`` does not continue a
    line whose backslash a lone ``\\r`` follows."""
    return [line[:-1] + "\n" if line[-1:] == "\r" else line for line in source_lines]


def _marks_a_handler(tree: "ast.AST", stars: "Dict[Key, Key]", text: str) -> bool:
    """Whether any of ``stars`` is where ``tree`` has a handler (``mark`` counts the typed ones)."""
    if mark(tree, stars):
        return True
    import re
    if not re.search(r"(?m)^[ \t\f]*" + _CLAUSE + r"(?:[ \t\f]|\\\r?\n|\\\r)*:", text):
        return False
    import ast

    # `except*:` (no types, an invalid clause) may be one: the tree says where handlers are.
    return any(getattr(node, "exceptstar_star", False) for node in ast.walk(tree))


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
        second = source.find(b"\n", source.find(b"\n") + 1)
        if isinstance(error, UnicodeDecodeError) and not source.startswith(b"\xef\xbb\xbf") \
                and b"coding" not in (source if second < 0 else source[:second]):
            raise _not_utf8(source, error.start, filename) from None
        # PyPy words an unknown cookie its own way ("Unknown encoding"): the tokenizer's are 3.15's.
        if not (sys.implementation.name == "pypy" and str(error).startswith("unknown encoding: ")):
            blanked = re.sub(rb"(except\s*)\*", rb"\1 ", source)
            _builtin_compile(blanked, filename, "exec", _PyCF_ONLY_AST, True)
        raise SyntaxError(str(error)) from None
    return text[1:] if text.startswith("\ufeff") else text


def _not_utf8(source: bytes, bad: int, filename: str) -> SyntaxError:
    """3.12+'s tokenizer's error for a byte that is not UTF-8 in source without a declared
    encoding (3.8-3.11 give the decoder's words), at the line and character of the byte."""
    start = source.rfind(b"\n", 0, bad) + 1
    end = source.find(b"\n", bad)
    line = source[start:end if end >= 0 else len(source)].rstrip(b"\r").decode("utf-8", "replace")
    row = source.count(b"\n", 0, bad) + 1
    col = len(source[start:bad].decode("utf-8", "replace")) + 1
    details: Tuple[Any, ...] = (filename, row, col, line)
    if sys.version_info >= (3, 10):
        details += (row, col)
    return SyntaxError(f"Non-UTF-8 code starting with '\\x{source[bad]:02x}' on line {row}, but no encoding "
                       "declared; see https://peps.python.org/pep-0263/ for details", details)


# `except` + `*` where a clause can be: first on its line, only whitespace
# before it (an `except` clause starts a logical line, which starts a physical
# one).  An `except*` after anything else on its line (a comment, a string, an
# expression) is not a clause, so it is left as it is: the parser then either
# accepts the file (it was in a comment or a string) or rejects it, and the
# tokenizer (``Scan``) reports why.  Lines end at \n, \r\n or \r, as the tokenizer's.
_CLAUSE = r"except(?:[ \t\f]|\\\r?\n|\\\r)*\*"  # a literal first: the regex engine skips to it


def quick_scan(text: str) -> "Optional[Tuple[str, Dict[Key, Key]]]":
    """Every line-initial ``except`` + ``*`` taken as a clause: the source without
    those stars and where they were, as ``Scan`` gives them; None when one is
    certainly not a clause as written (then only the tokenizer can tell).

    The caller checks that the tree has a handler at each place.
    """
    stars: Dict[Key, Key] = {}
    pieces: List[str] = []
    row, row_start, done = 1, 0, 0  # the row (1-based) counted to, its line's offset; the text before done is in pieces
    for begin, star in _candidates(text):
        row, row_start = _rows_to(text, row, row_start, begin)
        if not text[row_start:begin].strip(" \t\f"):  # else not a clause: after something else
            if text[star + 1:star + 2] in ("*", "="):
                return None  # `**` or `*=`: not a clause
            key = (row, len(text[row_start:begin].encode("utf-8")))
            row, row_start = _rows_to(text, row, row_start, star)
            stars[key] = (row, star - row_start + 1)
            pieces += (text[done:star], " ")
            done = star + 1
    pieces.append(text[done:])
    return ("".join(pieces) if stars else text), stars


def _candidates(text: str) -> "Iterator[Tuple[int, int]]":
    """Where each ``except`` of ``_CLAUSE`` and its star are: by ``re`` once imported,
    else by ``str`` methods (``re`` would cost the first module of a process its
    import), a turn per star after an ``except``, not per ``except``."""
    re = sys.modules.get("re")
    if re is not None:
        for found in re.finditer(_CLAUSE, text):
            yield found.start(), found.end() - 1
        return
    find = text.find
    begin = find("except")
    while begin >= 0:
        star = find("*", begin + 6)
        if star < 0:
            return
        # Only the last `except` before the star can reach it through blanks.
        begin = text.rfind("except", begin, star)
        star = begin + 6
        while text[star:star + 1] in (" ", "\t", "\f") or text[star:star + 2] in ("\\\n", "\\\r"):
            star += 1 if text[star] != "\\" else 3 if text.startswith("\r\n", star + 1) else 2
        if text[star:star + 1] == "*":
            yield begin, star
        begin = find("except", begin + 6)  # `except` cannot overlap itself


def _rows_to(text: str, row: int, row_start: int, offset: int) -> "Tuple[int, int]":
    """The row and line start of ``offset``, from those of ``row_start`` (lines end at \\n, \\r\\n, \\r)."""
    ends = text.count("\n", row_start, offset)
    if text.find("\r", row_start, offset) >= 0:  # rare: only then the other two counts
        ends += text.count("\r", row_start, offset) - text.count("\r\n", row_start, offset)
    return row + ends, max(text.rfind("\n", row_start, offset), text.rfind("\r", row_start, offset), row_start - 1) + 1


def mark(tree: "ast.AST", stars: "Dict[Key, Key]", lists: "Optional[Dict[Key, Any]]" = None) -> int:
    """Mark the handlers found at ``stars`` as starred; how many of them name types.

    ``lists``: the types of the handlers at these places, as 3.14 reads them (``Scan.tuples``).
    """
    import _ast as ast  # the node classes alone (see rewrite)

    found = 0
    if not stars:
        return found
    # Handlers are only in try statements, and statements only in statement
    # lists: descend only into the statements whose lines hold a star, rather
    # than visiting every node of the tree.
    from bisect import bisect_left

    rows = sorted({row for row, _ in stars})
    body = getattr(tree, "body", None)
    todo = [body] if type(body) is list else []
    while todo:
        for node in todo.pop():
            if not isinstance(node, ast.stmt):
                continue
            first = bisect_left(rows, node.lineno)
            if first == len(rows) or rows[first] > (node.end_lineno or node.lineno):
                continue  # no star on this statement's lines
            for handler in getattr(node, "handlers", ()):
                if (handler.lineno, handler.col_offset) in stars:
                    handler.exceptstar_star = True
                    listed = lists.get((handler.lineno, handler.col_offset)) if lists else None
                    if listed is not None:
                        handler.type = listed
                        handler.exceptstar_list = True  # 3.14's own: not one expression
                    found += handler.type is not None
                todo.append(handler.body)
            for field in ("body", "orelse", "finalbody"):
                body = getattr(node, field, None)
                if type(body) is list:
                    todo.append(body)
            for case in getattr(node, "cases", ()):
                todo.append(case.body)
    return found
