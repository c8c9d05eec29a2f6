"""Which exception group classes this process uses.

The built-in classes on 3.11+, the pure-Python ones from ``_groups`` on
3.8-3.10, or everywhere when ``EXCEPTSTAR_PURE=1``: that switch is how the
tests compare the two on one interpreter and how the benchmarks measure them.
Every other module takes the classes from here, so the choice is made once.
"""

import os
import sys

PURE = sys.version_info < (3, 11) or os.environ.get("EXCEPTSTAR_PURE", "") not in ("", "0")

if PURE:
    from ._groups import BaseExceptionGroup, ExceptionGroup
else:  # pragma: no cover - the pure branch is what mypy checks against 3.8
    import builtins

    BaseExceptionGroup = builtins.BaseExceptionGroup  # type: ignore[attr-defined,misc]
    ExceptionGroup = builtins.ExceptionGroup  # type: ignore[attr-defined,misc]

__all__ = ["PURE", "BaseExceptionGroup", "ExceptionGroup"]
