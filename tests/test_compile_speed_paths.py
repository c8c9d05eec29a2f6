"""The rewrite's shortcuts change nothing of the tree it makes (issue 37).

``_compiler.rewrite.transform`` passes over the statements that hold no
starred clause on their lines when told the clauses' lines (``rows``, as the
stubbed compile tells it), and shares its alike generated nodes only when asked
(``shared``), through the memo's own dictionary methods.  Checked here: the
tree made with ``rows`` is the one made without, field for field and position
for position, and a tree made without ``shared`` holds no generated node twice
(code that walks it, such as pytest's assertion rewrite, may change a node in
place).
"""

from __future__ import annotations

import ast
import sys
from typing import Any, List, Tuple

import pytest

from exceptstar._compiler.rewrite import transform
from exceptstar._compiler.source import mark, quick_scan

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 11), reason="the rewrite of a 3.8-3.10 tree")

# Starred statements at every depth and in every kind of block, beside compound
# statements that hold none (passed over with rows), a clause on the last line of its
# statements and a one-line function.
SOURCE = '''\
import os

def plain(a):
    for x in a:
        if x:
            try:
                pass
            except ValueError:
                pass
    return a

def f(x):
    while x:
        try:
            g()
        except* ValueError as e:
            try:
                h()
            except* TypeError:
                pass
            except* (KeyError, OSError) as k:
                raise
        except* OSError:
            x = 1
        else:
            x = 2
        finally:
            x = 3
    with open(x) as y:
        pass
    return x

class C:
    def m(self):
        if self:
            try:
                1 / 0
            except* ZeroDivisionError: pass
    def n(self): return 1

try:
    pass
except* ValueError:
    pass

async def h():
    async for z in y:
        try:
            await z
        except* ValueError as v:
            v.add_note("x")
'''


def marked_tree() -> Tuple[ast.Module, List[int]]:
    quick = quick_scan(SOURCE)
    assert quick is not None
    rewritten, stars = quick
    tree = compile(rewritten, "<test>", "exec", ast.PyCF_ONLY_AST)
    assert mark(tree, stars) == len(stars) == 7
    return tree, sorted({row for row, _ in stars})


@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("prologue", [False, True])
def test_rows_make_the_same_tree(shared: bool, prologue: bool) -> None:
    whole, rows = marked_tree()
    passed_over, _ = marked_tree()
    assert transform(whole, SOURCE, prologue, shared=shared)
    assert transform(passed_over, SOURCE, prologue, shared=shared, rows=rows)
    assert ast.dump(passed_over, include_attributes=True) == ast.dump(whole, include_attributes=True)
    assert "__es_star_1__" in ast.dump(whole) and "__es_star_2__" in ast.dump(whole)


def test_rows_without_a_star_change_nothing() -> None:
    tree, _ = marked_tree()
    before = ast.dump(tree, include_attributes=True)
    assert not transform(tree, SOURCE, shared=True, rows=[10_000])
    assert ast.dump(tree, include_attributes=True) == before


def generated_nodes(tree: ast.AST) -> List[Any]:
    """Every node object reached in the tree, once per place it is reached (the contexts and operators apart)."""
    found = []
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.expr_context, ast.operator, ast.cmpop)):
                found.append(child)
    return found


@pytest.mark.parametrize("shared", [False, True])
def test_only_a_shared_tree_reuses_nodes(shared: bool) -> None:
    tree, rows = marked_tree()
    transform(tree, SOURCE, shared=shared, rows=rows)
    nodes = generated_nodes(tree)
    reused = len(nodes) - len({id(node) for node in nodes})
    if shared:
        assert reused > 0
    else:
        assert reused == 0
    # Either way the tree compiles to the same code.
    unshared, _ = marked_tree()
    transform(unshared, SOURCE, shared=False)
    assert code_text(compile(tree, "<test>", "exec")) == code_text(compile(unshared, "<test>", "exec"))


def code_text(code: Any) -> List[Any]:
    """A code object's bytecode, line table and constants, its functions' too."""
    table = code.co_linetable if sys.version_info >= (3, 10) else code.co_lnotab
    consts = [code_text(const) if hasattr(const, "co_code") else repr(const) for const in code.co_consts]
    return [code.co_name, code.co_firstlineno, code.co_code, table, code.co_names, code.co_varnames, consts]
