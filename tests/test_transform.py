"""Differential tests of the transformation: generated programs, native 3.11+ vs exceptstar.

Each program nests try/except*/else/finally with several clauses, tuples of
types, handlers that re-raise, raise new exceptions, raise ... from, add
notes, set ``__cause__``, look at ``sys.exc_info()``, and run plain try
statements inside handlers.  Every program runs in the newest native
interpreter and, here, through ``exceptstar.compile`` (3.8-3.10, or 3.11+ with
``EXCEPTSTAR_PURE=1``); both print what each handler saw, the order things
ran, what propagated (structure, types, messages, notes, cause, context,
traceback line numbers) and which lines ran (line events under
``sys.settrace``, what coverage records), which must be identical.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from support.interpreters import native_python
from support.processes import run_python

PROGRAM_COUNT = 160

TYPES = ["ValueError", "TypeError", "OSError", "KeyError", "Exception",
         "(ValueError, OSError)", "(TypeError, KeyError)", "BaseException"]

BODIES = [
    "raise ValueError('v')",
    "raise ExceptionGroup('eg', [ValueError(1), TypeError(2)])",
    "raise ExceptionGroup('eg', [ValueError(1), ExceptionGroup('inner', [OSError(3), TypeError(4)]), KeyError(5)])",
    "raise OSError('o')",
    "x = 1",
    "raise BaseExceptionGroup('beg', [KeyboardInterrupt(), ValueError(6)])",
]


def _handler(rng: random.Random, named: bool, index: int, ind: str, depth: int) -> list[str]:
    lines = [f"{ind}log('h{index}', sys.exc_info()[1])"]
    choice = rng.randrange(10 if depth < 2 else 8)
    if choice == 0:
        lines.append(f"{ind}raise")
    elif choice == 1 and named:
        lines.append(f"{ind}raise e")
    elif choice == 2:
        lines.append(f"{ind}raise KeyError('new{index}')")
    elif choice == 3:
        source = "e" if named else "None"
        lines.append(f"{ind}raise RuntimeError('from{index}') from {source}")
    elif choice == 4 and named:
        lines.append(f"{ind}e.add_note('note{index}')")
        lines.append(f"{ind}raise")
    elif choice == 5 and named:
        lines.append(f"{ind}e.__cause__ = ZeroDivisionError('cause')")
        lines.append(f"{ind}raise")
    elif choice == 6:
        lines += [f"{ind}try:", f"{ind}    raise IndexError('in-handler')",
                  f"{ind}except IndexError as inner:", f"{ind}    log('inner', inner)"]
    elif choice == 7 and named:
        lines.append(f"{ind}log('parts', e)")
    elif choice >= 8:
        lines += _try(rng, ind, depth + 1)
    return lines


def _try(rng: random.Random, ind: str, depth: int) -> list[str]:
    inner = ind + "    "
    lines = [f"{ind}try:"]
    if depth < 2 and rng.random() < 0.25:
        lines += _try(rng, inner, depth + 1)
    else:
        lines.append(inner + rng.choice(BODIES))
    for index in range(rng.randint(1, 3)):
        named = rng.random() < 0.6
        types = rng.choice(TYPES)
        lines.append(f"{ind}except* {types}{' as e' if named else ''}:")
        lines += _handler(rng, named, index + 10 * depth, inner, depth)
    if rng.random() < 0.3:
        lines += [f"{ind}else:", f"{inner}log('else')"]
    if rng.random() < 0.4:
        lines += [f"{ind}finally:", f"{inner}log('finally', sys.exc_info()[1])"]
    return lines


def generate(seed: int) -> str:
    rng = random.Random(seed)
    lines = ["import sys", "def prog():"]
    lines += _try(rng, "    ", 0)
    lines.append("    log('after')")
    return "\n".join(lines) + "\n"


DRIVER = r"""
import json, sys
programs = json.loads(sys.stdin.read())
if sys.version_info < (3, 11) or "--pure" in sys.argv:
    from exceptstar import compile

def describe(exc, depth=0):
    if exc is None or depth > 6:
        return None
    tb, lines = exc.__traceback__, []
    while tb is not None:
        lines.append(tb.tb_lineno)
        tb = tb.tb_next
    return {
        "type": type(exc).__name__,
        "str": str(exc),
        "notes": getattr(exc, "__notes__", None),
        "members": [describe(m, depth + 1) for m in exc.exceptions] if hasattr(exc, "exceptions") else None,
        "cause": describe(exc.__cause__, depth + 1),
        "context": type(exc.__context__).__name__ if exc.__context__ is not None else None,
        "suppress": exc.__suppress_context__,
        "lines": lines,
    }

def tracer(frame, event, arg):
    if frame.f_code.co_filename == "<prog>" and event == "line":
        lines.add(frame.f_lineno)
    return tracer

results = []
for source in programs:
    events = []
    lines = set()
    namespace = {"log": lambda tag, exc=None: events.append([tag, describe(exc)])}
    exec(compile(source, "<prog>", "exec"), namespace)
    sys.settrace(tracer)
    try:
        namespace["prog"]()
        outcome = None
    except BaseException as exc:
        outcome = describe(exc)
    finally:
        sys.settrace(None)
    results.append([events, outcome, describe(sys.exc_info()[1]), sorted(lines)])
print(json.dumps(results))
"""


def _run(exe: str, programs: list[str], pure: bool) -> list[object]:
    proc = run_python(exe, DRIVER, pure=pure, args=("--pure",) if pure else (), stdin=json.dumps(programs),
                      timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def _newest(programs: list[str]) -> list[object]:
    """The outcomes under the newest native CPython (3.15), which exceptstar follows."""
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    return _run(native, programs, pure=False)


def test_generated_programs_match_native() -> None:
    programs = [generate(seed) for seed in range(PROGRAM_COUNT)]
    expected = _newest(programs)
    actual = _run(sys.executable, programs, pure=sys.version_info >= (3, 11))
    for source, want, got in zip(programs, expected, actual):
        assert got == want, source


def test_generator_covers_the_interesting_cases() -> None:
    text = "".join(generate(seed) for seed in range(PROGRAM_COUNT))
    for needle in ("raise\n", "raise e\n", "from e", "from None", "add_note", "__cause__",
                   "finally:", "else:", "(ValueError, OSError)", "except IndexError",
                   "        try:\n", "sys.exc_info()"):
        assert needle in text, needle


@pytest.mark.needs_processes
def test_runs_through_transformation_here() -> None:
    proc = run_python(sys.executable, "import exceptstar._classes as c; print(c.PURE)",
                      pure=sys.version_info >= (3, 11))
    assert proc.stdout.strip() == "True"


def _native_and_ours(program: str) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """``program`` run by the newest native interpreter, then here through exceptstar.

    The program imports exceptstar's ``compile`` before 3.11, or when given
    ``--pure`` (which 3.11+ are, with the pure classes forced).
    """
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    pure = sys.version_info >= (3, 11)
    return (run_python(native, program),
            run_python(sys.executable, program, pure=pure, args=("--pure",) if pure else ()))


RUNTIME_ERRORS = r'''
import sys
if sys.version_info < (3, 11) or "--pure" in sys.argv:
    from exceptstar import compile
SOURCE = """\
class EG(ExceptionGroup):
    def split(self, condition):
        raise RuntimeError("split failed")
def invalid_type():
    try:
        raise ValueError(1)
    except* 42:
        pass
def group_in_tuple():
    try:
        raise ValueError(1)
    except* (TypeError, ExceptionGroup):
        pass
def failing_split():
    try:
        raise EG("eg", [ValueError(1)])
    except* TypeError:
        pass
"""
namespace = {}
exec(compile(SOURCE, "<prog>", "exec"), namespace)
for name in ("invalid_type", "group_in_tuple", "failing_split"):
    try:
        namespace[name]()
    except Exception as error:
        tb, frames = error.__traceback__, []
        while tb is not None:
            frames.append((tb.tb_frame.f_code.co_filename.rpartition("/")[2], tb.tb_lineno))
            tb = tb.tb_next
        print(name, type(error).__name__, error, type(error.__context__).__name__, frames)
'''


def test_runtime_errors_show_only_the_users_frames() -> None:
    expected, actual = _native_and_ours(RUNTIME_ERRORS)
    assert actual.stdout == expected.stdout, actual.stderr
    assert "failing_split RuntimeError" in expected.stdout


def _nested(levels: int) -> str:
    lines, ind = ["import sys", "def prog():"], "    "
    for level in range(levels):
        lines += [f"{ind}try:", f"{ind}    raise ExceptionGroup('l{level}', [ValueError({level}), TypeError({level})])",
                  f"{ind}except* ValueError as e{level}:", f"{ind}    log('v{level}', e{level})"]
        ind += "    "
    lines.append(f"{ind}log('deepest', sys.exc_info()[1])")
    return "\n".join(lines) + "\n"


# CPython allows 20 statically nested blocks. Each level of except* nested in a
# handler costs the transformed code 2 on 3.8, as native code does (10 levels),
# and 3 on 3.9+, whose compiler counts the handler section itself (6 levels).
MAX_NESTED_LEVELS = 10 if sys.version_info < (3, 9) else 6


def test_except_star_nested_in_handlers() -> None:
    native = native_python()
    if native is None:
        pytest.skip("no CPython 3.11+ on this machine")
    programs = [_nested(levels) for levels in range(1, MAX_NESTED_LEVELS + 1)]
    assert _run(sys.executable, programs, pure=sys.version_info >= (3, 11)) == _run(native, programs, pure=False)


@pytest.mark.needs_processes
@pytest.mark.skipif(sys.implementation.name == "pypy",
                    reason="PyPy's compiler has no limit on statically nested blocks (its 3.11 compiles "
                           "these natively)")
def test_nesting_past_the_limit_is_a_syntax_error_not_a_crash() -> None:
    code = (
        "import exceptstar, sys\n"
        "try:\n"
        "    exceptstar.compile(sys.argv[1], 'deep.py', 'exec')\n"
        "except SyntaxError as e:\n"
        "    print(e.msg)\n"
    )
    proc = run_python(sys.executable, code, pure=True, args=(_nested(MAX_NESTED_LEVELS + 1),))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "too many statically nested blocks\n"


@pytest.mark.needs_processes
def test_except_star_look_alikes_in_strings_and_comments() -> None:
    code = r"""
import exceptstar
src = "\n".join([
    "def f():",
    "    'Use except* ValueError: here.'",
    "    s = 'except *TypeError'  # except* in a comment",
    "    try:",
    "        raise ValueError(1)",
    "    except* ValueError as e:",
    "        value = (f.__doc__, s, repr(e))",
    "    return value",
])
ns = {}
exec(exceptstar.compile(src, "<s>", "exec"), ns)
print(ns["f"]())
only_strings = "x = 'except* A'\n"
print(exceptstar.compile(only_strings, "<s>", "exec").co_code == compile(only_strings, "<s>", "exec").co_code)
"""
    proc = run_python(sys.executable, code, pure=sys.version_info >= (3, 11))
    assert proc.stdout.splitlines() == [
        "('Use except* ValueError: here.', 'except *TypeError', \"ExceptionGroup('', (ValueError(1),))\")",
        "True",
    ], proc.stderr


GROUP_NAMES_SCOPING = r'''
import sys
if sys.version_info < (3, 11) or "--pure" in sys.argv:
    from exceptstar import compile
SOURCE = """\
TYPE_CHECKING = False
if TYPE_CHECKING:
    from builtins import ExceptionGroup
def make(ExceptionGroup=None):
    return ExceptionGroup
def nested():
    BaseExceptionGroup = "a local"
    return BaseExceptionGroup
class C:
    def m(self):
        try:
            raise BaseExceptionGroup("b", [KeyError(1)])
        except* KeyError as e:
            r = type(e).__name__
        return r
try:
    raise ExceptionGroup("eg", [ValueError(1)])
except* ValueError as e:
    print("handled", repr(e), make(5), nested(), C().m())
"""
namespace = {}
exec(compile(SOURCE, "<prog>", "exec"), namespace)
'''


def test_group_names_follow_pythons_scoping() -> None:
    # Parameters, locals and bindings that never run keep their meaning; every
    # other use sees the group classes, as 3.11's builtins.
    expected, actual = _native_and_ours(GROUP_NAMES_SCOPING)
    assert expected.stdout == "handled ExceptionGroup('eg', [ValueError(1)]) 5 a local ExceptionGroup\n"
    assert actual.stdout == expected.stdout, actual.stderr


ADD_NOTE_FORMS = r'''
import sys
if sys.version_info < (3, 11) or "--pure" in sys.argv:
    from exceptstar import compile
SOURCE = """\
class Loud(Exception):
    def add_note(self, note):
        super().add_note(note.upper())
e = Loud()
e.add_note("hi")
BaseException.add_note(e, "direct")
v = ValueError(1)
v.add_note("plain")
try:
    raise ExceptionGroup("eg", [v])
except* ValueError as g:
    g.add_note("on the part")
    print(e.__notes__, v.__notes__, g.__notes__)
"""
exec(compile(SOURCE, "<prog>", "exec"), {})
'''


def test_add_note_in_every_form() -> None:
    expected, actual = _native_and_ours(ADD_NOTE_FORMS)
    assert expected.stdout == "['HI', 'direct'] ['plain'] ['on the part']\n"
    assert actual.stdout == expected.stdout, actual.stderr


NORMALISED_NAMES = r'''
import sys
if sys.version_info < (3, 11) or "--pure" in sys.argv:
    from exceptstar import compile
SOURCE = """\
v = ValueError(1)
v.\uff41dd_note("noted")
try:
    raise \uff25xceptionGroup("eg", [v])
except* ValueError as g:
    print(repr(g), g.exceptions[0].__notes__)
"""
exec(compile(SOURCE, "<prog>", "exec"), {})
'''


def test_names_spelt_beyond_ascii() -> None:
    # Identifiers are NFKC-normalised: fullwidth letters still name add_note
    # and ExceptionGroup, which the rewrite must see without their ASCII text.
    expected, actual = _native_and_ours(NORMALISED_NAMES)
    assert expected.stdout == "ExceptionGroup('eg', [ValueError(1)]) ['noted']\n"
    assert actual.stdout == expected.stdout, actual.stderr


UNDECODABLE = r'''
import sys
if sys.version_info < (3, 11) or "--pure" in sys.argv:
    from exceptstar import compile
source = b'try:\n    pass\nexcept* ValueError:\n    pass\nx = "\xff"\n'
try:
    compile(source, "bad.py", "exec")
except SyntaxError as error:
    print(type(error).__name__, error.msg, error.filename, error.lineno, error.offset, repr(error.text))
'''


def test_undecodable_source_is_a_syntax_error() -> None:
    # The newest interpreter's words (3.15: "Non-UTF-8 code starting with '\\xff' on line 5, ..."),
    # which exceptstar gives where it decodes the source itself.
    expected, actual = _native_and_ours(UNDECODABLE)
    assert expected.stdout.startswith("SyntaxError "), expected.stderr
    assert actual.stdout == expected.stdout, actual.stderr
