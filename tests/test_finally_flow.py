"""PEP 765 before 3.11: ``return``/``break``/``continue`` leaving a ``finally`` warns in transformed code as in 3.15.

Each source is compiled by the newest native CPython (3.15) and by ``exceptstar.compile``
here; the warnings (message, category, line, file) and, with the warnings made
errors, the SyntaxError must be the same.  Imports go through the hook's
faster paths (native code for what holds no star), which must miss none.
"""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import compiling
from support.interpreters import native_python
from support.processes import call, run_native, run_python

import exceptstar

pytestmark = [pytest.mark.skipif(sys.version_info >= (3, 11), reason="3.11+ compile except* natively"),
              pytest.mark.skipif(native_python() is None, reason="no native CPython 3.11+ here")]

def _native() -> str:
    native = native_python()
    assert native is not None
    return native


def _output(code: str, stdin: str | None = None) -> str:
    """What ``code`` prints in the newest native CPython."""
    proc = run_native(code, stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


STAR = "try:\n    pass\nexcept* ValueError:\n    pass\n"
TRY = "def f():\n    try:\n        pass\n"  # the start of most cases

CASES = [
    TRY + "    finally:\n        return 1\n",
    TRY + "    finally:\n        for x in y:\n            return 1\n",
    "for x in y:\n    try:\n        pass\n    finally:\n        break\n",
    "try:\n    pass\nfinally:\n    for x in y:\n        break\n",
    "try:\n    pass\nfinally:\n    for x in y:\n        pass\n    else:\n        continue\n",
    "try:\n    pass\nfinally:\n    def g():\n        return 1\n",
    TRY + "    finally:\n        class C:\n            return 1\n",
    TRY + "    finally:\n        try:\n            return 1\n        finally:\n            return 2\n",
    TRY + "    finally:\n        try:\n            pass\n        except:\n            return 3\n",
    TRY + "    except* ValueError:\n        pass\n    finally:\n        return 1\n",
    TRY + "    except* A:\n        return 1\n    finally:\n        return 2\n",
    TRY + "    finally:\n        if x: return 1\n        return (\n  2)\n",
    "def f():\n    while x:\n        try:\n            pass\n        except* A:\n            pass\n"
    "        finally: continue\n",
    TRY + "    except* ValueError:\n        pass\n    finally:\n        match x:\n            case 1:\n"
    "                return 1\n",
    TRY + "    except*:\n        pass\n    finally:\n        return 1\n",
]
if sys.version_info < (3, 10):
    CASES = [case for case in CASES if "match" not in case]  # the running parser's to reject

def _sources() -> list[str]:
    # Every case in a module that uses except* (the transformed path), the star first or last.
    return [STAR + case for case in CASES] + [case + STAR for case in CASES]


def test_compile_warns_as_315() -> None:
    sources = _sources()
    expected = call(_native(), "compiling.report", sources)
    ours = compiling.report(sources)
    assert any(shown for shown, _, _ in expected), "the cases warn on 3.15"
    for source, theirs, mine in zip(sources, expected, ours):
        if sys.version_info < (3, 10) and theirs[2] is not None:
            theirs[2][4:6] = mine[2][4:6] = [None, None]  # no end positions before 3.10
        assert mine == theirs, source


def test_ast_parse_gives_no_warning() -> None:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        exceptstar.compile(STAR + CASES[0], "f.py", "exec", flags=0x400)
    assert seen == []


ATTRIBUTION = """
import warnings
{setup}
source = ("try:\\n    pass\\nexcept* A:\\n    pass\\n"
          "def f():\\n    try:\\n        pass\\n    finally:\\n        return 1\\n")
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("default")
    for name in ("a.py", "a.py", "b.py"):
        COMPILE(source, name, "exec")
print(len(seen), "__warningregistry__" in globals())
with warnings.catch_warnings():
    warnings.filterwarnings("error", module="a")
    try:
        COMPILE(source, "a.py", "exec")
    except SyntaxError as error:
        print(error.msg)
"""


def test_attributed_as_315() -> None:
    # No registry, the module named after the file: every compile of every file shows it.
    expected = _output(ATTRIBUTION.format(setup="COMPILE = compile"))
    ours = run_python(sys.executable, ATTRIBUTION.format(setup="import exceptstar; COMPILE = exceptstar.compile"))
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == expected == "3 False\n'return' in a 'finally' block\n"


# Modules shaped for each of the import hook's paths: the star in one
# function and the flow in another (native code for it), the flow beside the
# star, at module level, after a bracket that runs onto lines indented less,
# and a finally with a return only after it (no warning).  Then what may hide
# a block's end from a reading by indentation (tabs, form feeds, lone carriage
# returns, a bracket in a string, continued lines), a module with another
# compile warning, which must be shown once and in CPython's order, and a flow after many blocks.
STAR_FIRST = "def g():\n    try:\n        pass\n    except* ValueError:\n        pass\n\n"
FILLER = "".join(f"def h{i}():\n    x = {i}\n    return x\n\n" for i in range(20))
FLOW = TRY + "    finally:\n        return 1\n"
MODULES = {
    "apart": STAR_FIRST + FILLER + FLOW,
    "beside": TRY + "    except* ValueError:\n        pass\n    finally:\n        return 1\n",
    "toplevel": "for x in []:\n    try:\n        pass\n    except* ValueError:\n        pass\n"
                "    finally:\n        break\n",
    "bracket": STAR_FIRST + FILLER + TRY + "    finally:\n        x = (1,\n2)\n        return x\n",
    "after": STAR_FIRST + "".join(f"def h{i}():\n    try:\n        x = {i}\n    finally:\n        x += 1\n"
                                  "    return x\n\n" for i in range(20)),
    "tabs": STAR_FIRST + FILLER + TRY + "    finally:\n\t    return 1\n",
    "tab_first": STAR_FIRST + FILLER + "def f():\n\ttry:\n\t\tpass\n\tfinally:\n         return 1\n",
    "form_feed": STAR_FIRST + FILLER + TRY + "    finally:\n        pass\n\f        return 1\n",
    "carriage": (STAR_FIRST + FILLER + FLOW).replace("\n", "\r"),
    "quoted": STAR_FIRST + FILLER + TRY + "    finally:\n        y = ')'; x = (\n0)\n"
                                    "        return 1\n",
    "continued": STAR_FIRST + FILLER + TRY + "    \\\n            finally:\n"
                                       "        return 1\n",
    "split": STAR_FIRST + FILLER + TRY + "    finally \\\n:\n        return 1\n",
    "twice": "x = 1\nif x is 1:\n    pass\n" + STAR_FIRST + FILLER + FLOW,
    # The blocks are read one by one but looked into together: the one flow among many.
    "last_of_many": STAR_FIRST + "".join(f"def h{i}():\n    try:\n        x = ({i},\n             [{i}])\n"
                                         f"    finally:\n        x = {{{i}: '('}}\n    return x\n\n"
                                         for i in range(30)) + FLOW,
}

if sys.version_info[:2] == (3, 9):
    del MODULES["continued"]  # 3.9's parser rejects a `finally` on a continued line (3.8, 3.10 and 3.15 take it)

REPORT_WARNINGS = """
    out[name] = [[w.category.__name__, w.lineno, str(w.message) if "finally" in str(w.message) else None]
                 for w in seen]
"""

IMPORT = """
import json, sys, warnings
import exceptstar
exceptstar.install()
sys.path.insert(0, sys.argv[1])
out = {}
for name in json.loads(sys.stdin.read()):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        __import__(name)
""" + REPORT_WARNINGS + "print(json.dumps(out))"

COMPILED = """
import json, sys, warnings
out = {}
for name, source in json.loads(sys.stdin.read()).items():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        compile(source, name + ".py", "exec")
""" + REPORT_WARNINGS + "print(json.dumps(out))"


def test_import_warns_as_315(tmp_path: Path) -> None:
    expected = json.loads(_output(COMPILED, stdin=json.dumps(MODULES)))
    for name, source in MODULES.items():
        (tmp_path / f"{name}.py").write_bytes(source.encode())
    proc = run_python(sys.executable, IMPORT, args=(str(tmp_path),), stdin=json.dumps(list(MODULES)),
                      env={"PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == expected
    assert expected["after"] == [] and all(expected[name] for name in MODULES if name != "after")
    assert [kind for kind, _, message in expected["twice"]] == ["SyntaxWarning", "SyntaxWarning"]


# Statement trees for the property test: every place a flow statement can sit
# relative to finally blocks, loops, functions and classes.
FLOWS = st.sampled_from(["return", "break", "continue", "pass"])


def _compound(children: st.SearchStrategy[list[object]]) -> st.SearchStrategy[object]:
    return st.one_of(
        st.tuples(st.sampled_from(["try", "trystar"]), children, children, children),
        st.tuples(st.sampled_from(["for", "while", "if", "with", "def", "class"]), children, children),
    )


STATEMENTS = st.recursive(FLOWS, lambda inner: _compound(st.lists(inner, min_size=1, max_size=3)),
                          max_leaves=12)
# Each source: a try whose finally block holds any of them, in a function, a loop or neither.
SOURCES = st.tuples(
    st.sampled_from(["", "def", "for"]),
    st.tuples(st.sampled_from(["try", "trystar"]), st.lists(STATEMENTS, min_size=1, max_size=2),
              st.lists(STATEMENTS, min_size=1, max_size=2), st.lists(STATEMENTS, min_size=1, max_size=3)),
)


def render(node: object, depth: int = 0) -> list[str]:
    pad = "    " * depth
    if isinstance(node, str):
        return [pad + node]
    kind, *blocks = node  # type: ignore[misc]
    def block(header: str, body: list[object]) -> list[str]:
        return [pad + header] + [line for child in body for line in render(child, depth + 1)]
    if kind in ("try", "trystar"):
        body, handler, final = blocks
        star = "*" if kind == "trystar" else ""
        return block("try:", body) + block(f"except{star} ValueError:", handler) + block("finally:", final)
    body, other = blocks
    header = {"for": "for x in y:", "while": "while x:", "if": "if x:", "with": "with x:",
              "def": "def f():", "class": "class C:"}[kind]
    lines = block(header, body)
    if kind in ("for", "while", "if"):
        lines += block("else:", other)
    return lines


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(SOURCES, min_size=1, max_size=5))
def test_generated_flows_warn_as_315(trees: list[tuple[str, object]]) -> None:
    sources = [STAR + "\n".join(render((outer, [tree], []) if outer else tree)) + "\n" for outer, tree in trees]
    expected = call(_native(), "compiling.report", sources)
    for source, theirs, mine in zip(sources, expected, compiling.report(sources)):
        assert mine[0] == theirs[0], source  # the warnings
        assert (mine[1] is None) == (theirs[1] is None), source  # an error after them, or none
