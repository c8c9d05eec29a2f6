"""A step of the compiler run with the warnings it gives recorded, or some of them left out.

``warnings.catch_warnings`` would do it, but entering and leaving it tells the
warnings machinery that the filters changed, and every module then forgets
the warnings it has shown: a ``default`` or ``once`` warning the program gave
before would be given again after each module the hook compiles (CPython's
own compile forgets nothing).  Here the filters, and for recording the hook
that shows a warning, are swapped for the step alone, as ``catch_warnings``
swaps them, and put back unannounced: they are the same objects again, so
nothing needs forgetting.  Like ``catch_warnings`` (and ``codeop``, which
uses it for the same purpose), the swap is process-wide for its short span.
"""

import warnings

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import Any, List, Optional, Tuple, Type

# Every warning given, none shown, none counted as shown (no module's registry is written for "always").
_ALWAYS = ("always", None, Warning, None, 0)


class Filters:
    """A with block whose warnings are all recorded in ``recorded`` (the with statement's value) and
    none shown, with ``record``; else run under the caller's filters with ``leave_out`` first (an entry
    of ``warnings.filters``' form).
    """

    __slots__ = ("_leave_out", "_record", "_saved", "recorded")

    def __init__(self, record: bool = False, leave_out: "Optional[Tuple[Any, ...]]" = None) -> None:
        self._record = record
        self._leave_out = leave_out
        self.recorded: List[warnings.WarningMessage] = []

    def __enter__(self) -> "List[warnings.WarningMessage]":
        module: Any = warnings
        saved = self._saved = module.filters, module.showwarning, module._showwarnmsg_impl
        # A new list each time: whatever adds a filter meanwhile (warnings.simplefilter) changes it in place.
        if not self._record:
            filters, show, impl = [self._leave_out, *saved[0]], saved[1], saved[2]
        else:
            # As catch_warnings(record=True): the original showwarning, so that _showwarnmsg reaches
            # the recorder whatever a program set there.
            filters, show, impl = [_ALWAYS], module._showwarning_orig, self.recorded.append
        module.filters, module.showwarning, module._showwarnmsg_impl = filters, show, impl
        return self.recorded

    def __exit__(self, kind: "Optional[Type[BaseException]]", error: "Optional[BaseException]",
                 tb: "Optional[TracebackType]") -> None:
        module: Any = warnings
        module.filters, module.showwarning, module._showwarnmsg_impl = self._saved
