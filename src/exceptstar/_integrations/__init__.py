"""The integrations wing: one module per third-party package or standard-library tool.

Each module adapts one package the user already has (the ``exceptiongroup``
backport, pytest, IPython, ...) and is imported only when that package is:
through ``exceptstar._watch`` (its ``ON_IMPORT``/``ON_INSTALL`` rows, or a
watcher of the module's own), never by importing the package ourselves.  The build backends' modules
(``setuptools``, ``hatchling``) are loaded by the backend itself, through
entry points, in the builds of projects that use exceptstar.

May import: the core, the compiler and printing wings, ``exceptstar.asyncio``,
and the standard library; never the commands wing.
"""
