"""Which exception group classes this process uses.

The built-in classes on 3.11+, the pure-Python ones from ``_groups`` on
3.8-3.10, or everywhere when ``EXCEPTSTAR_PURE=1``: that switch is how the
tests compare the two on one interpreter and how the benchmarks measure them.
Every other module takes the classes from here, so the choice is made once.
"""

import os
import sys

PURE = sys.version_info < (3, 11) or os.environ.get("EXCEPTSTAR_PURE", "") not in ("", "0")

# Ordered so that a type checker targeting 3.11+ sees the (generic) built-ins.
if sys.version_info < (3, 11):
    from ._groups import BaseExceptionGroup, ExceptionGroup
elif not PURE:
    import builtins

    BaseExceptionGroup = builtins.BaseExceptionGroup
    ExceptionGroup = builtins.ExceptionGroup
else:
    from ._groups import BaseExceptionGroup, ExceptionGroup  # type: ignore[assignment]

__all__ = ["PURE", "BaseExceptionGroup", "ExceptionGroup"]
