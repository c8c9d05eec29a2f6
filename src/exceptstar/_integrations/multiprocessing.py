"""multiprocessing's spawn and forkserver children, with exceptstar installed before they re-run ``__main__``.

A ``spawn`` child, and the ``forkserver`` process that forks the others, is a
fresh interpreter started with ``python -c "from multiprocessing... import
...; main(...)"``; it re-runs the parent's main module (``runpy.run_path`` or
an import by name) and imports what the workers need.  When the parent has a
global ``install()`` (``run`` does), the child's ``-c`` program is made to
import exceptstar and install it first, so that the main module and every
module the workers import may use ``except*`` there too.  ``fork`` children
inherit the parent's state and need nothing.

Both start through ``multiprocessing.util.spawnv_passfds`` on POSIX, and a
Windows spawn child through ``spawn.get_command_line``; both are wrapped when
multiprocessing is imported (its row in ``_watch.ON_INSTALL``).  The program
prefix finds exceptstar where the parent found it, without changing the
child's ``sys.path``.
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType
    from typing import Any, Callable, List, Sequence

# The -c programs that re-run the parent's main module (not the resource tracker's).
_CHILD_PROGRAMS = ("from multiprocessing.spawn import spawn_main", "from multiprocessing.forkserver import main")


def _prefix() -> str:
    import exceptstar

    folder = os.path.dirname(os.path.dirname(os.path.abspath(exceptstar.__file__)))
    return (f"import sys; sys.path.insert(0, {folder!r}); import exceptstar; del sys.path[0]; "
            "exceptstar.install(); ")


def with_exceptstar(args: "Sequence[str]") -> "List[str]":
    """A child's command line whose ``-c`` program installs exceptstar first (others unchanged)."""
    args = list(args)
    for index in range(len(args) - 1):
        if args[index] == "-c" and args[index + 1].startswith(_CHILD_PROGRAMS):
            args[index + 1] = _prefix() + args[index + 1]
            break
    return args


def _patch_util(util: "Any") -> None:
    original: Callable[..., int] = util.spawnv_passfds

    def spawnv_passfds(path: "Any", args: "Sequence[str]", passfds: "Any") -> int:
        return original(path, with_exceptstar(args), passfds)

    spawnv_passfds.__doc__ = original.__doc__
    util.spawnv_passfds = spawnv_passfds


def _patch_spawn(spawn: "Any") -> None:
    original: Callable[..., List[str]] = spawn.get_command_line

    def get_command_line(**kwds: "Any") -> "List[str]":
        return with_exceptstar(original(**kwds))

    get_command_line.__doc__ = original.__doc__
    spawn.get_command_line = get_command_line


def patch(multiprocessing: "ModuleType") -> None:
    """Wrap the two ways multiprocessing starts a fresh interpreter, once their modules are loaded."""
    from exceptstar._watch import when_imported

    when_imported("multiprocessing.util", _patch_util)
    when_imported("multiprocessing.spawn", _patch_spawn)


__all__ = ["patch", "with_exceptstar"]
