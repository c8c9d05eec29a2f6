"""PyInstaller hook: every exceptstar module, since ``exceptstar`` loads its wings by name."""

import pkgutil

import exceptstar

hiddenimports = [name for _, name, _ in pkgutil.walk_packages(exceptstar.__path__, "exceptstar.")]
