"""PyInstaller runtime hook: on 3.8-3.10, what transformed code needs is in place before the app's first module runs.

That is ``builtins.__exceptstar__`` and the group names, as ``import exceptstar``
and the import hook give a program that is not frozen.
"""

from exceptstar._classes import PURE

if PURE:
    import exceptstar._compiler.runtime  # noqa: F401
