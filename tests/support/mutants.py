"""Broken ``except*`` modules for the SyntaxError fuzzer: valid modules, mutated.

``mutants(seed, count)`` edits the modules of ``CORPUS`` a few times each
(deleting, duplicating, swapping or inserting tokens and characters, moving
lines), deterministically for a seed.  ``errors(sources)`` is what compiling
each one raises, run in the interpreter compared (``processes.call``):
exceptstar's ``compile`` before 3.11 or under ``EXCEPTSTAR_PURE=1``, the
built-in elsewhere.  ``on_star_line`` says which errors the comparison is
about.  Standard library only, valid on 3.8.
"""

from __future__ import annotations

import os
import random
import re
import sys
import warnings
from typing import Any

# Valid on 3.14+ and through exceptstar everywhere: every place a clause can be.
CORPUS = [
    # A module-level try with every part, a tuple of types, a name.
    "import sys\n"
    "\n"
    "try:\n"
    "    x = f(1)\n"
    "except* (ValueError, TypeError) as e:\n"
    "    log(e)\n"
    "except* OSError:\n"
    "    pass\n"
    "else:\n"
    "    y = [x, 2]\n"
    "finally:\n"
    "    done()\n",
    # In a function: returns beside the statement, a nested plain try, a loop in a handler.
    "def handle(items):\n"
    "    total = 0\n"
    "    try:\n"
    "        total += run(items)\n"
    "    except* KeyError as group:\n"
    "        for item in group.exceptions:\n"
    "            if item:\n"
    "                break\n"
    "        try:\n"
    "            retry()\n"
    "        except IndexError:\n"
    "            pass\n"
    "    return total\n",
    # async: await in the body and the handler, an async with, an attribute as the type.
    "import asyncio\n"
    "\n"
    "async def main(session):\n"
    "    async with session:\n"
    "        try:\n"
    "            await session.get('x')\n"
    "        except* asyncio.TimeoutError as eg:\n"
    "            await session.close()\n"
    "        except* (ConnectionError, OSError):\n"
    "            raise\n",
    # A loop around the try, PEP 758's list without parentheses, comments, a string holding the word.
    "for attempt in range(3):  # retry\n"
    "    try:\n"
    "        connect(attempt, 'except* no')\n"
    "    except* TimeoutError, ConnectionError:\n"
    "        continue\n"
    "    except* Exception as e:  # the rest\n"
    "        e.add_note('attempt')\n"
    "        raise\n",
    # A class, a method, a nested starred try inside a handler, one-line clauses.
    "class Pool:\n"
    "    def close(self):\n"
    "        try: self.stop()\n"
    "        except* RuntimeError: pass\n"
    "        try:\n"
    "            self.join()\n"
    "        except* ValueError as outer:\n"
    "            try:\n"
    "                cleanup(outer)\n"
    "            except* TypeError:\n"
    "                pass\n"
    "        finally:\n"
    "            self.closed = True\n",
    # A decorator, a lambda and a comprehension in the handler, a dotted call as the type.
    "@decorate\n"
    "def load(path):\n"
    "    with open(path) as f:\n"
    "        try:\n"
    "            data = {k: v for k, v in read(f)}\n"
    "        except* errors.lookup('io') as eg:\n"
    "            keys = sorted(eg.exceptions, key=lambda e: str(e))\n"
    "            data = None\n"
    "        else:\n"
    "            data['ok'] = True\n"
    "    return data\n",
    # A while loop, a generator, yield in the handler, a clause split by a continuation.
    "def produce(queue):\n"
    "    while queue:\n"
    "        try:\n"
    "            yield queue.pop()\n"
    "        except* \\\n"
    "                LookupError:\n"
    "            yield None\n"
    "        except* (ArithmeticError,\n"
    "                 AssertionError) as e:\n"
    "            queue = [len(e.exceptions)]\n",
]

# What an edit may insert: the pieces of a clause, flow statements, brackets, comments.
INSERTS = [
    "(", ")", "[", "]", "{", "}", ":", ",", "*", "**", ".", "=", "|", "as", "as e", "e",
    "except", "except*", "except* E:", "except*:", "except E:", "except:", "try:", "else:", "finally:",
    "await", "await x", "return", "return 1", "break", "continue", "yield", "async", "lambda", "not",
    "# note", "#", "\\", "\n", "\n    ", "    ", "\t", "'s'", "\"", "'''", "1", "pass", "raise",
    "if", "for x in y:", "def g():", "class C:", "with x:", "(A, B)", "A, B", "A, B as e", "0x", "é",
]

# Word, number, string, comment, newline, other blanks, or one other character.
_PIECES = re.compile(r"[A-Za-z_]\w*|\d+|'[^'\n]*'|#[^\n]*|\n|[ \t]+|\\\n|.", re.S)


def pieces(text: str) -> list[str]:
    return _PIECES.findall(text)


def mutate(text: str, rng: random.Random) -> str:
    """``text`` after one to three random edits."""
    for _ in range(rng.choice((1, 1, 2, 3))):
        parts = pieces(text)
        at = rng.randrange(len(parts))
        kind = rng.randrange(9)
        if kind == 0:
            del parts[at]
        elif kind == 1:
            parts.insert(at, parts[at])
        elif kind == 2 and at + 1 < len(parts):
            parts[at], parts[at + 1] = parts[at + 1], parts[at]
        elif kind in (3, 4, 5):
            parts.insert(at, rng.choice(INSERTS) + rng.choice(("", " ")))
        elif kind == 6:
            parts[at] = rng.choice(INSERTS)
        else:
            text = "".join(parts)
            lines = text.splitlines(True)
            row = rng.randrange(len(lines))
            if kind == 7:
                moved = lines.pop(row)
                lines.insert(rng.randrange(len(lines) + 1), moved)
            else:
                lines[row] = rng.choice(("", " ", "    ", "\t")) + lines[row].lstrip(" ") if rng.random() < 0.7 \
                    else lines[row][rng.randrange(len(lines[row]) + 1):]
            parts = ["".join(lines)]
        text = "".join(parts)
    return text


def mutants(seed: int, count: int) -> list[str]:
    """``count`` mutants of ``CORPUS``'s modules, the same for the same seed, each distinct from its module."""
    rng = random.Random(seed)
    made: list[str] = []
    while len(made) < count:
        original = CORPUS[len(made) % len(CORPUS)]
        mutant = mutate(original, rng)
        if mutant != original:
            made.append(mutant)
    return made


# Lines that start an `except*` clause: `except`, then blanks or a continuation, then `*`.
_STAR_CLAUSE = re.compile(r"[ \t\f]*except(?:[ \t\f]|\\\r?\n)*\*")


def star_lines(source: str) -> list[int]:
    """The lines (1-based) on which an ``except*`` clause starts, as text (in a string too)."""
    rows, start = [], 0
    for row, line in enumerate(source.splitlines(True), 1):
        if _STAR_CLAUSE.match(source, start):
            rows.append(row)
        start += len(line)
    return rows


# The errors only a starred clause has: exceptstar makes them on every version.
STAR_MESSAGES = (
    "cannot have both 'except' and 'except*' on the same 'try'",
    "expected one or more exception types",
    "multiple exception types must be parenthesized when using 'as'",
    "'break', 'continue' and 'return' cannot appear in an except* block",
)
_STAR_MESSAGE = re.compile(r"cannot use except\* statement with |.* after 'except\*' statement on line \d+$")


def star_message(error: list[Any] | None) -> bool:
    return error is not None and (error[1] in STAR_MESSAGES or bool(_STAR_MESSAGE.match(error[1])))


def on_star_line(source: str, error: list[Any] | None, running_parser_words: bool = True) -> bool:
    """Whether ``error`` (as ``errors`` gives it) concerns an ``except*`` clause: anything but a
    SyntaxError, an ``except*`` message, or, when the running parser words its errors as
    3.14+ do (3.10), an error whose line is one where such a clause starts or one its header
    runs onto (its types split over lines by brackets or continuations)."""
    if error is None:
        return False
    if error[0] not in ("SyntaxError", "IndentationError", "TabError"):
        return True  # anything else raised by compiling is never right
    if star_message(error):
        return True
    lineno = error[2] or 0
    return running_parser_words and any(row <= lineno <= row + _header_rows(source, row)
                                        for row in star_lines(source))


def _header_rows(source: str, row: int) -> int:
    """How many lines after ``row`` the clause header there runs on (open brackets, continuations)."""
    depth, extra = 0, 0
    for line in source.splitlines(True)[row - 1:]:
        code = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"|#.*", "", line)
        depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
        if depth <= 0 and not code.rstrip("\r\n").endswith("\\"):
            return extra
        extra += 1
    return extra


def errors(sources: list[str]) -> list[list[Any] | None]:
    """What compiling each source raises: [type, msg, lineno, offset, end_lineno, end_offset, text],
    or None; the compiler's warnings are left out (ignored)."""
    if sys.version_info < (3, 11) or os.environ.get("EXCEPTSTAR_PURE"):
        from exceptstar import compile as compile_star
    else:
        compile_star = compile
    out: list[list[Any] | None] = []
    for source in sources:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                compile_star(source, "m.py", "exec")
                out.append(None)
            except SyntaxError as error:
                out.append([type(error).__name__, error.msg, error.lineno, error.offset,
                            getattr(error, "end_lineno", None), getattr(error, "end_offset", None), error.text])
            except Exception as error:  # any other exception is reported, never lost
                out.append([type(error).__name__, str(error), None, None, None, None, None])
    return out
