"""3.11's ``ast.parse`` on 3.8-3.10, for the tools that read the user's source themselves.

coverage and Sphinx parse a module's source with ``ast.parse`` to analyse it
(statements and branches; attribute comments and definition order), and the
parser of 3.8-3.10 rejects ``except*``.  ``reader()`` is an ``ast`` module
for such a tool's modules to see in place of the real one: the same module
but for ``parse``, which reads ``except*`` through exceptstar (its SyntaxErrors
are CPython 3.13's) and gives the tree 3.11 gives: a ``TryStar`` node for
each starred ``try``, so that the tool's own code treats it as it treats
3.11's (a visitor method ``visit_TryStar``, or none).

``patch(module)`` gives a module that reads source only through
``ast.parse`` the reader: the standard library's ``inspect`` (an
``ON_INSTALL`` row: from 3.9 ``getsource`` of a class parses its whole
module), Sphinx's readers (``sphinx``).

``parse_at(...)`` is 3.11's ``ast.parse`` to the letter, for a type checker
that parses with a ``feature_version`` (mypy): ``except*`` is read at any
version, everything else at the version asked for, and only the parser's own
errors are raised (the compiler's, such as ``break`` in an ``except*`` block,
are the checker's to report, as at 3.11).
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from types import ModuleType
    from typing import Any, List, Optional

_made: "Optional[ModuleType]" = None

_PyCF_TYPE_COMMENTS = 0x1000


def patch(module: "ModuleType") -> None:
    """``module``'s global ``ast`` becomes ``reader()``."""
    module.ast = reader()  # type: ignore[attr-defined]


def reader() -> "ModuleType":
    """The ``ast`` module, but for a ``parse`` that reads ``except*`` and the ``TryStar`` node it gives."""
    global _made
    if _made is not None:
        return _made
    import ast
    from types import ModuleType

    class TryStar(ast.stmt):
        """3.11's node for a ``try`` with ``except*`` clauses."""

        _fields = ("body", "handlers", "orelse", "finalbody")

    def parse(source: "Any", filename: "Any" = "<unknown>", mode: str = "exec", *, type_comments: bool = False,
              feature_version: "Any" = None) -> "ast.AST":
        from exceptstar._compiler.source import has_except_star

        if mode != "exec" or feature_version is not None or not isinstance(source, (str, bytes)) \
                or not has_except_star(source):
            return ast.parse(source, filename, mode, type_comments=type_comments,
                             feature_version=feature_version)
        from exceptstar._compiler.transform import parse as parse_star

        tree = parse_star(source, filename, mode, _PyCF_TYPE_COMMENTS if type_comments else 0)
        _star_nodes(tree, TryStar)
        return tree

    made = ModuleType(ast.__name__, ast.__doc__)
    vars(made).update((key, value) for key, value in vars(ast).items() if not key.startswith("__"))
    made.parse = parse  # type: ignore[attr-defined]
    made.TryStar = TryStar  # type: ignore[attr-defined]
    _made = made
    return made


def parse_at(native_parse: "Any", source: "Any", filename: "Any" = "<unknown>", mode: str = "exec", *,
             type_comments: bool = False, feature_version: "Any" = None) -> "ast.AST":
    """``native_parse`` (the real ``ast.parse``), but ``except*`` parses at every
    ``feature_version`` and on every interpreter, giving ``TryStar`` nodes."""
    import ast

    from exceptstar._compiler.source import has_except_star

    version = feature_version[1] if isinstance(feature_version, tuple) else feature_version
    native_star = sys.version_info >= (3, 11) and (version is None or version < 0 or version >= 11)
    if mode != "exec" or native_star or not isinstance(source, (str, bytes)) or not has_except_star(source):
        return native_parse(source, filename, mode, type_comments=type_comments,  # type: ignore[no-any-return]
                            feature_version=feature_version)
    from exceptstar._compiler.scan import Scan
    from exceptstar._compiler.source import mark, quick_scan, source_text
    from exceptstar._compiler.syntax import FLOW, before, find_problems

    text = source_text(source, filename)

    def native(rewritten: str) -> "ast.AST":
        return native_parse(rewritten, filename, mode,  # type: ignore[no-any-return]
                            type_comments=type_comments, feature_version=feature_version)

    quick = quick_scan(text)
    tree = None
    errors: List[Any] = []
    if quick is not None:
        rewritten, stars = quick
        try:
            tree = native(rewritten)
        except SyntaxError:
            pass
        if tree is not None and mark(tree, stars) != len(stars):
            tree = None  # an except* look-alike in a string, or `except*:`: the tokenizer tells
    if tree is None:
        scan = Scan(text)
        stars, errors = scan.stars, list(scan.errors)
        try:
            tree = native(scan.rewritten)
        except SyntaxError as error:
            if errors and before(errors[0], error):
                raise errors[0].exception(filename) from None
            scan.restore_text(error)
            raise
        mark(tree, stars)
    parsing = [problem for problem in find_problems(tree, stars, text, errors) if problem.msg != FLOW]
    if parsing:
        raise parsing[0].exception(filename)
    _star_nodes(tree, getattr(ast, "TryStar", None) or reader().TryStar)
    return tree


def _star_nodes(tree: "ast.AST", try_star: "Any") -> None:
    """Every ``try`` whose handlers exceptstar marked as starred becomes a ``try_star``, in place.

    Statements are only in statement lists: those are walked, never the
    expressions, which are most of a tree's nodes.
    """
    import ast

    body = getattr(tree, "body", None)
    todo = [body] if type(body) is list else []
    while todo:
        statements = todo.pop()
        for index, node in enumerate(statements):
            for field in ("body", "orelse", "finalbody"):
                block = getattr(node, field, None)
                if type(block) is list:
                    todo.append(block)
            todo.extend(clause.body for clause in getattr(node, "handlers", ()))
            todo.extend(case.body for case in getattr(node, "cases", ()))
            if type(node) is ast.Try and any(getattr(h, "exceptstar_star", False) for h in node.handlers):
                statements[index] = ast.copy_location(
                    try_star(node.body, node.handlers, node.orelse, node.finalbody), node)
