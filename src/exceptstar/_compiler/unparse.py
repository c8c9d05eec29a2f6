"""``unparse``: source text from a syntax tree, for ``show`` on Python 3.8.

3.8 has no ``ast.unparse``; ``show`` uses this module only there.  It writes
what 3.9's ``ast.unparse`` writes (4-space indentation, a blank line before
each ``def`` and ``class``, the same parentheses and quotes), so that ``show``
prints the same text on every version, and the text parses back into the
same tree.  It covers every tree 3.8's parser makes (``Index``/``ExtSlice``
subscripts included) and the 3.9 shapes (tuple subscripts).  One difference:
an unprintable character (a tab in bytes, say) in a literal inside an
f-string's ``{}`` is written as it is, where 3.9 escapes it and then refuses
(no backslash may go there before 3.12).
"""

import ast
import sys

from exceptstar._compiler.literals import ALL, BARE, LINES, QUOTES, TRIPLE, braces, escaped, quoted, string
from exceptstar._compiler.precedence import ATOM, BOR, CMP, OPERATORS, OR, TEST, TUPLE, YIELD, precedence

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Optional, Sequence, Union

_BRACKETS = {"ListComp": "[]", "SetComp": "{}", "GeneratorExp": "()"}

# An infinite float (``1e309`` parses as one) has a repr, ``inf``, that is no literal.
_INFINITY = "1e" + repr(sys.float_info.max_10_exp + 1)


def unparse(node: "ast.AST") -> str:
    """Python source for ``node`` (a module, a statement or an expression), as 3.9's ``ast.unparse``."""
    writer = _Unparser()
    text = writer.expr(node) if isinstance(node, ast.expr) else writer.visit(node)
    return "\n".join(writer.lines) if text is None else text


def _optional(node: "ast.AST", field: str) -> "Any":
    # Nodes built by hand (our rewrite's) may lack the fields they leave empty.
    return getattr(node, field, None)


class _Unparser:
    """Statements append lines to ``lines``; expressions are returned as text."""

    def __init__(self, in_fstring: bool = False) -> None:
        self.lines: List[str] = []
        self.indent = 0
        # Inside an f-string's {}: before 3.12 no backslash may appear there,
        # so strings pick their quotes instead of escaping them.
        self.in_fstring = in_fstring
        self.type_ignores: Dict[int, str] = {}

    def visit(self, node: "ast.AST") -> "Optional[str]":
        result: Optional[str] = getattr(self, "visit_" + type(node).__name__)(node)
        return result

    def expr(self, node: "ast.AST", context: int = TEST) -> str:
        text: str = getattr(self, "visit_" + type(node).__name__)(node)
        return f"({text})" if precedence(node) < context else text

    def exprs(self, nodes: "Sequence[ast.AST]", context: int = TEST) -> str:
        return ", ".join(self.expr(node, context) for node in nodes)

    # --- statements -------------------------------------------------------------

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def statements(self, nodes: "Sequence[ast.AST]") -> None:
        for node in nodes:
            self.visit(node)

    def block(self, header: str, body: "Sequence[ast.stmt]", comment: str = "",
              owner: "Optional[ast.AST]" = None) -> None:
        """``header:`` and the indented ``body``, led by the docstring of ``owner`` if it has one."""
        self.line(header + ":" + comment)
        self.indent += 1
        self.body(owner, body)
        self.indent -= 1

    def body(self, owner: "Optional[ast.AST]", body: "Sequence[ast.stmt]") -> None:
        first = body[0].value if body and isinstance(body[0], ast.Expr) else None
        if owner is not None and isinstance(first, ast.Constant) and isinstance(first.value, str):
            self.line(_prefix(first) + string(first.value, LINES, TRIPLE))
            body = body[1:]
        self.statements(body)

    def type_comment(self, node: "ast.AST") -> str:
        comment = self.type_ignores.get(_optional(node, "lineno")) or _optional(node, "type_comment")
        return "" if comment is None else f" # type: {comment}"

    def visit_Module(self, node: "ast.Module") -> None:
        self.type_ignores = {ignore.lineno: f"ignore{ignore.tag}" for ignore in node.type_ignores}
        self.body(node, node.body)

    def visit_Interactive(self, node: "ast.Interactive") -> None:
        self.statements(node.body)

    def visit_Expression(self, node: "ast.Expression") -> str:
        return self.expr(node.body)

    def visit_FunctionType(self, node: "ast.FunctionType") -> str:
        return f"({self.exprs(node.argtypes)}) -> {self.expr(node.returns)}"

    def visit_FunctionDef(self, node: "Union[ast.FunctionDef, ast.AsyncFunctionDef]", keyword: str = "def") -> None:
        self.decorators(node.decorator_list)
        header = f"{keyword} {node.name}({self.visit_arguments(node.args)})"
        returns = _optional(node, "returns")
        if returns is not None:
            header += " -> " + self.expr(returns)
        self.block(header, node.body, self.type_comment(node), node)

    def visit_AsyncFunctionDef(self, node: "ast.AsyncFunctionDef") -> None:
        self.visit_FunctionDef(node, "async def")

    def visit_ClassDef(self, node: "ast.ClassDef") -> None:
        self.decorators(node.decorator_list)
        bases = [self.expr(base) for base in node.bases] + [self.expr(word) for word in node.keywords]
        self.block(f"class {node.name}" + (f"({', '.join(bases)})" if bases else ""), node.body, owner=node)

    def decorators(self, decorators: "Sequence[ast.expr]") -> None:
        # A definition after anything else gets a blank line before it.
        if self.lines:
            self.lines.append("")
        for decorator in decorators:
            self.line("@" + self.expr(decorator))

    def visit_Return(self, node: "ast.Return") -> None:
        self.line(self.keyword_and("return", _optional(node, "value")))

    def keyword_and(self, keyword: str, value: "Optional[ast.expr]", context: int = TEST) -> str:
        return keyword if value is None else f"{keyword} {self.expr(value, context)}"

    def visit_Delete(self, node: "ast.Delete") -> None:
        self.line("del " + self.exprs(node.targets))

    def visit_Assign(self, node: "ast.Assign") -> None:
        targets = "".join(self.expr(target) + " = " for target in node.targets)
        self.line(targets + self.expr(node.value) + self.type_comment(node))

    def visit_AugAssign(self, node: "ast.AugAssign") -> None:
        operator = OPERATORS[type(node.op).__name__][0]
        self.line(f"{self.expr(node.target)} {operator}= {self.expr(node.value)}")

    def visit_AnnAssign(self, node: "ast.AnnAssign") -> None:
        target = self.expr(node.target)
        if not node.simple and isinstance(node.target, ast.Name):
            target = f"({target})"  # ``(x): int`` stays a non-simple target
        value = _optional(node, "value")
        self.line(f"{target}: {self.expr(node.annotation)}" + ("" if value is None else f" = {self.expr(value)}"))

    def visit_For(self, node: "Union[ast.For, ast.AsyncFor]", keyword: str = "for") -> None:
        header = f"{keyword} {self.expr(node.target)} in {self.expr(node.iter)}"
        self.block(header, node.body, self.type_comment(node))
        if node.orelse:
            self.block("else", node.orelse)

    def visit_AsyncFor(self, node: "ast.AsyncFor") -> None:
        self.visit_For(node, "async for")

    def visit_While(self, node: "ast.While") -> None:
        self.block("while " + self.expr(node.test), node.body)
        if node.orelse:
            self.block("else", node.orelse)

    def visit_If(self, node: "ast.If") -> None:
        self.block("if " + self.expr(node.test), node.body)
        # An else holding just an if is written, and parses back, as elif.
        while len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
            node = node.orelse[0]
            self.block("elif " + self.expr(node.test), node.body)
        if node.orelse:
            self.block("else", node.orelse)

    def visit_With(self, node: "Union[ast.With, ast.AsyncWith]", keyword: str = "with") -> None:
        self.block(f"{keyword} {self.exprs(node.items)}", node.body, self.type_comment(node))

    def visit_AsyncWith(self, node: "ast.AsyncWith") -> None:
        self.visit_With(node, "async with")

    def visit_withitem(self, node: "ast.withitem") -> str:
        names = _optional(node, "optional_vars")
        return self.expr(node.context_expr) + ("" if names is None else f" as {self.expr(names)}")

    def visit_Raise(self, node: "ast.Raise") -> None:
        text = self.keyword_and("raise", _optional(node, "exc"))
        cause = _optional(node, "cause")
        self.line(text if cause is None else f"{text} from {self.expr(cause)}")

    def visit_Try(self, node: "ast.Try") -> None:
        self.block("try", node.body)
        self.statements(node.handlers)
        if node.orelse:
            self.block("else", node.orelse)
        if node.finalbody:
            self.block("finally", node.finalbody)

    def visit_ExceptHandler(self, node: "ast.ExceptHandler") -> None:
        header = self.keyword_and("except", _optional(node, "type"))
        name = _optional(node, "name")
        self.block(header if name is None else f"{header} as {name}", node.body)

    def visit_Assert(self, node: "ast.Assert") -> None:
        message = _optional(node, "msg")
        self.line(f"assert {self.expr(node.test)}" + ("" if message is None else f", {self.expr(message)}"))

    def visit_Import(self, node: "ast.Import") -> None:
        self.line("import " + self.exprs(node.names))

    def visit_ImportFrom(self, node: "ast.ImportFrom") -> None:
        module = "." * (node.level or 0) + (node.module or "")
        self.line(f"from {module} import {self.exprs(node.names)}")

    def visit_alias(self, node: "ast.alias") -> str:
        return node.name if node.asname is None else f"{node.name} as {node.asname}"

    def visit_Global(self, node: "ast.Global") -> None:
        self.line("global " + ", ".join(node.names))

    def visit_Nonlocal(self, node: "ast.Nonlocal") -> None:
        self.line("nonlocal " + ", ".join(node.names))

    def visit_Expr(self, node: "ast.Expr") -> None:
        # A bare yield needs no parentheses as a statement.
        self.line(self.expr(node.value, YIELD))

    def visit_Pass(self, node: "ast.Pass") -> None:
        self.line("pass")

    def visit_Break(self, node: "ast.Break") -> None:
        self.line("break")

    def visit_Continue(self, node: "ast.Continue") -> None:
        self.line("continue")

    # --- expressions ------------------------------------------------------------

    def visit_BoolOp(self, node: "ast.BoolOp") -> str:
        text, level = OPERATORS[type(node.op).__name__]
        # 3.9 asks each operand for one level more than the one before it, up to an atom.
        return f" {text} ".join(self.expr(value, min(level + index, ATOM))
                                for index, value in enumerate(node.values, 1))

    def visit_BinOp(self, node: "ast.BinOp") -> str:
        text, level = OPERATORS[type(node.op).__name__]
        # The side that would regroup needs parentheses at the same level:
        # the right one, except for ** which groups from the right.
        left, right = (level + 1, level) if text == "**" else (level, level + 1)
        return f"{self.expr(node.left, left)} {text} {self.expr(node.right, right)}"

    def visit_UnaryOp(self, node: "ast.UnaryOp") -> str:
        text, level = OPERATORS[type(node.op).__name__]
        return ("not " if text == "not" else text) + self.expr(node.operand, level)

    def visit_Compare(self, node: "ast.Compare") -> str:
        parts = [self.expr(node.left, CMP + 1)]
        for op, value in zip(node.ops, node.comparators):
            parts += [OPERATORS[type(op).__name__][0], self.expr(value, CMP + 1)]
        return " ".join(parts)

    def visit_NamedExpr(self, node: "ast.NamedExpr") -> str:
        return f"{self.expr(node.target, ATOM)} := {self.expr(node.value, ATOM)}"

    def visit_Lambda(self, node: "ast.Lambda") -> str:
        # 3.9 writes "lambda : x" when there are no parameters.
        return f"lambda {self.visit_arguments(node.args)}: {self.expr(node.body)}"

    def visit_IfExp(self, node: "ast.IfExp") -> str:
        return f"{self.expr(node.body, OR)} if {self.expr(node.test, OR)} else {self.expr(node.orelse)}"

    def visit_Await(self, node: "ast.Await") -> str:
        return "await " + self.expr(node.value, ATOM)

    def visit_Yield(self, node: "ast.Yield") -> str:
        return self.keyword_and("yield", _optional(node, "value"), ATOM)

    def visit_YieldFrom(self, node: "ast.YieldFrom") -> str:
        return "yield from " + self.expr(node.value, ATOM)

    def visit_Starred(self, node: "ast.Starred") -> str:
        return "*" + self.expr(node.value, BOR)

    def visit_Name(self, node: "ast.Name") -> str:
        return node.id

    def visit_Attribute(self, node: "ast.Attribute") -> str:
        value = self.expr(node.value, ATOM)
        # ``1.real`` would read as the float ``1.``.
        space = isinstance(node.value, ast.Constant) and isinstance(node.value.value, int)
        return f"{value}{' ' if space else ''}.{node.attr}"

    def visit_Call(self, node: "ast.Call") -> str:
        return f"{self.expr(node.func, ATOM)}({self.exprs([*node.args, *node.keywords])})"

    def visit_keyword(self, node: "ast.keyword") -> str:
        return ("**" if node.arg is None else node.arg + "=") + self.expr(node.value)

    def visit_Subscript(self, node: "ast.Subscript") -> str:
        index: Any = node.slice
        if type(index).__name__ == "Index":  # 3.8 wraps a plain index
            index = index.value
        items = index.elts if isinstance(index, ast.Tuple) else None
        if type(index).__name__ == "ExtSlice":  # 3.8's a[1:2, 3]
            items = index.dims
        if items and not any(isinstance(item, ast.Starred) for item in items):
            text = self.items(items)  # a[1, 2:3] without the tuple's parentheses
        else:
            text = self.expr(index)
        return f"{self.expr(node.value, ATOM)}[{text}]"

    def visit_Index(self, node: "Any") -> str:
        return self.expr(node.value)

    def visit_Slice(self, node: "ast.Slice") -> str:
        lower, upper, step = (_optional(node, field) for field in ("lower", "upper", "step"))
        text = ("" if lower is None else self.expr(lower)) + ":" + ("" if upper is None else self.expr(upper))
        return text if step is None else f"{text}:{self.expr(step)}"

    def items(self, nodes: "Sequence[ast.AST]") -> str:
        # One item keeps its comma, so that it stays a tuple.
        return self.expr(nodes[0]) + "," if len(nodes) == 1 else self.exprs(nodes)

    def visit_Tuple(self, node: "ast.Tuple") -> str:
        return f"({self.items(node.elts)})" if node.elts else "()"

    def visit_List(self, node: "ast.List") -> str:
        return f"[{self.exprs(node.elts)}]"

    def visit_Set(self, node: "ast.Set") -> str:
        # {} is a dict: an empty set (from a hand-made tree) unpacks an empty tuple.
        return f"{{{self.exprs(node.elts)}}}" if node.elts else "{*()}"

    def visit_Dict(self, node: "ast.Dict") -> str:
        pairs = (f"**{self.expr(value, BOR)}" if key is None else f"{self.expr(key)}: {self.expr(value)}"
                 for key, value in zip(node.keys, node.values))
        return "{" + ", ".join(pairs) + "}"

    def visit_ListComp(self, node: "Union[ast.ListComp, ast.SetComp, ast.GeneratorExp]") -> str:
        # A generator expression brings its parentheses, even as the one argument of a call.
        brackets = _BRACKETS[type(node).__name__]
        return brackets[0] + self.expr(node.elt) + self.generators(node.generators) + brackets[1]

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node: "ast.DictComp") -> str:
        return f"{{{self.expr(node.key)}: {self.expr(node.value)}{self.generators(node.generators)}}}"

    def generators(self, generators: "Sequence[ast.comprehension]") -> str:
        return "".join(self.visit_comprehension(generator) for generator in generators)

    def visit_comprehension(self, node: "ast.comprehension") -> str:
        keyword = "async for" if node.is_async else "for"
        text = f" {keyword} {self.expr(node.target, TUPLE)} in {self.expr(node.iter, OR)}"
        return text + "".join(f" if {self.expr(test, OR)}" for test in node.ifs)

    def visit_arguments(self, node: "ast.arguments") -> str:
        positional = [*node.posonlyargs, *node.args]
        # The defaults belong to the last positional parameters.
        defaults: List[Optional[ast.expr]] = [*[None] * (len(positional) - len(node.defaults)), *node.defaults]
        parts = [self.parameter(arg, default) for arg, default in zip(positional, defaults)]
        if node.posonlyargs:
            parts.insert(len(node.posonlyargs), "/")
        vararg, kwarg = _optional(node, "vararg"), _optional(node, "kwarg")
        if vararg is not None or node.kwonlyargs:
            parts.append("*" + ("" if vararg is None else self.visit_arg(vararg)))
        parts += [self.parameter(arg, default) for arg, default in zip(node.kwonlyargs, node.kw_defaults)]
        if kwarg is not None:
            parts.append("**" + self.visit_arg(kwarg))
        return ", ".join(parts)

    def parameter(self, arg: "ast.arg", default: "Optional[ast.expr]") -> str:
        # 3.9 puts no spaces around "=", even after an annotation.
        return self.visit_arg(arg) + ("" if default is None else "=" + self.expr(default))

    def visit_arg(self, node: "ast.arg") -> str:
        annotation = _optional(node, "annotation")
        return node.arg if annotation is None else f"{node.arg}: {self.expr(annotation)}"

    def visit_Constant(self, node: "ast.Constant") -> str:
        value = node.value
        if value is ...:
            return "..."
        if self.in_fstring and isinstance(value, str):
            return _prefix(node) + string(value, BARE)
        if self.in_fstring and isinstance(value, bytes) and value.isascii():
            return "b" + string(value.decode("ascii"), BARE)  # a tab as it is, not repr's \t
        if isinstance(value, (float, complex)):
            return repr(value).replace("inf", _INFINITY)
        if isinstance(value, tuple):  # only in trees built by hand (or optimised)
            return self.visit_Tuple(ast.Tuple([ast.Constant(item) for item in value], ast.Load()))
        return _prefix(node) + repr(value)

    def visit_JoinedStr(self, node: "ast.JoinedStr") -> str:
        if self.in_fstring:
            # Inside another f-string's {}: one text, with no escapes.
            text = "".join(self.fstring_part(value, BARE) for value in node.values)
            body, quotes = quoted(text, text, QUOTES)
            return f"f{quotes[0]}{body}{quotes[0]}"
        # Each part rules out the quotes it holds.  The literal parts escape
        # newlines and tabs too; a field may hold none (3.8 allows no
        # backslash in its expression) and escapes only its format spec.
        pieces: List[str] = []
        fits: Sequence[str] = QUOTES
        for value in node.values:
            if isinstance(value, ast.Constant):
                text = braces(str(value.value))
                piece, fits = quoted(escaped(text, ALL), text, fits)
            else:
                # A field cannot hold every kind of quote: no need for its unescaped text.
                text = self.fstring_part(value, LINES)
                piece, fits = quoted(text, text, fits)
            pieces.append(piece)
        return f"f{fits[0]}{''.join(pieces)}{fits[0]}"

    def visit_FormattedValue(self, node: "ast.FormattedValue") -> str:
        # Only in hand-made trees: a replacement field alone.
        return self.visit_JoinedStr(ast.JoinedStr([node]))

    def fstring_part(self, node: "ast.AST", level: int) -> str:
        """One part of an f-string (literal text or a replacement field), escaped at ``level``, before quoting."""
        if isinstance(node, ast.Constant):
            return escaped(braces(str(node.value)), level)
        assert isinstance(node, ast.FormattedValue), node
        # Parenthesised below the level of a conditional, as 3.9 does (a
        # lambda's ":" would start the format spec).
        value = _Unparser(in_fstring=True).expr(node.value, OR)
        if "\\" in value:
            # Only from a hand-made tree (a NUL, say): before 3.12 no f-string can hold it.
            raise ValueError(f"a backslash would be needed in an f-string's expression: {value}")
        text = "{" + (" " if value.startswith("{") else "") + value  # "{{" would be a literal brace
        if node.conversion != -1:
            text += "!" + chr(node.conversion)
        spec = _optional(node, "format_spec")
        if isinstance(spec, ast.JoinedStr):
            text += ":" + "".join(self.fstring_part(part, level) for part in spec.values)
        return text + "}"


def _prefix(node: "ast.Constant") -> str:
    return "u" if _optional(node, "kind") == "u" else ""
