"""On CPython 3.10, module-level code with the rewrite's prologue spliced into its native compile.

The whole-tree path puts ``rewrite.FIND_RUNTIME`` (no line on 3.10) before the
module's first statement past its docstring and future imports.  3.10's compiler
drops or keeps a ``NOP`` and copies blocks by line, so text cannot give that code
(``prologue_text``); bytecode can.  A small tree, the module's head with the
prologue and a stand-in for the first statement, is compiled as the whole tree
would compile it; the module without the prologue is compiled natively; the
head and prologue of the one are put before the other's code from its first
statement on, as one compile lays them out: constants and names in the order
of their first use (head, prologue, then the module's own), every index, jump
and ``EXTENDED_ARG`` laid out again as the assembler does, the line table
written again from each instruction's line.  Where the first statement's code
could be changed by what precedes it (a ``NOP``, a jump, a short exit block,
annotations), None: the caller's other path runs.
"""

import opcode
from itertools import accumulate, chain, compress

from exceptstar._compiler.joined import _key, _shared, holds_a_name

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Dict, List, Optional, Tuple

_PyCF_ONLY_AST = 0x400
_STAND_IN = "__exceptstar_stand_in__"
_EXTENDED_ARG = opcode.EXTENDED_ARG
_NOP = opcode.opmap["NOP"]
_NAMES = frozenset(opcode.hasname)
_CONSTS = frozenset(opcode.hasconst)
_RELATIVE = frozenset(opcode.hasjrel)
_JUMPS = frozenset(opcode.hasjabs) | _RELATIVE
_GOTO = frozenset((opcode.opmap["JUMP_ABSOLUTE"], opcode.opmap["JUMP_FORWARD"]))
# What ends a block that 3.10 copies in place of a jump to it, if it has 4 instructions at most (MAX_COPY_SIZE).
_EXITS = frozenset((opcode.opmap["RETURN_VALUE"], opcode.opmap["RAISE_VARARGS"], opcode.opmap["RERAISE"]))
_COPIED = 4
# The stand-in's code and the module's end in the head's compile, more than _COPIED instructions: never copied.
_STAND_IN_TEXT = f"{_STAND_IN}({_STAND_IN}, {_STAND_IN})\n"
_TAIL = (*(opcode.opmap["LOAD_NAME"],) * 3, opcode.opmap["CALL_FUNCTION"], opcode.opmap["POP_TOP"],
         opcode.opmap["LOAD_CONST"], opcode.opmap["RETURN_VALUE"])
_ANNOTATIONS = opcode.opmap["SETUP_ANNOTATIONS"]
# What each opcode's argument is: a constant's index, a name's, what a fold left (a NOP's), or kept.
_CONST, _NAME, _LEFT = 1, 2, 3
_KINDS = bytes(_CONST if op in _CONSTS else _NAME if op in _NAMES else _LEFT if op == _NOP else 0 for op in range(256))


def compile_spliced(lines: "List[str]", row: int, compile_quietly: "Callable[[str, Any, int, int], Any]",
                    filename: "Any", flags: int, optimize: int) -> "Any":
    """The whole tree's module-level code of ``lines`` with the prologue before line ``row``
    (``prologue_text.first_statement``); None if a compile fails or warns, or the splice
    cannot be shown to be that code."""
    native = compile_quietly("".join(lines), filename, flags, optimize)
    if native is None:
        return None
    head = _head(lines, row, filename, flags, optimize)
    return None if head is None else _spliced(head, native, row)


def _head(lines: "List[str]", row: int, filename: "Any", flags: int, optimize: int) -> "Any":
    """The whole tree's compile of the lines above ``row``, the prologue, and a stand-in on line ``row``."""
    import ast

    from exceptstar._compiler.positions import NO_LINE, position_all
    from exceptstar._compiler.rewrite import FIND_RUNTIME

    try:
        tree = compile("".join(lines[:row - 1]) + _STAND_IN_TEXT, filename, "exec", flags | _PyCF_ONLY_AST, True)
    except (SyntaxError, ValueError):
        return None
    prologue = compile(FIND_RUNTIME, "<exceptstar>", "exec", _PyCF_ONLY_AST).body
    position_all(prologue, NO_LINE)
    tree.body[-1:-1] = prologue
    try:
        return compile(ast.fix_missing_locations(tree), filename, "exec", flags, True, optimize)
    except (SyntaxError, ValueError):
        return None


def _decoded(code: "Any") -> "Tuple[List[int], List[int], List[int], List[int]]":
    """Each instruction's opcode, argument (its ``EXTENDED_ARG`` prefixes folded in), first
    code unit (its prefixes') and line (-1: none); in comprehensions, a module has thousands."""
    raw = code.co_code
    unit_ops = raw[0::2]
    unit_args = raw[1::2]
    # A unit's argument with its prefixes': the one before it shifted in, as far as prefixes go back.
    full = list(unit_args)
    ahead = 1
    runs = bytes((_EXTENDED_ARG,))
    while runs in unit_ops:
        # Units whose `ahead` units before are all prefixes: the farthest one's byte is theirs too.
        before = b"\0" * ahead + unit_ops[:-ahead]
        full = [value | (unit_args[at - ahead] << 8 * ahead)
                if op == _EXTENDED_ARG and unit_ops.startswith(runs, at - ahead) else value
                for at, (value, op) in enumerate(zip(full, before))]
        ahead += 1
        runs += runs[:1]
    kept = [op != _EXTENDED_ARG for op in unit_ops]
    ops = list(compress(unit_ops, kept))
    args = list(compress(full, kept))
    # A prefixed instruction starts at its first prefix: the unit after the last unit that is no prefix.
    ends = list(compress(range(len(unit_ops)), kept))
    starts = [0, *(end + 1 for end in ends[:-1])]
    # Lines by code unit from the line table's (bytecode, line) steps, then each instruction's.
    by_unit: List[int] = []
    line = code.co_firstlineno
    table = code.co_linetable
    for step, move in zip(table[0::2], table[1::2]):
        if move == 128:
            by_unit += [-1] * (step // 2)
        else:
            line += move - 256 if move > 127 else move
            by_unit += [line] * (step // 2)
    if len(by_unit) != len(raw) // 2 or not ops:
        raise _NotShown
    return ops, args, starts, list(map(by_unit.__getitem__, starts))


class _NotShown(Exception):
    """The splice cannot be shown to be the whole compile's code."""


def _spliced(head: "Any", native: "Any", row: int) -> "Any":
    """``head``'s code before its stand-in, then ``native``'s from line ``row`` on, as one compile makes it."""
    if head.co_flags != native.co_flags or head.co_firstlineno != native.co_firstlineno \
            or head.co_names[-1:] != (_STAND_IN,) or head.co_consts[-1:] != (None,):
        return None
    if _names_in_a_frozenset(native):
        return None
    try:
        head_ops, head_args, head_starts, head_lines = _decoded(head)
        ops, args, starts, lines = _decoded(native)
    except _NotShown:
        return None
    cut = len(head_ops) - len(_TAIL)
    if cut < 0 or tuple(head_ops[cut:]) != _TAIL or head_lines[cut] != row or _ANNOTATIONS in ops:
        return None
    # The module's first statement: its first instruction with a line from `row` on (the head's are above), not
    # one that a jump to it would change.
    first = next((at for at, line in enumerate(lines) if line >= row or line < 0), len(lines))
    if first == len(lines) or lines[first] < 0 or ops[first] == _NOP or ops[first] in _GOTO:
        return None
    exit_at = next((at for at in range(first, len(ops)) if ops[at] in _EXITS), len(ops))
    if exit_at - first < _COPIED:
        return None  # the prologue's jump to the first statement could take a copy of its block
    consts = list(head.co_consts[:-1])
    names = list(head.co_names[:-1])
    const_at = {_key(const): at for at, const in enumerate(consts)}
    name_at = {name: at for at, name in enumerate(names)}
    const_map: List[int] = []
    alike = True
    code_type = type(native)
    for const in native.co_consts:
        # Each of the module's own: one compile adds it once, where the head and prologue have none equal (keys).
        # A tuple may instead be the optimizer's fold, which is added apart whatever it equals: not told.  The
        # head's own come first: what the two begin with alike (a fold comes after the code objects).
        kind = type(const)
        at = None if kind is code_type else const_at.get(const if kind is str else _key(const))
        alike = alike and at == len(const_map)
        if at is not None and not alike and type(const) is tuple:
            return None
        const_map.append(len(consts) if at is None else at)
        if at is None:
            consts.append(const)
    name_map = []
    for name in native.co_names:
        if name not in name_at:
            name_at[name] = len(names)
            names.append(name)
        name_map.append(name_at[name])
    # Jump targets as instruction indices in the joined code: the head's up to its stand-in, which is the first
    # statement's; the module's shifted by what the head's code replaces.
    targets = _targets(head_ops, head_args, head_starts, 0, cut, 0)
    shift = cut - first
    moved = _targets(ops, args, starts, first, len(ops), shift)
    if targets is None or moved is None or max(targets.values(), default=0) > cut \
            or min(moved.values(), default=cut) < cut:
        return None
    targets.update(moved)
    kinds = bytes(ops[first:]).translate(_KINDS)
    rest = args[first:]
    if any(compress(rest, [kind == _LEFT for kind in kinds])):
        return None  # what a folded instruction left, maybe a constant's index: not told
    out_args = head_args[:cut] + [const_map[arg] if kind == _CONST else name_map[arg] if kind == _NAME else arg
                                  for kind, arg in zip(kinds, rest)]
    code, offsets = _laid_out(head_ops[:cut] + ops[first:], out_args, targets)
    table = _line_table(head_lines[:cut] + lines[first:], offsets, native.co_firstlineno)
    shared = _shared(consts[:len(head.co_consts) - 1], [native])
    consts[:len(shared)] = shared
    return native.replace(co_code=code, co_consts=tuple(consts), co_names=tuple(names), co_linetable=table,
                          co_stacksize=max(head.co_stacksize, native.co_stacksize))


def _targets(ops: "List[int]", args: "List[int]", starts: "List[int]", begin: int, end: int,
             shift: int) -> "Optional[Dict[int, int]]":
    """The instruction each jump from ``begin`` to ``end`` goes to (both moved by ``shift``);
    None if one goes to no instruction or before ``begin``."""
    index = {start: at for at, start in enumerate(starts)}
    targets = {}
    for at in compress(range(begin, end), [op in _JUMPS for op in ops[begin:end]]):
        target = index.get(args[at] + (starts[at + 1] if ops[at] in _RELATIVE else 0), -1)
        if target < begin:
            return None
        targets[at + shift] = target + shift
    return targets


def _names_in_a_frozenset(code: "Any") -> bool:
    """Whether a code object in ``code`` has a frozenset of names: made anew by its code object where a name was
    interned since (see ``prologue_text``), the native compile may share it where the whole tree's does not."""
    from gc import get_referents

    code_type = type(code)
    level = [code.co_consts]
    while level:
        items = get_referents(*level)
        if frozenset in set(map(type, items)) and \
                any(type(item) is frozenset and holds_a_name(item) for item in items):
            return True
        level = [item.co_consts for item in items if type(item) is code_type]
    return False


def _size(arg: int) -> int:
    """Code units an instruction takes with ``arg`` (CPython's instrsize)."""
    return 1 if arg <= 0xff else 2 if arg <= 0xffff else 3 if arg <= 0xffffff else 4


def _laid_out(ops: "List[int]", args: "List[int]", targets: "Dict[int, int]") -> "Tuple[bytes, List[int]]":
    """The bytecode of the instructions, jumps to ``targets`` (instruction -> instruction) resolved
    as 3.10's assembler resolves them (``assemble_jump_offsets``: each jump starts at 0, every
    offset is computed again until no jump's size changes), and each instruction's offset, then the end."""
    sizes = [1 if arg <= 0xff else _size(arg) for arg in args]
    jumps = sorted(targets.items())
    for at, _ in jumps:
        sizes[at] = 1
    while True:
        offsets = list(accumulate(sizes, initial=0))
        changed = False
        for at, target in jumps:
            arg = offsets[target] - (offsets[at + 1] if ops[at] in _RELATIVE else 0)
            args[at] = arg
            size = _size(arg)
            if size != sizes[at]:
                sizes[at] = size
                changed = True
        if not changed:
            break
    units = chain.from_iterable((op, arg) if size == 1 else (_EXTENDED_ARG, arg >> 8, op, arg & 0xff) if size == 2
                                else _prefixed(op, arg, size) for op, arg, size in zip(ops, args, sizes))
    return bytes(units), offsets


def _prefixed(op: int, arg: int, size: int) -> "Tuple[int, ...]":
    """An instruction's units with its ``EXTENDED_ARG`` prefixes."""
    units: List[int] = []
    for shift in range(8 * (size - 1), 0, -8):
        units += (_EXTENDED_ARG, (arg >> shift) & 0xff)
    return (*units, op, arg & 0xff)


def _line_table(lines: "List[int]", offsets: "List[int]", first: int) -> bytes:
    """3.10's ``co_linetable`` for instructions of these lines (-1: none) at these offsets (the last: the end):
    the assembler's ``assemble_line_range``, a step per run of one line, from the last line given."""
    out = bytearray()
    previous = first
    # Where each run of one line starts (the assembler's line is `first` before the first instruction).
    starts = [at for at, (line, before) in enumerate(zip(lines, [first, *lines])) if line != before]
    for begin, end in zip([0, *starts], [*starts, len(lines)]):
        step = 2 * (offsets[end] - offsets[begin])
        if not step:
            continue
        line = lines[begin]
        if line < 0:
            move = -128
        else:
            move = line - previous
            previous = line
            while move > 127:
                out += b"\x00\x7f"
                move -= 127
            while move < -127:
                out += b"\x00\x81"
                move += 127
        while step > 254:
            out += bytes((254, move & 0xff))
            move = -128 if line < 0 else 0
            step -= 254
        out += bytes((step, move & 0xff))
    return bytes(out)
