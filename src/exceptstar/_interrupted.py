"""An exception raised by the ``except*`` machinery itself, in a transformed statement: ``interrupted``.

Natively the machinery is C, where no signal handler runs; here it is Python,
and a ``KeyboardInterrupt`` (or a tracer's exception) may arrive in the middle
of it.  The transformed statement's guards hand it here, and it is either an
error that propagates alone, as CPython's own do, or an interrupt recorded as a
handler's exception, so that nothing of the group is lost (``rewrite`` has the
statement's shape).
"""

import sys

from exceptstar import _frames, _handled, _pypy, _spans
from exceptstar._engine import Star

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Optional


def interrupted(star: "Optional[Star]", clause: int = 0, extent: int = 0) -> "Optional[Star]":
    """What a transformed statement does with an exception raised by its own machinery.

    Called in the handler of the ``try`` around clause ``clause``'s
    ``match()`` (1-based; ``extent``, its lines past the ``except`` line, as
    ``match`` has it), when ``match()`` had not returned, or around
    ``outcome()`` (0, the default: every statement holds that call, made only
    after an interrupt, in fewer nodes), with the statement's ``Star`` (None
    if ``Star()`` had not returned; not begun if the first ``match()`` had not
    begun it).  None: an exception propagates, and the caller deletes its
    names and re-raises the handled one: an error that propagates alone, as
    CPython's does (an invalid clause, a failing types expression, a group's
    own ``split``/``derive``), or, after ``outcome()``, the new outcome.  Otherwise the exception
    arrived while exceptstar's code ran where CPython runs C (a
    ``KeyboardInterrupt``, a tracer's exception): it counts as raised by the
    clause's handler, so that nothing of the group is lost: the Star is
    returned, and the statement records it as what the body raised and goes
    on.  After ``outcome()`` it is recorded here, and the outcome asked again
    and made the handled exception, in the guard's handler, whose bare
    ``raise`` sends it.
    """
    exc = sys.exc_info()[1]
    if star is None or not hasattr(star, "_done"):
        # Not begun yet: Star() had not returned (it runs no Python code: an interrupt as the call returns),
        # or the first match() had not begun it.  Raised by the first clause's types expression (outside
        # match(), with a Star made), it propagates alone, as natively.  Otherwise nothing matched yet: the
        # exception handled then, the statement's own, is this one's context.
        orig = exc.__context__  # type: ignore[union-attr]
        if orig is None or (star is not None and not _in_match(exc)):  # type: ignore[arg-type]
            _frames.strip(exc)  # type: ignore[arg-type]
            return None
        star = Star()
        star.begin(orig)
    elif exc is getattr(star, "_alone", None) or (clause and star._done < clause and not _in_match(exc)):  # type: ignore[arg-type]
        # An error the engine marked, or one raised before match() was entered
        # (the clause's types expression, a NameError say), which natively
        # propagates alone too.  After match() returned, it is an interrupt.
        _frames.strip(exc)  # type: ignore[arg-type]
        if clause and exc is getattr(star, "_alone", None):
            _span_clause(exc, extent)  # type: ignore[arg-type]
        return None
    _frames.strip(exc)  # type: ignore[arg-type]
    if not clause:
        star._raised += (exc,)  # type: ignore[operator]
        star.outcome()
        return None
    star._done = clause  # the statement records it, as what the clause's body raised
    return star


def _span_clause(exc: BaseException, extent: "Optional[int]") -> None:
    """Give the entry of the statement's frame in ``exc``'s traceback the span of the clause that failed.

    Natively the clause's match fails there, its entry spanning the clause.
    The entry is made anew (their fields are read-only) and made the handled
    exception's too: before 3.11 a bare ``raise`` re-raises that traceback.
    """
    tb = exc.__traceback__
    if tb is None or tb.tb_frame is not sys._getframe(2):
        return
    lasti = _spans.lasti(None if extent is None else tb.tb_lineno + extent, tb.tb_lineno)
    if lasti != -1:
        exc.__traceback__ = type(tb)(tb.tb_next, tb.tb_frame, lasti, tb.tb_lineno)
        _handled.set_handled(exc)


def _in_match(exc: BaseException) -> bool:
    """Whether ``exc`` was raised inside ``Star.match`` (or a call it made)."""
    tb = exc.__traceback__
    inner = None if tb is None else tb.tb_next
    if inner is not None and inner.tb_frame.f_code is _MATCH_CODE:
        return True
    # PyPy gives a frame no traceback entry for what a tracer raises at its call event:
    # there the user's entry stands at the call whose result becomes the clause's part.
    return _PYPY and tb is not None and _pypy.calls_match(tb)


_MATCH_CODE = Star.match.__code__
_PYPY = sys.implementation.name == "pypy"
