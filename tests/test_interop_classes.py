"""Class-level rules of the groups that the backport's classes got wrong or that 3.13 changed.

``BaseExceptionGroup`` has its own ``__init__`` (so a mixin's ``__init__``
after it in the MRO is not called), compared with the native classes; and
3.13.12's ``repr`` (gh-141732), which no reference interpreter here may have
yet, checked against what that release does.
"""

from __future__ import annotations

import collections
import json
import textwrap
from typing import Any

import pytest
from support.processes import run_native

from exceptstar import _groups

INIT_RULES = """
class MyError(Exception):
    def __init__(self, message):
        self.called = True
        super().__init__(message)

class G(ExceptionGroup, MyError):
    pass

class B(BaseExceptionGroup, MyError):
    pass

out = [BaseExceptionGroup.__init__ is ExceptionGroup.__init__]
for cls in (G, B):
    g = cls("m", [ValueError(1)])
    out.append([type(g).__name__, g.args[0], len(g.args), isinstance(g, MyError), hasattr(g, "called"),
                [c.__name__ for c in type(g).__mro__]])
try:
    G("m", [ValueError()], extra=1)
except TypeError as e:
    out.append(str(e))
result = out
"""


def run_here(code: str) -> Any:
    namespace: dict[str, Any] = {"ExceptionGroup": _groups.ExceptionGroup,
                                 "BaseExceptionGroup": _groups.BaseExceptionGroup}
    exec(textwrap.dedent(code), namespace)
    return json.loads(json.dumps(namespace["result"]))


@pytest.mark.needs_processes
def test_group_init_is_its_own_not_the_mixins() -> None:
    native = run_native(INIT_RULES + "\nimport json; print(json.dumps(result))")
    if native.returncode != 0 and "no CPython" in native.stderr:
        pytest.skip("no native interpreter")
    assert native.returncode == 0, native.stderr
    ours = run_here(INIT_RULES)
    assert ours == json.loads(native.stdout)
    assert ours[0] is True and ours[1][4] is False  # not vacuous: MyError.__init__ never ran


def test_repr_shows_the_members_held_not_the_mutated_argument() -> None:
    # CPython 3.13.12+: the members as the group holds them, in the shape of the argument.
    excs = [ValueError(1)]
    eg = _groups.ExceptionGroup("m", excs)
    excs.append(TypeError(2))
    assert repr(eg) == "ExceptionGroup('m', [ValueError(1)])"
    excs.clear()
    assert repr(eg) == "ExceptionGroup('m', [ValueError(1)])"
    assert repr(_groups.BaseExceptionGroup("b", (ValueError(1), KeyboardInterrupt(2)))) == (
        "BaseExceptionGroup('b', (ValueError(1), KeyboardInterrupt(2)))")
    # Any other sequence: its repr when the group was made.
    queue = collections.deque([ValueError(1), TypeError(2)])
    eg = _groups.ExceptionGroup("d", queue)
    queue.clear()
    assert repr(eg) == "ExceptionGroup('d', deque([ValueError(1), TypeError(2)]))"
    # Parts made by split() show their own members.
    assert repr(_groups.ExceptionGroup("s", [ValueError(1), TypeError(2)]).split(TypeError)[0]) == (
        "ExceptionGroup('s', [TypeError(2)])")
