"""``%load_ext exceptstar``: IPython and Jupyter cells may use ``except*`` on 3.8-3.10.

IPython parses a cell with its compiler's ``ast_parse`` before anything else
sees it (its AST transformers run on the parsed tree, too late for syntax
the interpreter rejects).  Loading the extension gives the shell's compiler
an ``ast_parse`` that parses through exceptstar: a cell with ``except*``
becomes the transformed tree, checked with CPython 3.13's SyntaxErrors, and
any other cell is parsed by the built-in as before.  The rest of IPython
(cell caching for tracebacks, ``%%time``, the display of the last
expression) works on that tree unchanged.  On 3.11+ the extension does
nothing unless ``EXCEPTSTAR_PURE=1``.
"""

from exceptstar._classes import PURE, BaseExceptionGroup, ExceptionGroup

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

_PyCF_ONLY_AST = 0x400


def load_ipython_extension(ip: "Any") -> None:
    """Called by IPython for ``%load_ext exceptstar`` (or ``c.InteractiveShellApp.extensions``)."""
    if not PURE:
        return
    compiler = ip.compile

    def ast_parse(source: str, filename: str = "<unknown>", symbol: str = "exec") -> "Any":
        from exceptstar._compiler.transform import compile, has_except_star

        tree = compile(source, filename, symbol, compiler.flags | _PyCF_ONLY_AST, True)
        if has_except_star(source):
            # The shell compiles this tree with the built-in, which (before 3.11)
            # has no PEP 765 warning: given here, as 3.14's compile gives it.
            from exceptstar._compiler.finally_flow import warn_flow_in_finally

            warn_flow_in_finally(tree, filename)
        return tree

    # An instance attribute: the shell's own compiler object keeps its cache
    # and flags, and unloading just removes it.
    compiler.ast_parse = ast_parse
    # Cells without except* are not transformed: where the built-in names are
    # not our classes (EXCEPTSTAR_NO_BUILTINS, pure 3.11+), the names 3.11 code
    # expects are bound once in the user namespace.
    import builtins

    for name, cls in (("ExceptionGroup", ExceptionGroup), ("BaseExceptionGroup", BaseExceptionGroup)):
        if getattr(builtins, name, None) is not cls:
            ip.user_ns.setdefault(name, cls)


def unload_ipython_extension(ip: "Any") -> None:
    """Called by IPython for ``%unload_ext exceptstar``: cells are parsed by the built-in again."""
    vars(ip.compile).pop("ast_parse", None)
