"""Groups and notes in every printed traceback on 3.8-3.10, installed lazily.

Those interpreters print tracebacks in C (``sys.excepthook``, threads,
unraisable exceptions) or through the ``traceback`` module, and none of them
knows exception groups or notes.  ``activate()`` (run by ``import exceptstar``)
routes each printing path through ``formatting`` without importing anything:

* ``sys.excepthook`` and ``sys.unraisablehook``, when they are still the
  interpreter's defaults, become small functions that import the formatter
  only when an exception with a group or a note is printed, and leave every
  other exception to the default hook;
* ``traceback``, ``threading``, ``code`` and the
  ``exceptiongroup`` backport are patched right after they are first imported
  (``_watch.when_imported``: nothing is imported for it), or
  at once if they already are.

A hook that someone else installed is left in place.  Any failure of ours
falls back to the hook or method that was there before.  ``EXCEPTSTAR_NO_PATCH=1``
turns all of it off.
"""

import os
import sys

from exceptstar._watch import when_imported

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType, TracebackType
    from typing import Any, Callable, Dict, List, Optional, Type

_DISABLED = os.environ.get("EXCEPTSTAR_NO_PATCH", "") not in ("", "0")


def involves_groups_or_notes(exc: object) -> bool:
    """Whether ``exc`` or an exception it chains to is a group, has notes or an entry spanning lines.

    Everything else is left to the interpreter's own printing, untouched
    (3.10's "Did you mean" hints, for one, come only from there).  The
    entries that span an ``except*`` clause (``_spans``) are ours to print.
    """
    from exceptstar._classes import group_classes
    from exceptstar._spans import spans_lines

    groups = group_classes()
    pending = [exc]
    seen = set()
    while pending:
        current = pending.pop()
        if not isinstance(current, BaseException) or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, groups):
            return True
        try:
            if hasattr(current, "__notes__"):
                return True
        except Exception:
            return True  # a failing __notes__ is for the formatter to report
        if spans_lines(current.__traceback__):
            return True
        pending.append(current.__cause__)
        pending.append(current.__context__)
    return False


def _format(exc_type: "Any", value: "Any", tb: "Any", stream: "Any" = None) -> str:
    """The traceback text; in colour when the hook of 3.15 would colour it on ``stream``."""
    from exceptstar._printing.formatting import TracebackException

    # The hooks count sys.tracebacklimit as C's printer does: the innermost
    # frames (3.15's BUILTIN_EXCEPTION_LIMIT), where traceback's own
    # functions keep the outermost.
    limit = getattr(sys, "tracebacklimit", None)
    if limit is not None:
        limit = -max(limit, 0)
    te = TracebackException(exc_type, value, tb, limit=limit, compact=True)
    if stream is None:
        return "".join(te.format())
    from exceptstar._printing.colour import can_colorize

    return "".join(te.format(colorize=can_colorize(stream)))


# -- sys.excepthook ---------------------------------------------------------

# Set by the ``code`` patch: while showsyntaxerror runs in a thread, the
# interpreter whose ``write`` receives what the default hook would print.
_code_state: "Any" = None


def excepthook(exc_type: "Type[BaseException]", value: BaseException,
               tb: "Optional[TracebackType]") -> None:
    """``sys.excepthook``: the default one, with groups and notes printed in full."""
    try:
        interpreter = getattr(_code_state, "interpreter", None)
        if interpreter is not None:
            # Called back by code.InteractiveInterpreter.showsyntaxerror: the
            # default hook's job there is to write through the interpreter.
            import traceback

            interpreter.write("".join(traceback.format_exception_only(exc_type, value)))
            return
        stream = sys.stderr
        if stream is not None and involves_groups_or_notes(value):
            text = _format(exc_type, value, tb, stream)
            stream.write(text)
            stream.flush()
            return
    except Exception:
        pass
    sys.__excepthook__(exc_type, value, tb)


# -- sys.unraisablehook -----------------------------------------------------

def unraisablehook(unraisable: "Any") -> None:
    """``sys.unraisablehook``: the default one, with groups and notes printed in full."""
    try:
        stream = sys.stderr
        value = unraisable.exc_value
        if stream is not None and involves_groups_or_notes(value):
            obj = unraisable.object
            message = unraisable.err_msg
            header = ""
            if obj is not None:
                try:
                    shown = repr(obj)
                except Exception:
                    shown = "<object repr() failed>"
                header = f"{message or 'Exception ignored in'}: {shown}\n"
            elif message is not None:
                header = f"{message}:\n"
            # In colour as on 3.15, whose hook prints through traceback's own (3.14: plain, no members).
            text = header + _format(unraisable.exc_type, value, unraisable.exc_traceback, stream)
            stream.write(text)
            stream.flush()
            return
    except Exception:
        pass
    sys.__unraisablehook__(unraisable)


# -- module patches, applied right after the module is imported ------------

# The hooks and methods replaced, for the fallbacks.
_ORIGINALS: "Dict[str, Any]" = {}

# What a class's __dict__ holds about the class itself rather than its behaviour.
_CLASS_ITSELF = {"__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__annotations__"}


def _patch_traceback(module: "ModuleType") -> None:
    standard = module.TracebackException
    if getattr(standard, "__module__", None) != "traceback":
        return  # someone else's class: theirs to keep
    # Complete by now: formatting, the only importer of pure_traceback,
    # imports traceback (and so runs this) before it.
    from exceptstar._printing.pure_traceback import TracebackException

    module.TracebackException = TracebackException  # type: ignore[attr-defined]
    # A reference to the standard library's class taken before this (pytest's
    # `from traceback import TracebackException`) must print groups too: that
    # class is given our methods, in place, as the backport patches it.
    _PATCHED.extend((standard, TracebackException))
    _OWN_METHODS.update(
        (name, value) for name, value in vars(TracebackException).items() if name not in _CLASS_ITSELF)
    _restore_methods()


# Our class and the standard library's, and the methods both must have.
_PATCHED: "List[type]" = []
_OWN_METHODS: "Dict[str, Any]" = {}


def _restore_methods() -> None:
    for cls in _PATCHED:
        for name, method in _OWN_METHODS.items():
            if vars(cls).get(name) is not method:
                setattr(cls, name, method)


def _patch_backport(module: "ModuleType") -> None:
    """Undo the backport's in-place patching of ``traceback.TracebackException``.

    Imported after us, ``exceptiongroup`` assigns its own methods to whatever
    class ``traceback.TracebackException`` is, which is then ours; imported
    before us, to the standard library's.  Ours already formats the
    backport's groups (as 3.14 does, which the backport's methods do not),
    so they are put back.
    """
    _restore_methods()


def _thread_excepthook(args: "Any") -> None:
    """``threading.excepthook``: the default one, with groups and notes printed in full."""
    original = _ORIGINALS["threading.excepthook"]
    try:
        if args.exc_type is not SystemExit and involves_groups_or_notes(args.exc_value):
            stream = sys.stderr
            if stream is None and args.thread is not None:
                stream = args.thread._stderr
            if stream is None:
                return
            text = _format(args.exc_type, args.exc_value, args.exc_traceback, stream)
            stream.write(f"Exception in thread {_thread_name(args)}:\n")
            stream.flush()
            stream.write(text)
            stream.flush()
            return
    except Exception:
        _ORIGINALS["threading.failsafe"](args)
        return
    original(args)


def _thread_failsafe(args: "Any") -> None:
    """After a failure of ours where the default ``threading.excepthook`` is threading's own.

    That hook (PyPy 3.9's) prints through ``traceback``, that is through the
    formatter that just failed: the header is written here, then whatever
    the interpreter's ``sys.__excepthook__`` prints (PyPy's falls back to the
    exception's last line when ``traceback`` fails).
    """
    stream = sys.stderr
    if stream is None:
        return
    stream.write(f"Exception in thread {_thread_name(args)}:\n")
    stream.flush()
    sys.__excepthook__(args.exc_type, args.exc_value, args.exc_traceback)


def _thread_name(args: "Any") -> "str | int":
    """The thread's name as ``threading.excepthook`` prints it (its ident when it has no object)."""
    if args.thread is not None:
        return args.thread.name  # type: ignore[no-any-return]
    import _thread

    return _thread.get_ident()


def _patch_threading(module: "ModuleType") -> None:
    default = getattr(module, "__excepthook__", None)
    if default is None:  # 3.8 and 3.9 have no threading.__excepthook__
        import _thread

        default = getattr(_thread, "_excepthook", None)
    failsafe = default
    if default is None and getattr(module.excepthook, "__module__", None) == "threading":
        # PyPy 3.9 has no _thread._excepthook: its default is threading's
        # own, which prints through traceback and so through us.
        default = module.excepthook
        failsafe = _thread_failsafe
    if module.excepthook is default:
        _ORIGINALS["threading.excepthook"] = default
        _ORIGINALS["threading.failsafe"] = failsafe
        module.excepthook = _thread_excepthook  # type: ignore[attr-defined]


def _patch_code(module: "ModuleType") -> None:
    global _code_state
    import _thread

    interpreter = module.InteractiveInterpreter
    original_showtraceback = interpreter.showtraceback
    original_showsyntaxerror = interpreter.showsyntaxerror
    _code_state = state = _thread._local()

    def showtraceback(self: "Any") -> None:
        # The interpreter writes through self.write only when sys.excepthook is
        # the default; ours is the default too, one that knows groups.
        if sys.excepthook is not excepthook:
            original_showtraceback(self)
            return
        sys.last_type, sys.last_value, last_tb = info = sys.exc_info()
        sys.last_traceback = last_tb
        try:
            import traceback

            lines = traceback.format_exception(info[0], info[1], last_tb.tb_next)  # type: ignore[union-attr]
            self.write("".join(lines))
        finally:
            last_tb = info = None  # type: ignore[assignment]

    def showsyntaxerror(self: "Any", filename: "Optional[str]" = None) -> None:
        if sys.excepthook is not excepthook:
            original_showsyntaxerror(self, filename)
            return
        # The original fixes up the filename and then calls sys.excepthook,
        # ours, which writes through self.write while this is set.
        state.interpreter = self
        try:
            original_showsyntaxerror(self, filename)
        finally:
            state.interpreter = None

    showtraceback.__doc__ = original_showtraceback.__doc__
    showsyntaxerror.__doc__ = original_showsyntaxerror.__doc__
    interpreter.showtraceback = showtraceback
    interpreter.showsyntaxerror = showsyntaxerror


_PATCHERS: "Dict[str, Callable[[ModuleType], None]]" = {
    "traceback": _patch_traceback,
    "threading": _patch_threading,
    "code": _patch_code,
    "exceptiongroup._formatting": _patch_backport,
}


_active = False


def activate() -> None:
    """Route every printing path through the group-aware formatter (3.8-3.10)."""
    global _active
    if _active or _DISABLED:
        return
    _active = True
    if sys.excepthook is sys.__excepthook__:
        sys.excepthook = excepthook
    if sys.unraisablehook is sys.__unraisablehook__:
        sys.unraisablehook = unraisablehook
    for name, patcher in _PATCHERS.items():
        when_imported(name, patcher)
