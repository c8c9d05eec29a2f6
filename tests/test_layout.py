"""The package's layout, as ARCHITECTURE.md draws it: wings, what each may import, module sizes.

Read from the source with ``ast``: every ``import`` of an exceptstar module,
at module level or inside a function, must point to the importer's own layer
or one below it, and ``_compiler`` and ``_printing`` never import each other.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from support.processes import SRC

PACKAGE = SRC / "exceptstar"
MODULES = sorted(PACKAGE.rglob("*.py"))

# Layer of each wing (the first component below exceptstar); top-level modules are the core.
# ``mypy`` is the name mypy's ``plugins`` setting imports: a door onto the integrations, as
# ``__main__`` is onto the commands.
LAYERS = {"": 0, "_compiler": 1, "_printing": 1, "asyncio": 2, "socket": 2, "testing": 2,
          "_integrations": 3, "mypy": 4, "_commands": 4, "__main__": 5}
# Siblings that must not import each other.
APART = {frozenset({"_compiler", "_printing"})}
# The hub: exposes every wing's public names lazily (by name) and to type checkers.
HUB = PACKAGE / "__init__.py"


def dotted(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def wing(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return ""
    name = parts[1]
    return name if name in LAYERS and name != "" else ""


def imported(path: Path) -> set[str]:
    """The exceptstar modules ``path`` imports, as dotted names."""
    tree = ast.parse(path.read_text(), str(path))
    package = dotted(path) if path.name == "__init__.py" else dotted(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names
                         if (SRC / f"{base}.{alias.name}".replace(".", "/")).with_suffix(".py").exists()
                         or (SRC / f"{base}.{alias.name}".replace(".", "/") / "__init__.py").exists())
    return {name for name in found if name == "exceptstar" or name.startswith("exceptstar.")}


@pytest.mark.parametrize("path", MODULES, ids=lambda path: dotted(path))
def test_module_has_a_docstring_and_fits(path: Path) -> None:
    text = path.read_text()
    assert ast.get_docstring(ast.parse(text)), f"{dotted(path)}: no docstring saying what it owns"
    assert len(text.splitlines()) <= 450, f"{dotted(path)}: {len(text.splitlines())} lines"


@pytest.mark.parametrize("path", [p for p in MODULES if p != HUB], ids=lambda path: dotted(path))
def test_imports_go_downward(path: Path) -> None:
    importer = wing(dotted(path))
    for target in imported(path):
        target_wing = wing(target)
        assert LAYERS[target_wing] <= LAYERS[importer], f"{dotted(path)} imports {target} (a layer above)"
        assert frozenset({importer, target_wing}) not in APART, f"{dotted(path)} imports {target}"


def test_every_module_is_in_the_architecture_map() -> None:
    # The module table names each module by its path inside its wing.
    text = (SRC.parent / "ARCHITECTURE.md").read_text()
    table = text[text.index("## Modules"):]
    named = {name for line in table.splitlines() if line.startswith("|") and line.count("|") >= 4
             for name in re.findall(r"`([\w.]+)`", line.split("|")[2])}
    for path in MODULES:
        if path.name.startswith("hook-"):
            continue  # a PyInstaller hook: data for PyInstaller, named by its package's row
        if path.name == "__init__.py" and path.parent != PACKAGE:
            if path.parent.parent.name == "_integrations":
                assert path.parent.name in named, f"{dotted(path)} is missing from ARCHITECTURE.md's module table"
            continue  # a wing's own __init__: its docstring is its map
        assert path.stem in named, f"{dotted(path)} is missing from ARCHITECTURE.md's module table"


def test_the_check_sees_imports() -> None:
    # Not vacuous: the parser finds the known edges, function-level imports included.
    assert "exceptstar._classes" in imported(PACKAGE / "_groups.py")
    assert "exceptstar._printing.formatting" in imported(PACKAGE / "_printing" / "patches.py")
    assert wing("exceptstar._commands.cli") == "_commands" and wing("exceptstar._groups") == ""


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph`` (module -> modules it imports): each a path back to its start."""
    found: list[list[str]] = []
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        for target in sorted(graph[module]):
            if target in path:
                found.append([*path[path.index(target):], target])
            elif target not in done:
                visit(target, [*path, target])
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            visit(module, [module])
    return found


def compiler_graph() -> dict[str, set[str]]:
    # The wing's own __init__ is left out: it names the modules (lazily), it is not a step of the pipeline.
    modules = {dotted(path): path for path in MODULES
               if path.parent == PACKAGE / "_compiler" and path.name != "__init__.py"}
    return {name: imported(path) & modules.keys() for name, path in modules.items()}


def test_compiler_imports_flow_one_way() -> None:
    # read -> check -> rewrite -> compile -> join: a module never imports one that imports it back,
    # at module level or inside a function.
    assert circles(compiler_graph()) == []


def test_the_circle_check_finds_circles() -> None:
    # Not vacuous: a circle of two and one of three are found, a diamond is not one.
    assert circles({"a": {"b"}, "b": {"a"}}) == [["a", "b", "a"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert circles({"a": {"b", "c"}, "b": {"d"}, "c": {"d"}, "d": set()}) == []
    graph = compiler_graph()
    assert "exceptstar._compiler.rewrite" in graph["exceptstar._compiler.transform"]
