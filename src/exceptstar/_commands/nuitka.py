"""``python -m exceptstar nuitka ARGS...``: Nuitka, compiling modules that use ``except*``.

Nuitka parses what it compiles with the running interpreter's parser, which
3.8-3.10 refuse on ``except*``.  The command runs ``python -m nuitka`` with
exceptstar's plugin (``_integrations/nuitka_plugin.py``, given as a user
plugin, so that it is loaded again when Nuitka starts itself anew), which
hands Nuitka exceptstar's transformed tree for such modules, with their own
line numbers.  Nuitka's options, output and exit status are its own.  On
3.11+ it is plain Nuitka.
"""

import os
import subprocess
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import List


def main(args: "List[str]") -> int:
    import importlib.util

    if importlib.util.find_spec("nuitka") is None:
        sys.stderr.write("exceptstar nuitka: Nuitka is not installed (pip install nuitka)\n")
        return 2
    from exceptstar._classes import PURE

    plugin = []
    if PURE:
        from exceptstar._integrations import __file__ as integrations

        plugin = [f"--user-plugin={os.path.join(os.path.dirname(integrations), 'nuitka_plugin.py')}"]
    return subprocess.call([sys.executable, "-m", "nuitka", *plugin, *args])


__all__ = ["main"]
