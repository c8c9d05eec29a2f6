"""``python -m exceptstar pyright|basedpyright ARGS...``: the tool, with the typeshed its settings name.

The settings that ``config pyright`` prints name a typeshed folder that must
be made from the tool that reads it; this command writes it (when the tool's
typeshed changed) and then runs the tool with the arguments as given,
exiting with its status.  Editors read the same folder.
"""

import os
import shutil
import subprocess
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import List, Optional


def find_command(tool: str) -> "Optional[str]":
    """``tool``'s command: the one installed beside this interpreter, else the first on PATH."""
    return shutil.which(tool, path=os.path.dirname(sys.executable)) or shutil.which(tool)


def main(tool: str, args: "List[str]") -> int:
    from exceptstar._integrations import pyright

    command = find_command(tool)
    if command is None:
        sys.stderr.write(f"exceptstar {tool}: {tool} is not installed (pip install {tool})\n")
        return 2
    try:
        pyright.ensure_typeshed(tool, command, args, os.getcwd())
    except (OSError, ValueError) as error:
        sys.stderr.write(f"exceptstar {tool}: cannot write the typeshed for except*: {error}\n")
        return 2
    try:
        return subprocess.call([command, *args])
    except KeyboardInterrupt:
        return 130
