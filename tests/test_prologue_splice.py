"""The prologue spliced into the native compile's bytecode (3.10) gives the whole tree's code, object for object.

``exceptstar.compile`` of a module whose stars sit in top-level functions
compiles its module-level code natively without the rewrite's prologue, and
splices in the head (docstring, future imports) and prologue compiled alone
(``_compiler.prologue_splice``).  Checked here against the whole-tree path:
every code object, line table and stack size, which constants are one object,
on heads and first statements of every kind, indices and jumps that cross 255
(``EXTENDED_ARG`` added or dropped), constants the module shares with the
prologue; and the cases the splice cannot tell are left to the other path.
"""

from __future__ import annotations

import glob
import os
import sys
import types
from typing import Any, List

import pytest

from exceptstar._compiler import native_parts, prologue_text, transform
from exceptstar._compiler.rewrite import transform as rewrite_tree
from exceptstar._compiler.source import lines

if sys.version_info[:2] == (3, 10):  # its opcodes are 3.10's
    from exceptstar._compiler import prologue_reserved, prologue_splice

pytestmark = [
    pytest.mark.skipif(sys.version_info[:2] != (3, 10), reason="the prologue is spliced on 3.10 only"),
    pytest.mark.skipif(sys.implementation.name == "pypy", reason="PyPy compiles the whole tree"),
]

STAR = "\ndef star_probe():\n    try:\n        pass\n    except* ValueError as e:\n        print(e)\n"
# Enough star-free functions that the stubbing path is taken, one of them with functions in it at any depth.
FILLER = "".join(f"\ndef filler_{i}(a):\n    def inner(b):\n        class K:\n            def m(self):\n"
                 f"                return lambda: [b for b in a]\n        return K\n    return inner(a) + {i}\n"
                 for i in range(30))
BIG_IF = "if x:\n" + "".join(f"    y{i} = x.a{i}\n" for i in range(200))  # past 255 instructions and 255 names

# Each module's head and first statement; the filler and the star follow.
CASES = {
    "docstring": '"""Doc."""\n\nimport os\n',
    "no docstring": "import os\n",
    "comments first": "# one\n#!two\n\n\nx = 1\n",
    "docstring at column 0": '"""Doc\n\nof lines\nat column 0\n"""\nx = 1\n',
    "futures": '"""Doc."""\nfrom __future__ import annotations\nfrom __future__ import (\n    division)\n\nimport os\n',
    "far below": '"""Doc."""\n' + "    #\n" * 150 + "if x:\n    y = 2\n",
    "right after": '"""Doc."""\nx = [\n1,\n2]\n',
    "def first": "def f():\n    return 1\n",
    "class first": '"""Doc."""\nclass C:\n    x = 1\n',
    "if first": "if os:\n    x = 1\nelse:\n    x = 2\n",
    "for first": "for i in range(3):\n    x = i\nelse:\n    x = 0\n",
    "while first": "while x:\n    x -= 1\n    if x == 2:\n        break\n",
    "try first": "try:\n    import os\nexcept ImportError:\n    os = None\nfinally:\n    z = 1\n",
    "with first": "with open(__file__) as f:\n    x = f.read()\n",
    "jumps past 255": '"""Doc."""\n' + BIG_IF + "while x:\n    x -= 1\n",
    # A blank line above the first statement: the stand-in's path (_reserved), its jumps and indices past 255.
    "a blank line, jumps past 255": '"""Doc."""\n\n' + BIG_IF + "while x:\n    x -= 1\n",
    "a blank line, indices cross 255": '"""Doc."""\n\nimport os\n' + "".join(f"n{i} = {i + 1000}\n" for i in range(218))
                                       + "def pad():\n" + "    a = 1\n" * 300,
    "a blank line, futures": 'from __future__ import annotations\n\r\nx = ("Anchor", ())\n',
    "a blank line, a def first": '"""Doc."""\n\ndef f():\n    return 1\n',
    "a blank line of spaces": '"""Doc."""\n  \t \nimport os\n',
    "a comment above": '"""Doc."""  # a comment\nx = 1\n',
    "a semicolon above": '"""Doc.""";\nx = 1\n',
    # 252 names before the prologue's (the functions' 32 last): indices that cross 255 only once it is in.
    "indices cross 255": '"""Doc."""\nimport os\n' + "".join(f"n{i} = {i + 1000}\n" for i in range(218))
                         + "def pad():\n" + "    a = 1\n" * 300,
    "an empty tuple": "x = ()\n",
    "the prologue's constants": '"""Doc."""\nANCHOR = "Anchor"\nWHERE = "exceptstar._compiler.runtime"\n'
                                'NOTHING = None\n__name__ == "__main__"\n'
                                'def f():\n    return "exceptstar._compiler.runtime", "Anchor"\n',
    "the prologue's constants, in a function's tuple": 'def g():\n    return ("exceptstar._compiler.runtime", 1)\n',
    "the prologue's names": 'import os\nruntime = __name__\n__exceptstar__ = __module__ = __class__ = runtime\n',
}


def _describe(code: Any) -> Any:
    consts = tuple(_describe(c) if isinstance(c, types.CodeType) else (type(c), c) for c in code.co_consts)
    return (code.co_code, consts, code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars,
            code.co_firstlineno, code.co_linetable, code.co_flags, code.co_name, code.co_stacksize)


def _sharing(code: Any) -> List[int]:
    """Which constants, at any depth, are the same object: each one's first place."""
    found: List[Any] = []
    todo = [code]
    while todo:
        value = todo.pop()
        if isinstance(value, types.CodeType):
            found.append(value.co_consts)
            todo.extend(reversed(value.co_consts))
        elif value is not None and value is not ...:
            found.append(value)
            if isinstance(value, tuple):
                todo.extend(reversed(value))
    first: dict[int, int] = {}
    return [first.setdefault(id(value), place) for place, value in enumerate(found)]


def _whole(text: str, filename: str, optimize: int = -1) -> Any:
    tree = transform.parse(text, filename, "exec")
    rewrite_tree(tree)
    return compile(tree, filename, "exec", 0, True, optimize)


def _spliced(monkeypatch: pytest.MonkeyPatch, reserved: bool = True, taken: Any = None) -> List[Any]:
    """What the splice gave (spied on), by either path (``reserved``: the stand-in's tried; ``taken``:
    a list given each path that answered)."""
    made: List[Any] = []
    original = prologue_splice._spliced
    original_reserved = prologue_reserved.reserved

    def spy(*args: Any) -> Any:
        made.append(original(*args))
        if taken is not None:
            taken.append("spliced")
        return made[-1]

    def spy_reserved(*args: Any) -> Any:
        found = original_reserved(*args) if reserved else prologue_reserved.UNTRIED
        if found is not prologue_reserved.UNTRIED:
            made.append(found)
            if taken is not None and found is not None:
                taken.append("reserved")
        return found

    monkeypatch.setattr(prologue_splice, "_spliced", spy)
    monkeypatch.setattr(prologue_reserved, "reserved", spy_reserved)
    return made


@pytest.mark.parametrize("reserved", [True, False])  # the stand-in's path where it is taken, and the splice's
@pytest.mark.parametrize("optimize", [-1, 2])  # -OO: the docstring a NOP that the prologue's code takes the line of
@pytest.mark.parametrize("name", sorted(CASES))
def test_cases(name: str, optimize: int, reserved: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    text = CASES[name] + FILLER + STAR
    made = _spliced(monkeypatch, reserved)
    ours = native_parts.compile_stubbed(text, f"{name}.py", 0, optimize, False)
    assert made and made[0] is not None, "the splice was not taken"
    whole = _whole(text, f"{name}.py", optimize)
    assert _describe(ours) == _describe(whole)
    assert _sharing(ours) == _sharing(whole)


# Whether the stand-in's path takes each case: below a blank line or the head's last statement, not a comment.
RESERVED = {**{name: "reserved" for name in CASES if name.startswith("a blank line")},
            "right after": "reserved", "docstring at column 0": "reserved", "comments first": "reserved",
            "far below": "spliced", "a comment above": "spliced", "a semicolon above": "spliced"}


@pytest.mark.parametrize("name", sorted(RESERVED))
def test_the_stand_in_is_taken(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Below a blank line or the head's last statement, the module's code is the stand-in's compile (no
    splice); below a comment, the splice's: the whole tree's either way."""
    taken: List[str] = []
    _spliced(monkeypatch, True, taken)
    ours = native_parts.compile_stubbed(CASES[name] + FILLER + STAR, f"{name}.py", 0, -1, False)
    assert taken == [RESERVED[name]]
    assert _describe(ours) == _describe(_whole(CASES[name] + FILLER + STAR, f"{name}.py"))


def test_indices_and_jumps_did_cross_255() -> None:
    """The cases above reach what they are there for: an index that needs EXTENDED_ARG only with the
    prologue's constants and names before it, and absolute jumps past 255 shifted by the prologue."""
    text = CASES["indices cross 255"] + FILLER + STAR
    native = compile(text.replace("except*", "except "), "n.py", "exec")
    whole = _whole(text, "n.py")
    assert len(native.co_names) < 256 < len(whole.co_names)
    assert native.co_code.count(bytes((144,))) < whole.co_code.count(bytes((144,)))


LEFT = {
    "pass first": "pass\nx = 1\n",
    "a constant test first": "if True:\n    y = 2\n",
    "a constant statement first": '"""Doc."""\n1\nx = 1\n',
    "annotations": "x: int = 1\n",
    "a folded default on lines of its own": "def f(a=1,\n      b=2):\n    pass\n",
    "a frozenset of names": "def g(x):\n    return x in {'ab', 'cd'}\n",
    "a short exit first": "raise SystemExit\n",
}


@pytest.mark.parametrize("name", sorted(LEFT))
def test_what_is_not_told_is_left_to_the_tree(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A first statement whose code the prologue before it may change, or what the native code cannot
    tell (a fold's leftovers, a tuple that may be one): no splice, and the code is still the whole tree's."""
    text = LEFT[name] + FILLER + STAR
    made = _spliced(monkeypatch)
    ours = native_parts.compile_stubbed(text, f"{name}.py", 0, -1, False)
    assert made in ([], [None])
    whole = _whole(text, f"{name}.py")
    assert ours is None or (_describe(ours) == _describe(whole) and _sharing(ours) == _sharing(whole))


def _codes(code: Any) -> List[Any]:
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found += _codes(const)
    return found


def test_laid_out_again_as_compiled() -> None:
    """Every code object of 40 standard-library modules, decoded and laid out again as the assembler
    lays it out (jumps, EXTENDED_ARG, the line table), is its own bytecode and lines."""
    checked = extended = 0
    for path in sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "*.py")))[:40]:
        with open(path, encoding="utf-8") as file:
            module = compile(file.read(), path, "exec")
        for code in _codes(module):
            ops, args, kept, own_lines = prologue_splice._decoded(code)
            starts = prologue_splice._starts(kept)
            index = {start: at for at, start in enumerate(starts)}
            targets = {at: index[arg + (starts[at + 1] if op in prologue_splice._RELATIVE else 0)]
                       for at, (op, arg) in enumerate(zip(ops, args)) if op in prologue_splice._JUMPS}
            laid, offsets = prologue_splice._laid_out(ops, list(args), targets)
            assert laid == code.co_code, (path, code.co_name)
            assert prologue_splice._line_table(own_lines, offsets, code.co_firstlineno) == code.co_linetable
            checked += 1
            extended += bytes((144,)) in code.co_code[0::2]
    assert checked > 1000 and extended > 10


def test_arguments_of_several_prefixes() -> None:
    """Constants past 65,535 and jumps past them: two ``EXTENDED_ARG`` before an instruction, read and laid out."""
    code = compile("x = 0\n" + "".join(f"a{i} = {i}.5\n" for i in range(70000)) + "while x:\n    y = 1\n", "p", "exec")
    assert bytes((144, 144)) in code.co_code[0::2]
    ops, args, kept, own_lines = prologue_splice._decoded(code)
    starts = prologue_splice._starts(kept)
    index = {start: at for at, start in enumerate(starts)}
    targets = {at: index[arg + (starts[at + 1] if op in prologue_splice._RELATIVE else 0)]
               for at, (op, arg) in enumerate(zip(ops, args)) if op in prologue_splice._JUMPS}
    assert max(args) > 0xffff and max(args[at] for at in targets) > 0xffff
    laid, offsets = prologue_splice._laid_out(ops, list(args), targets)
    assert laid == code.co_code
    assert prologue_splice._line_table(own_lines, offsets, code.co_firstlineno) == code.co_linetable


def test_standard_library_modules(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every standard-library module, one ``except*`` added: where spliced, the whole tree's code (most of
    them by the stand-in's path)."""
    taken: List[str] = []
    made = _spliced(monkeypatch, True, taken)
    spliced = 0
    for path in sorted(glob.glob(os.path.join(os.path.dirname(os.__file__), "*.py"))):
        with open(path, encoding="utf-8") as file:
            text = file.read() + STAR
        if prologue_text.first_statement(lines(text), 0) is None:
            continue
        del made[:]
        ours = native_parts.compile_stubbed(text, path, 0, -1, False)
        if not made or made[0] is None:
            continue
        whole = _whole(text, path)
        assert _describe(ours) == _describe(whole), path
        assert _sharing(ours) == _sharing(whole), path
        spliced += 1
    assert spliced >= 60 and taken.count("reserved") >= 60, (spliced, taken.count("reserved"))
