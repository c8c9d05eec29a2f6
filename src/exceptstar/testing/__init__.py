"""Assert on exception groups in tests: ``RaisesGroup`` and ``RaisesExc``, under pytest, unittest or plain code.

pytest 9's classes and messages (moving between the two is changing one import)
on every Python from 3.8, with two differences: a group fails only when no
assignment of its members to the expectations exists, and ``ordered=True``.
Nothing here imports pytest; under pytest a mismatch fails as pytest's own
classes do, elsewhere it raises ``AssertionError``.  ``RaisesGroupMixin``
gives a ``unittest.TestCase`` ``assertRaisesGroup``.
"""

from exceptstar import _watch
from exceptstar.testing._base import AbstractRaises, ExceptionInfo
from exceptstar.testing._exc import RaisesExc
from exceptstar.testing._group import RaisesGroup
from exceptstar.testing._unittest import RaisesGroupMixin

__all__ = ["ExceptionInfo", "RaisesExc", "RaisesGroup", "RaisesGroupMixin"]


def _register(module: object) -> None:
    """Make ours virtual subclasses of pytest 8.4+'s ``AbstractRaises`` (an ABC).

    ``xfail(raises=...)`` then takes them, as it takes pytest's own.
    """
    base = getattr(module, "AbstractRaises", None)
    register = getattr(base, "register", None)
    if register is not None:
        register(AbstractRaises)


_watch.when_imported("_pytest.raises", _register)
