"""``python -m exceptstar demo``: runs the demo program, which is written with ``except*``.

The program lives in ``demo_program.txt`` (3.8-3.10 cannot compile it, so it
cannot be a module of the package); it is compiled with ``exceptstar.compile``
under its real path, and prints the same on every version but for the last
line, which says how ``except*`` was provided.
"""

import os
import platform
import sys

from exceptstar._version import __version__

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict

PROGRAM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "demo_program.txt")


def main() -> int:
    import exceptstar

    with open(PROGRAM, "rb") as file:
        code = exceptstar.compile(file.read(), PROGRAM, "exec", dont_inherit=True)
    namespace: Dict[str, Any] = {"__name__": "exceptstar_demo", "__file__": PROGRAM}
    exec(code, namespace)
    transformed = namespace["run"]()
    interpreter = f"{platform.python_implementation()} {platform.python_version()}"
    sys.stdout.flush()
    if transformed:
        # Transformed on 3.11+ only under EXCEPTSTAR_PURE=1, which also makes the groups pure.
        print(f"\nexcept* was provided by exceptstar {__version__}: transformed for {interpreter}, "
              "with its pure-Python ExceptionGroup"
              + (" (EXCEPTSTAR_PURE=1)" if sys.version_info >= (3, 11) else ""))
    else:
        print(f"\nexcept* was provided natively by {interpreter}")
    return 0
