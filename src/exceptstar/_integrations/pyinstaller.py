"""PyInstaller's build process on 3.8-3.10: ``except*`` compiled by exceptstar, in the analysis and in the archive.

PyInstaller reads every module it bundles with the built-in ``compile``
(modulegraph's analysis, then ``PyInstaller.building.utils`` for the code it
writes into the archive), which 3.8-3.10 refuse on ``except*``: the module
becomes an ``InvalidSourceModule``, is left out, and the frozen app fails with
``ModuleNotFoundError``.  ``patch_build`` gives those two modules exceptstar's
``compile`` (a module global shadows the built-in for their own calls only).

``readmit`` is for a build already under way: exceptstar's PyInstaller hooks
(``pyinstaller_hooks``: one for ``genericpath``, in every app, and
exceptstar's own) run inside plain ``pyinstaller``'s process after the modules
the scripts import were analysed; it compiles again each module found invalid
only for its ``except*`` (and a package whose ``__init__`` was), makes it a
source module with its code, and adds what it imports to the graph.  A script
that itself uses ``except*`` is compiled before any hook runs: the build stops
on its ``SyntaxError`` (a failed build, not a broken app).
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, List

# Where PyInstaller calls compile() on the user's modules.
_COMPILING = ("PyInstaller.lib.modulegraph.modulegraph", "PyInstaller.building.utils")


def patch_build() -> None:
    import importlib

    from exceptstar._compiler.transform import compile

    for name in _COMPILING:
        module: Any = importlib.import_module(name)
        module.compile = compile


def readmit(graph: "Any") -> "List[str]":
    """Analyse again the modules of ``graph`` that the built-in compile refused for ``except*``; their names."""
    import ast

    from exceptstar._compiler.source import has_except_star
    from exceptstar._compiler.transform import compile

    modulegraph: Any = __import__("PyInstaller.lib.modulegraph.modulegraph", fromlist=["SourceModule"])
    readmitted: List[str] = []
    for node in list(graph.iter_graph()):
        invalid = type(node) is modulegraph.InvalidSourceModule
        if not (invalid or (type(node) is modulegraph.Package and node.code is None)):
            continue
        filename = getattr(node, "filename", None)
        if not isinstance(filename, str) or not filename.endswith(".py"):
            continue
        try:
            with open(filename, "rb") as file:
                source = file.read()
            if not has_except_star(source):
                continue
            tree: Any = compile(source, filename, "exec", ast.PyCF_ONLY_AST, True)
            code = compile(tree, filename, "exec", 0, True)
        except (OSError, SyntaxError, ValueError):
            continue  # a real error stays PyInstaller's
        if invalid:
            node.__class__ = modulegraph.SourceModule
        graph._process_imports(graph._scan_code(node, code, tree))
        node.code = graph._replace_paths_in_code(code) if graph.replace_paths else code
        readmitted.append(node.identifier)
    return readmitted


__all__ = ["patch_build", "readmit"]
