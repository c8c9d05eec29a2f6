"""Random modules of nested ``try``/``except*``, and coverage's static analysis of them.

``program(seed)`` writes a module of a few functions whose bodies nest ``if``,
``for``, ``while``, plain ``try`` and ``try``/``except*`` (with ``else`` and
``finally``), multi-line statements, ``# pragma: no cover`` on some lines, and
jumps (``return``, ``raise``, ``break``, ``continue``) where ``except*``
allows them. It avoids what 3.8-3.10 and 3.11+ compile (and coverage analyses)
differently whatever the ``except*``: code after a jump in its block, a
``try`` body that always raises (3.11+ drop its ``else``), jumps other than
``raise`` through a ``finally``, constant tests, ``with``. ``ANALYSIS`` is
coverage's view of files (its ``FileReporter``: statements, exclusions, arcs,
exits, the descriptions of missing arcs, regions and source tokens), printed
as JSON by a child process.
"""

from __future__ import annotations

import random

ANALYSIS = r'''
import json, sys
import coverage
from coverage.python import PythonFileReporter
rc, files = sys.argv[1], sys.argv[2:]
cov = coverage.Coverage(config_file=rc, data_file=None)
cov.analysis2(files[0])  # loads the settings' plugins
out = {}
for name in files:
    reporter = PythonFileReporter(name, cov)
    try:
        arcs = sorted(reporter.arcs())
        out[name] = {
            "lines": sorted(reporter.lines()),
            "excluded": sorted(reporter.excluded_lines()),
            "arcs": arcs,
            "exits": sorted(reporter.exit_counts().items()),
            "missing": [reporter.missing_arc_description(a, b, set()) for a, b in arcs],
            "regions": [[r.kind, r.name, r.start, sorted(r.lines)] for r in reporter.code_regions()]
                       if hasattr(reporter, "code_regions") else None,
            "tokens": [list(map(list, line)) for line in reporter.source_token_lines()],
        }
    except Exception as error:
        out[name] = repr(error)
print(json.dumps(out))
'''


class _Writer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []

    def emit(self, indent: int, text: str, pragma: bool = False) -> None:
        self.lines.append("    " * indent + text + ("  # pragma: no cover" if pragma else ""))

    def block(self, indent: int, depth: int, loop: bool, no_return: bool) -> None:
        """A block of one to three statements; the last may be a guarded jump."""
        for _ in range(self.rng.randint(1, 3)):
            self.statement(indent, depth, loop, no_return)

    def statement(self, indent: int, depth: int, loop: bool, no_return: bool) -> None:
        rng = self.rng
        kinds = ["simple", "multiline", "jump"] + (["if", "for", "while", "star", "star", "try"] if depth < 3 else [])
        kind = rng.choice(kinds)
        if kind == "simple":
            self.emit(indent, rng.choice(["x = f(x)", "g(x)", "x += 1"]))
        elif kind == "multiline":
            self.emit(indent, "x = f(")
            self.emit(indent + 1, "x,")
            self.emit(indent, ")")
        elif kind == "jump":
            jumps = ["raise E(x)"] + ([] if no_return else ["return x"]) + (["break", "continue"] if loop else [])
            self.emit(indent, "if c(x):", pragma=rng.random() < 0.1)
            self.emit(indent + 1, rng.choice(jumps))
        elif kind == "if":
            self.emit(indent, "if c(x):", pragma=rng.random() < 0.1)
            self.block(indent + 1, depth + 1, loop, no_return)
            if rng.random() < 0.5:
                self.emit(indent, "else:")
                self.block(indent + 1, depth + 1, loop, no_return)
        elif kind in ("for", "while"):
            self.emit(indent, "for i in f(x):" if kind == "for" else "while c(x):")
            self.block(indent + 1, depth + 1, True, no_return)
        else:
            self.try_statement(indent, depth, loop, no_return, star=kind == "star")

    def try_statement(self, indent: int, depth: int, loop: bool, no_return: bool, star: bool) -> None:
        rng = self.rng
        final = rng.random() < 0.3
        if final:
            # Jumps through a finally clause: 3.8-3.10 and 3.11+ compile them differently.
            loop, no_return = False, True
        self.emit(indent, "try:")
        self.block(indent + 1, depth + 1, loop, no_return)
        keyword = "except*" if star else "except"
        for types in rng.sample(["ValueError", "(TypeError, KeyError)", "OSError"], rng.randint(1, 3)):
            name = " as e" if rng.random() < 0.4 else ""
            self.emit(indent, f"{keyword} {types}{name}:", pragma=rng.random() < 0.1)
            # break, continue and return cannot leave an except* handler.
            self.block(indent + 1, depth + 1, loop and not star, no_return or star)
        if rng.random() < 0.4:
            self.emit(indent, "else:")
            self.block(indent + 1, depth + 1, loop, no_return)
        if final:
            self.emit(indent, "finally:")
            self.block(indent + 1, depth + 1, loop, no_return)


def program(seed: int) -> str:
    """A module of three functions (one of them async, one a method) with random bodies."""
    writer = _Writer(random.Random(seed))
    writer.emit(0, f'"""Generated module {seed}."""')
    writer.emit(0, "")
    writer.emit(0, "")
    writer.emit(0, "def first(x):")
    writer.block(1, 0, False, False)
    writer.emit(1, "return x")
    writer.emit(0, "")
    writer.emit(0, "")
    writer.emit(0, "async def second(x):")
    writer.block(1, 0, False, False)
    writer.emit(0, "")
    writer.emit(0, "")
    writer.emit(0, "class Third:")
    writer.emit(1, "def method(self, x):")
    writer.block(2, 0, False, False)
    writer.emit(0, "")
    writer.emit(0, "")
    writer.statement(0, 1, False, True)
    return "\n".join(writer.lines) + "\n"
