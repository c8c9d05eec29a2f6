"""``exceptstar.mypy`` as mypy loads it, seen by users' type checkers (tests/test_typing.py).

Never run: checked by mypy --strict and pyright for targets 3.8 to 3.13, as uses.py.
mypy imports the module named in ``plugins`` and calls its ``plugin`` with its version.
"""

from typing import Type

from mypy.plugin import Plugin
from typing_extensions import assert_type

from exceptstar.mypy import plugin

assert_type(plugin("1.19.1"), Type[Plugin])
