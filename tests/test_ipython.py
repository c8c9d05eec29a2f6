"""``%load_ext exceptstar``: IPython cells with ``except*``, as native 3.11+ runs the same code.

Each cell runs in a real IPython shell (on the interpreters that have IPython
installed) and, as a plain program, in the native interpreter: the printed
output, and for invalid cells the SyntaxError (message, line, offset, text),
must be the same.
"""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from support.interpreters import native_python
from support.processes import run_native, run_python

pytest.importorskip("IPython")

PURE = sys.version_info >= (3, 11)

CELLS = [
    textwrap.dedent("""\
        def f():
            try:
                raise ExceptionGroup("eg", [ValueError(1), TypeError(2), OSError(3)])
            except* ValueError as e:
                print("value", repr(e))
            except* (TypeError, OSError) as e:
                print("rest", repr(e))
        f()
        """),
    textwrap.dedent("""\
        try:
            raise KeyError("k")
        except* KeyError as e:
            print("naked", repr(e), e.exceptions[0].__notes__ if hasattr(e.exceptions[0], "__notes__") else None)
        """),
    "g = ExceptionGroup('plain cell', [KeyError(1)])\nprint(repr(g), g.split(KeyError)[0] is g)\n",
    "try:\n    pass\nexcept*:\n    pass\n",
    # Mixed clauses (with the types parenthesized: after plain clauses, 3.14 words an
    # unparenthesized list differently from 3.13, and exceptstar follows 3.14).
    "try:\n    pass\nexcept ValueError:\n    pass\nexcept* (A, B):\n    pass\n",
    "def h():\n    try:\n        pass\n    except* A:\n        return 1\n",
]

SHELL = textwrap.dedent("""\
    import json, sys
    from IPython.core.interactiveshell import InteractiveShell
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "exceptstar")
    for cell in json.loads(sys.stdin.read()):
        result = ip.run_cell(cell)
        error = result.error_before_exec
        if error is not None:
            print("error", json.dumps([type(error).__name__, error.msg, error.lineno, error.offset, error.text]))
    ip.run_line_magic("unload_ext", "exceptstar")
    print("unloaded", ip.run_cell("try:\\n    pass\\nexcept* A:\\n    pass\\n").error_before_exec.msg)
    """)

NATIVE = textwrap.dedent("""\
    import json, sys
    namespace = {}
    for cell in json.loads(sys.stdin.read()):
        try:
            code = compile(cell, "<cell>", "exec")
        except SyntaxError as error:
            print("error", json.dumps([type(error).__name__, error.msg, error.lineno, error.offset, error.text]))
        else:
            exec(code, namespace)
    """)


def test_cells_run_as_native() -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    reference = run_python(native, NATIVE, stdin=json.dumps(CELLS))
    assert reference.returncode == 0, reference.stderr
    ours = run_python(sys.executable, SHELL, pure=PURE, stdin=json.dumps(CELLS), env={"TERM": "dumb"})
    assert ours.returncode == 0, ours.stderr
    lines = ours.stdout.splitlines()
    # IPython also shows each SyntaxError itself: only the lines the programs print are compared.
    printed = [line for line in lines if line.startswith(("value", "rest", "naked", "ExceptionGroup", "error"))]
    expected = reference.stdout.splitlines()
    assert len(printed) == len(expected)
    for mine, theirs in zip(printed, expected):
        if theirs.endswith(", null]"):
            # A compiler error quotes no text; IPython's display fills it in from its cell cache.
            mine = mine.rsplit(", ", 1)[0] + ", null]"
        assert mine == theirs
    assert lines[-1] == "unloaded invalid syntax"


FINALLY_CELL = ("def f():\n    try:\n        pass\n    except* ValueError:\n        pass\n"
                "    finally:\n        return 1\n")


LOAD = textwrap.dedent("""\
    import json
    from IPython.core.interactiveshell import InteractiveShell
    ip = InteractiveShell.instance()
    before = set(ip.user_ns)
    ip.run_line_magic("load_ext", "exceptstar")
    print(json.dumps(sorted(set(ip.user_ns) - before)))
    """)


@pytest.mark.skipif(PURE, reason="3.11+ has the built-in names")
def test_loading_binds_names_only_where_the_builtins_lack_them() -> None:
    # As on 3.11, where the names are built-ins: the user namespace gets them only
    # when exceptstar does not provide the built-ins (EXCEPTSTAR_NO_BUILTINS=1).
    for env, added in (({}, []), ({"EXCEPTSTAR_NO_BUILTINS": "1"}, ["BaseExceptionGroup", "ExceptionGroup"])):
        ours = run_python(sys.executable, LOAD, env={"TERM": "dumb", **env})
        assert ours.returncode == 0, ours.stderr
        assert json.loads(ours.stdout) == added, env


@pytest.mark.skipif(PURE, reason="3.11+ compile cells natively")
def test_cell_warns_of_flow_leaving_finally_as_native() -> None:
    report = textwrap.dedent("""\
        import json, sys, warnings
        {setup}
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            RUN(sys.stdin.read())
        print(json.dumps([[str(w.message), w.category.__name__, w.lineno] for w in seen]))
        """)
    shell = ("from IPython.core.interactiveshell import InteractiveShell\nip = InteractiveShell.instance()\n"
             "ip.run_line_magic('load_ext', 'exceptstar')\nRUN = ip.run_cell")
    expected = run_native(report.format(setup="RUN = lambda cell: compile(cell, '<cell>', 'exec')"),
                          stdin=FINALLY_CELL).stdout
    ours = run_python(sys.executable, report.format(setup=shell), stdin=FINALLY_CELL, env={"TERM": "dumb"})
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout.splitlines()[-1] == expected.strip()
    assert json.loads(expected) == [["'return' in a 'finally' block", "SyntaxWarning", 7]]
