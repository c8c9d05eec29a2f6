"""mypy's plugin for code that uses ``except*``: ``plugins = ["exceptstar.mypy"]``.

With it, mypy checks such modules at 3.8-3.10 targets as it checks them at
3.11 (see ``exceptstar._integrations.mypy_plugin``).  Imported only by mypy.
"""

from exceptstar._integrations.mypy_plugin import plugin

__all__ = ["plugin"]
