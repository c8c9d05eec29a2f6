"""Compiling ``except*`` leaves the program's warnings as they were: none shown again, none lost.

The compiler records the warnings of the compiles it may throw away
(``_compiler.quiet``).  ``warnings.catch_warnings`` made every module forget the
warnings it had shown, so a ``default`` warning came again after each module
that the hook compiled; native CPython forgets nothing.
"""

from __future__ import annotations

import textwrap

import pytest
from support.processes import ours_and_newest

# Each takes a different path through the compiler on 3.8-3.10: stars in functions only (their
# bodies compiled natively, the rest stubbed), a star at module level (the whole tree), a star
# in a comment only (the module compiled untouched), and a module that warns itself.
MODULES = {
    "in_functions": "def f():\n    try:\n        pass\n    except* ValueError:\n        pass\n",
    "at_top": "try:\n    pass\nexcept* ValueError:\n    pass\n",
    "in_a_comment": "# except* ValueError\nx = 1\n",
    "warns": "def f(x):\n    try:\n        pass\n    except* ValueError:\n        pass\n    return x is 1\n",
}

PROGRAM = textwrap.dedent("""\
    import json, os, sys, tempfile, warnings
    if sys.version_info < (3, 11) or os.environ.get("EXCEPTSTAR_PURE"):
        import exceptstar
        exceptstar.install()
        compile_star = exceptstar.compile
    else:
        compile_star = compile
    shown = []

    def show(message, category, filename, lineno, file=None, line=None):
        shown.append([category.__name__, str(message)[:20], os.path.basename(filename), lineno])

    warnings.showwarning = show
    warnings.simplefilter({action!r})
    filters = warnings.filters

    def old(what):
        warnings.warn(what, DeprecationWarning)

    old("given before")
    folder = tempfile.mkdtemp()
    sys.path.insert(0, folder)
    for name, text in {modules!r}.items():
        with open(os.path.join(folder, name + ".py"), "w") as file:
            file.write(text)
        __import__(name)
        compile_star(text, name + ".py", "exec")
        old("given before")
    old("given after")
    old("given after")
    print(json.dumps([shown, warnings.filters is filters, warnings.showwarning is show]))
""")


@pytest.mark.needs_processes
@pytest.mark.parametrize("action", ["default", "once", "module"])
def test_compiling_forgets_no_warning_shown(action: str) -> None:
    ours, newest = ours_and_newest(PROGRAM.format(action=action, modules=MODULES))
    program_own = [[entry for entry in run[0] if entry[2] == "<string>"] for run in (ours, newest)]
    assert program_own[0] == program_own[1]
    assert [run[1:] for run in (ours, newest)] == [[True, True]] * 2
    assert [entry[1] for entry in program_own[1]] == ["given before", "given after"]
    # The module that warns itself warns as natively: once for its import, once for each compile.
    assert [entry[2] for entry in ours[0]].count("warns.py") == \
        [entry[2] for entry in newest[0]].count("warns.py")


def test_a_filter_added_during_a_trial_lasts_no_longer() -> None:
    """What adds a filter while a trial compile runs (another thread's ``simplefilter``) changes that
    trial's list alone: the next trial still records every warning."""
    import warnings

    from exceptstar._compiler.quiet import Filters

    before = warnings.filters
    with Filters(record=True):
        warnings.simplefilter("error")
    with Filters(record=True) as recorded:
        warnings.warn("recorded", UserWarning, stacklevel=1)
    assert [str(w.message) for w in recorded] == ["recorded"]
    assert warnings.filters is before
