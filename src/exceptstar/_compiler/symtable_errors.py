"""The errors CPython 3.14+ give from their symbol table, for a module compiled on 3.8-3.10.

3.14 moved the checks of ``await``, ``async with``, ``async for`` and
asynchronous comprehensions outside coroutines, and of ``__debug__`` as a
target, from the code generator into the symbol table, which runs before the
code generator: such an error comes before every error of the code generator
(``'break' outside loop``, the ``except*`` block's flow), in the order the
symbol table visits the tree, among its own errors (``nonlocal``, duplicate
parameters).  ``first_error`` gives the one 3.14+ raise first at that stage:
the running symbol table's (its words made 3.15's) or one of those checks.
Only asked when an error is raised anyway, so it costs nothing otherwise.
PyPy has no ``symtable`` (no ``_symtable``): there the running symbol table's
error is told apart from the code generator's in a native compile by its words.
"""

import builtins
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast
    from typing import Any, List, Optional, Tuple

    Found = Tuple[Tuple[int, int], str, Any]

_PYPY = sys.implementation.name == "pypy"
# The running compiler's words where 3.15's differ (PyPy's code generator has words of its own).
_NEWER_WORDS = (("duplicate argument ", "duplicate parameter "),) + ((
    ("return outside function", "'return' outside function"),
    ("'break' not properly in loop", "'break' outside loop"),
    ("__future__ statements must appear at beginning of file",
     "from __future__ imports must occur at the beginning of the file"),
    ("named arguments must follow bare *", "named parameters must follow bare *"),
) if _PYPY else ())
# PyPy's code generator places these at the node's column counted from 0 (3.15: from 1).
_PYPY_COLUMN_FROM_0 = ("'return' outside function", "'yield' outside function", "'await' outside function",
                       "'yield from' inside async function", "'return' with value in async generator")
# What 3.14's symbol table rejects in an annotation.
_IN_ANNOTATION = {"Await": "await expression", "Yield": "yield expression", "YieldFrom": "yield expression",
                  "NamedExpr": "named expression"}
# The running symbol table's errors that it gives after its visit of the tree (as 3.14's).
_AFTER_VISIT = ("no binding for nonlocal ", "nonlocal declaration not allowed at module level")
# Errors of the future statement's pass, which runs before the symbol table.
_FUTURE = ("from __future__ imports must occur", "future feature ", "not a chance",
           "__future__ statements must appear")  # PyPy's words
# The symbol table's own errors (3.8-3.10's, PyPy's the same words): on PyPy, a
# native compile's error is the symbol table's when it is one of these.
_SYMBOL_TABLE = (
    r"name '.*' is (parameter and (global|nonlocal)|nonlocal and global"
    r"|assigned to before (global|nonlocal) declaration|used prior to (global|nonlocal) declaration)"
    r"|annotated name '.*' can't be (global|nonlocal)|no binding for nonlocal '.*' found"
    r"|nonlocal declaration not allowed at module level|duplicate argument '.*' in function definition"
    r"|import \* only allowed at module level|'yield' inside .*"
    r"|assignment expression (cannot be used in a comprehension iterable expression"
    r"|cannot rebind comprehension iteration variable '.*'|within a comprehension cannot be used in a class body)"
    r"|comprehension inner loop cannot rebind assignment expression target '.*'"
)


def newest_words(error: SyntaxError) -> SyntaxError:
    """``error`` in 3.15's words (in place)."""
    for old, new in _NEWER_WORDS:
        if error.msg and error.msg.startswith(old):
            error.msg = new + error.msg[len(old):]
            error.args = (error.msg, *error.args[1:])
    if _PYPY and error.msg in _PYPY_COLUMN_FROM_0 and error.offset is not None and len(error.args) == 2:
        error.offset += 1
        error.args = (error.msg, (*error.args[1][:2], error.offset, *error.args[1][3:]))
    return error


def from_future(error: SyntaxError) -> bool:
    """Whether ``error`` is the future statement's pass's, which runs before every other."""
    return (error.msg or "").startswith(_FUTURE)


def first_error(tree: "ast.AST", rewritten: str, filename: str, mode: str) -> "Optional[SyntaxError]":
    """The first error of 3.14+'s passes before the code generator for ``tree`` (the
    checked tree of ``rewritten``, the source as the running parser reads it), or None."""
    running = None
    try:
        _symbol_table(rewritten, filename, mode)
    except SyntaxError as error:
        running = newest_words(error)
    walk = _Walk()
    walk.body(getattr(tree, "body", []))
    if walk.found is None:
        return running
    where, msg, node = walk.found
    if running is not None and not running.msg.startswith(_AFTER_VISIT) \
            and (running.lineno or 0, running.offset or 0) <= where:
        return running
    details: Tuple[Any, ...] = (filename, node.lineno, node.col_offset + 1, None)
    if sys.version_info >= (3, 10):
        details += (node.end_lineno, node.end_col_offset + 1)
    return SyntaxError(msg, details)


def _symbol_table(source: str, filename: str, mode: str) -> None:
    """Raises the running symbol table's first error for ``source``, if any."""
    try:
        import symtable
    except ImportError:  # PyPy
        import re

        try:
            builtins.compile(source, filename, mode, 0, True)
        except SyntaxError as error:
            if re.fullmatch(_SYMBOL_TABLE, error.msg or ""):
                raise
        return
    symtable.symtable(source, filename, mode)


class _Walk:
    """3.14's symbol-table visit, for the checks it took from the code generator; stops at the first."""

    def __init__(self) -> None:
        self.found: Optional[Found] = None
        # The scopes entered: (kind, async), kind "module", "class", "function" or "comprehension".
        self.scopes: List[Tuple[str, bool]] = [("module", False)]

    def fail(self, msg: str, node: "Any") -> None:
        if self.found is None:
            self.found = ((node.lineno, node.col_offset + 1), msg, node)

    def body(self, statements: "List[Any]") -> None:
        for node in statements:
            if self.found is not None:
                return
            self.statement(node)

    def statement(self, node: "Any") -> None:
        kind = type(node).__name__
        if kind in ("FunctionDef", "AsyncFunctionDef"):
            self.arguments_outside(node.args)
            self.expressions(node.decorator_list)
            self.annotations([node.returns])
            self.scoped(("function", kind == "AsyncFunctionDef"), node.args, node.body)
        elif kind == "AnnAssign":
            self.expression(node.target)
            self.annotations([node.annotation])
            self.expressions([node.value])
        elif kind == "ClassDef":
            self.expressions([*node.bases, *(keyword.value for keyword in node.keywords), *node.decorator_list])
            self.scopes.append(("class", False))
            self.body(node.body)
            self.scopes.pop()
        elif kind in ("AsyncWith", "AsyncFor") and not self.in_async_def():
            self.fail(f"'{'async with' if kind == 'AsyncWith' else 'async for'}' outside async function", node)
        else:
            import ast

            for _, value in ast.iter_fields(node):
                if isinstance(value, list):
                    if value and isinstance(value[0], ast.stmt):
                        self.body(value)
                    elif value and isinstance(value[0], ast.excepthandler):
                        for handler in value:
                            self.expressions([handler.type])
                            self.body(handler.body)
                    elif value and type(value[0]).__name__ == "match_case":
                        for case in value:
                            self.expressions([case.guard])
                            self.body(case.body)
                    else:
                        self.expressions([item for item in value if isinstance(item, (ast.expr, ast.withitem))])
                elif isinstance(value, ast.expr):
                    self.expression(value)

    def scoped(self, scope: "Tuple[str, bool]", args: "Any", body: "Any") -> None:
        self.scopes.append(scope)
        for arg in self.all_args(args):
            if arg.arg == "__debug__":
                self.fail("cannot assign to __debug__", arg)
        if isinstance(body, list):
            self.body(body)
        else:
            self.expression(body)
        self.scopes.pop()

    @staticmethod
    def all_args(args: "Any") -> "List[Any]":
        return [*getattr(args, "posonlyargs", []), *args.args, *([args.vararg] if args.vararg else []),
                *args.kwonlyargs, *([args.kwarg] if args.kwarg else [])]

    def arguments_outside(self, args: "Any") -> None:
        """What a function's signature evaluates where it is defined: defaults, then annotations."""
        self.expressions([*args.defaults, *args.kw_defaults])
        self.annotations([arg.annotation for arg in self.all_args(args)])

    def annotations(self, nodes: "List[Any]") -> None:
        """Annotations, each in a scope of its own (3.14): no coroutine, nor a comprehension."""
        self.scopes.append(("annotation", False))
        self.expressions(nodes)
        self.scopes.pop()

    def in_async_def(self) -> bool:
        return self.scopes[-1] == ("function", True)

    def expressions(self, nodes: "List[Any]") -> None:
        for node in nodes:
            if self.found is not None:
                return
            if node is not None:
                self.expression(node)

    def expression(self, node: "Any") -> None:
        import ast

        if self.found is not None:
            return
        if isinstance(node, ast.withitem):
            self.expressions([node.context_expr, node.optional_vars])
            return
        kind = type(node).__name__
        scope = self.scopes[-1][0]
        if scope == "annotation" and kind in _IN_ANNOTATION:
            self.fail(f"{_IN_ANNOTATION[kind]} cannot be used within an annotation", node)
        elif kind == "Await":
            if scope in ("module", "class"):
                self.fail("'await' outside function", node)
            elif scope == "function" and not self.in_async_def():
                self.fail("'await' outside async function", node)
            else:
                self.scopes[-1] = (scope, True)  # a comprehension that awaits is asynchronous
                self.expression(node.value)
        elif kind == "Lambda":
            self.arguments_outside(node.args)
            self.scoped(("function", False), node.args, node.body)
        elif kind in ("ListComp", "SetComp", "DictComp", "GeneratorExp"):
            self.comprehension(node, kind == "GeneratorExp")
        elif kind == "Name" and node.id == "__debug__" and type(node.ctx).__name__ in ("Store", "Del"):
            self.fail(f"cannot {'delete' if type(node.ctx).__name__ == 'Del' else 'assign to'} __debug__", node)
        else:
            for value in ast.iter_child_nodes(node):
                # Expressions, keywords, and 3.8's slices (not expressions there).
                self.expression(value.value if isinstance(value, ast.keyword) else value)

    def comprehension(self, node: "Any", is_generator: bool) -> None:
        """Its first iterable where it is written; the rest in its own scope, asynchronous
        when it awaits or has an ``async for``: outside a coroutine, an error, at the
        comprehension, unless it is a generator expression or in another comprehension."""
        generators = node.generators
        self.expression(generators[0].iter)
        self.scopes.append(("comprehension", bool(generators[0].is_async)))
        for index, generator in enumerate(generators):
            if generator.is_async:
                self.scopes[-1] = ("comprehension", True)
            self.expressions([generator.target, *([generator.iter] if index else []), *generator.ifs])
        self.expressions([node.key, node.value] if type(node).__name__ == "DictComp" else [node.elt])
        is_async = self.scopes.pop()[1] and not is_generator
        if self.found is not None or not is_async:
            return
        if not self.in_async_def() and self.scopes[-1][0] != "comprehension":
            self.fail("asynchronous comprehension outside of an asynchronous function", node)
        else:
            self.scopes[-1] = (self.scopes[-1][0], True) if self.scopes[-1][0] == "comprehension" else self.scopes[-1]
