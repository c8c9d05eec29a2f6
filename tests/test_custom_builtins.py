"""Transformed code run with builtins of the caller's choosing, as native ``except*`` runs.

``exec(code, {"__builtins__": {...}})`` hides the builtin ``__exceptstar__``
that transformed code calls; the module then finds it by itself.  Each
program runs with exceptstar's ``compile`` here and the built-in one natively.
"""

from __future__ import annotations

import sys
import textwrap

import pytest
from support.interpreters import native_python
from support.processes import run_python

PURE = sys.version_info >= (3, 11)

PROGRAM = textwrap.dedent('''\
    SOURCE = """
    \\"\\"\\"A docstring stays first.\\"\\"\\"
    def f():
        try:
            raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
        except* ValueError as e:
            out.append(repr(e))
        except* TypeError:
            out.append("types")
    f()
    class C:
        try:
            raise KeyError(3)
        except* KeyError as e:
            out.append(repr(e))
    try:
        raise OSError(4)
    except* LookupError:
        pass
    """
    {setup}
    names = {{"ExceptionGroup": ExceptionGroup, "ValueError": ValueError, "TypeError": TypeError,
             "KeyError": KeyError, "LookupError": LookupError, "OSError": OSError, "repr": repr,
             "__build_class__": __build_class__}}
    for builtins_dict in ({{}}, names):
        out = []
        namespace = {{"__builtins__": builtins_dict, "out": out, "__name__": "custom"}}
        if not builtins_dict:
            namespace.update(names)
        try:
            exec(COMPILE(SOURCE, "<custom>", "exec"), namespace)
        except BaseException as error:
            print(type(error).__name__, error)
        # Transformed modules also bind the engine's name and the group names.
        hidden = {{"__builtins__", "__exceptstar__", "BaseExceptionGroup", *names}}
        print(out, sorted(k for k in namespace if k not in hidden), "__exceptstar__" in builtins_dict)
    ''')


@pytest.mark.skipif(sys.implementation.name == "pypy",
                    reason="PyPy ignores a __builtins__ that is not the builtins module: its names resolve "
                           "in the real builtins, whatever the code (native except* too)")
def test_custom_builtins_as_native() -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    reference = run_python(native, PROGRAM.format(setup="COMPILE = compile"))
    ours = run_python(sys.executable, PROGRAM.format(
        setup="import exceptstar\nCOMPILE = exceptstar.compile\nfrom exceptstar import ExceptionGroup"), pure=PURE)
    assert reference.returncode == 0, reference.stderr
    assert (ours.stdout, ours.stderr) == (reference.stdout, "")
    assert "OSError 4" in ours.stdout and "types" in ours.stdout


@pytest.mark.needs_processes
def test_normal_builtins_leave_globals_alone() -> None:
    code = textwrap.dedent("""\
        import exceptstar
        namespace = {}
        exec(exceptstar.compile("try:\\n    pass\\nexcept* ValueError:\\n    pass\\n", "<s>", "exec"), namespace)
        print(sorted(namespace))
        """)
    ours = run_python(sys.executable, code, pure=PURE)
    assert ours.stdout == "['__builtins__']\n", ours.stderr
