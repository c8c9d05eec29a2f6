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
import sys

from exceptstar._compiler.syntax import (
    INVALID,
    MIXED,
    NEVER_CLOSED,
    NO_TYPES,
    NOT_PARENTHESIZED_AS,
    TARGET,
    Problem,
    lines,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Any, Dict, List, Optional, Set, Tuple, Union

    from exceptstar._compiler.syntax import Key

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
        for tok in tokenize.generate_tokens(iter(_tokenizer_lines(lines(text))).__next__):
            if tok.type in skipped:
                continue
            if after_except and tok.string == "*":
                return True
            after_except = tok.type == tokenize.NAME and tok.string == "except"
    except (tokenize.TokenError, SyntaxError):
        pass  # a clause before the error was found; what follows cannot be read
    return False


def _tokenizer_lines(source_lines: "List[str]") -> "List[str]":
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
        blanked = re.sub(rb"(except\s*)\*", rb"\1 ", source)
        _builtin_compile(blanked, filename, "exec", _PyCF_ONLY_AST, True)
        raise SyntaxError(str(error)) from None
    return text[1:] if text.startswith("\ufeff") else text


# The running tokenizer's errors: an error of 3.14's tokenizer anywhere overrides its parser's.
_TOKENIZER_ERRORS = ("unexpected character after line continuation character", "unterminated ", "unmatched '",
                     "closing parenthesis ", "invalid decimal literal", "invalid hexadecimal literal",
                     "invalid octal literal", "invalid binary literal", "invalid digit ", "invalid character ",
                     "invalid non-printable character ", "EOL while scanning", "EOF while scanning")


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
# The second character after `except` when a star follows: blanks, a continued line.
_BEFORE_A_STAR = (" ", "\t", "\f", "\\", "*", "\n", "\r", "")


def quick_scan(text: str) -> "Optional[Tuple[str, Dict[Key, Key]]]":
    """Every line-initial ``except`` + ``*`` taken as a clause: the source without
    those stars and where they were, as ``Scan`` gives them; None when one is
    certainly not a clause as written (then only the tokenizer can tell).

    The caller checks that the tree has a handler at each place.  ``_CLAUSE``,
    read by ``str`` methods: ``re`` costs the first module of a process its import.
    """
    stars: Dict[Key, Key] = {}
    pieces: List[str] = []
    row, row_start, done = 1, 0, 0  # the row (1-based) counted to, its line's offset; the text before done is in pieces
    begin = text.find("except")
    while begin >= 0:
        star = begin + 6
        # The common case (a type, a colon, a longer name) settled in the fewest steps.
        if (text[star:star + 1] == "*" or text[star + 1:star + 2] in _BEFORE_A_STAR) \
                and text[star:star + 32].lstrip(" \t\f")[:1] in ("*", "\\", ""):  # else a type follows
            while text[star:star + 1] in (" ", "\t", "\f") or text[star:star + 2] in ("\\\n", "\\\r"):
                star += 1 if text[star] != "\\" else 3 if text.startswith("\r\n", star + 1) else 2
        if text[star:star + 1] == "*":
            row, row_start = _rows_to(text, row, row_start, begin)
            if not text[row_start:begin].strip(" \t\f"):  # else not a clause: after something else
                if text[star + 1:star + 2] in ("*", "="):
                    return None  # `**` or `*=`: not a clause
                key = (row, len(text[row_start:begin].encode("utf-8")))
                row, row_start = _rows_to(text, row, row_start, star)
                stars[key] = (row, star - row_start + 1)
                pieces += (text[done:star], " ")
                done = star + 1
        begin = text.find("except", begin + 6)  # `except` cannot overlap itself
    pieces.append(text[done:])
    return ("".join(pieces) if stars else text), stars


def _rows_to(text: str, row: int, row_start: int, offset: int) -> "Tuple[int, int]":
    """The row and line start of ``offset``, from those of ``row_start`` (lines end at \\n, \\r\\n, \\r)."""
    ends = text.count("\n", row_start, offset)
    if text.find("\r", row_start, offset) >= 0:  # rare: only then the other two counts
        ends += text.count("\r", row_start, offset) - text.count("\r\n", row_start, offset)
    return row + ends, max(text.rfind("\n", row_start, offset), text.rfind("\r", row_start, offset), row_start - 1) + 1


class Scan:
    """The tokenizer's view: where the starred handlers are, and what the parser must reject."""

    def __init__(self, text: str) -> None:
        import tokenize

        self.text = text
        self.lines = lines(text)
        # (line, byte column of `except`) -> (line, character column just past the `*`)
        self.stars: Dict[Key, Key] = {}
        self.errors: List[Problem] = []
        # Starred clauses whose types are a list without parentheses (PEP 758, 3.14):
        # (line, byte column of `except`) -> the types as a tuple expression, parsed alone.
        self.lists: Dict[Key, Any] = {}
        # The line of the first token after a starred clause's header -> its column, the clause.
        self.bodies: Dict[int, Tuple[int, Key]] = {}
        self.ends_file: Optional[Tuple[Key, Key]] = None  # the header's NEWLINE, the clause
        self.unclosed: Optional[Any] = None  # the innermost bracket open at the end of the file
        # An invalid target's error -> the target's place and its clause's block's lines.
        self.targets: Dict[int, Tuple[Key, Key, Tuple[int, int]]] = {}
        # The mixed clauses' errors of 3.14's rule for a try whose parse fails after them.
        self.mixed: List[Problem] = []
        edits: List[Tuple[int, int, str]] = []
        skipped = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
        tokens = []
        # Where each line's comment starts: 3.14's NEWLINE token starts there.
        self.comments: Dict[int, int] = {}
        open_at_end = False
        try:
            for tok in tokenize.generate_tokens(iter(_tokenizer_lines(self.lines)).__next__):
                if tok.type == tokenize.COMMENT:
                    self.comments[tok.start[0]] = tok.start[1]
                if tok.type not in skipped:
                    tokens.append(tok)
        except (tokenize.TokenError, SyntaxError) as failure:
            # The parser reports it, in the interpreter's own words; what was read
            # so far still counts (incomplete input at an interactive prompt).
            open_at_end = "statement" in str(failure)
        # Where a starred clause's `except` follows `try:` on its line: 3.14's rules read it
        # as the try's clause, and give its own error.
        self.after_try: Set[Key] = {
            (tok.start[0], tok.start[1] + 1) for index, tok in enumerate(tokens[:-1])
            if tok.string == "except" and tokens[index + 1].string == "*" and index > 1
            and tokens[index - 1].string == ":" and tokens[index - 2].string == "try"
            and tokens[index - 2].start[0] == tok.start[0]}
        for index, tok in enumerate(tokens[:-1]):
            star = tokens[index + 1]
            if tok.type != tokenize.NAME or tok.string != "except" or star.string != "*":
                continue
            row, col = tok.start
            self.stars[(row, self._byte_col(row, col))] = star.end
            edits.append((star.start[0], star.start[1], " "))
            self._check_types(tokens, index + 2, edits, (row, self._byte_col(row, col)))
            body = next((at + 1 for at in range(index, len(tokens) - 1) if tokens[at].type == tokenize.NEWLINE), 0)
            if body and tokens[body].type == tokenize.ENDMARKER:
                # No block before the end of the file: the error is past the header's end.
                self.ends_file = (tokens[body - 1].start, (row, self._byte_col(row, col)))
            elif body:
                self.bodies[tokens[body].start[0]] = (tokens[body].start[1], (row, self._byte_col(row, col)))
        self._plain_lists_beside_stars(tokens, edits)
        if open_at_end:
            self._unclosed_in_clause(tokens)
            depth = 0
            for tok in reversed(tokens):
                depth += _bracket(tok)
                if depth > 0:
                    self.unclosed = tok
                    break
        self._mixed_clauses(tokens)
        self.errors.sort(key=lambda error: error.order)
        edited = list(self.lines)
        for row, col, replacement in edits:
            line = edited[row - 1]
            edited[row - 1] = line[:col] + replacement + line[col + 1:]
        self.rewritten = "".join(edited)

    def settle(self, error: SyntaxError, filename: str) -> SyntaxError:
        """The SyntaxError 3.14+ raise, given the running parser's ``error`` in ``rewritten``.

        The first of ours, when it comes first: 3.14 reports its parser's
        errors in the order of the source, but an error of its tokenizer
        anywhere in the file overrides its parser's.
        """
        ours = sorted([*self.errors, *self.mixed], key=lambda problem: problem.order)
        at = (error.lineno or 0, error.offset or 0)
        if ours and (ours[0].order < at or (ours[0].order == at and ours[0] not in self.mixed)
                     or (at in self.after_try and ours[0].line == at[0])):
            # (3.14 reads a starred clause right after `try:` on its line as one of the try's,
            # and takes the mixed clauses' rule only after complete clauses.)
            first = ours[0]
            if id(first) in self.targets:
                first = self._target_or_block(first)
            if not (error.msg or "").startswith(_TOKENIZER_ERRORS):
                tokenizers = self._tokenizer_error(filename)
                if tokenizers is None:
                    return first.exception(filename)
                error = tokenizers
        self.restore_text(error)
        if error.msg.startswith("expected an indented block") and not isinstance(error, IndentationError):
            return IndentationError(*error.args)
        return error

    def _target_or_block(self, problem: Problem) -> Problem:
        """An invalid target's error, or, when its clause's block does not parse either,
        3.14's parser's at the target (the block's own when it has its own words)."""
        (row, col), (_, end_col), (first, last) = self.targets[id(problem)]
        line = lines(self.rewritten)[row - 1]
        probe = list(lines(self.rewritten))
        probe[row - 1] = line[:col] + "_" + " " * (end_col - col - 1) + line[end_col:]
        try:
            _builtin_compile("".join(probe), "<probe>", "exec", _PyCF_ONLY_AST, True)
        except SyntaxError as error:
            if first <= (error.lineno or 0) <= last and problem.at_star is not None:
                if error.msg.startswith("expected an indented block"):
                    # (3.14's rule reads a block there, which names no statement.)
                    missing = Problem("expected an indented block", (error.lineno or 0, error.offset or 0,
                                      getattr(error, "end_lineno", 0), getattr(error, "end_offset", 0)),
                                      error.text)
                    missing.error_class = IndentationError
                    return missing
                if error.msg != INVALID:
                    return Problem(error.msg, (error.lineno or 0, error.offset or 0, getattr(error, "end_lineno", 0),
                                               getattr(error, "end_offset", 0)), error.text)
                return problem.at_star
        except ValueError:
            pass
        return problem

    def _mixed_clauses(self, tokens: "List[Any]") -> None:
        """3.14's rule for a ``try`` whose clauses are starred and plain, by their headers alone
        (a starred clause after plain ones with one expression for its types, or a plain one
        after starred ones): the error when the parse fails later, even in the odd clause's block."""
        import tokenize

        starts = [index for index, tok in enumerate(tokens)
                  if (index == 0 or tokens[index - 1].type == tokenize.NEWLINE) and tok.type != tokenize.ENDMARKER]
        for position, index in enumerate(starts):
            if tokens[index].string != "try" or index + 1 >= len(tokens) or tokens[index + 1].string != ":":
                continue
            column = tokens[index].start[1]
            kinds: List[bool] = []
            for clause in starts[position + 1:]:
                tok = tokens[clause]
                if tok.start[1] < column or (tok.start[1] == column and tok.string != "except"):
                    break
                if tok.start[1] > column:
                    continue
                star = clause + 1 < len(tokens) and tokens[clause + 1].string == "*"
                if kinds and star != kinds[0]:
                    self._odd_clause(tokens, clause, star)
                    break
                kinds.append(star)

    def _odd_clause(self, tokens: "List[Any]", clause: int, star: bool) -> None:
        import tokenize

        begin = clause + 2 if star else clause + 1
        depth, named, end = 0, 0, 0
        for at in range(begin, len(tokens)):
            tok = tokens[at]
            depth += _bracket(tok)
            if tok.type == tokenize.NEWLINE or depth < 0:
                return
            if depth == 0 and tok.string == "as" and not named:
                named = at
            elif depth == 0 and tok.string == ":":
                end = at
                break
        if not end:
            return
        last = named or end
        if named and not (named + 2 == end and _is_name(tokens[named + 1])):
            return
        if last == begin:
            if star:
                return  # `except*:` (no types), the token scan's own error
        elif self._expression(tokens[begin].start, tokens[last - 1].end) is None:
            return
        row, col = tokens[clause].start
        end_col = tokens[clause + 1].end[1] if star else col + len("except")
        self.mixed.append(Problem(MIXED, (row, col + 1, row, end_col + 1), self._line(row)))

    def _newline_end(self, error: SyntaxError) -> None:
        """3.10's error at a NEWLINE token ends where it starts (at the newline, or at the
        comment before it); 3.12+'s token ends past the newline."""
        if sys.version_info[:2] == (3, 10) and error.lineno and error.lineno == error.end_lineno:
            line = self._line(error.lineno)
            content = line.rstrip("\r\n")
            if content != line and error.offset == error.end_offset \
                    and error.offset == len(content.encode("utf-8")) + 1:
                error.offset = error.end_offset = len(content) + 1  # (3.10 counts its bytes there)
            if content != line and error.end_offset == len(content) + 1 and error.offset \
                    and (error.offset == error.end_offset or line[error.offset - 1:error.offset] == "#"):
                error.end_offset += 1

    def _tokenizer_error(self, filename: str) -> "Optional[SyntaxError]":
        """The running tokenizer's error past the first star, if any: the parser of the
        source as written stops at that star, and an error of the tokenizer found
        anywhere after it stands for the parser's (as 3.14 gives it for ours)."""
        try:
            _builtin_compile(self.text, filename, "exec", _PyCF_ONLY_AST, True)
        except SyntaxError as original:
            if (original.lineno or 0, original.offset or 0) > min(self.stars.values(), default=(0, 0)):
                return original
        except ValueError:
            pass
        return None

    def restore_text(self, error: SyntaxError) -> None:
        """The running parser's ``error`` in the rewritten source, as 3.14+ give it: the user's
        line quoted, not its rewritten form (nor, on 3.10, the lines continued onto it), the
        end of a NEWLINE token past the newline (3.10), ``except*`` named where the message
        names a starred clause."""
        if error.lineno and error.text is not None:
            text = error.text
            pieces = text.splitlines(True)
            if len(pieces) > 1 and all(piece.rstrip("\r\n").endswith("\\") for piece in pieces[:-1]):
                text = pieces[-1]
            # The rewritten source has the user's lines, character for character but the edits.
            for row in (error.lineno, error.lineno - len(pieces) + 1):
                if row > 0 and self.rewritten.startswith(text, self._offset(row)):
                    text = self.text[self._offset(row):self._offset(row) + len(text)]
                    break
            error.text = text
        self._newline_end(error)
        column, clause = self.bodies.get(error.lineno or 0, (-2, (0, 0)))
        if self.ends_file is not None and (error.lineno or 0, error.offset or 0) > self.ends_file[0]:
            column, clause = error.offset or 0, self.ends_file[1]
        if error.msg in ("expected an indented block", "unexpected EOF while parsing") \
                and error.offset in (column, column + 1) and clause not in self.lists:
            # 3.8 and 3.9 name no statement (3.8: nor an indentation at the end of the file); 3.10+ do.
            error.msg = f"expected an indented block after 'except*' statement on line {clause[0]}"
        elif error.msg == "unexpected EOF while parsing" and self.unclosed is not None:
            # 3.8's and 3.9's words for a bracket left open to the end of the file.
            (row, col), error.msg = self.unclosed.start, f"'{self.unclosed.string}' was never closed"
            error.lineno, error.offset, error.text = row, col + 1, self._line(row).rstrip("\r\n")
        import re
        # 3.10+: "expected an indented block after 'except' statement on line N".
        match = re.fullmatch(r"(.* after )'except'( statement on line (\d+))", error.msg or "")
        if match:
            clauses = [key for key in self.stars if key[0] == int(match.group(3))]
            if clauses and any(key in self.lists for key in clauses):
                error.msg = "expected an indented block"  # 3.14's rule needs one expression
            elif clauses:
                error.msg = f"{match.group(1)}'except*'{match.group(2)}"
        details: Tuple[Any, ...] = (error.filename, error.lineno, error.offset, error.text)
        if sys.version_info >= (3, 10):
            details += (error.end_lineno, error.end_offset)
        error.args = (error.msg, details)

    def tuples(self) -> "Dict[Key, Any]":
        """``lists`` as tuple expressions with 3.14's positions, each parsed alone."""
        import ast

        found = {}
        for key, ((row, col), (end_row, end_col)) in self.lists.items():
            part = self.lines[row - 1:end_row]
            part[-1] = part[-1][:end_col]
            # Only `except*` and blanks precede the types on their first line: spaces
            # keep every column, and the lines before keep every row.
            part[0] = " " * col + part[0][col:]
            text = "\n" * (row - 2) + "(\n" + "".join(part) + "\n)"
            node = _builtin_compile(text, "<types>", "eval", _PyCF_ONLY_AST, True).body
            if not isinstance(node, ast.Tuple):
                continue  # not a list after all: the parser reports what it is
            node.lineno, node.col_offset = row, self._byte_col(row, col)
            node.end_lineno, node.end_col_offset = end_row, self._byte_col(end_row, end_col)
            found[key] = node
        return found

    def _offset(self, row: int) -> int:
        """Where line ``row`` starts in the text (its lines are ``lines``' and keep their ends)."""
        return sum(map(len, self.lines[:row - 1]))

    def _byte_col(self, row: int, col: int) -> int:
        return len(self.lines[row - 1][:col].encode("utf-8"))

    def _line(self, row: int) -> str:
        return self.lines[row - 1] if 0 < row <= len(self.lines) else ""

    def _plain_lists_beside_stars(self, tokens: "List[Any]", edits: "List[Tuple[int, int, str]]") -> None:
        """A plain clause's unparenthesized types (PEP 758) in a ``try`` with starred clauses:
        after one, 3.14's "invalid syntax" at the first type; before, the mixed clauses'
        error.  (Alone, the running parser's to judge.)  A ``try``'s clauses: line-initial
        tokens at its ``except``'s column, none at or left of it between them.  Commas
        are edited as ``_check_types`` does, so that the file still parses.
        """
        import tokenize

        starts = [index for index, tok in enumerate(tokens)
                  if index == 0 or tokens[index - 1].type == tokenize.NEWLINE]

        def starred_among(heads: "List[int]", column: int) -> bool:
            found = False
            for head in (head for head in heads if tokens[head].start[1] <= column):
                if tokens[head].start[1] < column or tokens[head].string != "except":
                    return found
                found = found or tokens[head + 1].string == "*"
            return found

        for position, index in enumerate(starts):
            tok = tokens[index]
            if tok.string != "except" or index + 1 >= len(tokens) or tokens[index + 1].string in ("*", ":", ","):
                continue
            depth, commas, named = 0, [], False
            for end in range(index + 1, len(tokens)):
                depth += _bracket(tokens[end])
                if (depth == 0 and tokens[end].string == ":") or tokens[end].type == tokenize.NEWLINE:
                    break
                if depth == 0 and tokens[end].string in (",", "as"):
                    named = named or tokens[end].string == "as"
                    commas += [end] if not named else []
            if not commas or any(tokens[at + 1].string == "as" for at in commas):
                continue
            after_star = starred_among(starts[:position][::-1], tok.start[1])
            if not (after_star or starred_among(starts[position + 1:], tok.start[1])):
                continue
            edits.extend((tokens[at].start[0], tokens[at].start[1],
                          " " if tokens[at + 1].string == ":" else "|") for at in commas)
            if after_star:
                (row, col), (end_row, end_col) = tokens[index + 1].start, tokens[index + 1].end
                self.errors.append(Problem(INVALID, (row, col + 1, end_row, end_col + 1), self._line(row)))
            elif named:  # 3.14's own rule for a plain clause
                (row, col), (end_row, end_col) = _expression_start(tokens, index + 1), tokens[end].start
                self.errors.append(Problem(NOT_PARENTHESIZED_AS, (row, col + 1, end_row, end_col + 1),
                                           self._line(row)))

    def _check_types(self, tokens: "List[Any]", start: int, edits: "List[Tuple[int, int, str]]",
                     key: "Key") -> None:
        """The clause's types, from the token after ``*`` to the ``:`` ending the clause, read
        as 3.14's rules for a starred clause read them (``invalid_except_star_stmt``).

        A list without parentheses is 3.14's (PEP 758): without ``as`` it is a
        tuple, recorded in ``lists``; with ``as`` it is 3.14's SyntaxError.
        """
        first = tokens[start] if start < len(tokens) else None
        if first is None:
            return
        import tokenize

        if first.string == ":" or first.type == tokenize.NEWLINE:
            self.errors.append(Problem(NO_TYPES, self._token_position(first), self._line(first.start[0])))
            return
        depth = 0
        commas = []  # their indices in tokens, before any `as`
        named = 0  # the index of an `as` at depth 0
        # By index, not over a copy of the rest of the file: one clause's scan is
        # as long as the clause, so the whole file's is linear.
        for index in range(start, len(tokens)):
            tok = tokens[index]
            if _bracket(tok) > 0:
                depth += 1
            elif _bracket(tok) < 0:
                depth -= 1
            elif depth == 0 and tok.string == "," and not named:
                commas.append(index)
            elif depth == 0 and tok.type == tokenize.NAME and tok.string == "as" and not named:
                named = index
            elif (depth == 0 and tok.string == ":") or tok.type == tokenize.NEWLINE or depth < 0:
                break
        else:
            # A bracket open to the end: a list's last type is read as far as it goes.
            failed = self._list_fails(tokens, start, commas, len(tokens) - 1) if commas and not named else None
            if failed is not None:
                self.errors.append(failed)
                self._join_types(tokens, commas, edits)
            return
        if commas and not named and depth == 0 and (tok.string == ":" or tok.type == tokenize.NEWLINE):
            failed = self._list_fails(tokens, start, commas, index)
            if failed is not None or tok.type == tokenize.NEWLINE:
                # 3.14's parser reads the types as a list (PEP 758): its error is where that
                # reading stops, in a type or at the end of the line.
                self.errors.append(failed or Problem(INVALID, self._token_position(tok), self._line(tok.start[0])))
                self._join_types(tokens, commas, edits)
                return
        if tok.string != ":":
            return
        if named and not commas:
            self._check_target(tokens, start, named, index)
            return
        if not commas:
            return
        last = tokens[index - 1]  # the last token of the types
        if commas[0] == start or self._expression(tokens[start].start, tokens[commas[0] - 1].end) is None:
            return  # no expression before the first comma: the parser's invalid syntax
        if named and commas[0] + 1 < named \
                and self._expression(tokens[commas[0] + 1].start, tokens[named - 1].end, tuples=True) is None:
            pass  # no types after the first comma: the parser's invalid syntax where they end
        elif named and ((tokens[named - 1].string == "," and len(commas) == 1)
                        or not _is_name(tokens[named + 1]) or named + 2 != index):
            # Not 3.14's rule for a list named with `as` (a type, a comma, types,
            # `as`, a name, the colon): the parser gives up at the `as`.
            tok = tokens[named]
            self.errors.append(Problem(INVALID, self._token_position(tok), self._line(tok.start[0])))
        elif named:
            row, col = _expression_start(tokens, start)
            end_row, end_col = tok.start
            self.errors.append(Problem(NOT_PARENTHESIZED_AS, (row, col + 1, end_row, end_col + 1),
                                       self._line(row)))
        else:
            self.lists[key] = (tokens[start].start, last.end)
        self._join_types(tokens, commas, edits)

    def _list_fails(self, tokens: "List[Any]", start: int, commas: "List[int]", end: int) -> "Optional[Problem]":
        """Where 3.14's parser stops in a list of types that is not one, read as its rule
        reads it (an expression, then each after a comma, a trailing comma allowed); None
        when each is an expression.  The running parser finds where one stops, read alone."""
        bounds = [start - 1, *commas, end]
        for first, after in zip(bounds, bounds[1:]):
            if first + 1 == after and after == end:
                continue  # a trailing comma
            if first + 1 >= len(tokens):
                return None
            if first + 1 < after and self._expression(tokens[first + 1].start, tokens[after - 1].end) is not None:
                continue
            (row, col) = tokens[first + 1].start
            if col < len("assert "):
                return None  # on a continued line: not read here
            probe = "\n" * (row - 1) + "assert" + " " * (col - 6) + self.text[self._offset(row) + col:]
            try:
                _builtin_compile(probe, "<types>", "exec", _PyCF_ONLY_AST, True)
            except SyntaxError as error:
                where = (error.lineno or 0, error.offset or 0)
                if where <= (tokens[end].start[0], tokens[end].start[1] + 1):
                    error.text = self._line(where[0])
                    self._newline_end(error)
                    ends: Tuple[int, int] = (getattr(error, "end_lineno", None) or 0,
                                             getattr(error, "end_offset", None) or 0)
                    return Problem(error.msg, (*where, *ends), self._line(where[0]))
            except ValueError:
                pass
            return None
        return None

    @staticmethod
    def _join_types(tokens: "List[Any]", commas: "List[int]", edits: "List[Tuple[int, int, str]]") -> None:
        """`A, B` -> `A| B` (a trailing comma -> a space; `, not B` -> `|-   B`): still one
        expression, so the rest of the file parses."""
        import tokenize

        for index in commas:
            comma, after = tokens[index], tokens[index + 1]
            ends = after.string in (":", "as") or after.type == tokenize.NEWLINE
            edits.append((comma.start[0], comma.start[1], " " if ends else "|"))
            if after.string == "not":
                (row, col), word = after.start, "-  "
                edits.extend((row, col + at, word[at]) for at in range(3))

    def _check_target(self, tokens: "List[Any]", start: int, named: int, colon: int) -> None:
        """``except* T as X:`` where X is no name: 3.14's "cannot use except* statement with ..."
        at X, when T and X are each one expression."""
        if named + 2 == colon and _is_name(tokens[named + 1]):
            return
        if named == start or tokens[named + 1].string == "*":
            return  # no types, or a starred target (no expression): the parser's invalid syntax
        types = self._expression(tokens[start].start, tokens[named - 1].end)
        target = self._expression(tokens[named + 1].start, tokens[colon - 1].end)
        if types is not None and target is None:
            # 3.14's rule reads an expression there: its own error in it, if it has one.
            failed = self._list_fails(tokens, named + 1, [], colon)
            if failed is not None and failed.msg != INVALID:
                self.errors.append(failed)
        if types is None or target is None:
            return
        kind = _expression_name(target)
        row, end_row = target.lineno, target.end_lineno
        position = (row, self._char_col(row, target.col_offset) + 1,
                    end_row, self._char_col(end_row, target.end_col_offset) + 1)
        problem = Problem(TARGET.format(kind), position, self._line(row))
        # 3.14's rule also reads the clause's block: when that fails, its parser's error
        # is where a name was wanted after `as`.
        wanted = tokens[named + 2] if _is_name(tokens[named + 1]) else tokens[named + 1]
        problem.at_star = Problem(INVALID, self._token_position(wanted), self._line(wanted.start[0]))
        if tokens[named + 1].start[0] == tokens[colon - 1].end[0]:
            self.targets[id(problem)] = (tokens[named + 1].start, tokens[colon - 1].end,
                                         _block_rows(tokens, colon, tokens[start - 2].start[1], len(self.lines)))
        self.errors.append(problem)

    def _expression(self, begin: "Key", end: "Key", tuples: bool = False) -> "Any":
        """The text from ``begin`` to ``end`` parsed alone as one expression in place (its
        nodes' positions are the file's), or None when it is not one (``tuples``: or a tuple
        without parentheses, the grammar's ``expressions``)."""
        import ast

        (row, col), (end_row, end_col) = begin, end
        if not (0 < row <= end_row <= len(self.lines)) or (row, col) >= (end_row, end_col):
            return None
        part = self.lines[row - 1:end_row]
        part[-1] = part[-1][:end_col]
        # As many spaces as the line's bytes before: the nodes' offsets are the file's.
        part[0] = " " * self._byte_col(row, col) + part[0][col:]
        text = "\n" * (row - 2) + "(\n" + "".join(part) + "\n)" if row > 1 else "(" + "".join(part) + "\n)"
        try:
            node = _builtin_compile(text, "<types>", "eval", _PyCF_ONLY_AST, True).body
        except (SyntaxError, ValueError):
            return None
        if row == 1:
            # Parsed after the "(" that starts the line: one column further right.
            inner: Any
            for inner in ast.walk(node):
                if getattr(inner, "lineno", 0) == 1:
                    inner.col_offset -= 1
                if getattr(inner, "end_lineno", 0) == 1:
                    inner.end_col_offset -= 1
        if tuples and isinstance(node, ast.Tuple):
            return node  # (its place is that of the parentheses added)
        if (node.lineno, node.col_offset) < (row, len(self.lines[row - 1][:col].encode("utf-8"))):
            return None  # the parentheses made it one (a generator without its own)
        if type(node).__name__ in ("Yield", "YieldFrom", "NamedExpr", "Starred") \
                and self._line(row)[col:col + 1] != "(":
            return None  # an expression only inside brackets
        return node if tuples or not isinstance(node, ast.Tuple) or self._line(row)[col:col + 1] == "(" else None

    def _char_col(self, row: int, byte_col: int) -> int:
        return len(self._line(row).encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def _token_position(self, tok: "Any") -> "Tuple[int, int, int, int]":
        """Where 3.14 puts an error at ``tok``; a NEWLINE token starts at its line's comment
        and ends past the newline."""
        import tokenize

        (row, col), (end_row, end_col) = tok.start, tok.end
        if tok.type == tokenize.NEWLINE:
            col = self.comments.get(row, col)
            end_col = tok.start[1] + 1
        return row, col + 1, end_row, end_col + 1

    def _unclosed_in_clause(self, tokens: "List[Any]") -> None:
        """A bracket left open to the end of the file in the target of a starred clause
        (``except* T as {...``): 3.14's rule for a target that is no name reads an
        expression there, and when that reading goes past the bracket's line, the
        bracket was never closed.  (Elsewhere the running parser reads as 3.14's does.)"""
        import tokenize

        stack: List[Any] = []
        in_clause = False  # in a starred clause's header
        target = None  # the token after its `as`
        for index, tok in enumerate(tokens):
            if tok.type == tokenize.NEWLINE:
                in_clause, target = False, None
            elif tok.string == "*" and not stack and index and tokens[index - 1].string == "except":
                in_clause = True
            elif tok.string == "as" and not stack and in_clause and index + 1 < len(tokens):
                target = tokens[index + 1]
            elif _bracket(tok) > 0:
                stack.append((tok, target))
            elif _bracket(tok) < 0 and stack:
                stack.pop()
        if not stack or stack[-1][1] is None:
            return
        bracket, target = stack[-1]
        (row, col), (target_row, target_col) = bracket.start, target.start
        try:
            _builtin_compile(self.text[self._offset(target_row) + target_col:], "<target>", "eval",
                             _PyCF_ONLY_AST, True)
        except SyntaxError as reading:
            if (reading.lineno or 0) <= row - target_row + 1 and "was never closed" not in (reading.msg or ""):
                return  # the reading stopped on the bracket's line
        except ValueError:
            return
        self.errors.append(Problem(NEVER_CLOSED.format(bracket.string), (row, col + 1, row, 0),
                                   self._line(row).rstrip("\r\n"), (target_row, target_col + 1)))


def _block_rows(tokens: "List[Any]", colon: int, column: int, last_row: int) -> "Tuple[int, int]":
    """The lines of the block after the clause header ending at ``colon`` (its ``except`` at ``column``)."""
    import tokenize

    row = tokens[colon].start[0]
    if colon + 1 < len(tokens) and tokens[colon + 1].type != tokenize.NEWLINE:
        return row, row  # on the header's line
    for at in range(colon + 2, len(tokens)):
        if tokens[at - 1].type == tokenize.NEWLINE and tokens[at].start[1] <= column \
                and tokens[at].type != tokenize.ENDMARKER:
            # No block at all: its error is at the next statement.
            return row, tokens[at].start[0] - (at > colon + 2)
    return row, last_row


def _is_name(tok: "Any") -> bool:
    """Whether ``tok`` is the grammar's NAME: an identifier, not a keyword (soft keywords are names)."""
    import keyword

    return tok.string.isidentifier() and not keyword.iskeyword(tok.string)


# _PyPegen_get_expr_name's words for the node kinds that can follow `as`.
_EXPRESSION_NAMES = {
    "Attribute": "attribute", "Subscript": "subscript", "Starred": "starred", "Name": "name",
    "List": "list", "Tuple": "tuple", "Lambda": "lambda", "Call": "function call",
    "BoolOp": "expression", "BinOp": "expression", "UnaryOp": "expression",
    "GeneratorExp": "generator expression", "Yield": "yield expression",
    "YieldFrom": "yield expression", "Await": "await expression", "ListComp": "list comprehension",
    "SetComp": "set comprehension", "DictComp": "dict comprehension", "Dict": "dict literal",
    "Set": "set display", "JoinedStr": "f-string expression", "FormattedValue": "f-string expression",
    "TemplateStr": "t-string expression", "Compare": "comparison", "IfExp": "conditional expression",
    "NamedExpr": "named expression",
}


def _expression_name(node: "Any") -> str:
    kind = type(node).__name__
    if kind == "Constant":
        value = node.value
        if value is None or value is True or value is False:
            return str(value)
        return "ellipsis" if value is ... else "literal"
    return _EXPRESSION_NAMES.get(kind, "expression")


def _bracket(tok: "Any") -> int:
    """1 for an opening bracket token, -1 for a closing one, else 0."""
    import tokenize

    if tok.type != tokenize.OP:
        return 0
    return 1 if tok.string in "([{" else -1 if tok.string in ")]}" else 0


def _expression_start(tokens: "List[Any]", start: int) -> "Key":
    """Where the AST puts the first type: inside the parentheses if it is just parenthesized
    (a tuple's or a generator expression's own parentheses are part of it)."""
    while tokens[start].string == "(":
        depth = 0
        makes_own_node = start + 1 < len(tokens) and tokens[start + 1].string == ")"
        for index in range(start, len(tokens)):
            depth += _bracket(tokens[index])
            if depth == 0:
                break
            if depth == 1 and tokens[index].string in (",", "for") and index > start:
                makes_own_node = True
        if makes_own_node or tokens[index + 1].string not in (",", ":", "as"):
            break
        start += 1
    return tokens[start].start  # type: ignore[no-any-return]


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

