"""CPython 3.15's traceback colours, for the tracebacks exceptstar prints on 3.8-3.10.

``can_colorize`` is 3.15's ``_colorize.can_colorize`` (as 3.14's; the rules 3.13 brought:
``PYTHON_COLORS``, ``NO_COLOR``, ``FORCE_COLOR``, ``TERM=dumb``, a terminal);
the constants are its default traceback theme (``THEME`` for lines built
coloured, 3.15's ``note`` colour included).  ``frames`` colours the plain
lines the running interpreter wrote, so that coloured text is the plain text
plus the escapes, never other words.
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


class Theme:
    """The parts of 3.15's traceback theme that lines built in one go (a SyntaxError's) take."""

    __slots__ = ("error_highlight", "filename", "line_no", "message", "reset", "type")

    def __init__(self, coloured: bool) -> None:
        self.filename = FILENAME if coloured else ""
        self.line_no = LINE_NO if coloured else ""
        self.message = MESSAGE if coloured else ""
        self.type = TYPE if coloured else ""
        self.error_highlight = ERROR_HIGHLIGHT if coloured else ""
        self.reset = RESET if coloured else ""


THEME = Theme(True)
NO_THEME = Theme(False)

# traceback._RECURSIVE_CUTOFF, the same on every version.
_RECURSIVE_CUTOFF = 3


def _getenv(name: str) -> "Any":
    # 3.14+ (gh-128636): an environment that cannot be read counts as unset.
    try:
        return os.environ.get(name)
    except Exception:
        return None


def can_colorize(file: "Any") -> bool:
    """Whether a traceback written to ``file`` is coloured, by 3.15's rules."""
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
        # 3.14+ ask nt._supports_virtual_terminal(), which 3.8-3.10 lack: it
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
    """``Type: message`` (or ``Type`` alone), coloured as 3.15's ``_format_final_exc_line``."""
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
    the "[Previous line repeated ...]" lines stay plain, as on 3.15.
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
