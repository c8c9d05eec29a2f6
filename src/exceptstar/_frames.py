"""Which traceback entries are exceptstar's own, and taking them out.

What exceptstar runs on the user's behalf (the ``except*`` engine, the group
classes, ``catch()``, the command line) CPython runs in C, without frames.
So a traceback the user reads must not show them: every path that lets an
exception out of our machinery passes its traceback through here.
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import CodeType, FrameType, TracebackType
    from typing import Optional

# Every wing's modules too: the package's folder and those below it.
_PACKAGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "")


def is_own(tb: "TracebackType") -> bool:
    """Whether the entry's frame runs a module of this package (not a user program it executes)."""
    filename = tb.tb_frame.f_code.co_filename
    return filename.endswith(".py") and filename.startswith(_PACKAGE_DIR)


def user_frame(frame: "Optional[FrameType]") -> "Optional[FrameType]":
    """``frame`` or the first frame it was called from that runs none of this package's modules."""
    while frame is not None:
        filename = frame.f_code.co_filename
        if not (filename.endswith(".py") and filename.startswith(_PACKAGE_DIR)):
            return frame
        frame = frame.f_back
    return None


def without_own(tb: "Optional[TracebackType]") -> "Optional[TracebackType]":
    """``tb`` with every entry of ours unlinked, in place; the new first entry."""
    while tb is not None and is_own(tb):
        tb = tb.tb_next
    entry = tb
    while entry is not None:
        after = entry.tb_next
        while after is not None and is_own(after):
            after = after.tb_next
        if after is not entry.tb_next:
            entry.tb_next = after
        entry = after
    return tb


def raised_by_importlib(error: BaseException) -> "CodeType":
    """Code that raises ``error`` dressed as importlib's ``_call_with_frames_removed``.

    When an import fails, CPython takes out of the traceback every importlib
    frame down to the last ``_call_with_frames_removed``, the function through
    which importlib compiles and runs a module: a SyntaxError there shows the
    import statement alone.  A loader of ours that returns this code to
    importlib's ``exec_module``, which runs it through that function, has its
    SyntaxError shown so, with no frame of ours in it.
    """
    code = compile("raise ...", "<frozen importlib._bootstrap>", "exec")
    # The exception is a constant, not a name: the code runs in the module's namespace.
    consts = tuple(error if const is ... else const for const in code.co_consts)
    return code.replace(co_consts=consts, co_name="_call_with_frames_removed")


def strip(exc: BaseException) -> BaseException:
    """Take our entries out of ``exc``'s traceback; ``exc``."""
    tb = exc.__traceback__
    if tb is not None:
        kept = without_own(tb)
        if kept is not tb:
            exc.__traceback__ = kept
    return exc
