"""CPython 3.14's traceback colours, for the tracebacks exceptstar prints on 3.8-3.10.

``can_colorize`` is 3.14's ``_colorize.can_colorize`` (the rules 3.13 brought:
``PYTHON_COLORS``, ``NO_COLOR``, ``FORCE_COLOR``, ``TERM=dumb``, a terminal);
the constants are its default traceback theme.  ``frames`` and
``syntax_error`` colour the plain lines the running interpreter wrote, so that
coloured text is the plain text plus 3.14's escapes, never other words.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, List

RESET = "\x1b[0m"
TYPE = "\x1b[1;35m"
MESSAGE = FILENAME = LINE_NO = FRAME = "\x1b[35m"
ERROR_HIGHLIGHT = "\x1b[1;31m"
NOTE = "\x1b[36m"

# traceback._RECURSIVE_CUTOFF, the same on every version.
_RECURSIVE_CUTOFF = 3


def _getenv(name: str) -> "Any":
    # 3.14 (gh-128636): an environment that cannot be read counts as unset.
    try:
        return os.environ.get(name)
    except Exception:
        return None


def can_colorize(file: "Any") -> bool:
    """Whether a traceback written to ``file`` is coloured, by 3.14's rules."""
    if not sys.flags.ignore_environment:
        if _getenv("PYTHON_COLORS") == "0":
            return False
        if _getenv("PYTHON_COLORS") == "1":
            return True
    if _getenv("NO_COLOR"):
        return False
    if _getenv("FORCE_COLOR"):
        return True
    if _getenv("TERM") == "dumb":
        return False
    if not hasattr(file, "fileno"):
        return False
    if sys.platform == "win32":
        # 3.14 asks nt._supports_virtual_terminal(), which 3.8-3.10 lack: it
        # then answers no, as here.
        return False
    try:
        return os.isatty(file.fileno())
    except OSError:
        return hasattr(file, "isatty") and bool(file.isatty())
    except Exception:
        # io.UnsupportedOperation is an OSError; anything else from a
        # stand-in stream (a test's capture object) means not a terminal.
        return False


def message_line(stype: str, text: str, end: str = "\n") -> str:
    """``Type: message`` (or ``Type`` alone), coloured as 3.14's ``_format_final_exc_line``."""
    if not text:
        return f"{TYPE}{stype}{RESET}{end}"
    return f"{TYPE}{stype}{RESET}: {MESSAGE}{text}{RESET}{end}"


def note_lines(note: str, colorize: bool) -> "List[str]":
    """A note's lines, each in the theme's note colour (3.15's ``_format_note``) when coloured."""
    if colorize:
        return [f"{NOTE}{line}{RESET}\n" for line in note.split("\n")]
    return [line + "\n" for line in note.split("\n")]


def _frame_header(frame: "Any") -> "List[str]":
    plain = f'  File "{frame.filename}", line {frame.lineno}, in {frame.name}\n'
    coloured = (f'  File {FILENAME}"{frame.filename}"{RESET}, line {LINE_NO}{frame.lineno}{RESET},'
                f' in {FRAME}{frame.name}{RESET}\n')
    return [plain, coloured]


def frames(stack: "Any", plain: "List[str]") -> "List[str]":
    """``plain`` (what ``stack.format()`` gave) with each frame's first line coloured.

    The frames shown are those that the recursion cutoff leaves, in order;
    the "[Previous line repeated ...]" lines stay plain, as on 3.14.
    """
    shown = []
    last = None
    count = 0
    for frame in stack:
        key = (frame.filename, frame.lineno, frame.name)
        if key != last:
            last = key
            count = 0
        count += 1
        if count <= _RECURSIVE_CUTOFF:
            shown.append(frame)
    result = []
    entries = iter(shown)
    for chunk in plain:
        if chunk.startswith('  File "'):
            frame = next(entries, None)
            if frame is not None:
                header, coloured = _frame_header(frame)
                if chunk.startswith(header):
                    chunk = coloured + chunk[len(header):]
        result.append(chunk)
    return result


def syntax_error(lines: "List[str]", stype: str, filename: "Any", lineno: "Any") -> "List[str]":
    """A SyntaxError's plain lines, coloured as 3.14's ``_format_syntax_error``.

    The file line, the span under the carets (in the source line and the
    carets themselves) and the message line.
    """
    result = list(lines)
    header = '  File "{}", line {}\n'.format(filename or "<string>", lineno)
    if lineno is not None and result and result[0] == header:
        result[0] = '  File {}"{}"{}, line {}{}{}\n'.format(
            FILENAME, filename or "<string>", RESET, LINE_NO, lineno, RESET)
    # The "(filename)" of an error without a line stays outside the colour.
    suffix = f" ({filename})" if lineno is None and filename is not None else ""
    last = result[-1] if result else ""
    if last.startswith(stype + ": ") and last.endswith(suffix + "\n"):
        message = last[len(stype) + 2:len(last) - len(suffix) - 1]
        result[-1] = f"{TYPE}{stype}{RESET}: {MESSAGE}{message}{RESET}{suffix}\n"
    # Below the file line (when there is one) a source line, then maybe its carets.
    for i in range(2 if lineno is not None else 1, len(result) - 1):
        caret_line = result[i]
        body = caret_line[4:].rstrip("\n")
        carets = body.lstrip()
        if not caret_line.startswith("    ") or not carets or set(carets) != {"^"}:
            continue
        start = len(body) - len(carets)
        source = result[i - 1][4:].rstrip("\n")
        end = start + len(carets)
        result[i - 1] = "    " + source[:start] + ERROR_HIGHLIGHT + source[start:end] + RESET + source[end:] + "\n"
        result[i] = "    " + body[:start] + ERROR_HIGHLIGHT + carets + RESET + "\n"
    return result
