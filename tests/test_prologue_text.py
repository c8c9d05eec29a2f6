"""The prologue compiled natively from text (3.8, 3.9) gives the whole tree's code, lines and warnings.

``exceptstar.compile`` of a module whose stars sit in top-level functions
compiles its module-level code natively with the rewrite's prologue put in as
text above the first statement, its lines then given back
(``_compiler.prologue_text``).  Checked here against the whole-tree path:
where the prologue goes, every code object and line table, the constants one
compile shares, and the warnings (their lines after the prologue's).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, List, Tuple

import pytest

from exceptstar._compiler import native_parts, prologue_text, transform
from exceptstar._compiler.rewrite import transform as rewrite_tree
from exceptstar._compiler.source import lines

pytestmark = [
    pytest.mark.skipif(sys.version_info >= (3, 10), reason="the prologue's text is compiled on 3.8 and 3.9 only"),
    pytest.mark.skipif(sys.implementation.name == "pypy", reason="PyPy compiles the whole tree"),
]

STAR = "\ndef star_probe():\n    try:\n        pass\n    except* ValueError as e:\n        print(e)\n"
# Enough star-free functions that the stubbing path is taken, one of them with functions in it at any depth.
FILLER = "".join(f"\ndef filler_{i}(a):\n    def inner(b):\n        class K:\n            def m(self):\n"
                 f"                return lambda: [b for b in a]\n        return K\n    return inner(a) + {i}\n"
                 for i in range(30))

# Each head, and the line of its first statement (where the prologue goes).
HEADS = {
    "docstring": ('"""Doc."""\n\nimport os\n', 3),
    "no docstring": ("import os\n", 1),
    "comments first": ("# one\n#!two\n\n\nx = 1\n", 5),
    "docstring at column 0": ('"""Doc\n\nof lines\nat column 0\n"""\nx = 1\n', 6),
    "futures": ('"""Doc."""\nfrom __future__ import annotations\nfrom __future__ import (\n    division)\n\n'
                'class C:\n    x: int\n', 6),
    "far below": ('"""Doc."""\n' + "    #\n" * 150 + "if True:\n    y = 2\n", 152),
    "right after": ('"""Doc."""\nx = [\n1,\n2]\n', 2),
    "a string after": ('r"""Doc."""\n"not a docstring"\nx = 1\n', 2),
    "def first": ("def f():\n    return 1\n", 1),
}


def _describe(code: Any) -> Any:
    consts = tuple(_describe(c) if type(c) is type(code) else (type(c), c) for c in code.co_consts)
    return (code.co_code, consts, code.co_names, code.co_varnames, code.co_firstlineno, code.co_lnotab,
            code.co_flags, code.co_stacksize, code.co_name)


def _whole(text: str, filename: str) -> Any:
    tree = transform.parse(text, filename, "exec")
    rewrite_tree(tree)
    return compile(tree, filename, "exec", 0, True)


def _taken(monkeypatch: pytest.MonkeyPatch) -> List[Any]:
    """What the text path compiled (spied on)."""
    made: List[Any] = []
    original = prologue_text.compile_with_prologue

    def spy(*args: Any) -> Any:
        made.append(original(*args))
        return made[-1]

    monkeypatch.setattr(native_parts, "compile_with_prologue", spy)
    return made


@pytest.mark.parametrize("name", sorted(HEADS))
def test_heads(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    head, row = HEADS[name]
    text = head + FILLER + STAR
    assert prologue_text.first_statement(lines(text), 0) == row
    made = _taken(monkeypatch)
    ours = native_parts.compile_stubbed(text, f"{name}.py", 0, -1, False)
    # The text path, not a fallback (but where the first statement has no code: no line to give back)
    assert made and (made[0] is not None or name == "a string after")
    assert _describe(ours) == _describe(_whole(text, f"{name}.py"))


@pytest.mark.parametrize("head", ["@decorator\ndef f():\n    pass\n", '"""Doc \\d."""\nx = 1\n',
                                  '"""Doc."""; x = 1\n', '"""Doc\0."""\nx = 1\n'])
def test_heads_left_to_the_tree(head: str) -> None:
    """A decorated first statement (the prologue goes below its decorators), a backslash above the first
    statement (its escape may warn), a docstring sharing a line or a null byte: not read from the text."""
    assert prologue_text.first_statement(lines(head + FILLER), 0) is None


def _warned(compile_it: Any) -> List[Tuple[Any, ...]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compile_it()
    return [(w.category, str(w.message), w.filename, w.lineno) for w in caught]


@pytest.mark.parametrize("warns", ["x = 1 is 1\n", "assert (x, 'y')\n", "y = '\\d'\n"])
def test_warnings_are_the_whole_trees(warns: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module whose code after the prologue warns: the warnings the whole tree gives, on their own lines, once."""
    import exceptstar

    text = '"""Doc."""\nimport os\n' + FILLER + warns + STAR
    made = _taken(monkeypatch)
    given = _warned(lambda: exceptstar.compile(text, "w.py", "exec"))
    assert made == [None]  # the native compile warned: the whole tree's path gave them
    assert given == _warned(lambda: _whole(text, "w.py"))
    assert given and all(line == text[:text.index(warns)].count("\n") + 1 for *_, line in given)


def test_frozensets_of_names_are_left_to_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    """A code object made anew may make its frozenset of names anew (see prologue_text): not made anew."""
    text = '"""Doc."""\n' + FILLER + "def g(x):\n    return x in {'ab', 'cd'}\n" + STAR
    made = _taken(monkeypatch)
    ours = native_parts.compile_stubbed(text, "f.py", 0, -1, False)
    assert made == [None]
    assert ours is None or _describe(ours) == _describe(_whole(text, "f.py"))
