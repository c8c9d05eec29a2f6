"""What compiling sources reports: warnings, the SyntaxError, and the error when warnings are errors.

``report`` runs here and in the newest native CPython
(``processes.call(native_python(), "compiling.report", ...)``), compiling with
the built-in there and with ``exceptstar.compile`` before 3.11.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any, List


def report(sources: List[str]) -> List[Any]:
    """For each source: [warnings shown, the error (msg, line) or None, the strict error or None]."""
    if sys.version_info < (3, 11):
        from exceptstar import compile as compile_star
    else:
        compile_star = compile
    out: List[Any] = []
    for source in sources:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            try:
                compile_star(source, "f.py", "exec")
                error = None
            except SyntaxError as e:
                error = [e.msg, e.lineno]
        shown = [[str(w.message), w.category.__name__, w.lineno, w.filename] for w in seen]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                compile_star(source, "f.py", "exec")
                strict = None
            except SyntaxError as e:
                strict = [type(e).__name__, e.msg, e.lineno, e.offset, getattr(e, "end_lineno", None),
                          getattr(e, "end_offset", None), e.text, e.__context__ is None]
        out.append([shown, error, strict])
    return out
