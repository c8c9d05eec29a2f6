"""How tightly each kind of expression binds, for ``unparse``'s parentheses (3.9's table)."""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import ast

# How tightly each kind of expression binds, loosest first.  An expression is
# parenthesised where its context asks for more than it binds with.
(TUPLE, YIELD, TEST, OR, AND, NOT, CMP, BOR, BXOR, BAND, SHIFT, ARITH, TERM, FACTOR, POWER, AWAIT,
 ATOM) = range(17)

# Operator node name -> (text, precedence of the expression it makes).
OPERATORS = {
    "Or": ("or", OR), "And": ("and", AND), "Not": ("not", NOT),
    "BitOr": ("|", BOR), "BitXor": ("^", BXOR), "BitAnd": ("&", BAND), "LShift": ("<<", SHIFT),
    "RShift": (">>", SHIFT), "Add": ("+", ARITH), "Sub": ("-", ARITH), "Mult": ("*", TERM),
    "MatMult": ("@", TERM), "Div": ("/", TERM), "Mod": ("%", TERM), "FloorDiv": ("//", TERM),
    "UAdd": ("+", FACTOR), "USub": ("-", FACTOR), "Invert": ("~", FACTOR), "Pow": ("**", POWER),
    "Eq": ("==", CMP), "NotEq": ("!=", CMP), "Lt": ("<", CMP), "LtE": ("<=", CMP), "Gt": (">", CMP),
    "GtE": (">=", CMP), "Is": ("is", CMP), "IsNot": ("is not", CMP), "In": ("in", CMP),
    "NotIn": ("not in", CMP),
}

# Expressions without an operator that bind more loosely than an atom.  A
# tuple writes its own parentheses (3.9 always does), so it counts as an atom.
BINDING = {"NamedExpr": TUPLE, "Yield": YIELD, "YieldFrom": YIELD, "Lambda": TEST, "IfExp": TEST,
               "Compare": CMP, "Await": AWAIT}


def precedence(node: "ast.AST") -> int:
    """How tightly ``node`` binds: its operator's precedence, else its kind's (an atom by default)."""
    op = getattr(node, "op", None)
    return OPERATORS[type(op).__name__][1] if op is not None else BINDING.get(type(node).__name__, ATOM)
