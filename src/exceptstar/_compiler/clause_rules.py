"""The rules of a starred clause's header, read from its tokens as 3.15's parser reads it.

``ClauseRules`` holds what ``scan.Scan`` builds on: the source's lines and the
positions CPython gives (byte and character columns, a NEWLINE token's place),
a stretch of tokens parsed alone as one expression in place, and the checks of
one ``except*`` clause: no types (``except*:``), a list of types without
parentheses (PEP 758: a tuple for the rewrite, or 3.15's error where that
reading stops or when ``as`` names it), an invalid target after ``as``.
"""

import builtins
import sys

from exceptstar._compiler.problem import INVALID, NO_TYPES, NOT_PARENTHESIZED_AS, TARGET, Problem
from exceptstar._compiler.source import lines

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Optional, Tuple

    from exceptstar._compiler.problem import Key

_builtin_compile = builtins.compile
_PyCF_ONLY_AST = 0x400


class ClauseRules:
    """The clause checks ``Scan`` runs on each starred header, and the positions they report."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = lines(text)
        self.errors: List[Problem] = []
        # Starred clauses whose types are a list without parentheses (PEP 758, 3.14):
        # (line, byte column of `except`) -> the types as a tuple expression, parsed alone.
        self.lists: Dict[Key, Any] = {}
        # An invalid target's error -> the target's place, its clause's block's lines and where its `except` is.
        self.targets: Dict[int, Tuple[Key, Key, Tuple[int, int], Key]] = {}
        # Where each line's comment starts: 3.14's NEWLINE token starts there.
        self.comments: Dict[int, int] = {}

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
            if bracket_step(tok) > 0:
                depth += 1
            elif bracket_step(tok) < 0:
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
                        or not is_name(tokens[named + 1]) or named + 2 != index):
            # Not 3.14's rule for a list named with `as` (a type, a comma, types,
            # `as`, a name, the colon): the parser gives up at the `as`.
            tok = tokens[named]
            self.errors.append(Problem(INVALID, self._token_position(tok), self._line(tok.start[0])))
        elif named:
            row, col = expression_start(tokens, start)
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
        import tokenize

        if named + 2 == colon and is_name(tokens[named + 1]):
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
        # 3.14 quotes the line as its tokenizer holds it: past it (the block below), cut at its newline.
        text = self._line(row).rstrip("\r\n") + ("" if tokens[colon + 1].type == tokenize.NEWLINE else "\n")
        # Ordered from the target's first token, where the running parser fails (a parenthesis: before the name).
        start_row, start_col = tokens[named + 1].start
        problem = Problem(TARGET.format(kind), position, text, (start_row, start_col + 1))
        # 3.14's rule also reads the clause's block: when that fails, its parser's error
        # is where a name was wanted after `as`.
        wanted = tokens[named + 2] if is_name(tokens[named + 1]) else tokens[named + 1]
        problem.at_star = Problem(INVALID, self._token_position(wanted), self._line(wanted.start[0]))
        if tokens[named + 1].start[0] == tokens[colon - 1].end[0]:
            self.targets[id(problem)] = (tokens[named + 1].start, tokens[colon - 1].end,
                                         _block_rows(tokens, colon, tokens[start - 2].start[1], len(self.lines)),
                                         tokens[start - 2].start)
        self.errors.append(problem)

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

    def _token_position(self, tok: "Any") -> "Tuple[int, int, int, int]":
        """Where 3.14 puts an error at ``tok``; a NEWLINE token starts at its line's comment
        and ends past the newline."""
        import tokenize

        (row, col), (end_row, end_col) = tok.start, tok.end
        if tok.type == tokenize.NEWLINE:
            col = self.comments.get(row, col)
            end_col = tok.start[1] + 1
        return row, col + 1, end_row, end_col + 1

    def _offset(self, row: int) -> int:
        """Where line ``row`` starts in the text (its lines are ``lines``' and keep their ends)."""
        return sum(map(len, self.lines[:row - 1]))

    def _byte_col(self, row: int, col: int) -> int:
        return len(self.lines[row - 1][:col].encode("utf-8"))

    def _char_col(self, row: int, byte_col: int) -> int:
        return len(self._line(row).encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def _line(self, row: int) -> str:
        return self.lines[row - 1] if 0 < row <= len(self.lines) else ""


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


def is_name(tok: "Any") -> bool:
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


def bracket_step(tok: "Any") -> int:
    """1 for an opening bracket token, -1 for a closing one, else 0."""
    import tokenize

    if tok.type != tokenize.OP:
        return 0
    return 1 if tok.string in "([{" else -1 if tok.string in ")]}" else 0


def expression_start(tokens: "List[Any]", start: int) -> "Key":
    """Where the AST puts the first type: inside the parentheses if it is just parenthesized
    (a tuple's or a generator expression's own parentheses are part of it)."""
    while tokens[start].string == "(":
        depth = 0
        makes_own_node = start + 1 < len(tokens) and tokens[start + 1].string == ")"
        for index in range(start, len(tokens)):
            depth += bracket_step(tokens[index])
            if depth == 0:
                break
            if depth == 1 and tokens[index].string in (",", "for") and index > start:
                makes_own_node = True
        if makes_own_node or tokens[index + 1].string not in (",", ":", "as"):
            break
        start += 1
    return tokens[start].start  # type: ignore[no-any-return]
