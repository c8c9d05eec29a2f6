"""``_classes.group_classes()``: its answer follows the ``exceptiongroup`` backport's defining module.

The answer is cached between calls; these check that each change a program can
make (the module appearing, its class rebound, the module gone again) is seen
at the next call, in either order.
"""

from __future__ import annotations

import sys
import types

import pytest

from exceptstar import _classes

_DEFINING = "exceptiongroup._exceptions"


def _fake_backport(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType(_DEFINING)
    module.BaseExceptionGroup = type("BaseExceptionGroup", (Exception,), {})  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, _DEFINING, module)
    return module


@pytest.fixture(autouse=True)
def _resync() -> object:
    yield
    _classes.group_classes()  # the real state again, for the tests that follow


def test_without_the_backport(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, _DEFINING, raising=False)
    classes = _classes.group_classes()
    assert classes[0] is _classes.BaseExceptionGroup
    assert _classes.group_classes() is classes is _classes.GROUPS


def test_backport_imported_later_then_rebound_then_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, _DEFINING, raising=False)
    before = _classes.group_classes()
    module = _fake_backport(monkeypatch)
    first = module.BaseExceptionGroup  # type: ignore[attr-defined]
    assert _classes.group_classes() == (*before, first)
    second = type("BaseExceptionGroup", (Exception,), {})
    module.BaseExceptionGroup = second  # type: ignore[attr-defined]
    assert _classes.group_classes() == (*before, second)
    del module.BaseExceptionGroup  # type: ignore[attr-defined]
    assert _classes.group_classes() == before
    module.BaseExceptionGroup = first  # type: ignore[attr-defined]
    assert _classes.group_classes() == (*before, first)
    monkeypatch.delitem(sys.modules, _DEFINING)
    assert _classes.group_classes() == before
    assert before == _classes.GROUPS
