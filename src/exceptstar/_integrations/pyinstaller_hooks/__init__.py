"""PyInstaller's ``pyinstaller40`` entry point: the folder of exceptstar's hook for frozen apps.

``get_hook_dirs`` is what PyInstaller calls (in a process of its own) to find
``hook-exceptstar.py``, which bundles every module of exceptstar: ``__init__``
imports its wings by name, where PyInstaller's import scan cannot see them.
"""

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import List


def get_hook_dirs() -> "List[str]":
    return [os.path.dirname(os.path.abspath(__file__))]
