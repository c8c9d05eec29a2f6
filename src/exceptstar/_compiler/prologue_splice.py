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
from itertools import accumulate, chain, compress, repeat
from operator import and_, attrgetter, getitem, is_, lshift, mul, ne, or_, rshift, sub

from exceptstar._compiler.joined import _key, holds_a_name

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
_EXITS = (opcode.opmap["RETURN_VALUE"], opcode.opmap["RAISE_VARARGS"], opcode.opmap["RERAISE"])
_COPIED = 4
# The stand-in's code and the module's end in the head's compile, more than _COPIED instructions: never copied.
_STAND_IN_TEXT = f"{_STAND_IN}({_STAND_IN}, {_STAND_IN})\n"
_TAIL = (*(opcode.opmap["LOAD_NAME"],) * 3, opcode.opmap["CALL_FUNCTION"], opcode.opmap["POP_TOP"],
         opcode.opmap["LOAD_CONST"], opcode.opmap["RETURN_VALUE"])
_ANNOTATIONS = opcode.opmap["SETUP_ANNOTATIONS"]
_SETUP_FINALLY = opcode.opmap["SETUP_FINALLY"]
# What each opcode's argument is: a constant's index, a name's, what a fold left (a NOP's), or kept.
_CONST, _NAME, _LEFT = 1, 2, 3
_KINDS = bytes(_CONST if op in _CONSTS else _NAME if op in _NAMES else _LEFT if op == _NOP else 0 for op in range(256))
# Byte tables for bytes.translate (1 where the opcode is of the kind): the loops over a module's thousands of
# instructions run in C, through these, itertools and operator.
_IS_PREFIX = bytes(op == _EXTENDED_ARG for op in range(256))
_NOT_PREFIX = bytes(op != _EXTENDED_ARG for op in range(256))
_IS_JUMP = bytes(op in _JUMPS for op in range(256))
_IS_LEFT = bytes(kind == _LEFT for kind in _KINDS)
# An argument's units by its bit length (CPython's instrsize).
_SIZE_BY_BITS = [max(1, (bits + 7) // 8) for bits in range(33)]
_SAME = range(1 << 32)  # an argument kept: its own index
_FLIP = bytes((1, 0)) + bytes(254)
_HOLDERS = frozenset((tuple, frozenset))  # beside code objects, what holds constants that one compile merges


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


def _decoded(code: "Any") -> "Tuple[bytes, List[int], bytes, List[int]]":
    """Each instruction's opcode, argument (its ``EXTENDED_ARG`` prefixes folded in) and line
    (-1: none), and which code units are instructions, not prefixes (``_starts``)."""
    raw = code.co_code
    unit_ops = raw[0::2]
    unit_args = raw[1::2]
    # A unit's argument with its prefixes': each prefix's byte shifted in, as far as prefixes go back.
    full: Any = unit_args
    held = b""
    ahead = 1
    while True:
        before = (b"\0" * ahead + unit_ops[:-ahead]).translate(_IS_PREFIX)
        held = bytes(map(mul, held, before)) if held else before  # the `ahead` units before all prefixes
        if 1 not in held:
            break
        shifted = map(lshift, map(mul, b"\0" * ahead + unit_args[:-ahead], held), repeat(8 * ahead))
        full = list(map(or_, full, shifted))
        ahead += 1
    kept = unit_ops.translate(_NOT_PREFIX)
    ops = bytes(compress(unit_ops, kept))
    args = list(compress(full, kept))
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
    return ops, args, kept, list(compress(by_unit, kept))  # a prefix's line is its instruction's


def _starts(kept: bytes) -> "List[int]":
    """Each instruction's first code unit, its first prefix's (``kept``: 1 for the units that are no prefix)."""
    ends = list(compress(range(len(kept)), kept))
    return [0, *map((1).__add__, ends[:-1])]


class _NotShown(Exception):
    """The splice cannot be shown to be the whole compile's code."""


def _spliced(head: "Any", native: "Any", row: int) -> "Any":
    """``head``'s code before its stand-in, then ``native``'s from line ``row`` on, as one compile makes it."""
    if head.co_flags != native.co_flags or head.co_firstlineno != native.co_firstlineno \
            or head.co_names[-1:] != (_STAND_IN,) or head.co_consts[-1:] != (None,):
        return None
    try:
        head_ops, head_args, head_kept, head_lines = _decoded(head)
        ops, args, kept, lines = _decoded(native)
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
    exit_at = min(ops.find(op, first) % (len(ops) + 1) for op in _EXITS)  # not found (-1): past the end
    if exit_at - first < _COPIED:
        return None  # the prologue's jump to the first statement could take a copy of its block
    # Each of the module's own constants and names: one compile adds it once, where the head and prologue have
    # none equal (constants: by key).  A tuple may instead be the optimizer's fold, which is added apart whatever
    # it equals: not told, but where the head's own come first (the two compiles begin alike; a fold comes after
    # the code objects).
    const_map, consts, found = _joined(list(head.co_consts[:-1]), native.co_consts, _key)
    alike = 0
    while alike < len(found) and found[alike] == const_map[alike] == alike:
        alike += 1
    if any(type(native.co_consts[at]) is tuple for at in found[alike:]):
        return None
    name_map, names, _ = _joined(list(head.co_names[:-1]), native.co_names, str)
    # Jump targets as instruction indices in the joined code: the head's up to its stand-in, which is the first
    # statement's; the module's shifted by what the head's code replaces.
    targets = _targets(head_ops, head_args, head_kept, 0, cut, 0)
    shift = cut - first
    moved = _targets(ops, args, kept, first, len(ops), shift)
    if targets is None or moved is None or max(targets.values(), default=0) > cut \
            or min(moved.values(), default=cut) < cut:
        return None
    targets.update(moved)
    kinds = ops[first:].translate(_KINDS)
    rest = args[first:]
    if any(compress(rest, ops[first:].translate(_IS_LEFT))):
        return None  # what a folded instruction left, maybe a constant's index: not told
    renumbered = (_SAME, const_map, name_map, _SAME)  # by kind
    out_args = head_args[:cut] + list(map(getitem, map(renumbered.__getitem__, kinds), rest))
    code, offsets = _laid_out(head_ops[:cut] + ops[first:], out_args, targets)
    # Where the module's first statement starts in the native code, if its code is laid out as there (the same
    # prefixes): then the native line table from there on is the whole's, but for its first step's line.
    start = offsets[cut]
    unit = (len(native.co_code) - len(code)) // 2 + start
    table = None
    if unit >= 0 and kept[:unit].count(1) == first and kept[unit - 1:unit] != b"\0" \
            and code[2 * start::2] == native.co_code[2 * unit::2]:
        table = _moved(native.co_linetable, unit, _last_line(lines[:first], native.co_firstlineno),
                       _last_line(head_lines[:cut], native.co_firstlineno))
    if table is None:
        table = _line_table(head_lines[:cut] + lines[first:], offsets, native.co_firstlineno)
    else:
        table = _line_table(head_lines[:cut], offsets[:cut + 1], native.co_firstlineno) + table
    # The head's and prologue's constants as one compile makes them: the very objects of the module's equal ones.
    own = len(head.co_consts) - 1
    apart = [at for at in range(own) if at not in const_map]
    if any(type(consts[at]) is not str and consts[at] != () for at in apart):
        return None  # only the prologue's strings and () are not the module's own, as it is written
    held = _held(native, [consts[at] for at in apart if not holds_a_name((consts[at],))])
    if held is None:
        return None
    for at in range(own):
        consts[at] = native.co_consts[const_map.index(at)] if at in const_map else held.get(consts[at], consts[at])
    return native.replace(co_code=code, co_consts=tuple(consts), co_names=tuple(names), co_linetable=table,
                          co_stacksize=max(head.co_stacksize, native.co_stacksize))


def _joined(own: "List[Any]", theirs: "Tuple[Any, ...]",
            key: "Callable[[Any], Any]") -> "Tuple[List[int], List[Any], List[int]]":
    """Where each of ``theirs`` goes after ``own`` (its equal by ``key`` there, or in turn after them),
    ``own`` with those of ``theirs`` not in it, and the places of ``theirs`` found in ``own``."""
    own_at = {key(value): at for at, value in enumerate(own)}
    # Equal keys are equal values of one type: only those are looked at one by one (a module has thousands).
    alike = set(map(type, own))
    maybe = list(compress(range(len(theirs)), map(alike.__contains__, map(type, theirs))))
    equal = compress(maybe, map(set(own).__contains__, map(theirs.__getitem__, maybe)))
    found = [at for at in equal if key(theirs[at]) in own_at]
    if not found:
        return list(range(len(own), len(own) + len(theirs))), own + list(theirs), found
    hit = bytearray(len(theirs))
    for at in found:
        hit[at] = 1
    places = list(map(sub, range(len(own), len(own) + len(theirs)), accumulate(hit)))
    for at in found:
        places[at] = own_at[key(theirs[at])]
    return places, own + list(compress(theirs, hit.translate(_FLIP))), found


def _targets(ops: bytes, args: "List[int]", kept: bytes, begin: int, end: int,
             shift: int) -> "Optional[Dict[int, int]]":
    """The instruction each jump from ``begin`` to ``end`` goes to (both moved by ``shift``);
    None if one goes to no instruction or before ``begin``."""
    jumps = list(compress(range(begin, end), ops[begin:end].translate(_IS_JUMP)))
    if not jumps:
        return {}
    starts = _starts(kept)
    index = dict(zip(starts, range(len(starts))))
    targets = {}
    for at in jumps:
        target = index.get(args[at] + (starts[at + 1] if ops[at] in _RELATIVE else 0), -1)
        if target < begin:
            return None
        targets[at + shift] = target + shift
    return targets


def _held(code: "Any", wanted: "List[str]") -> "Optional[Dict[str, str]]":
    """The string of ``code``'s code objects (at any depth) equal to each of ``wanted``; None if one
    has a frozenset of names: made anew by its code object where a name was interned since (see
    ``prologue_text``), the native compile may share one where the whole tree's does not."""
    from gc import get_referents

    code_type = type(code)
    level: List[Any] = [code.co_consts]
    found: Dict[str, str] = {}
    while level:
        items = get_referents(*level)
        types = list(map(type, items))
        kinds = set(types)
        if frozenset in kinds and any(type(item) is frozenset and holds_a_name(item) for item in items):
            return None
        for value in wanted:
            if value not in found and value in items:  # a string equals strings only
                found[value] = items[items.index(value)]
        # Deeper: code objects' constants, and what tuples and frozensets hold (one compile merges those too).
        level = [*compress(items, map(_HOLDERS.__contains__, types)),
                 *map(attrgetter("co_consts"), compress(items, map(is_, types, repeat(code_type))))]
    return found


def _laid_out(ops: bytes, args: "List[int]", targets: "Dict[int, int]") -> "Tuple[bytes, List[int]]":
    """The bytecode of the instructions, jumps to ``targets`` (instruction -> instruction) resolved
    as 3.10's assembler resolves them (``assemble_jump_offsets``: each jump starts at 0, every
    offset is computed again until no jump's size changes), and each instruction's offset, then the end."""
    sizes = list(map(_SIZE_BY_BITS.__getitem__, map(int.bit_length, args)))
    jumps = sorted(targets.items())
    for at, _ in jumps:
        sizes[at] = 1
    while True:
        offsets = list(accumulate(sizes, initial=0))
        changed = False
        for at, target in jumps:
            arg = offsets[target] - (offsets[at + 1] if ops[at] in _RELATIVE else 0)
            args[at] = arg
            size = _SIZE_BY_BITS[arg.bit_length()]
            if size != sizes[at]:
                sizes[at] = size
                changed = True
        if not changed:
            break
    if max(sizes) > 2:
        units: Any = chain.from_iterable(map(_prefixed, ops, args, sizes))
    else:
        # Each instruction as EXTENDED_ARG, its high byte, itself, its low byte; the first two where it has them.
        every = zip(repeat(_EXTENDED_ARG), map(rshift, args, repeat(8)), ops, map(and_, args, repeat(0xff)))
        prefixed = list(map((1).__lt__, sizes))
        units = compress(chain.from_iterable(every),
                         chain.from_iterable(zip(prefixed, prefixed, repeat(True), repeat(True))))
    return bytes(units), offsets


def _prefixed(op: int, arg: int, size: int) -> "Tuple[int, ...]":
    """An instruction's units with its ``EXTENDED_ARG`` prefixes."""
    units: List[int] = []
    for shift in range(8 * (size - 1), 0, -8):
        units += (_EXTENDED_ARG, (arg >> shift) & 0xff)
    return (*units, op, arg & 0xff)


def _last_line(lines: "List[int]", first: int) -> int:
    """The last line among ``lines`` (-1: none), ``first`` if none has one."""
    return next((line for line in reversed(lines) if line >= 0), first)


def _moved(table: bytes, unit: int, was: int, now: int) -> "Optional[bytes]":
    """3.10's ``table`` from code unit ``unit`` on, whose first run starts there with a line, its step counted
    from line ``now``, not ``was``; None where no run starts there."""
    at = offset = 0
    while offset < 2 * unit and at < len(table):
        offset += table[at]
        at += 2
    line = was
    while at < len(table) and not table[at]:  # the first run's line steps of 127 (no bytecode)
        line += table[at + 1] - 256 if table[at + 1] > 127 else table[at + 1]
        at += 2
    if offset != 2 * unit or at == len(table) or table[at + 1] == 128:
        return None
    line += table[at + 1] - 256 if table[at + 1] > 127 else table[at + 1]
    out, move = _within_a_pair(line - now)
    return out + bytes((table[at], move & 0xff)) + table[at + 2:]


def _within_a_pair(move: int) -> "Tuple[bytes, int]":
    """The steps of no bytecode that 3.10's assembler writes first for a line ``move`` past a pair's range,
    and what is left of it."""
    out = b""
    while move > 127:
        out += b"\x00\x7f"
        move -= 127
    while move < -127:
        out += b"\x00\x81"
        move += 127
    return out, move


def _line_table(lines: "List[int]", offsets: "List[int]", first: int) -> bytes:
    """3.10's ``co_linetable`` for instructions of these lines (-1: none) at these offsets (the last: the end):
    the assembler's ``assemble_line_range``, a step per run of one line, from the last line given."""
    out = bytearray()
    previous = first
    # Each run of one line: where it starts, its line, its bytecode (the assembler's line is `first` before the
    # first instruction: the first run may be empty).
    starts = list(compress(range(len(lines)), map(ne, lines, [first, *lines])))
    runs = [first, *map(lines.__getitem__, starts)]
    steps = list(map(sub, map(offsets.__getitem__, [*starts, len(lines)]), map(offsets.__getitem__, [0, *starts])))
    # The runs after the last one of no line, each a line step from the one before, in C where each fits a pair.
    loop = len(runs) - runs[::-1].index(-1) if -1 in runs else 1
    moves = list(map(sub, runs[loop:], [_last_line(runs[:loop], first), *runs[loop:-1]]))
    if steps[loop:] and (max(steps[loop:]) > 127 or not -127 <= min(moves) <= max(moves) <= 127):
        loop = len(runs)
    for line, step in zip(runs[:loop], steps[:loop]):
        step *= 2
        if not step:
            continue
        if line < 0:
            move = -128
        else:
            prefix, move = _within_a_pair(line - previous)
            out += prefix
            previous = line
        while step > 254:
            out += bytes((254, move & 0xff))
            move = -128 if line < 0 else 0
            step -= 254
        out += bytes((step, move & 0xff))
    out += bytes(chain.from_iterable(zip(map(lshift, steps[loop:], repeat(1)), map(and_, moves, repeat(0xff)))))
    return bytes(out)
