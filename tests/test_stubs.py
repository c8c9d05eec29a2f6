"""The stubs that wheels get for modules using ``except*`` (``_compiler.stubs``).

What a stub is made of (the module, each clause's ``*`` taken out and its
types wrapped, every line in place), and what checkers read from it: the
names that handlers bind have 3.11's types, as this environment's mypy and
basedpyright report them at a 3.9 target from the stub and at a 3.11 target
from the module; what pyright reads differently from a stub is pinned.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.linters import tool

from exceptstar._compiler.stubs import IMPORT, stub
from exceptstar._compiler.transform import compile as star_compile

MODULE = '''\
"""Handlers of every shape."""
import os


class Caught:
    def __init__(self) -> None:
        try:
            os.listdir(".")
        except* OSError as one:
            self.one = one
        except* (ValueError, TypeError) as two:
            self.two = two
        except* KeyboardInterrupt as base:
            self.base = base
        except* (ValueError, SystemExit) as mixed:
            self.mixed = mixed
        except* os.error as dotted:
            self.dotted = dotted
        except* (
            LookupError,
            ArithmeticError,
        ) as spread:
            self.spread = spread
        except* ERRORS as named:
            self.named = named


ERRORS = (KeyError, IndexError)
'''

USER = '''\
from mod import Caught

caught = Caught()
reveal_type(caught.one)
reveal_type(caught.two)
reveal_type(caught.base)
reveal_type(caught.mixed)
reveal_type(caught.dotted)
reveal_type(caught.spread)
reveal_type(caught.named)
'''


def test_a_stub_is_the_module_with_each_clause_parsed_on_3_8() -> None:
    text = stub(MODULE, "mod.py")
    assert text is not None and text.endswith(IMPORT)
    lines, source = text.splitlines(), MODULE.splitlines()
    assert len(lines) == len(source) + 1
    changed = [before.strip() for before, after in zip(source, lines) if before != after]
    clauses = [line.strip() for line in source if line.lstrip().startswith("except*")]
    assert changed == [*clauses[:-1], ") as spread:", clauses[-1]]
    assert "        except  _exceptstar_group((ValueError, TypeError)) as two:" in lines
    assert "        except  _exceptstar_group(os.error) as dotted:" in lines
    assert "        except  _exceptstar_group((" in lines
    assert "        )) as spread:" in lines
    tree = ast.parse(text, feature_version=(3, 8))
    assert not [node for node in ast.walk(tree) if type(node).__name__ == "TryStar"]


@pytest.mark.parametrize("source", [
    "x = 1\n",
    "# except* ValueError: a comment\n",
    's = """\nexcept* ValueError:\n"""\n',
])
def test_no_stub_without_an_except_star_clause(source: str) -> None:
    assert stub(source) is None
    assert stub(source.encode()) is None


@pytest.mark.parametrize("source", [
    "try:\n    pass\nexcept* ValueError:\n    return\n",
    "try:\n    pass\nexcept* (ValueError):\n    pass\nexcept TypeError:\n    pass\n",
    "try:\n    pass\nexcept*:\n    pass\n",
])
def test_invalid_source_is_exceptstars_syntax_error(source: str) -> None:
    with pytest.raises(SyntaxError) as expected:
        star_compile(source, "mod.py", "exec")
    with pytest.raises(SyntaxError) as raised:
        stub(source, "mod.py")
    assert (raised.value.msg, raised.value.lineno, raised.value.offset) == \
        (expected.value.msg, expected.value.lineno, expected.value.offset)


def test_lines_are_the_tokenizers() -> None:
    """A form feed or a line separator in a line ends no line for the parser, so none in the stub."""
    source = "\f\nx = 'a\u2028b'  # \x0c\ntry:\n    pass\nexcept* ValueError as e:\n    pass\n"
    text = stub(source, "mod.py")
    assert text == source.replace("except* ValueError", "except  _exceptstar_group(ValueError)") + IMPORT


def test_coding_cookie_and_bom() -> None:
    source = "\ufeff# -*- coding: utf-8 -*-\ntry:\n    s = 'é'\nexcept* ValueError as e:\n    pass\n"
    text = stub(source.encode("utf-8"), "mod.py")
    assert text is not None and text.startswith("# -*- coding") and "s = 'é'" in text


def _project(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for file, text in {**files, "user.py": USER}.items():
        (folder / file).write_text(text)
    return folder


def _revealed(output: str) -> list[str]:
    return re.findall(r'Revealed type is "(.*)"|information: Type of "[^"]*" is "(.*)"', output)


needs_native = pytest.mark.skipif(sys.version_info < (3, 11), reason="the module side parses except* natively")


@needs_native
def test_mypy_types_handler_names_from_the_stub_as_from_the_module(tmp_path: Path) -> None:
    with_stub = _project(tmp_path, "stub", {"mod.pyi": stub(MODULE, "mod.py") or "", "mod.py": MODULE})
    module = _project(tmp_path, "module", {"mod.py": MODULE})

    def mypy(folder: Path, target: str) -> list[str]:
        proc = subprocess.run([tool("mypy"), "--strict", "--python-version", target, "--python-executable",
                               sys.executable, "--cache-dir", str(folder / ".cache"), "user.py"],
                              cwd=folder, capture_output=True, text=True)
        # Spelled alike: mypy 1's full names, a 3.9 target's Union, exceptstar's classes there.
        revealed = [re.sub(r"\b(builtins|exceptstar\._group_types)\.", "", left) for left, _ in _revealed(proc.stdout)]
        return [re.sub(r"Union\[(\w+), (\w+)\]", r"\1 | \2", item) for item in revealed]

    expected = mypy(module, "3.11")
    assert expected == ["ExceptionGroup[OSError]", "ExceptionGroup[ValueError | TypeError]",
                        "BaseExceptionGroup[KeyboardInterrupt]", "BaseExceptionGroup[ValueError | SystemExit]",
                        "ExceptionGroup[OSError]", "ExceptionGroup[LookupError | ArithmeticError]",
                        "ExceptionGroup[KeyError | IndexError]"]
    assert mypy(with_stub, "3.11") == expected
    assert mypy(with_stub, "3.10") == expected  # the oldest target of mypy 2


def _basedpyright(folder: Path, target: str) -> list[str]:
    (folder / "pyrightconfig.json").write_text(json.dumps({"pythonVersion": target}))
    proc = subprocess.run([tool("basedpyright"), "--pythonpath", sys.executable, "user.py"],
                          cwd=folder, capture_output=True, text=True)
    return [right for _, right in _revealed(proc.stdout)]


@needs_native
def test_basedpyright_types_handler_names_from_the_stub_as_mypy_and_the_runtime(tmp_path: Path) -> None:
    with_stub = _project(tmp_path, "stub", {"mod.pyi": stub(MODULE, "mod.py") or "", "mod.py": MODULE})
    module = _project(tmp_path, "module", {"mod.py": MODULE})
    expected = _basedpyright(module, "3.11")
    from_stub = _basedpyright(with_stub, "3.9")
    assert from_stub == _basedpyright(with_stub, "3.11")
    # pyright names every group that except* binds an ExceptionGroup; the stub gives the class
    # that the runtime (and mypy) gives when a type is not an Exception.
    differ = [index for index, (left, right) in enumerate(zip(expected, from_stub)) if left != right]
    assert [(expected[index], from_stub[index]) for index in differ] == [
        ("ExceptionGroup[KeyboardInterrupt]", "BaseExceptionGroup[KeyboardInterrupt]"),
        ("ExceptionGroup[ValueError | SystemExit]", "BaseExceptionGroup[ValueError | SystemExit]"),
    ]


UNANNOTATED = '''\
def unannotated(x: int):
    try:
        pass
    except* ValueError:
        pass
    return [x]
'''


@needs_native
def test_pyright_infers_no_return_type_from_a_stub(tmp_path: Path) -> None:
    """Pinned: a function without a return annotation returns Unknown from a stub (mypy: untyped either way)."""
    files = {"mod.py": UNANNOTATED}
    module = _project(tmp_path, "module", files)
    with_stub = _project(tmp_path, "stub", {**files, "mod.pyi": stub(UNANNOTATED, "mod.py") or ""})
    for folder in (module, with_stub):
        (folder / "user.py").write_text("from mod import unannotated\nreveal_type(unannotated)\n")
    assert _basedpyright(module, "3.11") == ["(x: int) -> list[int]"]
    assert _basedpyright(with_stub, "3.11") == ["(x: int) -> Unknown"]


@pytest.mark.parametrize(("requires", "expected"), [
    ('["setuptools>=64", "exceptstar"]', True),
    ('["setuptools", "ExceptStar >= 0.3 ; python_version < \'3.11\'"]', True),
    ('["setuptools", "exceptstar[test]==0.3.0"]', True),
    ('["setuptools", "exceptstar-tools"]', False),
    ('["setuptools"]', False),
])
def test_setuptools_builds_stubs_for_projects_that_require_exceptstar(requires: str, expected: bool,
                                                                       tmp_path: Path) -> None:
    from exceptstar._integrations.setuptools import required_by_project

    assert not required_by_project(str(tmp_path))  # no pyproject.toml
    (tmp_path / "pyproject.toml").write_text(f"[build-system]\nrequires = {requires}\n")
    assert required_by_project(str(tmp_path)) is expected
