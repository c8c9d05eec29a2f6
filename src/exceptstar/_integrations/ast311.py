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
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from types import ModuleType
    from typing import Any, Optional

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
