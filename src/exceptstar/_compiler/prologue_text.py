"""On CPython 3.8 and 3.9, module-level code with the rewrite's prologue compiled natively, from text.

The whole-tree path puts ``rewrite.FIND_RUNTIME`` before the module's first
statement past its docstring and future imports, every node of it on that
statement's line.  Text cannot hold eight statements on one line: here the
prologue's text goes on lines of its own above that statement, the text is
compiled natively, and the lines it took are given back (its code to the
statement's line, everything after it moved up).  Line numbers reach 3.8's
and 3.9's bytecode nowhere else: the code is the whole tree's.  Not on 3.10,
whose prologue has no line, and whose compiler keeps or drops a ``NOP`` by its
line: no line table edit gives that code; there ``compile_with_prologue`` splices
bytecode (``prologue_splice``).
"""

import sys
from itertools import compress, count

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, List, Optional

_PyCF_ONLY_AST = 0x400
PROLOGUE_AS_TEXT = sys.version_info < (3, 10)  # not on 3.10: see above
PROLOGUE_NATIVE = sys.version_info < (3, 11)  # 3.10: spliced
# What a line that holds no code at column 0 starts with (a code line at 0 starts a statement).
_NOT_AT_0 = (" ", "\t", "\f", "\n", "\r", "#")
# The lines above the first statement are parsed once for each line at column 0 among them.
_MOST_TRIES = 32
# 3.8 writes a line table step at each statement's start, on the same line too (3.9: only where the line changes).
_EVERY_START = sys.version_info < (3, 9)


def first_statement(lines: "List[str]", flags: int) -> "Optional[int]":
    """The line of the first statement past the docstring and future imports
    (where the rewrite puts its prologue); None where it is not shown exactly.

    It is the first line at column 0 whose lines above parse as a module of only
    those: a parse that ends there ends every string, bracket and continued line.
    Lines with a backslash above it are not parsed: their escapes may warn
    (the native compile gives that warning, not this parse).  A decorated
    statement is turned down: the rewrite puts the prologue on its ``def``
    or ``class`` line, below the decorators.
    """
    codes = compress(count(), [line[:1] not in _NOT_AT_0 for line in lines[:_MOST_TRIES * 8]])
    for tries, row in enumerate(codes):
        if tries == _MOST_TRIES or lines[row].startswith("@"):
            return None
        above = "".join(lines[:row])
        if "\\" in above:
            return None
        try:
            tree = compile(above, "<exceptstar>", "exec", flags | _PyCF_ONLY_AST, True)
        except SyntaxError:
            continue  # inside the docstring (a line of it at column 0), or a statement on several lines
        except ValueError:
            return None  # a null byte: the compile that follows says so
        body = tree.body
        docstring = bool(body) and type(body[0]).__name__ == "Expr" and type(body[0].value).__name__ == "Constant" \
            and type(body[0].value.value) is str
        if not all(type(node).__name__ == "ImportFrom" and node.module == "__future__" and node.level == 0
                   for node in body[docstring:]):
            return None
        if lines[row].startswith("from") or (not body and lines[row].lstrip("rRbBuUfF")[:1] in ("'", '"')):
            continue  # a future import, or the docstring: the next line's parse tells
        return row + 1
    return None


def compile_with_prologue(lines: "List[str]", row: int, compile_quietly: "Callable[[str, Any, int, int], Any]",
                          filename: "Any", flags: int, optimize: int) -> "Any":
    """The native compile of ``lines`` with the prologue at line ``row`` (``first_statement``),
    as the whole tree has it; None if the compile fails or warns (``compile_quietly``: its
    warnings would name lines moved down)."""
    if not PROLOGUE_AS_TEXT:
        from exceptstar._compiler.prologue_reserved import compile_spliced

        return compile_spliced(lines, row, compile_quietly, filename, flags, optimize)
    from exceptstar._compiler.rewrite import FIND_RUNTIME

    shift = FIND_RUNTIME.count("\n")
    code = compile_quietly("".join(lines[:row - 1]) + FIND_RUNTIME + "".join(lines[row - 1:]), filename, flags,
                           optimize)
    if code is None:
        return None
    from exceptstar._compiler.joined import holds_a_name

    code_type = type(code)

    def moved_up(code: "Any") -> "Any":
        consts = tuple(moved_up(const) if type(const) is code_type else const for const in code.co_consts)
        if any(type(const) is frozenset and holds_a_name(const) for const in consts):
            # A code object made anew makes such a frozenset anew where a string of it was interned since
            # (CPython's intern_string_constants): which constants are one object would change.
            raise _Apart
        return code.replace(co_firstlineno=code.co_firstlineno - shift, co_consts=consts)

    # Every code object in it starts below the prologue; their line tables count from their first line.
    try:
        consts = tuple(moved_up(const) if type(const) is code_type else const for const in code.co_consts)
    except _Apart:
        return None
    table = _given_back(code.co_lnotab, code.co_firstlineno, row, shift)
    return None if table is None else code.replace(co_consts=consts, co_lnotab=table)


class _Apart(Exception):
    """A code object that cannot be made anew as it is."""


def _given_back(table: bytes, first: int, row: int, shift: int) -> "Optional[bytes]":
    """A 3.8/3.9 ``co_lnotab`` with the prologue's lines (``row`` on, ``shift`` of them) all ``row``, as the
    compiler writes it for the whole tree; None if the table does not reach the first statement from them.

    The pairs are steps (bytecode, line) from the one before: only those into the first statement
    change.  The prologue's own steps step no line then: 3.8 writes them still (each
    statement's start), 3.9 leaves them out and counts their bytecode in its next step.
    """
    out = bytearray()
    line, index, carry = first, 0, 0
    while index < len(table):
        step, move = table[index], table[index + 1]
        after = line + move - (move > 127) * 256
        index += 2
        if after < row or line < row:
            out += table[index - 2:index]  # above the prologue, or into it: as compiled
        elif after < row + shift:  # within the prologue
            if _EVERY_START:
                out += bytes((step, 0)) if step else b""
            else:
                carry += step
        else:  # onto the first statement's code, maybe a line below its first (a constant folded)
            moved = after - shift - row
            if moved:
                if after - line >= 127:
                    return None  # a step of several pairs
                step += carry
                out += b"\xff\x00" * (step // 255) + bytes((step % 255, moved))
                carry = 0
            elif _EVERY_START:
                out += bytes((step, 0)) if step else b""
            else:
                carry += step
            break
        line = after
    else:
        return None
    if carry and index < len(table):
        # The next step's bytecode, as the compiler cuts it: 255 at most a pair, those of no line first.
        while table[index:index + 2] == b"\xff\x00":
            carry += 255
            index += 2
        if index < len(table):
            carry += table[index]
            out += b"\xff\x00" * (carry // 255) + bytes((carry % 255, table[index + 1]))
            index += 2
    return bytes(out + table[index:])
