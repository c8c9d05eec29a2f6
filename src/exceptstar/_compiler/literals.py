"""How 3.9's ``ast.unparse`` writes string literals: quotes, escapes and braces (for ``unparse``)."""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import List, Sequence, Tuple

# String quotes in 3.9's order of preference; docstrings take triple quotes only.
QUOTES = ("'", '"', '"""', "'''")
TRIPLE = ('"""', "'''")


# How much of a string escaped() writes as escapes: every unprintable character
# (the literal text of an f-string), all but newlines and tabs (docstrings and
# the format spec of an f-string's field), or only what no source text can hold
# (in an f-string's {}, where 3.8 allows no backslash: any escape there is an error).
ALL, LINES, BARE = range(3)


def escaped(text: str, level: int) -> str:
    """``text`` as written inside quotes, escapes at ``level``; backslashes always escaped."""
    if text.isprintable() and "\\" not in text:
        return text
    return "".join(char.encode("unicode_escape").decode("ascii") if _escapes(char, level) else char
                   for char in text)


def _escapes(char: str, level: int) -> bool:
    if char == "\\":
        return True
    if level == BARE:
        return char in "\0\r"  # no source holds a NUL, and a CR is read as a newline
    return not char.isprintable() and not (level == LINES and char in "\n\t")


def quoted(body: str, text: str, quotes: "Sequence[str]") -> "Tuple[str, List[str]]":
    """``body`` (``text`` escaped) and the quotes of ``quotes`` that may enclose it, best first.

    Quotes that occur in the body are ruled out rather than escaped, a newline
    asks for triple quotes, and a quote the body ends with goes last.
    """
    fits = [quote for quote in quotes if quote not in body and ("\n" not in body or len(quote) == 3)]
    if not fits:
        # Every quote occurs: repr escapes the one it picks.
        literal = repr(text)
        return literal[1:-1], [next((quote for quote in quotes if literal[0] in quote), literal[0])]
    if body:
        fits.sort(key=lambda quote: quote[0] == body[-1])
        if fits[0][0] == body[-1]:
            # Only triple quotes of that character are left: its last one must not close them.
            body = body[:-1] + "\\" + body[-1]
    return body, fits


def string(text: str, level: int, quotes: "Sequence[str]" = QUOTES) -> str:
    body, fits = quoted(escaped(text, level), text, quotes)
    return fits[0] + body + fits[0]


def braces(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")
