"""``python -m exceptstar compileall``: ``python -m compileall``, writing the transformed cache for ``except*`` files.

The standard library's own ``compileall`` runs, with its options, output and
exit status, and writes the ordinary ``.pyc`` of every other file.  Two
things change in this process only, for a file whose source uses
``except*``: its cache path is the import hook's (``pycache.transformed_pyc``), which
compileall then also reads to tell whether the file is up to date; and the
code compiled into it is the hook's, so an import from that tree, even a
read-only one, finds it and transforms nothing; parallel workers (``-j``)
that start afresh (spawn, the default on macOS and Windows) call our
``compile_file``, which changes them too.  ``-b`` (the legacy layout,
``mod.pyc`` beside the source) writes the transformed code there, which
Python loads only where the source is absent.  On 3.11+ ``except*`` is
native and nothing changes.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Callable, Dict, List

# compileall's functions that ours stand in for, read before they are replaced.
_stdlib: "Dict[str, Callable[..., bool]]" = {}


def main(args: "List[str]") -> int:
    import compileall

    from exceptstar._classes import PURE

    if PURE:
        _stdlib_function("compile_file")
        # compile_dir hands its workers a function by name (3.8's _compile_file_tuple, then
        # compile_file): ours, so that a spawned worker transforms too.
        compileall.compile_file = compile_file
        if "_compile_file_tuple" in _stdlib:
            compileall._compile_file_tuple = _compile_file_tuple  # type: ignore[attr-defined]
    # What `python -m compileall` sees: its own name in the usage text and errors
    # (argparse names the program from both: 3.14+'s `python -m compileall`).
    sys.argv = [compileall.__file__, *args]
    main_module = sys.modules["__main__"]
    sys.modules["__main__"] = compileall
    try:
        return int(not compileall.main())  # type: ignore[attr-defined]  # not in typeshed
    finally:
        sys.modules["__main__"] = main_module


def compile_file(*args: "Any", **kwargs: "Any") -> bool:
    """compileall's ``compile_file``, here or in a worker process that did not inherit our changes."""
    return _stdlib_function("compile_file")(*args, **kwargs)


def _compile_file_tuple(*args: "Any", **kwargs: "Any") -> bool:
    return _stdlib_function("_compile_file_tuple")(*args, **kwargs)


def _stdlib_function(name: str) -> "Callable[..., bool]":
    if not _stdlib:
        import compileall

        for function in ("compile_file", "_compile_file_tuple"):
            if hasattr(compileall, function):
                _stdlib[function] = getattr(compileall, function)
        _transform_star_files()
    return _stdlib[name]


def _transform_star_files() -> None:
    import importlib.machinery
    import importlib.util

    from exceptstar._compiler import pycache, transform

    uses_star: Dict[str, bool] = {}

    def star_source(path: str) -> bool:
        if path not in uses_star:
            try:
                with open(path, "rb") as file:
                    uses_star[path] = transform.has_except_star(file.read())
            except OSError:
                uses_star[path] = False
        return uses_star[path]

    cache_from_source: Callable[..., str] = importlib.util.cache_from_source

    def cache_path(path: "Any", *args: "Any", **kwargs: "Any") -> str:
        normal = cache_from_source(path, *args, **kwargs)
        return pycache.transformed_pyc(normal) if star_source(str(path)) else normal

    class StarSourceLoader(importlib.machinery.SourceFileLoader):
        # py_compile's loader: the hook's code for except* sources, the ordinary code otherwise.
        def source_to_code(self, data: "Any", path: "Any", *, _optimize: int = -1) -> "Any":  # type: ignore[override]
            if not transform.has_except_star(data):
                return super().source_to_code(data, path, _optimize=_optimize)
            return transform.compile_source(data, path, "exec", optimize=_optimize, module=True)[0]

    cache_path.__doc__ = cache_from_source.__doc__
    importlib.util.cache_from_source = cache_path
    importlib.machinery.SourceFileLoader = StarSourceLoader  # type: ignore[misc]


__all__ = ["compile_file", "main"]
