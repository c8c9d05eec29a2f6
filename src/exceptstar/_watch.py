"""Running our code right after someone else's module is imported: the one ``sys.meta_path`` step.

exceptstar never imports a package to adapt it: the printing patches, the
backport's adoption and every third-party integration wait for the user's own
import.  A watcher is a ``sys.meta_path`` entry that finds nothing itself; for
a module it watches it asks the other finders for the spec (``spec_then``) and
wraps the loader so that a hook runs once the module has executed, before any
other module can use it.

The integrations are named here as data (``ON_IMPORT``, ``ON_INSTALL``), by
module path, so that this core module can switch on a wing above it without
importing it: each row's module is imported, and its ``patch(module)`` called,
only when the watched package is imported (or at once, if it already is).
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from importlib.machinery import ModuleSpec
    from types import ModuleType
    from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

    Hook = Union[str, Callable[[ModuleType], None]]

# Watched module -> (integration module whose patch(module) adapts it, variable that turns it off).
# ON_IMPORT: by ``import exceptstar`` on 3.8-3.10, where the packages gate group support on 3.11.
ON_IMPORT: "Dict[str, Tuple[str, str]]" = {
    "exceptiongroup": ("exceptstar._integrations.backport", "EXCEPTSTAR_NO_BACKPORT"),
    "loguru": ("exceptstar._integrations.loguru", "EXCEPTSTAR_NO_LOGURU"),
    "sentry_sdk": ("exceptstar._integrations.sentry_sdk", "EXCEPTSTAR_NO_SENTRY"),
    "structlog": ("exceptstar._integrations.structlog", "EXCEPTSTAR_NO_STRUCTLOG"),
    "rich": ("exceptstar._integrations.rich", "EXCEPTSTAR_NO_RICH"),
}
# ON_INSTALL: by a global ``install()`` (so under ``run``) and the pytest plugin: tools that
# compile or re-run the user's code themselves.
ON_INSTALL: "Dict[str, Tuple[str, str]]" = {
    "coverage": ("exceptstar._integrations.coverage_plugin", "EXCEPTSTAR_NO_COVERAGE"),
    "sphinx": ("exceptstar._integrations.sphinx", "EXCEPTSTAR_NO_SPHINX"),
    "inspect": ("exceptstar._integrations.ast311", "EXCEPTSTAR_NO_INSPECT"),
    "doctest": ("exceptstar._integrations.stdlib_compile", "EXCEPTSTAR_NO_DOCTEST"),
    "pdb": ("exceptstar._integrations.stdlib_compile:patch_pdb", "EXCEPTSTAR_NO_PDB"),
    "cProfile": ("exceptstar._integrations.stdlib_compile", "EXCEPTSTAR_NO_PROFILE"),
    "profile": ("exceptstar._integrations.stdlib_compile", "EXCEPTSTAR_NO_PROFILE"),
    "trace": ("exceptstar._integrations.stdlib_compile:patch_trace", "EXCEPTSTAR_NO_TRACE"),
    "multiprocessing": ("exceptstar._integrations.multiprocessing", "EXCEPTSTAR_NO_MULTIPROCESSING"),
}


class _PatchingLoader:
    """Runs the real loader, then ``after(name, module)``, and steps aside."""

    def __init__(self, loader: "Any", name: str, after: "Callable[[str, ModuleType], None]") -> None:
        self.loader = loader
        self.name = name
        self.after = after

    def create_module(self, spec: "ModuleSpec") -> "Optional[ModuleType]":
        return self.loader.create_module(spec)  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> "Any":
        # The rest is the real loader's: get_code for runpy (``python -m pdb``),
        # get_source for linecache, is_package, ...
        return getattr(self.loader, name)

    def exec_module(self, module: "ModuleType") -> None:
        # Put the real loader back first, so that nothing else ever sees us.
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        self.after(self.name, module)


def spec_then(watcher: object, name: str, path: "Optional[Sequence[str]]", target: "Optional[ModuleType]",
              after: "Callable[[str, ModuleType], None]") -> "Optional[ModuleSpec]":
    """The spec the other ``sys.meta_path`` finders give, loading with ``after`` run on the module.

    For a finder (``watcher``) that only watches for a module to be imported.
    """
    for finder in sys.meta_path:
        if finder is watcher:
            continue
        find_spec = getattr(finder, "find_spec", None)
        if find_spec is None:
            continue
        spec = find_spec(name, path, target)
        if spec is None:
            continue
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _PatchingLoader(spec.loader, name, after)
        return spec  # type: ignore[no-any-return]
    return None


# Watched module -> the hooks still to run when it is imported.
_pending: "Dict[str, List[Hook]]" = {}


def _run(hook: "Hook", module: "ModuleType") -> None:
    try:
        if isinstance(hook, str):
            import importlib

            owner, _, function = hook.partition(":")
            getattr(importlib.import_module(owner), function or "patch")(module)
        else:
            hook(module)
    except Exception:
        # A version of the package we do not recognise stays as it is: the user's
        # import must never fail because of us.
        pass


def _imported(name: str, module: "ModuleType") -> None:
    for hook in _pending.pop(name, []):
        _run(hook, module)
    if not _pending:
        _Watcher.remove()


class _Watcher:
    """The ``sys.meta_path`` entry behind ``when_imported``; leaves once nothing is pending."""

    @classmethod
    def find_spec(cls, name: str, path: "Optional[Sequence[str]]" = None,
                  target: "Optional[ModuleType]" = None) -> "Optional[ModuleSpec]":
        if name not in _pending:
            return None
        return spec_then(cls, name, path, target, _imported)

    @classmethod
    def remove(cls) -> None:
        while cls in sys.meta_path:
            sys.meta_path.remove(cls)


def when_imported(name: str, hook: "Hook") -> None:
    """Run ``hook(module)`` once the module ``name`` is imported, or now if it already is.

    ``hook`` is a callable or ``"package.module:function"`` (``patch`` when the
    function is left out), imported only then.  Anything it raises is
    swallowed: the tool then behaves as it does without exceptstar.
    """
    module = sys.modules.get(name)
    if module is not None:
        _run(hook, module)
        return
    _pending.setdefault(name, []).append(hook)
    if _Watcher not in sys.meta_path:
        sys.meta_path.insert(0, _Watcher)


def prepare_main(name: str, main: "ModuleType") -> None:
    """Run the hooks waiting for ``name`` on ``main`` as well, which is about to run its code as the program.

    ``run -m cProfile`` runs the module in ``__main__`` from code that runpy
    fetches without importing it, so no watcher sees it load.  The hooks stay
    pending for a real import of ``name`` (``python -m pdb`` imports pdb again).
    """
    for hook in _pending.get(name, ()):
        _run(hook, main)


def _disabled(variable: str) -> bool:
    return os.environ.get(variable, "") not in ("", "0")


_activated: "Dict[int, bool]" = {}


def activate(table: "Dict[str, Tuple[str, str]]") -> None:
    """Watch for every module of ``table`` (``ON_IMPORT`` or ``ON_INSTALL``) that is not turned off; once."""
    if _activated.get(id(table)):
        return
    _activated[id(table)] = True
    for watched, (integration, variable) in table.items():
        if not _disabled(variable):
            when_imported(watched, integration)
