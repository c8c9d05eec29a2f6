"""``python -m exceptstar run``: a program run as ``python`` runs it, with ``except*`` available.

``run`` behaves like ``python`` itself (``sys.argv``, ``sys.path[0]``,
``__main__``, exit status, tracebacks without frames of ours), with the import
hook installed so that the program and everything it imports may use
``except*``; without a program it starts an interactive console that accepts
``except*``.
"""

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import CodeType
    from typing import Any, Callable, Dict, List, Optional, Tuple

def run(args: "List[str]") -> int:
    from exceptstar._compiler import hook

    hook.install()
    _debuggers_start_at_the_program()
    if not args:
        return _console()
    if args[0] == "-m" and len(args) > 1:
        sys.argv = [args[1], *args[2:]]
        sys.path[0] = os.getcwd()
        return _run_module(args[1], True)
    if args[0] == "-c" and len(args) > 1:
        sys.argv = ["-c", *args[2:]]
        sys.path[0] = ""
        return _run_source(args[1].encode("utf-8", "surrogateescape"), "<string>", None, args[1])
    if args[0].startswith("-"):
        from exceptstar._commands.cli import USAGE

        sys.stderr.write(USAGE)
        return 2
    path = args[0]
    sys.argv = list(args)
    if _is_import_path(path):
        # A directory or a zip file (zipapp): python runs its __main__ module,
        # with the path itself first on sys.path (3.9+: joined to the cwd).
        sys.path[0] = _absolute(path)
        return _run_module("__main__", False)
    sys.path[0] = os.path.dirname(os.path.realpath(path))
    try:
        with open(path, "rb") as file:
            source = file.read()
    except OSError as error:
        # PyPy names the file unquoted.
        shown = _absolute(path) if _PYPY else repr(_absolute(path))
        sys.stderr.write(f"{sys.executable}: can't open file {shown}: [Errno {error.errno}] "
                         f"{error.strerror}\n")
        return 2
    # The name the script's code has, which tracebacks show, and its __file__
    # (PyPy 3.11's joined to the working directory as CPython's, its code's normalized).
    filename = _absolute(path)
    path = os.path.join(os.getcwd(), path) if _PYPY and sys.version_info >= (3, 10) else filename
    try:
        source = _as_file_runner_reads(source, filename)
    except SyntaxError as error:
        unreadable = error
    else:
        return _run_source(source, filename, path)
    return _report(unreadable)


_PYPY = sys.implementation.name == "pypy"


def _absolute(path: str) -> str:
    """``path`` as the interpreter names a script or a folder it runs: 3.9+ join it to
    the working directory unnormalized (PyPy normalized), 3.8 keeps it as given."""
    if _PYPY:
        return os.path.abspath(path)
    return os.path.join(os.getcwd(), path) if sys.version_info >= (3, 9) else path


def _debuggers_start_at_the_program() -> None:
    """pdb's stack (``where``, ``up``) starts where it does under ``python``, not in ``run``.

    ``Bdb.set_trace`` (``breakpoint()``, ``pdb.set_trace()``) takes the
    outermost frame as the bottom of the stack it shows; here that would be
    ``python -m exceptstar``'s runpy frames and ours.  bdb is patched when it
    is first imported (it imports ``inspect``: too slow to import for every
    run), so that the bottom is the program's first frame instead.
    """
    from exceptstar._watch import when_imported

    when_imported("bdb", _patch_bdb)


def _patch_bdb(bdb: "Any") -> None:
    original = bdb.Bdb.set_trace

    def set_trace(self: "Any", frame: "Any" = None) -> None:
        if frame is None:
            frame = sys._getframe().f_back
        # Found before tracing starts: a call made after it would stop in pdb.
        bottom = _program_bottom(frame)
        original(self, frame)
        if bottom is not None:
            self.botframe = bottom

    bdb.Bdb.set_trace = set_trace


def _program_bottom(frame: "Any") -> "Any":
    """The outermost frame ``python`` itself would have under ``frame``: the program's
    module (a script, ``-c``), or runpy's (``-m``, a folder, a zip file); None elsewhere."""
    while frame is not None:
        caller = frame.f_back
        if caller is not None and caller.f_code is _run_reporting.__code__:
            return frame
        frame = caller
    return None


def _is_import_path(path: str) -> bool:
    """Whether ``path`` is a sys.path entry (a folder, a zip file), as python decides what to run."""
    for hook in sys.path_hooks:
        try:
            hook(path)
        except ImportError:
            continue
        return True
    return False


def _as_file_runner_reads(source: bytes, path: str) -> bytes:
    """``source`` as ``python FILE`` reads it, or the SyntaxError it gives for the file.

    The interpreter reads a script through its file tokenizer, not ``compile``:
    a NUL byte is a SyntaxError on 3.11.4+ and, before, ends its line there (the
    rest of the line, newline included, is never seen); a cookie's codec that
    fails (none by that name, not a text encoding, the bytes after the cookie's
    line not decoding) is its own kind of error (``_codec_problem``).
    """
    nul = source.find(b"\0")
    if nul >= 0:
        if sys.version_info >= (3, 11, 4):
            lineno = source.count(b"\n", 0, nul) + 1
            start = source.rfind(b"\n", 0, nul) + 1
            text = source[start:nul].decode("utf-8", "replace")
            raise SyntaxError("source code cannot contain null bytes", (path, lineno, 0, text, lineno, 0))
        import re

        source = re.sub(rb"\0[^\n]*\n?", b"", source)
    found = _cookie(source) if _CODEC_ERRORS_SHOWN else None
    if found is not None:
        name, lineno, end = found
        try:
            source[:end].decode(name)
        except UnicodeDecodeError as error:
            # 3.14.7+ decode the lines read to find the cookie with its codec too.
            line = source[source.rfind(b"\n", 0, end - 1) + 1:end].decode(name, "replace")
            raise SyntaxError(f"(unicode error) {error}", (path, lineno, 0, line)) from None
        except LookupError:
            pass  # no such text codec: reported below, as the tokenizer reports it
    import io
    import tokenize

    readline = io.BytesIO(source).readline
    try:
        encoding, cookie_lines = tokenize.detect_encoding(readline)
    except SyntaxError as error:
        message = str(error)
        if not message.startswith("unknown encoding: "):
            return source  # compile reports it, in the interpreter's words
        raise _codec_problem(message, message[len("unknown encoding: "):], source, path) from None
    except LookupError as error:
        # A codec that is not a text encoding: its name is the one quoted in the message.
        message = str(error).split(";")[0]
        raise _codec_problem(message, message.split("'")[1], source, path) from None
    if encoding not in ("utf-8", "utf-8-sig"):
        # The file tokenizer decodes the rest with the cookie's codec from the
        # cookie line's last byte on (it steps back one byte to find the line's end).
        rest = source[max(sum(map(len, cookie_lines)) - 1, 0):]
        try:
            rest.decode(encoding)
        except UnicodeDecodeError as error:
            raise _codec_problem(str(error), encoding, source, path) from None
        except LookupError as error:  # not a text encoding (3.8-3.11's detect_encoding let it pass)
            raise _codec_problem(str(error).split(";")[0], encoding, source, path) from None
    return source


# gh-151461 (3.14.7, 3.15.0b3): the file tokenizer reports the codec's own error.
_CODEC_ERRORS_SHOWN = sys.version_info >= (3, 14, 7)


def _cookie(source: bytes) -> "Optional[Tuple[str, int, int]]":
    """The codec a coding cookie names as written, its line number and where that line ends:
    the first line's cookie, or the second's after a blank or comment line; None with a BOM."""
    import tokenize

    start = 0
    for lineno in (1, 2):
        end = source.find(b"\n", start) + 1 or len(source)
        line = source[start:end]
        # A pattern of bytes from 3.14 on, of text before.
        match = tokenize.cookie_re.match(line if isinstance(tokenize.cookie_re.pattern, bytes)
                                         else line.decode("latin-1"))
        if match and not source.startswith(b"\xef\xbb\xbf"):
            name = match.group(1)
            return name.decode("latin-1") if isinstance(name, bytes) else name, lineno, end
        if match or not tokenize.blank_re.match(source[start:end]):
            return None
        start = end
    return None


def _codec_problem(message: str, name: str, source: bytes, path: str) -> SyntaxError:
    """The SyntaxError ``python FILE`` gives when the codec its cookie names fails: the codec's
    ``message`` (3.14.7+), else an "encoding problem" naming the codec (``name``)."""
    if _CODEC_ERRORS_SHOWN:
        return SyntaxError(message, (path, 0, 0, None))
    problem = f"encoding problem: {name}"
    if sys.version_info >= (3, 9):
        return SyntaxError(problem)
    import tokenize

    # 3.8 names the cookie's line: the first (after a BOM), or else the second.
    first = source[3 if source.startswith(b"\xef\xbb\xbf") else 0:].split(b"\n", 1)[0].decode("latin-1")
    lineno = 1 if tokenize.cookie_re.match(first) else 2
    return SyntaxError(problem, (path, lineno, 0, None))


def _as_file_runner_reports(error: SyntaxError, source: bytes, path: str) -> SyntaxError:
    """``error``, compile's for a script's ``source``, as ``python FILE`` reports it."""
    if error.msg.startswith("Non-UTF-8 code ") and " in file " not in error.msg:
        found = _cookie(source) if _CODEC_ERRORS_SHOWN else None
        if found is not None and error.lineno and found[0][:12].lower().replace("_", "-") in ("utf-8", "utf-8-"):
            # Under a UTF-8 cookie (the tokenizer's own normal name for one: "utf8" is
            # another codec to it), 3.14.7+ decode line by line and report the codec's error.
            line = source.split(b"\n")[error.lineno - 1]
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as decode_error:
                return SyntaxError(f"(unicode error) {decode_error}",
                                   (path, error.lineno, 0, line.decode("utf-8", "replace")))
        # The tokenizer's words for a byte that is not UTF-8 name the file it reads from (3.14+
        # compile's are those words; before, compile reported a codec error instead).
        error.msg = error.msg.replace(" on line ", f" in file {path} on line ", 1)
    elif error.msg.startswith("encoding problem: ") and error.msg.endswith(" with BOM") and not _CODEC_ERRORS_SHOWN:
        # A cookie that contradicts a UTF-8 BOM: placed as the other encoding problems are.
        return _codec_problem(error.msg, error.msg[len("encoding problem: "):], source, path)
    return error


def _fresh_main(path: "Optional[str]") -> "Dict[str, Any]":
    """A new ``__main__`` module, as the interpreter makes one for a script or ``-c``."""
    import builtins
    import types

    module = types.ModuleType("__main__")
    namespace = module.__dict__
    namespace["__builtins__"] = builtins
    if sys.version_info < (3, 14):
        # 3.14's lazy annotations (PEP 649/749) left module namespaces without it.
        namespace["__annotations__"] = {}
    if path is not None:
        from importlib.machinery import SourceFileLoader

        namespace["__file__"] = path
        if sys.version_info < (3, 15):
            namespace["__cached__"] = None  # 3.15 removed it from modules
        namespace["__loader__"] = SourceFileLoader("__main__", path)
    else:
        from importlib.machinery import BuiltinImporter

        namespace["__loader__"] = BuiltinImporter
    sys.modules["__main__"] = module
    return namespace


def _run_source(source: bytes, filename: str, path: "Optional[str]", command: "Optional[str]" = None) -> int:
    """Run a script's ``source`` (from ``path``), or ``-c``'s ``command`` (``source`` its bytes)."""
    from exceptstar._compiler.pycache import main_code

    failed = None
    try:
        code: CodeType = main_code(source, filename, path)  # cached, unless it warns
    except SyntaxError as error:
        failed = _as_file_runner_reports(error, source, path) if path is not None else error
    if failed is not None:
        # Reported after the handler: there PyPy gives the handled exception its traceback back.
        return _report(failed.with_traceback(None))
    if command is not None and sys.version_info >= (3, 13):
        _quote_command(code, command)
    namespace = _fresh_main(path)
    return _run_reporting(exec, code, namespace)


def _quote_command(code: "CodeType", command: str) -> None:
    """Make ``-c``'s lines quotable as 3.13+'s ``python -c`` makes them."""
    import linecache

    if sys.version_info >= (3, 14):
        # By its code objects, what the interpreter itself calls: tracebacks
        # quote the lines, pdb (which looks them up by file name) does not.
        linecache._register_code(code, command, "<string>")  # type: ignore[attr-defined]
    else:
        lines = command.splitlines(keepends=True)
        linecache.cache["<string>"] = (len(command), None, lines, "<string>")


def _run_module(name: str, alter_argv: bool) -> int:
    import runpy

    # The program's __main__ starts as the interpreter's does, not as ours
    # (python -m exceptstar's own globals).
    _fresh_main(None)
    # A tool that compiles the program itself (cProfile, trace, ...) runs in __main__.
    from exceptstar._watch import prepare_main

    prepare_main(name, sys.modules["__main__"])
    # What `python -m` itself calls: its frames show in tracebacks there too.
    return _run_reporting(runpy._run_module_as_main, name, alter_argv)  # type: ignore[attr-defined]


def _run_reporting(program: "Callable[..., object]", *args: object) -> int:
    """Run the program as the interpreter does: its exit status, an uncaught exception reported.

    ``program`` is called from here directly (no lambda), so that the frame
    under this one is the program's or runpy's: see ``_program_bottom``.
    """
    try:
        program(*args)
    except SystemExit:
        raise
    except BaseException as caught:
        uncaught = caught
    else:
        return 0
    return _report(uncaught)


def _report(error: BaseException) -> int:
    """Print an uncaught exception as the interpreter does, without our frames; the exit status.

    Called after the ``except`` block that caught ``error`` has ended: while it
    is the handled exception, 3.8 attaches every new exception (even one raised
    and caught inside the printing code) by walking ``error``'s ``__context__``
    chain, and a chain that loops back on itself makes that walk endless.
    """
    from exceptstar import _classes, _frames

    tb = _frames.strip(error).__traceback__
    if sys.excepthook is sys.__excepthook__ and _classes.PURE:
        # The interpreter's own hook (3.11+ under EXCEPTSTAR_PURE=1) cannot draw our groups.
        from exceptstar._printing.formatting import print_exception

        print_exception(error)
    else:
        sys.excepthook(type(error), error, tb)
    if isinstance(error, KeyboardInterrupt):
        # As the interpreter: die of the signal, so the parent sees an interrupted child.
        import signal

        sys.stdout.flush()
        sys.stderr.flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    return 1


def _console() -> int:
    import code
    import codeop

    from exceptstar import _classes
    from exceptstar._compiler import transform

    class Compile(codeop.Compile):
        """codeop's compiler (incomplete-input detection, __future__ tracking) on our compile."""

        def __call__(self, source: str, filename: str, symbol: str, flags: int = 0,
                      **kwargs: object) -> "Any":
            flags |= self.flags
            if kwargs.get("incomplete_input", True) is False:
                # codeop's last attempt (3.13): compile as complete input.
                flags &= ~(_DONT_IMPLY_DEDENT | _ALLOW_INCOMPLETE_INPUT)
            try:
                codeob = self._compile(source, filename, symbol, flags)
            except SyntaxError as error:
                lines = source.splitlines()
                if (type(error) is SyntaxError and not error.text and error.lineno
                        and 0 < error.lineno <= len(lines) and transform.has_except_star(source)):
                    # As 3.13's console: a compiler error quotes the line typed.
                    error.text = lines[error.lineno - 1]
                raise
            for feature in _future_features():
                if codeob.co_flags & feature.compiler_flag:
                    self.flags |= feature.compiler_flag
            return codeob

        def _compile(self, source: str, filename: str, symbol: str, flags: int) -> "Any":
            try:
                return transform.compile(source, filename, symbol, flags, True)
            except SyntaxError as error:
                if "incomplete input" not in str(error) or not transform.has_except_star(source):
                    raise
                # codeop before 3.13 reports what compiling the unfinished
                # source says, "incomplete input", even when the source plus a
                # newline is an error of its own (an invalid except* block).
                # That error is the one to report, as 3.13's codeop does.
                try:
                    transform.compile(source + "\n", filename, symbol, flags, True)
                except SyntaxError as complete_error:
                    if "incomplete input" in str(complete_error):
                        raise error from None
                    raise complete_error.with_traceback(None) from None
                raise

    import builtins

    namespace = _fresh_main(None)
    for name in ("ExceptionGroup", "BaseExceptionGroup"):
        if getattr(builtins, name, None) is not getattr(_classes, name):
            # Interactive input without except* is compiled untouched: where the
            # built-in names are not our classes (EXCEPTSTAR_NO_BUILTINS, pure 3.11+),
            # the names 3.11 code expects are bound here once.
            namespace[name] = getattr(_classes, name)
    console = code.InteractiveConsole(namespace)
    console.compile.compiler = Compile()
    try:
        import readline  # noqa: F401 - line editing, as the interpreter's own prompt has
    except ImportError:
        pass
    banner = (f"Python {sys.version} on {sys.platform}\n"
              'Type "help", "copyright", "credits" or "license" for more information.\n'
              "(exceptstar console: except* works on this interpreter)")
    console.interact(banner, exitmsg="")
    return 0


_DONT_IMPLY_DEDENT = 0x200
_ALLOW_INCOMPLETE_INPUT = 0x4000


def _future_features() -> "List[Any]":
    import __future__

    return [getattr(__future__, name) for name in __future__.all_feature_names]
