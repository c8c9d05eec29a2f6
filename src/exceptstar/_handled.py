"""Making an exception the handled one, without raising it: the C API, through ctypes.

What ``sys.exc_info()`` returns and what becomes the ``__context__`` of
anything raised: ``PyErr_SetHandledException`` on 3.11+, ``PyErr_SetExcInfo``
before.  It changes the exception state of the ``except`` block that is
running, which the interpreter restores when that block ends, so nothing
outlives it.  Used by the ``except*`` engine (a matched part is handled
without a traceback entry or a ``__context__``, as CPython's) and to re-raise
an error with a bare ``raise``, which adds no traceback entry for the frame
that runs it.  ctypes is imported on first use only: ``import exceptstar``
must stay cheap.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, List, TypeVar

    T = TypeVar("T")


def untraced(bind: "Callable[[], T]") -> "T":
    """``bind()`` with no tracer: it binds a C function through ctypes.

    Importing ctypes and binding its functions run hundreds of lines of Python:
    a tracer (a debugger, coverage, sys.settrace) would see them in the middle
    of the user's statement.  CPython binds nothing there.
    """
    trace = sys.gettrace()
    if trace is None:
        return bind()
    sys.settrace(None)
    try:
        return bind()
    finally:
        sys.settrace(trace)


def _bind() -> "Callable[[BaseException], None]":
    if sys.implementation.name == "pypy":
        # PyPy has no C API to call through ctypes; its own hook sets the exception that the
        # running except block handles, which PyPy restores when the block ends, as CPython does.
        from __pypy__ import hidden_applevel, set_exc_info  # type: ignore[import-not-found]

        if sys.version_info >= (3, 11):
            def set_handled_pypy311(exc: BaseException) -> None:
                set_exc_info(type(exc), exc, exc.__traceback__)

            return set_handled_pypy311

        def reraise() -> None:
            raise  # the handled exception, set just before

        @hidden_applevel  # type: ignore[untyped-decorator]
        def set_handled_pypy39(exc: BaseException) -> None:
            set_exc_info(type(exc), exc, exc.__traceback__)
            # PyPy 3.9 gives an exception its __context__ in the first frame that
            # it reaches, once: one set here would get it where the user's bare
            # `raise` sends it, from whatever the caller handles.  Reaching this
            # hidden frame first, while it is itself the handled exception, spends
            # that once with no context set and no traceback entry (hidden frames
            # add none).  (PyPy 3.11 looks past hidden frames there: the caller's
            # exception would be set.)
            try:
                reraise()
            except BaseException as caught:
                if caught is not exc:  # a tracer's or a signal handler's, in reraise
                    raise

        return set_handled_pypy39  # type: ignore[no-any-return]

    import ctypes

    api = ctypes.pythonapi
    if sys.version_info >= (3, 11):
        setter = api["PyErr_SetHandledException"]  # ours: argtypes set elsewhere stay theirs
        setter.argtypes = (ctypes.py_object,)
        setter.restype = None
        return setter  # type: ignore[no-any-return]

    # PyErr_SetExcInfo steals a reference to each argument.  Each ctypes call
    # costs about a microsecond, so the references are made without one: a
    # private list takes them (one C call, list.extend) and forgets them at
    # once, its length set to 0 in place (ob_size follows the object header in
    # every build: PyVarObject is in the stable ABI).  Whoever zeroes it first,
    # a signal handler that ran in between included, hands over every reference
    # taken so far; each is then stolen by the call that follows its own
    # extend.  An interrupt between the two leaks those references: nothing is
    # freed early.
    set_exc_info = api["PyErr_SetExcInfo"]  # our own function object: argtypes set elsewhere stay theirs
    set_exc_info.argtypes = (ctypes.c_void_p,) * 3
    set_exc_info.restype = None
    handed_over: List[object] = []
    length = ctypes.c_ssize_t.from_address(id(handed_over) + object.__basicsize__)
    take = handed_over.extend
    address = id  # a closure's cell, not a lookup in builtins: three per call

    steps[:] = take, length, set_exc_info

    def set_handled(exc: BaseException) -> None:
        tb = exc.__traceback__
        cls = type(exc)
        if tb is None:  # a new group: NULL needs no reference
            take((cls, exc))
            length.value = 0
            set_exc_info(address(cls), address(exc), None)
        else:
            take((cls, exc, tb))
            length.value = 0
            set_exc_info(address(cls), address(exc), address(tb))

    return set_handled


def _bind_on_first_use(exc: BaseException) -> None:
    """``set_handled`` until its first call, which binds the C call and puts it in its place.

    Later calls then run no Python frame here (none at all on 3.11+): fewer
    events for tracers and debuggers, which CPython's C code does not give.
    """
    global set_handled
    if set_handled is _bind_on_first_use:
        set_handled = untraced(_bind)
    set_handled(exc)


# Make an exception the exception of the `except` block that is running.
# Look it up on this module at each use: it is replaced on first use.  (A type
# comment, not an annotation: PyPy 3.9 refuses an annotated name that a
# function declares global.)
set_handled = _bind_on_first_use  # type: Callable[[BaseException], None]
# The opcode by which a with statement calls __exit__ as its block ends on an exception, on each CPython
# (None elsewhere, or on a version not listed: nothing is taken for one).  Such an __exit__ may leave its
# outcome handled: the statement's own handler restores what was handled before as the outcome leaves it.
WITH_EXIT = None if sys.implementation.name != "cpython" else {
    (3, 8): 81, (3, 9): 49, (3, 10): 49, (3, 11): 49, (3, 12): 49, (3, 13): 44, (3, 14): 43, (3, 15): 41,
}.get(sys.version_info[:2])
# Once bound on CPython 3.8-3.10: set_handled's three steps (take the references, hand them over, the C call),
# for the engine's hot paths, which run them without a frame.  Empty until then, and on other interpreters;
# filled in place, so that a module may keep it as a global of its own (one lookup, not two).
steps: "List[Any]" = []
