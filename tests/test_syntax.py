"""SyntaxErrors for invalid except*: message, file, line and offsets as the newest CPython (3.15).

Each snippet is compiled by the newest native interpreter and, here, by
``exceptstar.compile`` (3.8-3.10, or a 3.11+ interpreter under
``EXCEPTSTAR_PURE=1``); the errors must agree (PEP 758: 3.14+ take
``except* A, B:``).  Snippets whose error is not about except* and that the
running parser words differently (3.8-3.10 say "invalid syntax") are compared
on the line only.  3.8 and 3.9 have no end positions.
"""

from __future__ import annotations

import json
import sys

import pytest
from support.interpreters import native_python
from support.processes import run_python

CASES = {
    'mixed1': (
        'try:\n'
        '    pass\n'
        'except* A:\n'
        '    pass\n'
        'except B:\n'
        '    pass\n'
    ),
    'mixed2': (
        'try:\n'
        '    pass\n'
        'except B:\n'
        '    pass\n'
        'except* A:\n'
        '    pass\n'
    ),
    'mixed3': (
        'try:\n'
        '    pass\n'
        'except:\n'
        '    pass\n'
        'except* A:\n'
        '    pass\n'
    ),
    'mixed4': (
        'try:\n'
        '    pass\n'
        'except* A:\n'
        '    pass\n'
        'except:\n'
        '    pass\n'
    ),
    # The file's first token opens the try (the first of Scan's line starts); the parse fails in the odd clause.
    'mixed_from_the_first_token': (
        'try:\n'
        '    pass\n'
        'except* A:\n'
        '    pass\n'
        'except B:\n'
        '    1 +\n'
    ),
    # A starred clause right after `try:` on its line (Scan.after_try).
    'star_after_try_on_its_line': (
        'try: except* A:\n'
        '    pass\n'
    ),
    'star_after_try_on_its_line2': (
        'if x:\n'
        '    try: except* A: pass\n'
    ),
    'star_after_try_without_types': (
        'try: except* :\n'
        '    pass\n'
    ),
    'after_try_attribute_target': (
        'try: except* A as x.y:\n    pass\n'
    ),
    'after_try_attribute_target_inline': (
        'try: except* A as x.y: pass\n'
    ),
    'after_try_parenthesized_name_target': (
        'try: except* A as (x):\n    pass\n'
    ),
    'after_try_subscript_target_in_def': (
        'def f():\n    try: except* A as x[0]:\n        pass\n    return 1\n'
    ),
    'after_try_target_block_fails': (
        'try: except* A as x.y:\n    1 +\n'
    ),
    'after_try_target_inline_block_fails': (
        'try: except* A as x.y: 1 +\n'
    ),
    'after_try_target_no_block': (
        'try: except* A as x.y:\npass\n'
    ),
    'after_try_target_then_clause': (
        'try: except* A as x.y:\n    pass\nexcept* B:\n    pass\n'
    ),
    'after_try_target_types_on_two_lines': (
        'try: except* (A,\n  B) as x.y:\n    pass\n'
    ),
    'target_inline_block': (
        'try:\n    pass\nexcept* A as x.y: pass\n'
    ),
    'target_inline_block_no_newline_at_the_end': (
        'try:\n    pass\nexcept* A as x.y: pass'
    ),
    'target_block_no_newline_at_the_end': (
        'try:\n    pass\nexcept* A as x.y:\n    pass'
    ),
    'target_parenthesized_name': (
        'try:\n    pass\nexcept* A as (x):\n    pass\n'
    ),
    'target_then_more_clauses': (
        'try:\n    pass\nexcept* A as x.y:\n    pass\nexcept* B:\n    pass\n'
    ),
    'after_try_no_block_at_the_end': (
        'try: except* A:\n'
    ),
    'after_try_no_block': (
        'try: except* A:\npass\n'
    ),
    'after_try_no_block_nested': (
        'if 1:\n    try: except* A:\n    pass\n'
    ),
    'after_try_no_block_after_comment': (
        'try: except* A: # c\npass\n'
    ),
    'after_try_list_no_block': (
        'try: except* A, B:\npass\n'
    ),
    'after_try_target_at_the_end': (
        'try: except* A as x.y:\n'
    ),
    'target_no_block_at_the_end': (
        'try:\n    pass\nexcept* A as x.y:\n'
    ),
    'empty': (
        'try:\n'
        '    pass\n'
        'except*:\n'
        '    pass\n'
    ),
    'empty2': (
        'try:\n'
        '    pass\n'
        'except *  :\n'
        '    pass\n'
    ),
    'multi': (
        'try:\n'
        '    pass\n'
        'except* A, B:\n'
        '    pass\n'
    ),
    'multi_as': (
        'try:\n'
        '    pass\n'
        'except* A, B as e:\n'
        '    pass\n'
    ),
    'multi_plain': (
        'try:\n'
        '    pass\n'
        'except A, B:\n'
        '    pass\n'
    ),
    'ret': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        return 1\n'
    ),
    'brk': (
        'for x in y:\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        if x:\n'
        '            break\n'
    ),
    'cont': (
        'for x in y:\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            continue\n'
        '        finally:\n'
        '            pass\n'
    ),
    'ok_loop': (
        'try:\n'
        '    pass\n'
        'except* A:\n'
        '    for x in y:\n'
        '        break\n'
    ),
    'ret_in_else': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        pass\n'
        '    else:\n'
        '        return 1\n'
    ),
    'ret_in_inner_exc': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            pass\n'
        '        except B:\n'
        '            return 2\n'
    ),
    'ret_in_inner_star': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            pass\n'
        '        except* B:\n'
        '            pass\n'
        '        finally:\n'
        '            return 2\n'
    ),
    'ret_body_in_handler_loop_else': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        for x in y:\n'
        '            pass\n'
        '        else:\n'
        '            return 3\n'
    ),
    'brk_outside': (
        'try:\n'
        '    pass\n'
        'except* A:\n'
        '    break\n'
    ),
    'two_errors': (
        'try:\n'
        '    pass\n'
        'except* A, B:\n'
        '    pass\n'
        'try:\n'
        '    pass\n'
        'except*:\n'
        '    pass\n'
    ),
    'as_attr': (
        'try:\n'
        '    pass\n'
        'except* A as e.x:\n'
        '    pass\n'
    ),
    'star_no_space': (
        'try:\n'
        '    pass\n'
        'except*(A,B) as e:\n'
        '    pass\n'
    ),
    'indent': (
        'if 1:\n'
        '  try:\n'
        '    pass\n'
        '  except* A, B:\n'
        '    pass\n'
    ),
    'empty_as': (
        'try:\n'
        '    pass\n'
        'except* as e:\n'
        '    pass\n'
    ),
    'mixed_sp': (
        'try:\n'
        '    pass\n'
        'except B:\n'
        '    pass\n'
        'except  *  A:\n'
        '    pass\n'
    ),
    'mixed3h': (
        'try:\n'
        '    pass\n'
        'except* A:\n'
        '    pass\n'
        'except* B:\n'
        '    pass\n'
        'except C:\n'
        '    pass\n'
        'except D:\n'
        '    pass\n'
    ),
    'mixed3h2': (
        'try:\n'
        '    pass\n'
        'except A:\n'
        '    pass\n'
        'except* B:\n'
        '    pass\n'
        'except C:\n'
        '    pass\n'
    ),
    'multi_sp': (
        'try:\n'
        '    pass\n'
        'except* A, B :\n'
        '    pass\n'
    ),
    'multi_paren': (
        'try:\n'
        '    pass\n'
        'except* (A), B.c as e :\n'
        '    pass\n'
    ),
    'multi3': (
        'try:\n'
        '    pass\n'
        'except* A, B, C:\n'
        '    pass\n'
    ),
    'multi_trailing': (
        'try:\n'
        '    pass\n'
        'except* A,:\n'
        '    pass\n'
    ),
    'ret_bare': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        return\n'
    ),
    'ret_with': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        with x:\n'
        '            return 5\n'
    ),
    'ret_tryfin_body': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            return 5\n'
        '        finally:\n'
        '            pass\n'
    ),
    'ret_tryfin_final': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            pass\n'
        '        finally:\n'
        '            return 5\n'
    ),
    'brk_tryexc_else': (
        'for x in y:\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            pass\n'
        '        except B:\n'
        '            pass\n'
        '        else:\n'
        '            break\n'
    ),
    'ret_in_nested_func': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        def g():\n'
        '            return 1\n'
        '        lambda: 1\n'
        '        class C:\n'
        '            pass\n'
    ),
    'ret_in_body': (
        'def f():\n'
        '    try:\n'
        '        return 1\n'
        '    except* A:\n'
        '        pass\n'
        '    finally:\n'
        '        return 2\n'
    ),
    'cont_in_while_else': (
        'for x in y:\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        while x:\n'
        '            pass\n'
        '        else:\n'
        '            continue\n'
    ),
    'ret_async_with': (
        'async def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        async with x:\n'
        '            return 5\n'
    ),
    'ret_star_in_star': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            pass\n'
        '        except* B:\n'
        '            return 1\n'
    ),
    'two_rets': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        if a:\n'
        '            return 1\n'
        '        return 2\n'
    ),
    'mixed_and_ret': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        return 1\n'
        '    except B:\n'
        '        pass\n'
    ),
    'ret_before_mixed': (
        'def f():\n'
        '    return 1\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        return 1\n'
    ),
    'outside_func_return': (
        'try:\n'
        '    pass\n'
        'except* A:\n'
        '    return 1\n'
    ),
    'yield_out': (
        'try:\n'
        '    pass\n'
        'except* A:\n'
        '    yield 1\n'
    ),
    'await': (
        'async def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        await x\n'
    ),
    'match_in': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        match x:\n'
        '            case 1:\n'
        '                return 1\n'
    ),
    'ret_in_for': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        for x in y:\n'
        '            return 5\n'
    ),
    'ret_in_tryexc_body': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            return 5\n'
        '        except B:\n'
        '            pass\n'
    ),
    'ret_in_exc_as': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            pass\n'
        '        except B as e:\n'
        '            return 5\n'
    ),
    'ret_in_tryexc_else': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            pass\n'
        '        except B:\n'
        '            pass\n'
        '        else:\n'
        '            return 5\n'
    ),
    'ret_in_tryexcfin_handler': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            pass\n'
        '        except B:\n'
        '            return 5\n'
        '        finally:\n'
        '            pass\n'
    ),
    'ret_in_inner_star_handler_as': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            pass\n'
        '        except* B as e:\n'
        '            pass\n'
        '        finally:\n'
        '            return 5\n'
    ),
    'ret_in_star_body': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        try:\n'
        '            return 5\n'
        '        except* B:\n'
        '            pass\n'
    ),
    'brk_in_with_in_loop_in_handler': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        for x in y:\n'
        '            with z:\n'
        '                break\n'
    ),
    'ret_outer_handler_as': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A as e:\n'
        '        return 5\n'
    ),
    'ret_for_in_with': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        with z:\n'
        '            for x in y:\n'
        '                return 5\n'
    ),
    'ret_async_for': (
        'async def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        async for x in y:\n'
        '            return 5\n'
    ),
    'with_then_loopbreak': (
        'def f():\n'
        '    try:\n'
        '        pass\n'
        '    except* A:\n'
        '        with z:\n'
        '            pass\n'
        '        return 5\n'
    ),
}

PROBE = r"""
import json, sys
if sys.version_info < (3, 11) or "--pure" in sys.argv:
    from exceptstar import compile
out = {}
for name, src in json.loads(sys.stdin.readline()).items():
    try:
        compile(src, "snippet.py", "exec")
        out[name] = None
    except SyntaxError as e:
        out[name] = [e.msg, e.filename, e.lineno, e.offset, getattr(e, "end_lineno", None),
                     getattr(e, "end_offset", None), e.text]
print(json.dumps(out))
"""

TARGET_MESSAGE = "cannot use except* statement with "
EXCEPT_STAR_MESSAGES = (
    "cannot have both 'except' and 'except*' on the same 'try'",
    "expected one or more exception types",
    "multiple exception types must be parenthesized",
    "multiple exception types must be parenthesized when using 'as'",
    "'break', 'continue' and 'return' cannot appear in an except* block",
)


def _probe(exe: str, pure: bool) -> dict[str, list[object] | None]:
    proc = run_python(exe, PROBE, pure=pure, args=("--pure",) if pure else (), stdin=json.dumps(CASES) + "\n")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


@pytest.mark.skipif(sys.implementation.name == "pypy" and sys.version_info >= (3, 11),
                    reason="PyPy 3.11's except* is its own parser's and compiler's: 3.11's words, positions "
                           "and order, and a fatal error on `return` in a try* with a finally "
                           "(docs/explanation/differences.md)")
def test_syntax_errors_match_native() -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    # On 3.11+ exceptstar parses with the running parser: its own words are the reference there.
    expected = _probe(native if sys.version_info < (3, 11) else sys.executable, pure=False)
    actual = _probe(sys.executable, pure=sys.version_info >= (3, 11))
    for name, want in expected.items():
        got = actual[name]
        if want is None and sys.version_info < (3, 11) and "except*" not in CASES[name]:
            continue  # code without except* is the running interpreter's to accept (3.14 takes `except A, B:`)
        if want is None:
            assert got is None, name
            continue
        assert got is not None, name
        if name == "match_in" and sys.version_info < (3, 10):
            continue  # `match` does not exist before 3.10: a different error, elsewhere
        if sys.version_info < (3, 11) and (
            (want[0] not in EXCEPT_STAR_MESSAGES and not str(want[0]).startswith(TARGET_MESSAGE))
            or "except*" not in "".join(CASES[name])
        ):
            # Not an except* error: the running parser's own words (and 3.8/3.9 have no `match`).
            assert got[2] == want[2], name
            continue
        if sys.version_info < (3, 10):
            want = [*want[:4], None, None, want[6]]
        assert got == want, name


@pytest.mark.needs_processes
def test_no_except_star_compiles_untouched() -> None:
    code = r'''
import exceptstar, sys
src = "def f(x):\n    try:\n        return x\n    except ValueError:\n        return 2\n"
ours = exceptstar.compile(src, "m.py", "exec")
theirs = compile(src, "m.py", "exec")
f1, f2 = ours.co_consts[0], theirs.co_consts[0]
print(f1.co_code == f2.co_code and ours.co_code == theirs.co_code)
'''
    proc = run_python(sys.executable, code, pure=sys.version_info >= (3, 11))
    assert proc.stdout.strip() == "True", proc.stderr


@pytest.mark.needs_processes
def test_compile_flags_and_modes() -> None:
    code = r'''
import ast, exceptstar
src = "try:\n    raise ValueError(1)\nexcept* ValueError as e:\n    r = repr(e)\n"
ns = {}
exec(exceptstar.compile(src, "<s>", "exec"), ns)
print(ns["r"])
single = exceptstar.compile(src + "\n", "<s>", "single")
exec(single, ns)
tree = exceptstar.compile(src, "<s>", "exec", ast.PyCF_ONLY_AST)
print(isinstance(tree, ast.Module))
exec(exceptstar.compile(tree, "<s>", "exec"), ns)
print(ns["r"])
# future flags are inherited from the caller, as with the built-in
exec(compile("from __future__ import annotations\nimport exceptstar\n"
             "c = exceptstar.compile('def f(x: undefined): pass', '<s>', 'exec')\n"
             "exec(c, g := {})\nprint(g['f'].__annotations__)\n", "<t>", "exec"), {})
'''
    proc = run_python(sys.executable, code, pure=sys.version_info >= (3, 11))
    lines = proc.stdout.splitlines()
    assert lines == ["ExceptionGroup('', (ValueError(1),))", "True",
                     "ExceptionGroup('', (ValueError(1),))", "{'x': 'undefined'}"], proc.stderr
