"""What of a module that uses ``except*`` can be compiled natively, on 3.8-3.10.

Building a tree costs more than a native compile, however few the clauses.
``compile_stubbed`` gives the whole-tree path's code (``transform``) with a
tree of only what must be rewritten: the functions that hold a star, and the
module-level code unless the code is a module's own (an import) or its prologue can be
compiled natively (``prologue_text``).  Every other function's
code is the native compile's, put in place of a stub.  Each part is checked to be the
whole tree's, or the whole tree is used (always on PyPy: no CPython code objects).
"""

import builtins
import sys
from bisect import bisect_left, bisect_right
from itertools import accumulate, compress, count, repeat
from operator import attrgetter, itemgetter, not_

from exceptstar._compiler.finally_flow import may_leave_finally
from exceptstar._compiler.joined import with_functions
from exceptstar._compiler.prologue_text import PROLOGUE_NATIVE, compile_with_prologue, first_statement
from exceptstar._compiler.quiet import Filters
from exceptstar._compiler.source import filename_text, future_flags, mark, quick_scan
from exceptstar._compiler.source import lines as lines_of
from exceptstar._compiler.syntax import check_tree

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, List, Optional, Tuple

_builtin_compile = builtins.compile
_PyCF_ONLY_AST = 0x400
_CO_NEWLOCALS = 0x2
_PYPY = sys.implementation.name == "pypy"
# The share of a module's lines that must be stub-able (indented, away from the clauses).
_STUB_SHARE = 0.5


def compile_stubbed(text: str, filename: "Any", flags: int, optimize: int, module: bool) -> "Any":
    """The whole-tree path's code, without the tree of every function body; None when it cannot be shown to be the
    same (then that path runs, and reports any error).

    Building the tree costs more than compiling natively, however few the ``except*`` clauses.  So the module, its
    stars blanked, is compiled natively (``native``); then the tree is built from the source with the body of each
    top-level function that holds no star (and nothing else the rewrite changes) replaced by ``pass``, every line
    kept where it was; that tree is checked, rewritten and compiled as the whole one would be; and each stub's code
    object is replaced by the native code of the same function.  A function's code does not depend on what surrounds
    it; what the module-level code makes of it (decorators, defaults, the name) is compiled from the tree.  Not on
    3.11+, whose positions give each ``def`` its end, the body's.

    For a ``module`` (code run with the interpreter's builtins: imported, or ``run``'s main script) the module-level
    code can be the native one, which then lacks only the rewrite's prologue (see ``_native_module``), and where the
    functions that hold a star can be told from the text, the native compile leaves them out (``_stars_apart``).
    """
    native_module = module and _names_in_ascii(text) and "ExceptionGroup" not in text
    # PyPy: the whole tree (code objects swapped are CPython's); [] : at best, all starred lines left out
    counts = None if native_module or _PYPY else _counts(text)  # once: each count reads the whole text
    if _PYPY or not (counts is None or _stubbing_pays(counts, [])):
        return None
    if may_leave_finally(text):
        return None  # PEP 765 warns: only the whole tree's path gives that, in CPython's order
    quick = quick_scan(text)
    if quick is None or not quick[1]:
        return None
    rewritten, stars = quick
    source_lines = lines_of(rewritten)
    star_rows = sorted({row for row, _ in stars})
    functions = _star_functions(source_lines, star_rows)
    # Not a module's own code: the prologue compiled natively with it, where its line is told.
    row = first_statement(source_lines, flags) if not module and functions is not None and PROLOGUE_NATIVE \
        and _names_in_ascii(text) and "ExceptionGroup" not in text else None
    if functions is not None and (native_module or row is not None):
        code = _stars_apart(text, source_lines, stars, functions, filename, flags, optimize, row)
        if code is not None:
            return code
    # The star-free functions' code is all that is taken from the native compile on the stubbing path, and a
    # function's code is its own text's: so the starred functions, however they were read, are left out of it (a
    # wrong reading only leaves some other function to the tree).  Then only the tree sees their lines and their
    # warnings.
    if counts is not None and not _stubbing_pays(counts, functions):
        return None
    stars_stubbed = None if native_module or functions is None else \
        _compile_stars_stubbed(source_lines, functions, filename, flags, optimize)
    native = stars_stubbed[0] if stars_stubbed is not None else \
        _compile_quietly(rewritten, filename, flags, optimize)
    if native is None:
        return None
    from exceptstar._compiler.rewrite import TRIGGERS

    def holds_star(first: int, end: int) -> bool:
        star = bisect_left(star_rows, first)
        return star < len(star_rows) and star_rows[star] <= end

    if native_module:
        code = _native_module(native, text, source_lines, stars,
                              [(const, first, end) for const, first, _, end
                               in _top_level_functions(native, source_lines, star_rows)
                               if holds_star(first, end)], filename, flags, optimize)
        if code is not None or not _stubbing_pays(_counts(text)):
            return code
    edited = list(source_lines)
    # Bodies not read one by one when the text has none of the words below.
    whole = rewritten.isascii() and "global" not in rewritten \
        and not any(trigger in rewritten for trigger in TRIGGERS)
    # The lines with code at column 0 (each starts a statement, or continues one), found once in C.
    code_rows = list(compress(count(1), map(not_, map(str.startswith, source_lines, repeat(_NOT_AT_0)))))
    stubbed = {}  # (name, first line) -> the native code of a stubbed function
    for const, first, body, end in _top_level_functions(native, source_lines):
        if holds_star(first, end):
            continue  # through the tree
        if not whole:
            blanked = "".join(source_lines[body - 1:end])
            if not blanked.isascii() or any(trigger in blanked for trigger in TRIGGERS):
                continue  # the rewrite changes more than the stars there
            # A `global x` anywhere in a function makes the module's own code store x with
            # STORE_GLOBAL, not STORE_NAME (the symbol table): stubbed, the module code would differ.
            if "global" in blanked:
                continue
        # Module-level code that has no line of its own (`while 0:` and its
        # block, whose names 3.8 and 3.9 still list): not the body's.
        row = bisect_left(code_rows, body)
        if row < len(code_rows) and code_rows[row] <= end:
            continue
        if not _stub(edited, body, end):
            return None
        stubbed[(const.co_name, first)] = const
    if not stubbed:
        return None
    compiled = _compile_part("".join(edited), text, stars, filename, flags, optimize)
    return None if compiled is None else with_functions(compiled, stubbed, rebuild_functions=False)


def _names_in_ascii(text: str) -> bool:
    """Whether a search of ``text`` for a name finds every use of it: Python reads
    identifiers NFKC-normalised, so a character of names that becomes an ASCII
    letter, digit or underscore (a fullwidth letter, say) spells the name
    otherwise.  Other characters (``½``, ``™``, letters of other scripts) spell none."""
    if text.isascii():
        return True
    import unicodedata

    # The distinct characters beyond ASCII, found in C loops.
    others = set(text.encode("utf-8", "surrogatepass").translate(None, _ASCII).decode("utf-8", "surrogatepass"))
    return not any(("_" + other).isidentifier() and any(char.isascii() and (char.isalnum() or char == "_")
                                                        for char in unicodedata.normalize("NFKC", other))
                   for other in others)


def _counts(text: str) -> "Tuple[int, int, int]":  # lines, indented lines, clauses: in C, once a module
    return text.count("\n"), text.count("\n ") + text.count("\n\t"), text.count("except*") + text.count("except *")


def _stubbing_pays(counts: "Tuple[int, int, int]", starred: "Optional[List[Tuple[int, int, int]]]" = None) -> bool:
    """Whether stubbing pays for its extra native compile (``_counts``: a tree costs
    about 1.7 native compiles a line).  A native compile of the whole module
    pays when the indented lines less about 12 a clause are at least half the
    module's; one without the ``starred`` functions (as ``_star_functions`` reads them) also
    when the other indented lines are at least 1.5 times the module-level ones ([]: an upper bound)."""
    lines, indented, clauses = counts
    with_the_stars = (indented - 12 * clauses) >= _STUB_SHARE * lines
    if with_the_stars or starred is None:
        return with_the_stars
    starred_lines = sum(end - first + 1 for first, _, end in starred)
    return 2 * (indented - starred_lines) >= 3 * (lines - indented)


# What a line that holds no code at column 0 starts with (a code line at 0 starts a statement).
_NOT_AT_0 = (" ", "\t", "\f", "\n", "\r", "#")
_ASCII = bytes(range(128))


def _stars_apart(text: str, source_lines: "List[str]", stars: "Any", functions: "List[Tuple[int, int, int]]",
                 filename: "Any", flags: int, optimize: int, row: "Optional[int]" = None) -> "Any":
    """``_native_module``'s code with the native compile spared the functions that
    hold a star (as ``_star_functions`` read them): None when it warns, or the
    reading is not borne out.

    Each such function is stubbed in the module compiled natively; the
    functions alone are compiled from a tree, which must hold just them, as
    read.  Then the reading was right: the stubbed lines are each function's
    body, so the module-level code is the whole module's (but where a body says
    ``global``).  A module of many stars is mostly such functions, so it is
    compiled about once, not twice.  A module that warns takes the whole
    tree's path (``_compile_quietly``).
    """
    from exceptstar._compiler.rewrite import TRIGGERS

    if any("global" in "".join(source_lines[body - 1:end]) for _, body, end in functions):
        return None  # see compile_stubbed: it changes the module-level code
    kept, _ = _apart(source_lines, [(first, end) for first, _, end in functions])
    stars_stubbed = _compile_stars_stubbed(source_lines, functions, filename, flags, optimize, row)
    if stars_stubbed is None:
        return None
    native, native_text = stars_stubbed
    if any(trigger in native_text for trigger in TRIGGERS):
        return None  # the rewrite changes more than the stars there
    flags |= native.co_flags & future_flags()  # as the module has them
    compiled = _compile_part(kept, text, stars, filename, flags, optimize, prologue=False, functions=functions)
    if compiled is None:
        return None
    made = {(const.co_name, const.co_firstlineno): const for const in compiled.co_consts
            if type(const) is type(native)}
    return with_functions(native, made, rebuild_functions=True) if len(made) == len(functions) else None


def _compile_stars_stubbed(source_lines: "List[str]", functions: "List[Tuple[int, int, int]]", filename: "Any",
                           flags: int, optimize: int, row: "Optional[int]" = None) -> "Optional[Tuple[Any, str]]":
    """The native compile of the module with the body of each of ``functions`` stubbed
    (with the prologue at ``row``), and its text; None if it fails or warns (``_compile_quietly``)."""
    native_lines = list(source_lines)
    for _, body, end in functions:
        _stub(native_lines, body, end)
    native_text = "".join(native_lines)
    if row is not None:
        native = compile_with_prologue(native_lines, row, _compile_quietly, filename, flags, optimize)
        return None if native is None else (native, native_text)
    native = _compile_quietly(native_text, filename, flags, optimize)
    return None if native is None else (native, native_text)


def _stub(lines: "List[str]", body: int, end: int) -> bool:
    """A function's body, lines ``body`` to ``end`` of ``lines``, made ``pass`` at
    its indentation, every line kept in place; False if its first line is not
    indented (not a body of its own)."""
    line = lines[body - 1]
    indent = line[:len(line) - len(line.lstrip(" \t\f"))]
    lines[body - 1] = indent + "pass\n"
    lines[body:end] = ["\n"] * (end - body)
    return bool(indent)


def _compile_quietly(text: str, filename: "Any", flags: int, optimize: int) -> "Any":
    """The native compile of ``text``; None if it fails or warns.

    Its warnings are not given: a module that warns is compiled by the whole
    tree's path, which gives them all, once and in the interpreter's order.
    Given here, they would be given again whenever a part then fails its check.
    """
    try:
        with Filters(record=True) as warned:
            code = _builtin_compile(text, filename, "exec", flags, True, optimize)
    except (SyntaxError, ValueError):
        return None
    return None if warned else code


def _star_functions(source_lines: "List[str]", star_rows: "List[int]") -> "Optional[List[Tuple[int, int, int]]]":
    """(first line, body's first line, last line) of the top-level function that holds
    each star row, read from the lines alone: the line at column 0 above the star
    ends a ``def``'s header with its colon (a header on several lines: its first
    line the one at column 0 above, its last one a closing bracket), its
    decorators are one line each just above, the body starts at the next line
    with code, and the function's lines end before the next line with code at
    column 0.  None where a star is not read so.

    A reading can be wrong (a line at column 0 inside a string or brackets):
    the tree of the functions then is not the functions read (``_holds_only``).
    A line continued onto one at column 0 is turned down here: both halves parse.
    """
    functions: List[Tuple[int, int, int]] = []
    count = len(source_lines)
    for row in star_rows:
        if functions and row <= functions[-1][2]:
            continue  # in the function before
        head = row - 1
        while head >= 0 and source_lines[head][:1] in _NOT_AT_0:
            head -= 1
        line = source_lines[head] if head >= 0 else ""  # the header's last line
        if "#" in line:
            if "'" in line or '"' in line:
                return None  # a comment or a string: only the tokenizer can tell
            line = line[:line.index("#")]
        if not line.rstrip().endswith(":"):
            return None
        body = head + 1
        if line.startswith(")"):
            head -= 1
            while head >= 0 and source_lines[head][:1] in _NOT_AT_0:
                head -= 1
        if head < 0 or not source_lines[head].startswith(("def ", "async def ")):
            return None
        first = head + 1
        while first > 1 and source_lines[first - 2].startswith("@"):
            first -= 1
        while source_lines[body].lstrip(" \t\f")[:1] in ("\n", "\r", "#"):
            body += 1  # stops at the star's line at the latest
        end = row
        while end < count and source_lines[end][:1] in _NOT_AT_0:
            end += 1
        if functions and first <= functions[-1][2]:
            return None
        if source_lines[end - 1].rstrip("\r\n").endswith("\\"):
            # The line at column 0 after it continues the function's last
            # statement; cut there, both halves would still compile.
            return None
        functions.append((first, body + 1, end))
    return functions


def _holds_only(tree: "Any", functions: "List[Tuple[int, int, int]]") -> bool:
    """Whether ``tree`` is the top-level functions of ``functions`` (as ``_star_functions`` gives them), no more."""
    if len(tree.body) != len(functions):
        return False
    for node, (first, body, end) in zip(tree.body, functions):
        if type(node).__name__ not in ("FunctionDef", "AsyncFunctionDef") or node.end_lineno > end \
                or min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)]) != first \
                or node.body[0].lineno != body:
            return False
    return True


def _native_module(native: "Any", text: str, source_lines: "List[str]", stars: "Any",
                   starred: "List[Tuple[Any, int, int]]", filename: "Any", flags: int,
                   optimize: int) -> "Any":
    """``native`` with the code of each top-level function that holds a star
    compiled from a tree of those functions alone; None when that cannot be
    the whole-tree path's code but for the prologue.

    What the whole-tree path adds at module level is its prologue: binding
    ``__exceptstar__`` where the builtins lack it (only ``exec`` with builtins
    of its own does that, never an import) and the group names where the module
    uses them (never here: such modules take the other paths).  Everything else
    it changes is inside the starred statements, so when they all sit in
    top-level functions, the module-level code and every other function can be
    the native ones, however much of the module they are.  A star anywhere
    else is blanked with the rest, and the tree then misses it.
    """
    from exceptstar._compiler.rewrite import TRIGGERS

    part, others = _apart(source_lines, sorted((first, end) for _, first, end in starred))
    if any(trigger in text for trigger in TRIGGERS):
        blanked = "".join(others)
        if any(trigger in blanked for trigger in TRIGGERS):
            return None  # the rewrite changes more than the stars there
    # Future imports are blanked with the rest: their flags, as the module has them.
    flags |= native.co_flags & future_flags()
    # Only the functions' code is kept: no prologue.
    compiled = _compile_part(part, text, stars, filename, flags, optimize, prologue=False)
    if compiled is None:
        return None
    made = {(const.co_name, const.co_firstlineno): const for const in compiled.co_consts
            if type(const) is type(native)}
    wanted = [(const.co_name, first) for const, first, _ in starred]
    if not all(key in made for key in wanted):
        return None
    return with_functions(native, {key: made[key] for key in wanted}, rebuild_functions=True)


def _apart(source_lines: "List[str]", ranges: "List[Tuple[int, int]]") -> "Tuple[str, List[str]]":
    """The text with only the lines of ``ranges`` ((first, last), in order) and
    every other line blank, and the other lines; built from slices."""
    kept: List[str] = []
    others: List[str] = []
    done = 0  # the lines before this one are placed
    for first, end in ranges:
        others += source_lines[done:first - 1]
        kept += ("\n" * (first - 1 - done), *source_lines[first - 1:end])
        done = end
    others += source_lines[done:]
    kept.append("\n" * (len(source_lines) - done))
    return "".join(kept), others


def _compile_part(part: str, text: str, stars: "Any", filename: "Any", flags: int, optimize: int,
                  prologue: bool = True, functions: "Optional[List[Tuple[int, int, int]]]" = None) -> "Any":
    """Code from the tree of ``part``: ``text`` with lines blanked or stubbed, ``except*``
    blanked; None if its stars are not all there, it is not valid or it warns
    (see ``_compile_quietly``).  With ``functions`` (``_star_functions``) the
    tree must be those."""
    from exceptstar._compiler.rewrite import transform

    try:
        with Filters(record=True) as warned:
            tree = _builtin_compile(part, filename, "exec", flags | _PyCF_ONLY_AST, True)
            if (functions is not None and not _holds_only(tree, functions)) or mark(tree, stars) != len(stars):
                return None
            check_tree(tree, stars, filename_text(filename), text)
            if not transform(tree, part, prologue, shared=True, rows=sorted({row for row, _ in stars})):
                return None
            code = _builtin_compile(tree, filename, "exec", flags, True, optimize)
    except SyntaxError:
        return None
    return None if warned else code


def _top_level_functions(native: "Any", source_lines: "List[str]",
                         star_rows: "Optional[List[int]]" = None) -> "List[Tuple[Any, int, int, int]]":
    """(code, first line, first line of the body, last line) of each top-level ``def``
    whose body starts on a line of its own; a function's lines run to the line
    before the next module-level code, so trailing lines with no code of their
    own (brackets, comments) go with it.  With ``star_rows`` (sorted), only the functions
    that may hold one of them: for each, the last top-level function that starts
    before it (only those few are looked at: a module may have thousands).

    No module-level code runs between a body's first line and the function's
    end (defaults, decorators and annotations are evaluated before the body),
    so the next module-level line after the body's first is where the next
    statement starts: the function's own last line is never needed.
    """
    code_type = type(native)
    codes = sorted((const for const in native.co_consts if type(const) is code_type),
                   key=attrgetter("co_firstlineno"))

    def top_level(const: "Any") -> bool:
        first = const.co_firstlineno
        # Not a class body (kept whole), a lambda, a comprehension, or a def inside a statement.
        return bool(const.co_flags & _CO_NEWLOCALS) and not const.co_name.startswith("<") \
            and first <= len(source_lines) and source_lines[first - 1][:1] not in (" ", "\t", "\f", "\n", "\r")

    if star_rows is None:
        heads = [const for const in codes if top_level(const)]
    else:
        firsts = [const.co_firstlineno for const in codes]
        chosen = set()
        for row in star_rows:
            index = bisect_right(firsts, row) - 1
            while index >= 0 and not top_level(codes[index]):
                index -= 1
            if index >= 0:
                chosen.add(index)
        heads = [codes[index] for index in sorted(chosen)]
    module_lines = sorted(set(_lines(native)))
    functions = []
    for const in heads:
        first = const.co_firstlineno
        body = min(_lines(const), default=first)  # the first line of its own code
        if body <= first or body > len(source_lines):
            continue  # the body starts on the header's first line
        following = bisect_right(module_lines, body)
        end = module_lines[following] - 1 if following < len(module_lines) else len(source_lines)
        functions.append((const, first, body, end))
    return functions


def _lines(code: "Any") -> "List[int]":
    """The lines of a code object's own line table."""
    if sys.version_info >= (3, 10):
        return list(filter(None, map(itemgetter(2), code.co_lines())))  # no line is 0 in code from source
    # dis.findlinestarts in C loops, without dis: a pair with no bytecode step only carries a long line step on.
    table = code.co_lnotab
    if not table:
        return [code.co_firstlineno]
    steps = memoryview(table).cast("b")[1::2]
    lines = list(accumulate(steps, initial=code.co_firstlineno))  # the line before each pair, then the last
    return [*compress(lines, table[0::2]), lines[-1]]
