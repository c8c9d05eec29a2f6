"""The import hook: modules that use ``except*`` are transformed as they are imported.

``install()`` covers every module outside the standard library, and
``install("mylib")`` only ``mylib`` and its submodules (what a library calls
in its own ``__init__``).  Both are no-ops on 3.11+ unless ``EXCEPTSTAR_PURE=1``.

The finder sits just before ``PathFinder`` in ``sys.meta_path`` and asks it
for the spec, so finders placed earlier (pytest's assertion rewriter, editable
installs) keep precedence; it only swaps the loader of plain source files.

The loader keeps the transformed bytecode in its own cache (``pycache``).  A
module without ``except*`` goes the normal way and gets the normal ``.pyc``: on
3.8-3.10 a valid normal ``.pyc`` proves the source has no ``except*`` (the
interpreter could not have compiled it), so that check costs one failed open.
On 3.11+ (``EXCEPTSTAR_PURE=1``) it proves nothing, the interpreter compiling
``except*`` itself: the source is read and searched at every import, one pass
(``source.has_except_star``), the one cost the hook adds to a plain module there.
"""

import _imp
import os
import sys
import zipimport
from importlib import _bootstrap_external
from importlib.machinery import PathFinder, SourceFileLoader

from exceptstar import _frames, _watch
from exceptstar._classes import PURE
from exceptstar._compiler import pycache, transform

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from importlib.machinery import ModuleSpec
    from types import CodeType, FrameType, ModuleType
    from typing import Any, List, Optional, Sequence, Set, Tuple

__all__ = ["install", "uninstall"]


_EXEC_MODULE = _bootstrap_external._LoaderBasics.exec_module.__code__  # type: ignore[attr-defined]


class ExceptStarLoader(SourceFileLoader):
    """A source loader that transforms ``except*`` and caches the result under its own tag."""

    def __init__(self, fullname: str, path: str, cached: "Optional[str]") -> None:
        super().__init__(fullname, path)
        # The normal pyc's path as the spec gives it (None: no bytecode cache), which
        # importlib computes for the module anyway: not computed a second time here.
        self._cached = cached

    def get_code(self, fullname: str) -> "CodeType":
        source_path = self.get_filename(fullname)
        try:
            stat = os.stat(source_path)
        except OSError:
            return super().get_code(fullname)  # type: ignore[return-value]
        caller = sys._getframe(1)
        header = pycache.pyc_header(stat)
        paths = None if self._cached is None else (self._cached, pycache.transformed_pyc(self._cached))
        if paths is not None:
            code = pycache.read_pyc(paths[1], header, source_path)
            if code is not None:
                self._name_cache(caller, paths[1])
            elif not transform.NATIVE_SYNTAX:
                code = pycache.read_pyc(paths[0], header, source_path)
            if code is not None:
                # As the normal loader does: a tree that moved keeps cached code
                # whose co_filename names the old place.
                _imp._fix_co_filename(code, source_path)  # type: ignore[attr-defined]
                return code
        source = self.get_data(source_path)
        if not transform.has_except_star(source):
            return super().get_code(fullname)  # type: ignore[return-value]
        try:
            code, transformed = transform.compile_source(source, source_path, "exec", module=True)
        except SyntaxError as error:
            if caller.f_code is _EXEC_MODULE:  # as importlib shows its own: see _frames
                return _frames.raised_by_importlib(error.with_traceback(None))
            raise error.with_traceback(None) from None
        if paths is not None:
            if transformed:
                self._name_cache(caller, paths[1])
            pycache.write_pyc(paths[transformed], code, source, stat)
        return code  # type: ignore[no-any-return]

    def _name_cache(self, caller: "FrameType", path: str) -> None:
        """Make ``__spec__.cached`` (and ``__cached__``) name the transformed bytecode, which the module runs.

        The module is the one that ``exec_module`` (``caller``) runs with this
        loader, not whatever ``sys.modules`` holds under its name (a file
        loaded with ``spec_from_file_location`` need not be there); a plain
        ``get_code`` call has no module to update.
        """
        if caller.f_code is not _EXEC_MODULE:
            return
        module = caller.f_locals.get("module")
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is self:
            spec.cached = path
            if "__cached__" in vars(module):  # 3.15's modules have none
                module.__cached__ = path  # type: ignore[union-attr]


class ExceptStarZipLoader(zipimport.zipimporter):
    """Source modules inside a zip file (zipapps, eggs): zipimport's loader, ``except*`` compiled by us.

    A zipimporter, for what looks for one (pkg_resources' providers, ...), with
    the state of the one that found the module (the archive, the folder in it,
    its table of contents: nothing read again); everything but the code is its
    (source for tracebacks, resources, data).  Transformed code is not cached:
    a zip is not written to.
    """

    def __init__(self, importer: "zipimport.zipimporter", origin: str) -> None:
        vars(self).update(vars(importer))
        self._origin = origin

    def __repr__(self) -> str:
        return f"<ExceptStarZipLoader for {self._origin!r}>"

    def create_module(self, spec: "ModuleSpec") -> None:
        return None

    def exec_module(self, module: "ModuleType") -> None:
        exec(self.get_code(module.__name__), module.__dict__)

    def get_code(self, fullname: str) -> "CodeType":
        source: bytes = self.get_data(self._origin)
        if not transform.has_except_star(source):
            return super().get_code(fullname)
        try:
            return transform.compile_source(  # type: ignore[no-any-return]
                source, self._origin, "exec", module=True)[0]
        except SyntaxError as error:
            raise error.with_traceback(None) from None


class ExceptStarFinder:
    """Finds modules as ``PathFinder`` does; gives the covered source modules our loader."""

    def __init__(self) -> None:
        self.everything = False
        self.packages: Set[str] = set()
        self.paths: List[str] = []
        self._stdlib = _stdlib_dirs()

    def _in_packages(self, fullname: str) -> bool:
        # A global install() names no package: every import asks, so no generator then.
        return bool(self.packages) and any(fullname == p or fullname.startswith(p + ".") for p in self.packages)

    def _covers_name(self, fullname: str) -> bool:
        if fullname == "exceptstar" or fullname.startswith("exceptstar."):
            return False
        return self.everything or bool(self.paths) or self._in_packages(fullname)

    def _covers_origin(self, fullname: str, origin: str) -> bool:
        if self._in_packages(fullname):
            return True
        if self.everything:
            return not self._in_stdlib(origin)
        return origin.startswith(tuple(self.paths))

    def _in_stdlib(self, origin: str) -> bool:
        if not origin.startswith(self._stdlib):  # most modules a global install() covers
            return False
        for folder in self._stdlib:
            if origin.startswith(folder):
                # site-packages may live inside the standard library's folder.
                return not origin[len(folder):].startswith(("site-packages", "dist-packages"))
        return False

    def find_spec(self, fullname: str, path: "Optional[Sequence[str]]" = None,
                  target: "Optional[ModuleType]" = None) -> "Optional[ModuleSpec]":
        if fullname == "runpy" and self.everything:
            return _runpy_spec(path, target)
        if not self._covers_name(fullname):
            return None
        try:
            spec = PathFinder.find_spec(fullname, path, target)
        except SyntaxError:
            # zipimport compiles a module just to make its spec, so one with
            # except* fails there; the spec is then made here.
            spec = _zip_spec(fullname, path)
            if spec is None:
                raise
        if spec is None or spec.origin is None or not self._covers_origin(fullname, spec.origin):
            return spec
        if type(spec.loader) is SourceFileLoader:
            spec.loader = ExceptStarLoader(fullname, spec.origin, spec.cached)
        elif isinstance(spec.loader, zipimport.zipimporter) and spec.origin.endswith(".py"):
            spec.loader = ExceptStarZipLoader(spec.loader, spec.origin)
        return spec

    def invalidate_caches(self) -> None:
        pass


def _zip_spec(fullname: str, path: "Optional[Sequence[str]]") -> "Optional[ModuleSpec]":
    """The spec zipimport would give a source module in a zip file on ``path``, made without compiling it."""
    from importlib.machinery import ModuleSpec

    name = fullname.rpartition(".")[2]
    for entry in sys.path if path is None else path:
        importer = sys.path_importer_cache.get(entry)
        if not isinstance(importer, zipimport.zipimporter):
            continue
        base = os.path.join(importer.archive, importer.prefix, name)
        for origin, is_package in ((os.path.join(base, "__init__.py"), True), (base + ".py", False)):
            try:
                importer.get_data(origin)
            except OSError:
                continue
            spec = ModuleSpec(fullname, importer, origin=origin, is_package=is_package)  # type: ignore[arg-type]
            spec.has_location = True
            if is_package:
                spec.submodule_search_locations = [base]
            return spec
    return None


def _stdlib_dirs() -> "Tuple[str, ...]":
    # Where os.py is: the standard library (sysconfig would say the same, slowly).
    folder = os.path.dirname(os.__file__)
    return (os.path.join(folder, ""), os.path.join(os.path.realpath(folder), ""))


_finder: "Optional[ExceptStarFinder]" = None


def _ensure_finder() -> ExceptStarFinder:
    global _finder
    if _finder is None:
        _finder = ExceptStarFinder()
    if _finder not in sys.meta_path:
        index = next((i for i, f in enumerate(sys.meta_path) if f is PathFinder), len(sys.meta_path))
        sys.meta_path.insert(index, _finder)
    return _finder


def install(*packages: str) -> None:
    """Transform ``except*`` in the modules imported from now on.

    Without arguments: every module outside the standard library.  With
    package names: only those packages and their submodules (a library calls
    ``exceptstar.install(__name__)`` in its ``__init__``).  Calls add up.
    Does nothing on 3.11+, where ``except*`` is native (unless
    ``EXCEPTSTAR_PURE=1``).
    """
    for package in packages:
        if not isinstance(package, str) or not package:
            raise TypeError(f"install() takes package names, not {package!r}")
    if not PURE:
        return
    finder = _ensure_finder()
    if packages:
        finder.packages.update(packages)
    else:
        finder.everything = True
        _cover_direct_loading()
        # Every module, transformed or not, then sees 3.11's names, as on 3.11.
        from exceptstar import _py311

        _py311.provide()
        # Tools that compile the user's code themselves (doctest, multiprocessing's
        # children, ...) learn except* when they are imported.
        _watch.activate(_watch.ON_INSTALL)


def install_paths(*paths: str) -> None:
    """Cover the modules whose files are under ``paths`` (the pytest plugin's scope)."""
    if not PURE:
        return
    finder = _ensure_finder()
    finder.paths.extend(os.path.join(os.path.abspath(p), "") for p in paths)


def uninstall() -> None:
    """Undo every ``install()``: modules imported afterwards are compiled normally."""
    global _finder
    if _finder is not None:
        while _finder in sys.meta_path:
            sys.meta_path.remove(_finder)
        _finder = None
    _uncover_direct_loading()


# --- loading that bypasses sys.meta_path ----------------------------------------
#
# Two ways of running a file never ask a finder: a loader made by
# importlib.util.spec_from_file_location() (then exec_module; setuptools'
# editable installs find a project's modules so), and
# runpy.run_path() on a file, which calls compile() itself.  install() without
# arguments covers both: the first by giving such specs our loader (only when
# the caller named no loader), the second by giving runpy exceptstar's compile.
# runpy is patched when it is loaded, not imported for this (it costs 7-14 ms);
# on 3.11+ (only under EXCEPTSTAR_PURE=1) it is frozen and reaches no finder,
# so there only an already loaded runpy is covered.

_spec_from_file_location = _bootstrap_external.spec_from_file_location


def _covered_spec_from_file_location(*args: "Any", **kwargs: "Any") -> "Optional[ModuleSpec]":
    spec: Optional[ModuleSpec] = _spec_from_file_location(*args, **kwargs)
    named_loader = len(args) > 2 or kwargs.get("loader") is not None
    if (spec is not None and not named_loader and type(spec.loader) is SourceFileLoader
            and spec.origin is not None and _finder is not None
            and _finder._covers_origin(spec.name, spec.origin)):
        spec.loader = ExceptStarLoader(spec.name, spec.origin, spec.cached)
    return spec


def _modules_with_spec_from_file_location() -> "List[ModuleType]":
    util = sys.modules.get("importlib.util")
    # setuptools' editable installs: each a finder module that a .pth imports at
    # start-up, before any install(), and that took the function from importlib.util.
    editable = [module for name, module in list(sys.modules.items()) if name.startswith("__editable___")]
    return [_bootstrap_external, *([util] if util is not None else []), *editable]


class _RunpyLoader(SourceFileLoader):
    """Loads runpy as usual, then makes its ``compile`` exceptstar's."""

    def exec_module(self, module: "ModuleType") -> None:
        super().exec_module(module)
        vars(module)["compile"] = transform.compile


def _runpy_spec(path: "Optional[Sequence[str]]", target: "Optional[ModuleType]") -> "Optional[ModuleSpec]":
    spec = PathFinder.find_spec("runpy", path, target)
    if spec is not None and type(spec.loader) is SourceFileLoader and spec.origin is not None:
        spec.loader = _RunpyLoader("runpy", spec.origin)
    return spec


def _cover_direct_loading() -> None:
    for module in _modules_with_spec_from_file_location():
        if vars(module).get("spec_from_file_location") is _spec_from_file_location:
            vars(module)["spec_from_file_location"] = _covered_spec_from_file_location
    runpy = sys.modules.get("runpy")
    if runpy is not None:
        vars(runpy)["compile"] = transform.compile


def _uncover_direct_loading() -> None:
    for module in _modules_with_spec_from_file_location():
        if vars(module).get("spec_from_file_location") is _covered_spec_from_file_location:
            vars(module)["spec_from_file_location"] = _spec_from_file_location
    runpy = sys.modules.get("runpy")
    if runpy is not None and vars(runpy).get("compile") is transform.compile:
        del vars(runpy)["compile"]
