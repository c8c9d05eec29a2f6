"""On CPython 3.10, module-level code with the rewrite's prologue, the rest of the native compile kept as it is.

``prologue_splice`` renumbers and lays out again the native compile's code to
put the head's before it.  Where the line above the module's first statement
is blank or ends the head's last statement, none of that is needed: that line
holds a stand-in that uses the head's strings, ``()`` and names in their order
and takes as many code units as the prologue, so the native compile numbers
every constant and name, and puts every instruction, where one compile of the
whole tree does.  The head's code then goes in place of what is above the
first statement, and the rest is kept byte for byte with its line table; what
is checked is as ``prologue_splice._spliced`` checks it.
"""

from exceptstar._compiler import prologue_splice
from exceptstar._compiler.joined import _key
from exceptstar._compiler.prologue_splice import (
    _ANNOTATIONS,
    _COPIED,
    _EXITS,
    _GOTO,
    _NOP,
    _NOT_PREFIX,
    _SETUP_FINALLY,
    _TAIL,
    _decoded,
    _held,
    _last_line,
    _line_table,
    _moved,
    _NotShown,
    _starts,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, List, Optional


UNTRIED = object()  # reserved's answer where the module's code is left to prologue_splice._spliced


def compile_spliced(lines: "List[str]", row: int, compile_quietly: "Callable[[str, Any, int, int], Any]",
                    filename: "Any", flags: int, optimize: int) -> "Any":
    """The whole tree's module-level code of ``lines`` with the prologue before line ``row``
    (``prologue_text.first_statement``): by the stand-in where it is shown exact (``reserved``), else by
    ``prologue_splice``; None if a compile fails or warns, or neither can be shown to be that code."""
    head = prologue_splice._head(lines, row, filename, flags, optimize)
    if head is None:
        return None
    code = reserved(lines, row, head, compile_quietly, filename, flags, optimize)
    if code is not UNTRIED:
        return code
    native = compile_quietly("".join(lines), filename, flags, optimize)
    return None if native is None else prologue_splice._spliced(head, native, row)


def reserved(lines: "List[str]", row: int, head: "Any", compile_quietly: "Callable[[str, Any, int, int], Any]",
              filename: "Any", flags: int, optimize: int) -> "Any":
    """The module-level code of ``lines`` with ``head``'s (``prologue_splice._head``) before line ``row``,
    where the native compile numbers every constant and name and places every instruction of the code
    from ``row`` on as one compile does (a stand-in on the line above: see above): that code kept
    byte for byte, with the end of its line table.  None as ``prologue_splice._spliced`` gives it;
    ``UNTRIED`` where this cannot be shown to be the code."""
    above = lines[row - 2].rstrip("\r\n") if row > 1 else "#"
    # The stand-in goes on the line above, blank (its spaces dropped) or the end of the head's last statement.
    if "#" in above or "\f" in above or above.rstrip(" \t").endswith(";"):
        return UNTRIED
    before = f"{above}; " if above.strip(" \t") else ""
    try:
        head_ops, _, head_kept, head_lines = _decoded(head)
    except _NotShown:
        return UNTRIED
    cut = len(head_ops) - len(_TAIL)
    # The prologue's code: from its `try` (which the head's lines above have none of) to the stand-in's.
    begin = head_ops.find(_SETUP_FINALLY)
    if cut < 0 or tuple(head_ops[cut:]) != _TAIL or head_lines[cut] != row or not 0 <= begin < cut:
        return UNTRIED
    starts = _starts(head_kept)
    start = starts[cut]
    names = head.co_names[:-1]
    strings = [repr(value) for value in head.co_consts[:-1] if type(value) is str or (type(value) is tuple
                                                                                   and not value)]
    units = start - starts[begin] - len(names) - 2 * len(strings) - 1
    if not names or units < 0 or not all(map(str.isidentifier, names)):
        return UNTRIED
    # The first name, the others as its attributes (a unit each, the first again where the units left are odd),
    # each constant added (2), dropped (1); then the first name loaded and dropped (2) as often as units are left.
    stand_in = ".".join((*names, *names[:units % 2])) + "".join(map(" + ".__add__, strings))
    text = "".join(lines[:row - 2]) + before + "; ".join((stand_in, *names[:1] * (units // 2))) \
        + lines[row - 2][len(above):] + "".join(lines[row - 1:])
    native = compile_quietly(text, filename, flags, optimize)
    if native is None:
        return None if not before else UNTRIED  # a blank line's stand-in cannot fail where the module compiles
    own = len(head.co_consts) - 1
    raw = native.co_code
    if head.co_flags != native.co_flags or head.co_firstlineno != native.co_firstlineno \
            or native.co_names[:len(names)] != names or len(native.co_consts) < own \
            or list(map(_key, native.co_consts[:own])) != list(map(_key, head.co_consts[:own])) \
            or _ANNOTATIONS in raw[0::2]:
        return UNTRIED
    if _held(native, []) is None:
        return None  # as _spliced gives it
    was = _line_before(native.co_linetable, native.co_firstlineno, start, row)
    if was is None:
        return UNTRIED
    # The first statement's first instruction and how far its block runs: as in _spliced.
    rest = raw[2 * start::2]
    kept = rest.translate(_NOT_PREFIX)
    first = kept.find(1)
    exit_at = min(rest.find(bytes((op,))) % (len(rest) + 1) for op in _EXITS)
    if first < 0 or rest[first] == _NOP or rest[first] in _GOTO or kept[:exit_at].count(1) < _COPIED:
        return None
    table = _moved(native.co_linetable, start, was, _last_line(head_lines[:cut], native.co_firstlineno))
    if table is None:
        return UNTRIED
    table = _line_table(head_lines[:cut], starts[:cut + 1], native.co_firstlineno) + table
    return native.replace(co_code=head.co_code[:2 * start] + raw[2 * start:], co_linetable=table,
                          co_stacksize=max(head.co_stacksize, native.co_stacksize))


def _line_before(table: bytes, first: int, unit: int, row: int) -> "Optional[int]":
    """The last line of 3.10's ``table`` before code unit ``unit``, where each line there is above ``row``
    and a run of a line from ``row`` on starts at ``unit``; None otherwise."""
    line = first
    offset = at = 0
    while offset < 2 * unit and at < len(table):
        if table[at + 1] != 128:
            line += table[at + 1] - 256 if table[at + 1] > 127 else table[at + 1]
            if line >= row and table[at]:
                return None
        offset += table[at]
        at += 2
    after = line
    while at < len(table) and not table[at]:
        after += table[at + 1] - 256 if table[at + 1] > 127 else table[at + 1]
        at += 2
    if offset != 2 * unit or at == len(table) or table[at + 1] == 128 \
            or after + (table[at + 1] - 256 if table[at + 1] > 127 else table[at + 1]) < row:
        return None
    return line
