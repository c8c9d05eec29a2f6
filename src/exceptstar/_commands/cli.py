"""The command line: ``python -m exceptstar COMMAND`` (the ``exceptstar`` script).

This module owns the usage text and the dispatch; each command is a module
of this wing (``run``, ``check``, ``tools`` for ``show`` and ``config``,
``demo``, ``coldstart``, ``compileall``, ``pyinstaller``, ``nuitka``, ``pyright``
for both pyrights),
imported only when its command runs.
"""

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Optional, Sequence

USAGE = """\
usage: python -m exceptstar demo
       python -m exceptstar --version
       python -m exceptstar run script.py [args...]
       python -m exceptstar run -m module [args...]
       python -m exceptstar run -c code [args...]
       python -m exceptstar run                  (interactive console)
       python -m exceptstar check PATH...
       python -m exceptstar show FILE
       python -m exceptstar config ruff|mypy|flake8|black|coverage [PATH...]
       python -m exceptstar config pyright|basedpyright [--target=3.X] [PATH...]
       python -m exceptstar pyright|basedpyright [the tool's arguments]
       python -m exceptstar coldstart [PATH...]
       python -m exceptstar compileall [compileall's options] [PATH...]
       python -m exceptstar pyinstaller [PyInstaller's options] SCRIPT
       python -m exceptstar nuitka [Nuitka's options] SCRIPT

demo   run a small program written with except* (the default)
run    run a program as python does, with except* available on every version
check  report every invalid use of except* in the files and folders given
show   print the transformed source (what runs on 3.8-3.10), with the original line numbers
config print a tool's settings for the files that use except* (default PATH: .)
coldstart   list the modules that every start transforms again (no valid cache), and the fix
compileall  python -m compileall, writing the transformed bytecode of the files that use except*
pyinstaller PyInstaller, bundling the transformed code of the modules that use except*
pyright, basedpyright  the tool, after writing the typeshed that config's settings name
nuitka      Nuitka, compiling the modules that use except* (their transformed tree)
"""


def main(argv: "Optional[Sequence[str]]" = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    command = args.pop(0) if args else "demo"
    if command == "demo" and not args:
        from exceptstar._commands import demo

        return demo.main()
    if command == "run":
        if args[:1] in (["-h"], ["--help"]):
            sys.stdout.write(USAGE)
            return 0
        from exceptstar._commands.run import run

        return run(args)
    if command == "check" and args:
        from exceptstar._commands.check import check

        return check(args)
    if command in ("show", "config") and args:
        from exceptstar._commands import tools

        return tools.show(args[0]) if command == "show" else tools.config(args[0], args[1:])
    if command == "coldstart":
        from exceptstar._commands import coldstart

        return coldstart.main(args)
    if command == "compileall":
        from exceptstar._commands import compileall

        return compileall.main(args)
    if command == "pyinstaller":
        from exceptstar._commands import pyinstaller

        return pyinstaller.main(args)
    if command in ("pyright", "basedpyright"):
        from exceptstar._commands import pyright

        return pyright.main(command, args)
    if command == "nuitka":
        from exceptstar._commands import nuitka

        return nuitka.main(args)
    if command in ("-h", "--help", "help"):
        sys.stdout.write(USAGE)
        return 0
    if command in ("-V", "--version"):
        from exceptstar._version import __version__

        sys.stdout.write(f"exceptstar {__version__}\n")
        return 0
    if command not in ("demo", "check", "show", "config"):
        # A typo is named, not just answered with the usage text.
        sys.stderr.write(f"exceptstar: unknown command {command!r}\n")
    sys.stderr.write(USAGE)
    return 2
