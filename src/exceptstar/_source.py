"""Reading source that may use ``except*``, on interpreters whose parser rejects it.

Decoding follows the interpreter (coding cookie, BOM, its own SyntaxError for
undecodable bytes).  Finding the starred handlers: every ``except`` keyword
followed by a ``*`` operator has the ``*`` replaced by a space (so every line
and column stays where it was), the result is parsed, and the handlers found
at the recorded positions are the starred ones.  A regular expression finds
them in most files; the tokenizer (``Scan``) is the exact fallback when an
``except*`` look-alike sits in a string or a comment, and it also reports the
clauses the parser would reject (``except*:``, unparenthesized types).
"""

import builtins

from ._syntax import NO_TYPES, NOT_PARENTHESIZED, Problem, lines

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Any, Dict, List, Optional, Tuple, Union

    from ._syntax import Key

_builtin_compile = builtins.compile
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


def quick_scan(text: str) -> "Optional[Tuple[str, Dict[Key, Key]]]":
    """Every ``except`` + ``*`` in the text taken as a clause: the source without the
    stars and where they were, as ``Scan`` gives them; None when one is certainly
    not a clause as written (then only the tokenizer can tell).

    The caller checks that the parsed tree has a handler at each place.
    """
    import re

    text_lines = lines(text)
    starts = [0]
    for line in text_lines:
        starts.append(starts[-1] + len(line))
    chars = list(text)
    stars: Dict[Key, Key] = {}
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
        stars[(row + 1, len(text_lines[row][:col].encode("utf-8")))] = (star_row + 1, star - starts[star_row] + 1)
        chars[star] = " "
    return "".join(chars), stars


class Scan:
    """The tokenizer's view: where the starred handlers are, and what the parser must reject."""

    def __init__(self, text: str) -> None:
        import tokenize

        self.lines = lines(text)
        # (line, byte column of `except`) -> (line, character column just past the `*`)
        self.stars: Dict[Key, Key] = {}
        self.errors: List[Problem] = []
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
        edited = list(self.lines)
        for row, col, replacement in edits:
            line = edited[row - 1]
            edited[row - 1] = line[:col] + replacement + line[col + 1:]
        self.rewritten = "".join(edited)

    def restore_text(self, error: SyntaxError) -> None:
        """Quote the user's line, not its rewritten form, in a parser error."""
        if error.lineno and error.text is not None:
            rewritten = lines(self.rewritten)
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
            self.errors.append(Problem(NO_TYPES, (row, col + 1, row, col + 2), self._line(row)))
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
        self.errors.append(Problem(NOT_PARENTHESIZED, (row, col + 1, end_row, end_col + 1),
                                  self._line(row)))


def _bracket(tok: "Any") -> int:
    """1 for an opening bracket token, -1 for a closing one, else 0."""
    import tokenize

    if tok.type != tokenize.OP:
        return 0
    return 1 if tok.string in "([{" else -1 if tok.string in ")]}" else 0


def _expression_start(tokens: "List[Any]", start: int) -> "Key":
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


def mark(tree: "ast.AST", stars: "Dict[Key, Key]") -> int:
    """Mark the handlers found at ``stars`` as starred; how many of them name types."""
    import ast

    found = 0
    if stars:
        for node in ast.walk(tree):
            if isinstance(node, ast.ExceptHandler) and (node.lineno, node.col_offset) in stars:
                node.exceptstar_star = True  # type: ignore[attr-defined]
                found += node.type is not None
    return found
