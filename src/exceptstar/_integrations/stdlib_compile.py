"""The standard library's tools that compile the user's code themselves: doctest, pdb, cProfile, profile, trace.

Each calls the built-in ``compile`` from its own module: doctest on every
example (mode ``"single"``), cProfile, profile and trace on the script they
run, trace again on each file it reports ``--missing`` lines for, pdb on the
commands typed at its prompt.  Under a global ``install()`` (so under ``run``
and the pytest plugin) each of these modules gets exceptstar's ``compile`` as
a module global when it is imported (its rows in ``_watch.ON_INSTALL``): the
name shadows the built-in for that module's own code only, and exceptstar's
``compile`` hands source without ``except*`` to the built-in unchanged.

pdb runs its script through a statement executed in ``__main__``
(``exec(compile(source, filename, 'exec'))``), where only the built-in can
answer.  For that one call ``builtins.compile`` is exceptstar's, put back
before the script's first line runs, so the program never sees it.

Every ``Pdb`` (``python -m pdb``, ``breakpoint()``) also skips exceptstar's
modules when it steps, as the interpreter's C machinery is never stepped into:
``step`` through an ``except*`` stays on the user's lines, as on 3.11.  Every
``trace.Trace`` likewise leaves out exceptstar's frames and the standard
library's run from them (the hook compiling an import with ``ast``, the
engine handling a group), which CPython does in C: its counts and the files
of its ``--missing`` report are the program's.  Code of the user's called
from exceptstar (``catch()``'s handlers) is traced.
"""

import os

from exceptstar._compiler.transform import compile as transform_compile

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import ModuleType
    from typing import Any, Callable, Dict


def patch(module: "ModuleType") -> None:
    """Give ``module`` (doctest, cProfile or profile) exceptstar's ``compile``."""
    module.compile = transform_compile  # type: ignore[attr-defined]


def patch_pdb(pdb: "Any") -> None:
    """pdb's ``compile``, its script statement and its stepping."""
    patch(pdb)
    # Not yet in ``run -m pdb``'s ``__main__``; pdb imports itself again for its class.
    if hasattr(pdb, "Pdb"):
        _patch_pdb_script(pdb)
        _patch_pdb_skip(pdb)


def patch_trace(trace: "Any") -> None:
    """trace's ``compile``, and its tracing outside exceptstar's work."""
    patch(trace)
    if not hasattr(trace, "Trace"):
        # ``run -m trace``: this is ``__main__`` before its code has run.  Its
        # main() compiles the script before it runs it: the class exists then.
        def compile_then_patch(*args: "Any", **kwargs: "Any") -> "Any":
            trace.compile = transform_compile
            _patch_trace(trace)
            return transform_compile(*args, **kwargs)

        trace.compile = compile_then_patch
    else:
        _patch_trace(trace)


def _patch_pdb_skip(pdb: "Any") -> None:
    original = pdb.Pdb.__init__

    def __init__(self: "Any", *args: "Any", **kwargs: "Any") -> None:
        original(self, *args, **kwargs)
        self.skip = set(self.skip or ()) | {"exceptstar", "exceptstar.*"}

    __init__.__doc__ = original.__doc__
    pdb.Pdb.__init__ = __init__


def _patch_trace(trace: "Any") -> None:
    for name in ("runctx", "runfunc"):
        setattr(trace.Trace, name, _run_outside_exceptstar(getattr(trace.Trace, name)))


def _run_outside_exceptstar(original: "Callable[..., Any]") -> "Callable[..., Any]":
    def run(self: "Any", *args: "Any", **kwargs: "Any") -> "Any":
        own = self.globaltrace
        self.globaltrace = _outside_exceptstar(own)
        try:
            return original(self, *args, **kwargs)
        finally:
            self.globaltrace = own

    run.__name__ = original.__name__
    run.__doc__ = original.__doc__
    return run


def _outside_exceptstar(globaltrace: "Callable[[Any, str, Any], Any]") -> "Callable[[Any, str, Any], Any]":
    """``globaltrace`` for the calls that are not exceptstar's work."""
    import sysconfig

    paths = sysconfig.get_paths()
    library = (*{os.path.join(paths[key], "") for key in ("stdlib", "platstdlib")}, "<frozen ")
    # site-packages may lie inside the standard library's folder.
    installed = tuple({os.path.join(paths[key], "") for key in ("purelib", "platlib")})
    ours = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    # Wrappers around what the program itself calls (an import, a tool's function): not ours to hide.
    passers = (os.path.join(ours, "_watch.py"), os.path.join(ours, "_integrations", ""))
    kinds: Dict[str, int] = {}

    def kind(frame: "Any") -> int:
        filename = frame.f_code.co_filename
        found = kinds.get(filename)
        if found is None:
            if filename.startswith(passers):
                found = _PASSING
            elif filename.startswith(os.path.join(ours, "")):
                found = _OURS
            elif filename.startswith(library) and not filename.startswith(installed):
                found = _LIBRARY
            else:
                found = _PROGRAM
            kinds[filename] = found
        return found

    def hidden(frame: "Any", why: str, arg: "Any") -> "Any":
        # The local function of a frame left out: it marks the frame for its callees.
        return hidden

    def passing(frame: "Any", why: str, arg: "Any") -> "Any":
        return passing

    def outside(frame: "Any", why: str, arg: "Any") -> "Any":
        found = kind(frame)
        caller = frame.f_back
        # Under a frame left out, all is left out but the program's code that
        # exceptstar itself calls back (catch()'s handlers).
        under_ours = caller is not None and caller.f_trace is hidden
        if found == _PASSING and not under_ours:
            mark = passing
        elif found in (_OURS, _PASSING) or (under_ours and not (found == _PROGRAM and kind(caller) == _OURS)):
            mark = hidden
        else:
            return globaltrace(frame, why, arg)
        frame.f_trace_lines = False
        return mark

    return outside


# What a frame's file is to trace: the program's, the standard library's, exceptstar's work
# (CPython's C on 3.11), or exceptstar passing a call on.
_PROGRAM, _LIBRARY, _OURS, _PASSING = range(4)


def _patch_pdb_script(pdb: "Any") -> None:
    original = pdb.Pdb._runscript

    def _runscript(self: "Any", filename: str) -> None:
        import builtins

        builtin = builtins.compile
        script = self.canonic(filename)

        def compile_script(source: "Any", name: "Any", mode: str, *args: "Any", **kwargs: "Any") -> "Any":
            if name != script or mode != "exec" or args or kwargs:
                return builtin(source, name, mode, *args, **kwargs)
            builtins.compile = builtin
            # As the built-in called from pdb's statement would: no future flags to inherit.
            return transform_compile(source, name, mode, 0, True)

        builtins.compile = compile_script  # type: ignore[assignment]
        try:
            original(self, filename)
        finally:
            current: Any = builtins.compile
            if current is compile_script:
                builtins.compile = builtin

    _runscript.__doc__ = original.__doc__
    pdb.Pdb._runscript = _runscript


__all__ = ["patch", "patch_pdb", "patch_trace"]
