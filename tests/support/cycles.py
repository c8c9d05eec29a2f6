"""Reference cycles: whether a call leaves garbage that only the cycle collector can free.

On CPython that is what delays freeing (a frame, its locals, a traceback held
until the next collection), which refcounting would otherwise free at once.
PyPy has no refcounting: its GC frees everything, cycles or not, and
``gc.collect()`` returns no count; there what can be checked is the user-visible
half, that nothing of the call's outlives it (the exception it raised is freed
once nothing of the caller's refers to it: no cache, global or handled-exception
state of ours keeps it).
"""

from __future__ import annotations

import gc
import sys
import weakref
from typing import Callable, List

PYPY = sys.implementation.name == "pypy"
# What a test of refcounts (sys.getrefcount) says when skipped on PyPy.
NO_REFCOUNTS = "PyPy has no reference counts (sys.getrefcount): its GC frees what nothing refers to"


def assert_leaves_no_cycles(call: Callable[[], object]) -> None:
    """Run ``call`` (whatever it raises is ignored) and check it left nothing for the cycle collector."""
    if PYPY:
        _assert_frees_what_it_raised(call)
        return

    def once() -> None:
        try:
            call()
        except BaseException:
            pass

    once()  # first-use caches (ctypes bindings, imports) are not the call's garbage
    gc.collect()
    gc.disable()
    try:
        once()
        assert gc.collect() == 0
    finally:
        gc.enable()


def _assert_frees_what_it_raised(call: Callable[[], object]) -> None:
    refs: List[weakref.ReferenceType[BaseException]] = []

    def once() -> None:
        try:
            call()
        except BaseException as raised:
            refs.append(weakref.ref(raised))

    once()
    once()
    # PyPy may keep the last exception raised in its execution context until another one is raised: the
    # second call's KeyError('new') was seen alive once in a full PyPy 3.11 run, never alone.
    try:
        raise LookupError("flush")
    except LookupError:
        pass
    for _ in range(3):  # PyPy's finalizers may need more than one collection
        gc.collect()
    alive = [ref() for ref in refs if ref() is not None]
    assert not alive, f"still referenced after the call: {alive!r}"
