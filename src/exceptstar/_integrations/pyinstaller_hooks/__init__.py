"""PyInstaller's ``pyinstaller40`` entry point: the folder of exceptstar's hook for frozen apps.

``get_hook_dirs`` is what PyInstaller calls (in a process of its own) to find
``hook-exceptstar.py``, which bundles every module of exceptstar: ``__init__``
imports its wings by name, where PyInstaller's import scan cannot see them;
and of ``rthooks.dat``, whose runtime hook (``rthooks/pyi_rth_exceptstar.py``)
makes ``__exceptstar__`` and the group names builtins before the app's first
module runs, in any app that bundles exceptstar.
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import List


def get_hook_dirs() -> "List[str]":
    return [os.path.dirname(os.path.abspath(__file__))]
