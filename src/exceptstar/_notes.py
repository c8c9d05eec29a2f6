"""PEP 678 notes: ``add_note`` for every exception on every version.

On 3.11+ this defers to the exception's own ``add_note`` (so overrides count);
before that, exceptions have no such method and this function applies
CPython 3.14's rules itself.
"""

import sys

from exceptstar._rules import real_issubclass

if sys.version_info >= (3, 11):

    def add_note(exc: BaseException, note: str) -> None:
        """Add ``note`` to ``exc.__notes__``, exactly as ``exc.add_note(note)``."""
        if not isinstance(exc, BaseException):
            # Same error as the unbound method gives, rather than an AttributeError.
            BaseException.add_note(exc, note)
        exc.add_note(note)

else:

    def add_note(exc: BaseException, note: str) -> None:
        """Add ``note`` to ``exc.__notes__``, exactly as ``exc.add_note(note)`` on 3.11+."""
        if not isinstance(exc, BaseException):
            raise TypeError(
                "descriptor 'add_note' for 'BaseException' objects doesn't apply to a "
                f"'{type(exc).__name__}' object"
            )
        method = getattr(type(exc), "add_note", None)
        if method is not None:
            # A class of the user's (or our pure groups) defines it: let it decide.
            method(exc, note)
            return
        add_note_default(exc, note)


def add_note_default(exc: BaseException, note: str) -> None:
    """``BaseException.add_note`` of CPython 3.14, for interpreters that lack it."""
    if not real_issubclass(str, type(note)):  # PyUnicode_Check: the real type, whatever __class__ says
        # 3.14's words (Argument Clinic's); 3.11-3.13 say "note must be a str, not 'bytes'".
        raise TypeError(f"add_note() argument must be str, not {type(note).__name__}")
    try:
        notes = exc.__notes__  # type: ignore[attr-defined]
    except AttributeError:
        notes = []
        exc.__notes__ = notes  # type: ignore[attr-defined]
    else:
        if not real_issubclass(list, type(notes)):  # PyList_Check
            raise TypeError("Cannot add note: __notes__ is not a list")
    list.append(notes, note)  # PyList_Append: a subclass's own append is not asked
