# fetch.py
"""Read every source at once; report what failed, as one group."""

from typing import Callable, Dict


def fetch_all(sources: Dict[str, Callable[[], str]]) -> Dict[str, str]:
    """Call every source; raise one ``ExceptionGroup`` of all that failed."""
    results, errors = {}, []
    for name, source in sources.items():
        try:
            results[name] = source()
        except Exception as error:
            error.add_note(f"while reading {name}")
            errors.append(error)
    if errors:
        raise ExceptionGroup("some sources failed", errors)
    return results


def fetch_or_default(sources: Dict[str, Callable[[], str]]) -> Dict[str, str]:
    """Like :func:`fetch_all`, but a source that timed out reads as ``""``.

    Any other failure propagates, in a group of its own.
    """
    try:
        return fetch_all(sources)
    except* TimeoutError as group:
        # return may not appear in an except* block: the statement may still re-raise.
        timed_out = {note[len("while reading "):] for error in group.exceptions for note in error.__notes__}
    return {name: "" if name in timed_out else source() for name, source in sources.items()}
