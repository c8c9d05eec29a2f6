"""``_compiler.unparse.unparse``: the text ``show`` prints on 3.8, which has no ``ast.unparse``.

Every file of the running interpreter's standard library must parse back into
the same tree (3.8's trees and 3.9's), and on 3.9 the text must be exactly
``ast.unparse``'s, so that ``show`` prints the same on both.  The focused
cases hold the text 3.9's ``ast.unparse`` writes, checked against it on 3.9.
"""

from __future__ import annotations

import ast
import concurrent.futures
import os
import sys
import sysconfig
import warnings

import pytest

from exceptstar._compiler import rewrite, transform
from exceptstar._compiler.unparse import unparse

# On PyPy (3.9) it reads the whole standard library, uncompiled: the slowest file there, for 3.8's text.
pytestmark = [
    pytest.mark.skipif(
        sys.version_info >= (3, 10),
        reason="3.10+: show uses ast.unparse; our unparse is what it uses on 3.8 "
               "(and is compared with ast.unparse on 3.9)"),
    pytest.mark.pypy_full_only,
]

ON_39 = sys.version_info[:2] == (3, 9)


def dump(tree: ast.AST) -> str:
    return ast.dump(tree, include_attributes=False)


def round_trips(tree: ast.AST) -> str:
    """``unparse(tree)``, after checking that it parses back into ``tree``."""
    text = unparse(tree)
    assert dump(ast.parse(text, mode="eval" if isinstance(tree, ast.Expression) else "exec")) == dump(tree), text
    return text


# --- the standard library -----------------------------------------------------------

def stdlib_files() -> list[str]:
    root = sysconfig.get_paths()["stdlib"]
    found = []
    for folder, dirs, names in os.walk(root):
        # Installed packages (pip, setuptools) are not the standard library.
        dirs[:] = sorted(d for d in dirs if d != "site-packages")
        found += [os.path.join(folder, name) for name in sorted(names) if name.endswith(".py")]
    return found


def check_file(path: str) -> tuple[str, str | None, str | None] | None:
    """(path, round-trip problem, difference from ``ast.unparse``), or None when the file does not parse.

    Run in a pool of processes: the whole library takes a while.
    """
    with open(path, "rb") as file:
        source = file.read()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escapes and the like in old code
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):  # Python 2 test data, bad encodings (UnicodeDecodeError)
            return None
        try:
            text = unparse(tree)
        except Exception as error:
            return path, f"unparse raised {type(error).__name__}: {error}", None
        try:
            same_tree = dump(ast.parse(text)) == dump(tree)
        except SyntaxError as error:
            return path, f"SyntaxError at line {error.lineno}: {error.msg}", None
        problem = None if same_tree else "parses back into another tree"
        difference = None
        if ON_39:
            expected = ast.unparse(tree)
            if text != expected:
                lines = list(zip(expected.splitlines(), text.splitlines()))
                number = next((n for n, (a, b) in enumerate(lines, 1) if a != b), len(lines) + 1)
                difference = f"first difference at line {number}"
    return path, problem, difference


@pytest.fixture(scope="module")
def stdlib() -> list[tuple[str, str | None, str | None]]:
    files = stdlib_files()
    with concurrent.futures.ProcessPoolExecutor() as pool:
        results = [result for result in pool.map(check_file, files, chunksize=16) if result is not None]
    # Only Python 2 test data and files meant to fail are left out.
    assert len(results) > 0.95 * len(files) > 500, (len(results), len(files))
    return results


def test_stdlib_round_trips(stdlib: list[tuple[str, str | None, str | None]]) -> None:
    broken = [f"{path}: {problem}" for path, problem, _ in stdlib if problem is not None]
    assert not broken, f"{len(broken)} of {len(stdlib)} files:\n" + "\n".join(broken)


@pytest.mark.skipif(not ON_39, reason="ast.unparse is 3.9+; on 3.8 the focused cases hold its text")
def test_stdlib_same_text_as_ast_unparse(stdlib: list[tuple[str, str | None, str | None]]) -> None:
    differ = [f"{path}: {difference}" for path, _, difference in stdlib if difference is not None]
    assert not differ, f"{len(differ)} of {len(stdlib)} files:\n" + "\n".join(differ)


# --- focused cases: source -> what 3.9's ast.unparse writes ---------------------------

CASES = [
    # f-strings: quotes left free by the expressions, format specs, nested f-strings.
    ("f\"{d['k']!r:>{width}}\"", "f\"{d['k']!r:>{width}}\""),
    ("f'''{'a' + \"b\"}'''", "f\"{'a' + 'b'}\""),
    ("f\"a'b\\\"c{x}\"", "f\"\"\"a'b\"c{x}\"\"\""),
    ("f'''{f\"{x!r:^{n}}\"}'''", "f\"{f'{x!r:^{n}}'}\""),
    ('f"{x=}"', "f'x={x!r}'"),
    ('f"{ {1: 2}[1] }"', "f'{ {1: 2}[1]}'"),
    ('f"{a if b else c}{x:\\n}"', 'f"""{(a if b else c)}{x:\n}"""'),
    ('f"{x}\\t{{literal}}\\\\"', "f'{x}\\t{{literal}}\\\\'"),
    ("x = u'text'", "x = u'text'"),
    # An infinite float has no literal of its own.
    ("1e309", "1e309"),
    ("1e309j", "1e309j"),
    ("-1e309", "-1e309"),
    # Precedence.
    ("-1 ** 2", "-1 ** 2"),
    ("(-1) ** 2", "(-1) ** 2"),
    ("2 ** -1", "2 ** (-1)"),
    ("a ** b ** c", "a ** b ** c"),
    ("(a ** b) ** c", "(a ** b) ** c"),
    ("x or a and b", "x or (a and b)"),
    ("not (a and b)", "not (a and b)"),
    ("(not a) + 1", "(not a) + 1"),
    ("a if (b if c else d) else e", "a if (b if c else d) else e"),
    ("a < b <= c is not d not in e\n(a < b) < c\na < (b < c)",
     "a < b <= c is not d not in e\n(a < b) < c\na < (b < c)"),
    ("[y for x in xs if (y := f(x))]", "[y for x in xs if (y := f(x))]"),
    ("[(y := 1), y ** 2]", "[(y := 1), y ** 2]"),
    ("(x := a + b)", "(x := (a + b))"),
    ("async def f():\n    x = await a ** 2\n    y = (await a) + 1\n    await (a + b)\n"
     "    return [i async for i in aiter() if await i]",
     "async def f():\n    x = await a ** 2\n    y = await a + 1\n    await (a + b)\n"
     "    return [i async for i in aiter() if await i]"),
    ("def g():\n    x = yield a + b\n    yield\n    print((yield))\n    y = yield from z",
     "def g():\n    x = (yield (a + b))\n    yield\n    print((yield))\n    y = (yield from z)"),
    ("f(x for x in y)", "f((x for x in y))"),
    ("1 .real", "1 .real"),
    # Parameters.
    ("def f(key=lambda item: item[0], *, default=lambda: None): pass",
     "def f(key=lambda item: item[0], *, default=lambda : None):\n    pass"),
    ("def f(a, b=1, /, c=2, *args, d, e=3, **kw): pass\nlambda a, /, b: 0",
     "def f(a, b=1, /, c=2, *args, d, e=3, **kw):\n    pass\nlambda a, /, b: 0"),
    ("def f(a: int = 1, *, b: 'B') -> None: pass", "def f(a: int=1, *, b: 'B') -> None:\n    pass"),
    # Decorators, docstrings, blank lines.
    ("@a.b(c)\n@d\nclass C(B, metaclass=M):\n    '''Doc.'''\n    @property\n    def p(self): return 1",
     '@a.b(c)\n@d\nclass C(B, metaclass=M):\n    """Doc."""\n\n    @property\n    def p(self):\n        return 1'),
    ('def f():\n    """Ends with a quote: "x\\""""\n    x = 1\n    def g(): pass',
     "def f():\n    '''Ends with a quote: \"x\"'''\n    x = 1\n\n    def g():\n        pass"),
    # Starred, tuples and subscripts (ExtSlice and Index on 3.8, a tuple on 3.9).
    ("f(*a, *b, c=1, **d)\na[(*b, c)]\nx = *a, b\na, b = c\nfor k, in d: pass",
     "f(*a, *b, c=1, **d)\na[(*b, c)]\nx = (*a, b)\n(a, b) = c\nfor (k,) in d:\n    pass"),
    ("{*()}", "{*()}"),
    ("a[1:2, 3]\na[1:2,]\na[()]\na[1,]\na[:, ::2]\na[...]\na[b, c]",
     "a[1:2, 3]\na[1:2,]\na[()]\na[1,]\na[:, ::2]\na[...]\na[b, c]"),
    # Statements.
    ("async def f():\n    global g\n    async with a as (b, c), d:\n        async for e in f: pass\n"
     "    try: pass\n    except (E, F) as e: raise G from e\n    except: raise\n    else: pass\n"
     "    finally: del a, b[1]\n    if a: pass\n    else:\n        if b: pass\n    x: int\n    (y): int = 1\n"
     "    z += 1\n    assert z, 'message'\n    from ..m import (n as o, p)\n    while 1: break\n    else: continue",
     "async def f():\n    global g\n    async with a as (b, c), d:\n        async for e in f:\n            pass\n"
     "    try:\n        pass\n    except (E, F) as e:\n        raise G from e\n    except:\n        raise\n"
     "    else:\n        pass\n    finally:\n        del a, b[1]\n    if a:\n        pass\n    elif b:\n"
     "        pass\n    x: int\n    (y): int = 1\n    z += 1\n    assert z, 'message'\n"
     "    from ..m import n as o, p\n    while 1:\n        break\n    else:\n        continue"),
]


@pytest.mark.parametrize(("source", "expected"), CASES, ids=[source[:40] for source, _ in CASES])
def test_case(source: str, expected: str) -> None:
    tree = ast.parse(source)
    assert round_trips(tree) == expected
    if ON_39:
        assert ast.unparse(tree) == expected


def test_infinity_is_a_literal_for_infinity() -> None:
    text = round_trips(ast.parse("1e309 + 1e309j", mode="eval"))
    assert eval(text) == complex(float("inf"), float("inf"))


def test_empty_set_from_a_hand_made_tree() -> None:
    # The parser never makes an empty Set (``{}`` is a dict).
    assert unparse(ast.Set([])) == "{*()}"


@pytest.mark.parametrize("field", ["'\xa0'", "b'\t'"], ids=["no-break space", "tab in bytes"])
def test_unprintable_character_in_a_replacement_field(field: str) -> None:
    # 3.9 escapes it and then refuses (no backslash may go inside {} before
    # 3.12); it is written as it is, as the source had it.
    source = f'f"{{{field}}}"'
    tree = ast.parse(source)
    assert round_trips(tree) == source
    if ON_39:
        with pytest.raises(ValueError, match="backslash"):
            ast.unparse(tree)


def test_hand_made_backslash_in_a_replacement_field_is_refused() -> None:
    tree = ast.JoinedStr([ast.FormattedValue(ast.Constant("\0"), -1, None)])
    with pytest.raises(ValueError, match="backslash"):
        unparse(tree)


EXCEPT_STAR = '''\
"""Jobs, run in groups."""


class Jobs:
    def run(self, jobs):
        try:
            try:
                raise ExceptionGroup("jobs", [ValueError(job) for job in jobs])
            except* ValueError as group:
                failed = len(group.exceptions)
            except* (TypeError, KeyError):
                raise
            else:
                failed = 0
            finally:
                print(f"{len(jobs)} jobs")
        except* OSError:
            pass
        return failed
'''


def test_transformed_module_round_trips() -> None:
    tree = transform.parse(EXCEPT_STAR, "<jobs>")
    rewrite.transform(tree)
    # The rewrite's nodes leave out the fields they have no use for; the
    # parser fills them with None.
    for node in ast.walk(tree):
        for field in node._fields:
            if not hasattr(node, field):
                setattr(node, field, None)
    text = round_trips(tree)
    assert "__es_star_2__.match(ValueError, 1, True)" in text and "except*" not in text
    assert "__es_star_2__.match((TypeError, KeyError), 1, False)" in text  # a later clause begins nothing
    if ON_39:
        assert text == ast.unparse(tree)
