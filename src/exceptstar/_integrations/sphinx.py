"""Sphinx on 3.8-3.10: autodoc and viewcode read modules that use ``except*``.

With ``exceptstar.install()`` in ``conf.py`` autodoc imports such modules,
but Sphinx also reads their source itself, with ``ast.parse``, and on
3.8-3.10 that fails quietly: ``#:`` attribute comments and
``autodoc_member_order = "bysource"`` (``sphinx.pycode``), the viewcode
pages (the same analysis), type comments and ``autodoc_preserve_defaults``
of functions that use ``except*`` are lost.  Those modules get an ``ast``
whose ``parse`` gives 3.11's tree (``ast311``), so Sphinx reads them as it
does on 3.11+ (the source of a class, from ``inspect``, is ``ast311``'s own
row).  An ``ON_INSTALL`` row: switched on by a global
``install()`` once Sphinx is imported (``conf.py`` runs inside Sphinx).
"""

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType

# Sphinx's modules that parse a module's or a function's source (Sphinx 4-8:
# the versions that run on 3.8-3.10).
_READERS = (
    "pycode.parser",
    "ext.autodoc.type_comment",
    "ext.autodoc.preserve_defaults",
)


def patch(module: "ModuleType") -> None:
    """Sphinx (the package ``module``) reads ``except*`` from now on, module by module as it imports them."""
    from exceptstar._watch import when_imported

    for name in _READERS:
        when_imported(f"{module.__name__}.{name}", "exceptstar._integrations.ast311:patch")
