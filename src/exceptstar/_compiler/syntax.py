"""The ``except*`` forms CPython rejects, found in a parsed tree, in the order 3.15 reports them.

``find_problems`` walks a parsed tree as the compiler does (break/continue/return
in an ``except*`` block, ``except`` mixed with ``except*``), after the token-level
problems (no types, unparenthesized types) that ``scan`` reads from the tokens;
each is a ``problem.Problem``.  ``check_tree`` raises the one CPython reports
first; ``problems`` lists them all (for ``python -m exceptstar check``).
"""

import builtins
import sys
from bisect import bisect_left

# Imported here, never while a tree is checked: an import hook that checks
# trees (pytest's, with the plugin) would be compiling it then, and fail.
from exceptstar._compiler.finally_flow import warn_flow_in_finally
from exceptstar._compiler.problem import INVALID, MIXED, Problem
from exceptstar._compiler.scan import Scan
from exceptstar._compiler.source import lines, mark, source_text

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Any, Dict, List, Optional, Tuple, Union

    from exceptstar._compiler.problem import Key

# What `check` says of such a clause (no error: 3.14 and exceptstar run it).
UNPARENTHESIZED_NOTE = ("note: exception types without parentheses (PEP 758) run on 3.8-3.10 with exceptstar "
                        "and on 3.14+; CPython 3.11-3.13 reject them: multiple exception types must be parenthesized")
FLOW = "'break', 'continue' and 'return' cannot appear in an except* block"

_builtin_compile = builtins.compile
_PyCF_ONLY_AST = 0x400


def before(error: "Problem", other: SyntaxError) -> bool:
    return error.order <= ((other.lineno or 0), (other.offset or 0))


def check_tree(tree: "ast.AST", stars: "Dict[Key, Key]", filename: str, text: "Optional[str]",
               parser_errors: "Optional[List[Problem]]" = None, rewritten: "Optional[str]" = None,
               mode: str = "exec", compiling: bool = False) -> None:
    """Raise the SyntaxError CPython raises first for ``except*`` misuse in ``tree``, if any.

    ``compiling``: the tree is about to become code, so PEP 765's warnings are
    given (before 3.11), where 3.14 gives them: after the parser's errors,
    before the compiler's.
    """
    found = find_problems(tree, stars, text, parser_errors or [])
    if found and found[0].msg != FLOW:
        raise found[0].exception(filename)
    if compiling and sys.version_info < (3, 11):
        # 3.11-3.13 give no such warning, and 3.14's compiler gives its own.
        warn_flow_in_finally(tree, filename)
    if not found:
        return
    first = found[0]
    if first.msg == FLOW and rewritten is not None:
        # An error of 3.14's code generator: the errors of the passes before it
        # (3.14's symbol table) come first, then its own earlier errors (here, the
        # rewritten source compiled natively).
        from exceptstar._compiler.symtable_errors import first_error, from_future, newest_words

        native = None
        try:
            _builtin_compile(rewritten, filename, mode, 0, True)
        except SyntaxError as error:
            native = error
        # Raised outside the handler: CPython's own errors have no context.
        if native is not None and from_future(native):
            raise native
        earlier = first_error(tree, rewritten, filename, mode)
        if earlier is not None:
            raise earlier
        if native is not None and not before(first, native):
            raise newest_words(native)
    raise first.exception(filename)


def find_problems(tree: "ast.AST", stars: "Dict[Key, Key]", text: "Optional[str]",
                  parser_errors: "Optional[List[Problem]]" = None) -> "List[Problem]":
    """Every ``except*`` misuse in ``tree``: the parser's first (in source order), then the compiler's."""
    finder = _ProblemFinder(stars, text)
    finder.statements(getattr(tree, "body", []), None, False)
    token_errors = parser_errors or []
    # 3.14's rule for a starred clause after plain ones needs the clause's
    # types to be one expression: with none (`except*:`) or unparenthesized
    # ones its parser stops at the star, and none of its own errors is given.
    mixed = []
    for error in finder.parser_errors:
        inside = [other for other in token_errors if error.order < other.order < error.clause_end]
        if not inside:
            mixed.append(error)
        elif error.at_star is not None:
            token_errors = [other for other in token_errors if other not in inside]
            mixed.append(error.at_star)
        # else a plain clause's list after starred ones: the error at its first type stands
    parsing = sorted([*token_errors, *mixed], key=lambda error: error.order)
    return parsing + finder.compiler_errors


class _ProblemFinder:
    """Walks statements as the compiler does, tracking what a break/continue/return would leave."""

    def __init__(self, stars: "Dict[Key, Key]", text: "Optional[str]") -> None:
        self.stars = stars
        self.text = text
        # Split only when a problem's line is read: a module has none, nearly always.
        self.lines: Optional[List[str]] = None
        self.parser_errors: List[Problem] = []
        self.compiler_errors: List[Problem] = []
        # The lines of the starred clauses (none known: a 3.11+ tree, walked whole).
        # Outside an except* block only a statement that holds one can hold a problem.
        self.rows = sorted({row for row, _ in stars}) if stars else None

    def _holds_no_star(self, node: "Any") -> bool:
        rows = self.rows
        if rows is None:
            return False
        first = bisect_left(rows, node.lineno)
        return first == len(rows) or rows[first] > (node.end_lineno or node.lineno)

    def _line(self, row: int) -> str:
        if self.lines is None:
            self.lines = lines(self.text) if self.text is not None else []
        return self.lines[row - 1] if 0 < row <= len(self.lines) else ""

    def statements(self, body: "List[Any]", handler: "Optional[Tuple[bool, bool]]",
                   in_function: bool) -> None:
        """``handler``: None outside an except* block, else (inside a loop, position lost)."""
        for node in body:
            if handler is None and self._holds_no_star(node):
                continue
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
                    # CPython's compiler_return: the value's position only for a
                    # constant (after constant folding) that starts on the
                    # statement's line, else the statement's.
                    value = node.value
                    constant = value is not None and value.lineno == node.lineno and _folds_to_constant(value)
                    self._flow(value if constant else node, handler[1])
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
        problem = Problem(MIXED, (row, char_col + 1, row, end_col + 1), line or None)
        # Where this clause's header ends: its body's first statement.
        problem.clause_end = (odd.body[0].lineno, odd.body[0].col_offset + 1)
        if not first_is_star:
            star_row, past_star = self.stars.get((row, col), (row, char_col + len("except*")))
            star_line = self._line(star_row)
            problem.at_star = Problem(INVALID, (star_row, past_star, star_row, past_star + 1), star_line or None)
            if getattr(odd, "exceptstar_list", False):
                problem = problem.at_star
        self.parser_errors.append(problem)

    def _flow(self, node: "Any", lost: bool) -> None:
        if lost:
            position = (-1, 0, -1, 0)
        else:
            # A compiler error: its offsets count UTF-8 bytes, as the AST's do
            # (the parser's own errors count characters).
            position = (node.lineno, node.col_offset + 1, node.end_lineno, node.end_col_offset + 1)
        self.compiler_errors.append(
            Problem(FLOW, position, None, (node.lineno, node.col_offset + 1))
        )


def _folds_to_constant(node: "Any") -> bool:
    """Whether CPython 3.14's AST optimizer gives ``node`` as a constant to the compiler.

    Literals and ``__debug__`` only: 3.14 folds operators, tuples and
    subscripts of constants later, in the code generator (3.11-3.13 folded
    them in the AST, and reported a ``return -1`` at the ``-1``).
    """
    kind = type(node).__name__
    if kind == "Constant":
        return True
    return kind == "Name" and node.id == "__debug__"


def problems(source: "Union[str, bytes]", filename: str) -> "List[Problem]":
    """Every invalid ``except*`` use in ``source``, on any version, and a note
    (``UNPARENTHESIZED_NOTE``) for each list of types without parentheses where no error is.
    A syntax error of another kind loses the tree: the tokenizer's problems, then that error."""
    text = source_text(source, filename)
    scan = Scan(text)
    notes = [Problem(UNPARENTHESIZED_NOTE, (row, col + 1, row, col + 1), None)
             for (row, _), ((_, col), _) in scan.lists.items()]
    try:
        tree = _builtin_compile(scan.rewritten, filename, "exec", _PyCF_ONLY_AST, True)
    except SyntaxError as error:
        scan.restore_text(error)
        position = (error.lineno or 0, error.offset or 0, 0, 0)
        return [*scan.errors, Problem(f"{type(error).__name__}: {error.msg}", position, error.text), *notes]
    mark(tree, scan.stars, scan.tuples())
    found = find_problems(tree, scan.stars, text, scan.errors)
    return [*found, *(note for note in notes if all(problem.line != note.line for problem in found))]
