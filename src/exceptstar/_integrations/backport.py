"""One hierarchy with the ``exceptiongroup`` backport on 3.8-3.10.

pytest, anyio, Trio and Hypothesis recognise a group there only as
``exceptiongroup.BaseExceptionGroup``.  Rather than keep a second hierarchy,
exceptstar makes the backport's names *be* its own classes: every module
variable bound to one of the backport's two classes is rebound to ours
("adoption").  Everything that looks the backport's classes up (``isinstance``,
``except exceptiongroup.ExceptionGroup:``, ``raise ExceptionGroup(...)`` in
anyio or Trio, the backport's own ``catch``, ``suppress`` and formatter) then
works with ours, and our classes stay exactly what they are.

* The backport imported after exceptstar: a ``sys.meta_path`` step adopts right
  after its package has run, before any other module can see its names.
* Imported before (pytest imports it before loading any plugin): adopted when
  exceptstar is imported, in every module loaded by then.

The backport's defining module (``exceptiongroup._exceptions``) keeps its
classes, so that groups it made before adoption keep their own behaviour;
``_classes.group_classes()`` counts them as groups.  Nothing here imports the
backport.  ``EXCEPTSTAR_NO_BACKPORT=1`` turns it off.
"""

import sys

from exceptstar import _classes

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType
    from typing import Callable, Dict

_PACKAGE = "exceptiongroup"
_DEFINING_MODULE = _classes.BACKPORT_MODULE

# A module's namespace read through ModuleType's own descriptor: a lazily
# loaded module (importlib.util.LazyLoader) would otherwise load on access.
_namespace_of: "Callable[[ModuleType], Dict[str, object]]" = vars(type(sys))["__dict__"].__get__


def adopt() -> int:
    """Rebind the backport's classes to ours in loaded modules; the number of names rebound."""
    defining = sys.modules.get(_DEFINING_MODULE)
    theirs_base = getattr(defining, "BaseExceptionGroup", None)
    theirs = getattr(defining, "ExceptionGroup", None)
    if not isinstance(theirs_base, type) or not isinstance(theirs, type):
        return 0
    ours_base, ours = _classes.BaseExceptionGroup, _classes.ExceptionGroup
    # Most modules hold neither class: a set test over their values' ids, in
    # C, rules them out (a pytest process has hundreds of modules).
    targets = {id(theirs_base), id(theirs)}
    rebound = 0
    for name, module in list(sys.modules.items()):
        # The defining module keeps its classes: their methods look them up there.
        # type(), not isinstance: PyPy's cffi libraries (_cffi_backend.Lib) claim
        # to be modules through __class__ but have no module namespace.
        if name == _DEFINING_MODULE or not issubclass(type(module), type(sys)):
            continue
        namespace = _namespace_of(module)
        if targets.isdisjoint(map(id, namespace.values())):
            continue
        found = [key for key, value in namespace.items() if value is theirs_base or value is theirs]
        for key in found:
            namespace[key] = ours_base if namespace[key] is theirs_base else ours
        rebound += len(found)
    return rebound


def patch(package: "ModuleType") -> None:
    """Adopt the backport (its row in ``_watch.ON_IMPORT``: 3.8-3.10, when it is imported).

    Run at once by ``import exceptstar`` if the package is loaded, else right
    after it has run, before any other module can see its names.
    """
    adopt()


__all__ = ["adopt", "patch"]
