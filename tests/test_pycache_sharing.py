"""The transformed bytecode cache holds the very code compiled, written compactly.

What a cached import loads must be what the transformation compiled: every
field of every code object, line tables included (``==`` on code objects
leaves them out).  On CPython 3.8 and 3.9 the cache also writes equal bytecode
strings and line tables once, as 3.10's compiler makes them one object itself:
the rewrite's alike handlers, each written out whole, doubled the file and
its load (issue 37).
"""

from __future__ import annotations

import os
import sys
import types
from pathlib import Path

import pytest

from exceptstar._compiler import pycache, transform

SHARING = sys.implementation.name == "cpython" and sys.version_info < (3, 11)

HANDLER = """
def handle_{i}(value):
    total = {i}
    try:
        if value > {i}:
            raise ValueError(value)
    except* ValueError as group:
        total -= len(group.exceptions)
    except* TypeError:
        total += 1
    finally:
        log.append({i})
    return total
"""

# Numbers past the scaffolding's own constants: the handlers compile to one bytecode.
NUMBERS = range(10, 30)
MODULE = "log = []\n" + "".join(HANDLER.format(i=i) for i in NUMBERS)


def _codes(code: types.CodeType) -> list[types.CodeType]:
    found = [code]
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found += _codes(const)
    return found


def _fields(code: types.CodeType) -> dict[str, object]:
    # co_lnotab is co_linetable's deprecated view where that exists (3.10+).
    skip = {"co_lnotab"} if hasattr(code, "co_linetable") else set()
    fields = {name: getattr(code, name) for name in dir(code)
              if name.startswith("co_") and name not in skip and not callable(getattr(code, name))}
    fields["co_consts"] = tuple(_fields(c) if isinstance(c, types.CodeType) else (type(c), c) for c in code.co_consts)
    return fields


def _cached(tmp_path: Path, source: str) -> tuple[types.CodeType, types.CodeType]:
    """(the code compiled, the code read back from the pyc written for it)."""
    path = tmp_path / "mod.py"
    path.write_text(source)
    data = path.read_bytes()
    code, transformed = transform.compile_source(data, str(path), "exec", module=True)
    assert transformed
    stat = os.stat(path)
    pyc = str(tmp_path / "mod.pyc")
    pycache.write_pyc(pyc, code, data, stat)
    loaded = pycache.read_pyc(pyc, pycache.pyc_header(stat), str(path))
    assert loaded is not None
    return code, loaded


def test_the_cache_loads_every_field_of_the_code_compiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    code, loaded = _cached(tmp_path, MODULE)
    assert _fields(loaded) == _fields(code)
    namespaces: list[dict[str, object]] = [{}, {}]
    for namespace, run in zip(namespaces, (code, loaded)):
        exec(run, namespace)
        for i in NUMBERS:
            namespace[f"handle_{i}"](i + (i % 2))  # type: ignore[operator]
    assert namespaces[0]["log"] == namespaces[1]["log"] == list(NUMBERS)


@pytest.mark.skipif(not SHARING, reason="CPython 3.8-3.10: code objects with their own bytecode strings")
def test_alike_handlers_bytecode_is_written_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    _, loaded = _cached(tmp_path, MODULE)
    handlers = [c for c in _codes(loaded) if c.co_name.startswith("handle_")]
    assert len(handlers) == len(NUMBERS) and len({c.co_code for c in handlers}) == 1
    assert len({id(c.co_code) for c in handlers}) == 1
    table = "co_linetable" if sys.version_info >= (3, 10) else "co_lnotab"  # 3.10's co_lnotab is made on access
    assert len({id(getattr(c, table)) for c in handlers}) == 1
    # Written once: twenty handlers cost little more than one (each still has its
    # constants, names and code object), not twenty copies of the scaffolding.
    one = (tmp_path / "mod.pyc").stat().st_size
    _cached(tmp_path, "log = []\n" + HANDLER.format(i=10))
    single = (tmp_path / "mod.pyc").stat().st_size
    assert one - single < 19 * len(handlers[0].co_code)
