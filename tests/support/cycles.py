"""Reference cycles: whether a call leaves garbage that only the cycle collector can free."""

from __future__ import annotations

import gc
from typing import Callable


def assert_leaves_no_cycles(call: Callable[[], object]) -> None:
    """Run ``call`` (whatever it raises is ignored) and check it left nothing for the cycle collector."""

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
