"""The tokenizer's view of a file that may use ``except*``, and the SyntaxError it ends in.

``Scan`` reads the tokens: where the starred handlers are, the source with
their stars blanked (and lists of types joined) for the running parser, and
the errors of 3.15's parser rules that the running one cannot give: each
starred header's (``clause_rules``), a ``try`` mixing starred and plain
clauses by their headers alone, a plain clause's list of types beside starred
ones, a bracket left open in a clause's target.  ``settle`` decides between
the running parser's error and ours, as 3.15 orders and words them (an error
of its tokenizer anywhere overrides its parser's); ``restore_text`` gives the
running parser's error the user's line and 3.15's words.
"""

import builtins
import sys
from collections import deque
from itertools import compress
from operator import attrgetter, not_

from exceptstar._compiler.clause_rules import ClauseRules, bracket_step, expression_start, is_name
from exceptstar._compiler.problem import INVALID, MIXED, NEVER_CLOSED, NOT_PARENTHESIZED_AS, Problem
from exceptstar._compiler.source import lines, tokenizer_lines

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, Iterator, List, Optional, Tuple

    from exceptstar._compiler.problem import Key

_builtin_compile = builtins.compile
_PyCF_ONLY_AST = 0x400
_type_of = attrgetter("type")
_string_of = attrgetter("string")

# The running tokenizer's errors: an error of 3.14's tokenizer anywhere overrides its parser's.
_TOKENIZER_ERRORS = ("unexpected character after line continuation character", "unterminated ", "unmatched '",
                     "closing parenthesis ", "invalid decimal literal", "invalid hexadecimal literal",
                     "invalid octal literal", "invalid binary literal", "invalid digit ", "invalid character ",
                     "invalid non-printable character ", "EOL while scanning", "EOF while scanning")


class Scan(ClauseRules):
    """The tokenizer's view: where the starred handlers are, and what the parser must reject."""

    def __init__(self, text: str) -> None:
        import tokenize

        super().__init__(text)
        # (line, byte column of `except`) -> (line, character column just past the `*`)
        self.stars: Dict[Key, Key] = {}
        # The line of the first token after a starred clause's header -> its column, the clause.
        self.bodies: Dict[int, Tuple[int, Key]] = {}
        self.ends_file: Optional[Tuple[Key, Key]] = None  # the header's NEWLINE, the clause
        self.unclosed: Optional[Any] = None  # the innermost bracket open at the end of the file
        # The mixed clauses' errors of 3.14's rule for a try whose parse fails after them.
        self.mixed: List[Problem] = []
        edits: List[Tuple[int, int, str]] = []
        # Every token, then those the rules read, and their types and strings: C loops (map, compress, list.index)
        # over the file's tokens, Python turns only per line or per `except` (tokenize's own cost is the floor).
        read: List[Any] = []
        open_at_end = False
        try:
            deque(map(read.append, tokenize.generate_tokens(iter(tokenizer_lines(self.lines)).__next__)), 0)
        except (tokenize.TokenError, SyntaxError) as failure:
            # The parser reports it, in the interpreter's own words; what was read
            # so far still counts (incomplete input at an interactive prompt).
            open_at_end = "statement" in str(failure)
        read_types = [*map(_type_of, read)]
        for at in _indices(read_types, tokenize.COMMENT):
            row, col = read[at].start
            self.comments[row] = col
        kept = [*map(not_, map({tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}.__contains__,
                               read_types))]
        tokens = [*compress(read, kept)]
        types = [*compress(read_types, kept)]
        strings = [*map(_string_of, tokens)]
        # The line-initial tokens: the first, and each after a NEWLINE.
        starts = [0, *compress(range(1, len(tokens)), map(tokenize.NEWLINE.__eq__, types))] if tokens else []
        excepts = [at for at in _indices(strings, "except") if at + 1 < len(tokens) and strings[at + 1] == "*"]
        # Where a starred clause's `except` follows `try:` on its line: 3.14's rules read it as the try's
        # clause, and give its own error. -> the try's column, the header's last line, and where its colon
        # is when the block starts on a line of its own.
        self.after_try: Dict[Key, Tuple[int, int, Optional[Key]]] = {}
        for index in excepts:
            row, col = tokens[index].start
            try:  # the header's NEWLINE
                newline = types.index(tokenize.NEWLINE, index, len(tokens) - 1)
            except ValueError:
                newline = 0
            if index > 1 and strings[index - 1] == ":" and strings[index - 2] == "try" \
                    and tokens[index - 2].start[0] == row:
                last = tokens[newline - 1] if newline else tokens[index]
                self.after_try[(row, col + 1)] = (
                    tokens[index - 2].start[1], last.start[0], last.start if last.string == ":" else None)
            if types[index] != tokenize.NAME:
                continue
            star = tokens[index + 1]
            key = (row, self._byte_col(row, col))
            self.stars[key] = star.end
            edits.append((star.start[0], star.start[1], " "))
            self._check_types(tokens, index + 2, edits, key)
            body = newline + 1 if newline else 0
            if body and types[body] == tokenize.ENDMARKER:
                # No block before the end of the file: the error is past the header's end.
                self.ends_file = (tokens[body - 1].start, key)
            elif body:
                self.bodies[tokens[body].start[0]] = (tokens[body].start[1], key)
        self._plain_lists_beside_stars(tokens, edits, starts)
        if open_at_end:
            self._unclosed_in_clause(tokens)
            depth = 0
            for tok in reversed(tokens):
                depth += bracket_step(tok)
                if depth > 0:
                    self.unclosed = tok
                    break
        self._mixed_clauses(tokens, starts)
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
                     or (at in self.after_try and at[0] <= ours[0].line <= self.after_try[at][1])):
            # (3.14 reads a starred clause right after `try:` on its line as one of the try's,
            # and takes the mixed clauses' rule only after complete clauses.)
            first: Optional[Problem] = ours[0]
            if id(first) in self.targets:
                first = self._target_or_block(ours[0])
            if first is not None and not (error.msg or "").startswith(_TOKENIZER_ERRORS):
                tokenizers = self._tokenizer_error(filename)
                if tokenizers is None:
                    return first.exception(filename)
                error = tokenizers
        elif at in self.after_try:
            missing = self._missing_block(at)
            if missing is not None:
                return missing.exception(filename)
        self.restore_text(error)
        if error.msg.startswith("expected an indented block") and not isinstance(error, IndentationError):
            return IndentationError(*error.args)
        return error

    def _missing_block(self, at: "Key") -> "Optional[Problem]":
        """3.14's error for a starred clause after ``try:`` on its line whose block is missing (it reads
        the clause as the try's, then the block), else None: the running parser's error stands."""
        try_col, _, colon = self.after_try[at]
        if colon is None:
            return None  # the block on the header's line: the parser's error
        probe = self._block_probe(at[0], try_col, colon)
        if probe is None or not probe.msg.startswith("expected an indented block"):
            return None
        clause_row = at[0]
        plain = (clause_row, self._byte_col(clause_row, at[1] - 1)) not in self.lists
        return _missing_block(f" after 'except*' statement on line {clause_row}" if plain else "", probe)

    def _block_probe(self, row: int, try_col: int, colon: "Key",
                     lines_in: "Optional[List[str]]" = None) -> "Optional[Problem]":
        """The running parser's error reading the block of a ``try: except*`` header from line ``row`` to its
        colon under ``if _:`` in the header's place (on the colon's line, columns kept); None when it parses."""
        probe = list(lines_in if lines_in is not None else lines(self.rewritten))
        colon_row, colon_col = colon
        if colon_col < try_col + 4:
            return None  # no room for the `if` before the colon
        line = probe[colon_row - 1]
        probe[row - 1:colon_row] = ["\n"] * (colon_row - row) + [
            probe[row - 1][:try_col] + "if _" + " " * (colon_col - try_col - 4) + line[colon_col:]]
        try:
            _builtin_compile("".join(probe), "<probe>", "exec", _PyCF_ONLY_AST, True)
        except SyntaxError as error:
            return Problem(error.msg, _position(error), self._line(error.lineno or 0))
        except ValueError:
            pass
        return None

    def _target_or_block(self, problem: Problem) -> "Optional[Problem]":
        """An invalid target's error, or, when its clause's block does not parse either,
        3.14's parser's at the target (the block's own when it has its own words); None
        for the running parser's own error (a clause after ``try:`` on its line)."""
        (row, col), (_, end_col), (first, last), (clause_row, clause_col) = self.targets[id(problem)]
        probe = list(lines(self.rewritten))
        line = probe[row - 1]
        probe[row - 1] = line[:col] + "_" + " " * (end_col - col - 1) + line[end_col:]
        if (clause_row, clause_col + 1) in self.after_try:
            # `try: except* T as X:`: 3.14 reads the clause as the try's, with no block before it.
            error = self._block_probe(clause_row, self.after_try[(clause_row, clause_col + 1)][0], (row, end_col),
                                      probe)
            if error is None or not first <= error.line <= last:
                return problem
            if error.msg.startswith("expected an indented block"):
                return _missing_block("", error)
            return None  # 3.14's parser fails at the starred `except` itself, as the running one does
        try:
            _builtin_compile("".join(probe), "<probe>", "exec", _PyCF_ONLY_AST, True)
        except SyntaxError as error:
            if first <= (error.lineno or 0) <= last and problem.at_star is not None:
                if error.msg.startswith("expected an indented block"):
                    # (3.14's rule reads a block there, which names no statement.)
                    return _missing_block("", Problem(error.msg, _position(error), self._line(error.lineno or 0)))
                if error.msg != INVALID:
                    return Problem(error.msg, _position(error), error.text)
                return problem.at_star
        except ValueError:
            pass
        return problem

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

    def _mixed_clauses(self, tokens: "List[Any]", line_starts: "List[int]") -> None:
        """3.14's rule for a ``try`` whose clauses are starred and plain, by their headers alone
        (a starred clause after plain ones with one expression for its types, or a plain one
        after starred ones): the error when the parse fails later, even in the odd clause's block."""
        import tokenize

        starts = [index for index in line_starts if tokens[index].type != tokenize.ENDMARKER]
        for position, index in enumerate(starts):
            if tokens[index].string != "try" or index + 1 >= len(tokens) or tokens[index + 1].string != ":":
                continue
            column = tokens[index].start[1]
            kinds: List[bool] = []
            for later in range(position + 1, len(starts)):  # not a slice: a try's clauses end soon after it
                clause = starts[later]
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
            depth += bracket_step(tok)
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
        if named and not (named + 2 == end and is_name(tokens[named + 1])):
            return
        if last == begin:
            if star:
                return  # `except*:` (no types), the token scan's own error
        elif self._expression(tokens[begin].start, tokens[last - 1].end) is None:
            return
        row, col = tokens[clause].start
        end_col = tokens[clause + 1].end[1] if star else col + len("except")
        self.mixed.append(Problem(MIXED, (row, col + 1, row, end_col + 1), self._line(row)))

    def _plain_lists_beside_stars(self, tokens: "List[Any]", edits: "List[Tuple[int, int, str]]",
                                  starts: "List[int]") -> None:
        """A plain clause's unparenthesized types (PEP 758) in a ``try`` with starred clauses:
        after one, 3.14's "invalid syntax" at the first type; before, the mixed clauses'
        error.  (Alone, the running parser's to judge.)  A ``try``'s clauses: line-initial
        tokens at its ``except``'s column, none at or left of it between them.  Commas
        are edited as ``_check_types`` does, so that the file still parses.
        """
        import tokenize

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
                depth += bracket_step(tokens[end])
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
                (row, col), (end_row, end_col) = expression_start(tokens, index + 1), tokens[end].start
                self.errors.append(Problem(NOT_PARENTHESIZED_AS, (row, col + 1, end_row, end_col + 1),
                                           self._line(row)))

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
            elif bracket_step(tok) > 0:
                stack.append((tok, target))
            elif bracket_step(tok) < 0 and stack:
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


def _indices(items: "List[Any]", item: object) -> "Iterator[int]":
    """Where ``item`` is in ``items``, in order: found by ``list.index``, a Python turn per find, not per item."""
    at = -1
    while True:
        try:
            at = items.index(item, at + 1)
        except ValueError:
            return
        yield at


def _position(error: SyntaxError) -> "Tuple[int, int, int, int]":
    """A SyntaxError's place as a ``Problem`` holds it (3.8 and 3.9 have no end)."""
    return error.lineno or 0, error.offset or 0, getattr(error, "end_lineno", 0), getattr(error, "end_offset", 0)


def _missing_block(after: str, probe: Problem) -> Problem:
    """3.14's IndentationError for a block its rule read and found missing, where ``probe`` found it."""
    missing = Problem("expected an indented block" + after, probe.position, probe.text)
    missing.error_class = IndentationError
    return missing
