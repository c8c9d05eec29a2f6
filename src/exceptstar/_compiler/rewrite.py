"""The AST rewrite: every starred ``try`` becomes plain Python calling the engine.

``N`` is the nesting depth, so nested statements never share names; dunder
names escape class-private mangling::

    try:
        BODY
    except:
        __es_star_N__ = __es_part_N__ = None
        try:                                      (clause k)
            __es_star_N__ = __exceptstar__.Star()  # (the first clause; the others: __es_part_N__ = None)
            __es_part_N__ = __es_star_N__.match(Tk, Lk, True)  # (the others: match(Tk, Lk, False))
            if __es_part_N__ is not None:
                e = __es_part_N__
                Hk
        except __exceptstar__.BaseException as __es_raised_N__:
            if __es_part_N__ is not None:
                pass                              # the body raised
            else:                                 # the engine did (its Star, if Star() had not returned)
                __es_star_N__ = __exceptstar__.interrupted(__es_star_N__, k, Lk)
                if __es_star_N__ is None:         # an error that propagates alone
                    del __es_star_N__, __es_part_N__
                    raise
            __es_star_N__._raised += (__es_raised_N__,)   # or an interrupt, as if the body raised it
            e = None
            del e
        else:
            if __es_part_N__ is not None:
                e = None; del e
        ...                     (the same for every clause)
        if not ((__es_star_N__._rest is None) & (not __es_star_N__._raised)):   # else all handled: no call
            try:
                __es_part_N__ = __es_star_N__.outcome()
            except:
                __exceptstar__.interrupted(__es_star_N__)   # recorded; the new outcome made the handled one
                del __es_star_N__, __es_part_N__
                raise
            if __es_part_N__ is not None:
                del __es_star_N__, __es_part_N__
                raise
        del __es_star_N__, __es_part_N__
    else:
        ELSE
    finally:
        FINALLY

The machinery's own handler is bare (a type to check would only be more code to compile and run); a clause's
handler names what it caught, to record it.  Only calls into the engine are guarded, and what a handler body
raises is recorded by code that calls nothing: on 3.11+ a signal handler can then only run (and raise
``KeyboardInterrupt``) in the engine or in the user's own code.  A clause's ``try`` holds its match and its body:
with the statement's bare handler, two of CPython's 20 nested blocks per level of nested ``except*``, as
natively.  ``part`` is None until the match returns a part, which tells the body's exceptions from the
engine's.  What the engine's ``interrupted`` sorts as an interrupt becomes part of what propagates, as if the
clause's handler had raised it, so nothing of the group is lost; every way out deletes the names.  ``Star()``
runs no Python code, but 3.10+ run signal handlers as a call returns: it is guarded with the first match.  What
no guard covers: before 3.11 the interpreter also runs signal handlers on entering any except block, on taken
conditional jumps (3.10) and between almost any two instructions (3.8, 3.9), and an exception a tracer raises on
a line event lands on the instruction of that line; there the exception propagates alone, as from a plain
``except`` block, and at module level the names may stay.  (On 3.10 the only conditional jumps taken on the way
out are those past the re-raise when nothing propagates: nothing to lose.)

Generated nodes carry the position of the user construct they stand for (a clause's machinery that of its
``except*`` line), so tracebacks, line events and coverage only ever see the user's lines.  ``Lk`` counts the
lines clause k runs on past its ``except`` line (``exceptstar._spans``): a constant, cached with the
code.  Transformed modules also get ``ExceptionGroup`` and ``BaseExceptionGroup`` in their globals (unless they
bind them) and, before 3.11, ``exc.add_note(...)`` on every exception.  The names reached through
``__exceptstar__`` are those of ``runtime``.
"""

# The node classes themselves (``ast`` re-exports them): the ``ast`` module's own
# imports (enum, contextlib, ...) would cost a cold start more than a small module's rewrite.
import _ast as ast
import sys
from bisect import bisect_left

from exceptstar._compiler.positions import NO_LINE, POSITION, clause_extent, keyword_position, position_all

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Optional, Tuple


_GROUP_NAMES = ("ExceptionGroup", "BaseExceptionGroup")

# First in a transformed module: with builtins that lack __exceptstar__
# (exec(code, {"__builtins__": {...}})) the module binds it in its globals,
# found without a single name lookup (see runtime.Anchor).  `if` rather than
# a bare expression, which mode "single" would print.
FIND_RUNTIME = """\
try:
    if __exceptstar__:
        pass
except:
    for __exceptstar__ in ().__class__.__base__.__subclasses__():
        if __exceptstar__.__module__ == "exceptstar._compiler.runtime" and __exceptstar__.__name__ == "Anchor":
            break
    __exceptstar__ = __exceptstar__.runtime
"""


# What the rewrite changes outside the starred statements (beside them, the module's prologue): uses
# of the group names and, before 3.11, `.add_note`.  Source without these words needs no walk over its expressions.
TRIGGERS = ("ExceptionGroup",) + (("add_note",) if sys.version_info < (3, 11) else ())


def transform(tree: "ast.AST", source: "Optional[str]" = None, prologue: bool = True,
              shared: bool = False, rows: "Optional[List[int]]" = None) -> bool:
    """Rewrite every starred ``try`` in ``tree`` (in place); False (untouched) when there is none.

    ``source``, the text ``tree`` was parsed from, lets the rewrite skip the
    expressions when it holds none of the ``TRIGGERS``.  Without ``prologue``
    the module-level code the rewrite adds (the group names, the runtime
    lookup) is left out: for a caller that keeps only the functions' code.
    With ``shared`` the generated nodes that are alike (a name, ``None``, a
    ``del`` of the statement's names, ...) are one object used wherever they
    recur, which halves what is built: only for a tree that goes straight to
    ``compile`` (which reads each use on its own), never one handed to code
    that may change a node in place or walk it to shift lines.  ``rows``
    (sorted), the lines of every starred clause: statements not on one are passed over.
    """
    rewriter = _Rewriter({} if shared else None, rows)
    body = getattr(tree, "body", None)
    if not isinstance(body, list) or not rewriter.block(body):
        return False
    if not prologue:
        if rewriter.rewrite_notes and _may_name(source, ("add_note",)):
            rewriter.expressions(tree)
        return True
    uses_group_names = _may_name(source, TRIGGERS) and rewriter.expressions(tree)
    if body and uses_group_names:
        # The names go into the module's globals, not in place of each use, so
        # that Python's own scoping decides: a local, a parameter or a module-level
        # binding of the same name (even one that never runs, such as an import
        # under TYPE_CHECKING) keeps its meaning, exactly as with a builtin.
        first = _prologue_end(body)
        at = body[first] if first < len(body) else body[-1]
        provide = ast.Expr(ast.Call(ast.Attribute(ast.Name("__exceptstar__", _LOAD), "provide_group_names",
                                                  _LOAD), [], []))
        position_all([provide], keyword_position(at))
        body.insert(first, provide)
    if body:
        first = _prologue_end(body)
        find_runtime = compile(FIND_RUNTIME, "<exceptstar>", "exec", ast.PyCF_ONLY_AST).body  # type: ignore[attr-defined]
        # Where the module's own code starts, not the template's lines 1-8:
        # those are the user's, whose lines a tracer (coverage) must not see run.
        # On 3.10 no line at all: its `except` path would report the first
        # statement's line a second time (pdb's `step` stopped there twice).
        position_all(find_runtime, NO_LINE if sys.version_info[:2] == (3, 10) else
                      keyword_position(body[first] if first < len(body) else body[-1]))
        body[first:first] = find_runtime
    return True


def _may_name(source: "Optional[str]", words: "Tuple[str, ...]") -> bool:
    """Whether ``source`` (None: not known) may name one of ``words``.

    Beyond ASCII a name may be spelt otherwise: Python reads identifiers
    NFKC-normalised (fullwidth letters, say).
    """
    return source is None or not source.isascii() or any(word in source for word in words)


def _prologue_end(body: "List[Any]") -> int:
    """Where a module's own code starts: past its docstring and ``from __future__`` imports (which must stay first)."""
    first = 0
    while first < len(body) and ((isinstance(body[first], ast.ImportFrom) and body[first].module == "__future__") or (
            first == 0 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str))):
        first += 1
    return first


def _is_star_try(node: "ast.AST") -> bool:
    kind = type(node).__name__
    return kind == "TryStar" or (kind == "Try" and any(
        getattr(handler, "exceptstar_star", False) for handler in node.handlers))  # type: ignore[attr-defined]


# The statements that hold statements, and where: an expression never holds
# one, so the starred statements are found without visiting any expression.
_BLOCKS = ("body", "orelse", "finalbody")
_COMPOUND = frozenset(("FunctionDef", "AsyncFunctionDef", "ClassDef", "For", "AsyncFor", "While", "If",
                       "With", "AsyncWith", "Try", "TryStar", "Match"))


class _Rewriter:
    def __init__(self, memo: "Optional[Dict[Any, Any]]", rows: "Optional[List[int]]" = None) -> None:
        self.memo = memo
        self.rows = rows
        self.depth = 0
        self.rewrite_notes = sys.version_info < (3, 11)

    def block(self, statements: "List[Any]") -> bool:
        """Rewrite the starred statements in ``statements`` and in those they hold; whether any."""
        found = False
        rows = self.rows
        for index, node in enumerate(statements):
            if type(node).__name__ not in _COMPOUND:
                continue
            if rows is not None:
                at = bisect_left(rows, node.lineno)
                if at == len(rows) or rows[at] > node.end_lineno:
                    continue  # no clause on its lines
            star = _is_star_try(node)
            self.depth += star
            for inner in _inner_blocks(node):
                found = self.block(inner) or found
            self.depth -= star
            if star:
                # The depth of the statement's own names: one more than any
                # starred statement around it, one less than any inside it.
                statements[index] = _StarTry(node, self.depth + 1, self.memo).build()
                found = True
        return found

    def expressions(self, tree: "ast.AST") -> bool:
        """Before 3.11 turn every ``x.add_note`` into ``note_method(x)``; whether a group name is used.

        One walk over every node, without recursion (a deep expression is as
        deep as its nesting).
        """
        rewrite_notes = self.rewrite_notes
        uses_group_names = False
        node_type, attribute, name = ast.AST, ast.Attribute, ast.Name
        todo: List[Any] = [tree]
        while todo:
            node = todo.pop()
            for field in node._fields:
                value = getattr(node, field, None)
                children = value if type(value) is list else (value,)
                for position, child in enumerate(children):
                    if not isinstance(child, node_type):
                        continue
                    kind = type(child)
                    if kind is name:
                        uses_group_names = uses_group_names or child.id in _GROUP_NAMES  # type: ignore[attr-defined]
                    elif (kind is attribute and rewrite_notes and child.attr == "add_note"  # type: ignore[attr-defined]
                            and type(child.ctx) is ast.Load):  # type: ignore[attr-defined]
                        at = {key: getattr(child, key) for key in POSITION}
                        method = ast.Attribute(ast.Name("__exceptstar__", _LOAD, **at), "note_method", _LOAD, **at)
                        call = ast.Call(method, [child.value], [], **at)  # type: ignore[attr-defined]
                        if type(value) is list:
                            value[position] = call
                        else:
                            setattr(node, field, call)
                    todo.append(child)
        return uses_group_names


def _inner_blocks(node: "Any") -> "List[List[Any]]":
    blocks = [block for block in (getattr(node, field, None) for field in _BLOCKS) if block]
    blocks.extend(handler.body for handler in getattr(node, "handlers", ()))
    blocks.extend(case.body for case in getattr(node, "cases", ()))
    return blocks


class _StarTry:
    """Builds the plain ``try`` standing for one starred ``try`` (see the module docstring).

    Every node is made with its position (``at``, set before each part):
    placing thousands of generated nodes afterwards costs a walk over them all.
    """

    def __init__(self, node: "Any", depth: int, memo: "Optional[Dict[Any, Any]]" = None) -> None:
        self.node = node
        self.memo = memo
        self.star, self.part, self.raised = (f"__es_{what}_{depth}__" for what in ("star", "part", "raised"))
        self._place(keyword_position(node.handlers[0]))

    def build(self) -> "Any":
        node = self.node
        clauses: List[Any] = []
        for index, handler in enumerate(node.handlers):
            clauses.extend(self._clause(index, handler))
        self._place(keyword_position(node.handlers[0]))
        body: List[Any] = [
            # Bound first, without a call, so that every handler finds both.
            self._new(ast.Assign, [self._name(self.star, True), self._name(self.part, True)], self._none()),
            *clauses,
            *self._finish(),
        ]
        # No `as` name: the engine takes the exception from sys.exc_info(), so each level of except*
        # nested in a handler uses two of CPython's 20 nested blocks, as native code does, not three.
        outer = self._new(ast.ExceptHandler, None, None, body)
        result = ast.Try(node.body, [outer], node.orelse, node.finalbody)
        result.__dict__.update({key: getattr(node, key) for key in POSITION if hasattr(node, key)})
        return result

    def _clause(self, index: int, handler: "Any") -> "List[Any]":
        """Match the clause's types and, if anything matched, run its body: one ``try`` whose handler
        records what the body raised, or sorts what the engine raised (``interrupted``)."""
        new = self._new
        if sys.version_info >= (3, 10):
            # What runs after the handler body belongs to where execution goes
            # next (the next clause, or the end of the statement), so that line
            # events never step back to this clause, as CPython's do not.  Not
            # before PEP 626 (3.10): there a jump into the middle of a line's
            # code reports no event, so the next clause's line would be lost.
            # After the last clause that is the engine's finishing code, which
            # has no line at all, as CPython's own.
            handlers = self.node.handlers
            after = keyword_position(handlers[index + 1]) if index + 1 < len(handlers) else NO_LINE
        else:
            after = keyword_position(handler)
        # The handler's own test runs after the body raised or after the engine did: on 3.10 with no line,
        # so that neither way reports one that CPython's does not.  Elsewhere on the clause's line: before
        # 3.10 the clause's code is all on it, and 3.11+ reports a block nested too deep at the handler.
        sorting = NO_LINE if sys.version_info[:2] == (3, 10) else keyword_position(handler)
        self._place(after)
        # What the handler caught is recorded by an augmented assignment to a slot, which calls nothing: after
        # the body raised (`part` holds the part from match's return to the body's end, None before), no
        # signal handler can run between the exception and its record.
        record = new(ast.AugAssign, new(ast.Attribute, self._name(self.star), "_raised", _STORE), _ADD,
                     new(ast.Tuple, [self._name(self.raised)], _LOAD))
        # The clause's name is unbound whichever way the body ended: in the handler, and in the try's `else`,
        # laid out after the handler on its line, where the body's end reports no line event of its own
        # before 3.10 (a jump into a line's code).  Two copies: a tree not shared may be changed in place.
        caught_unbind = self._unbind(handler.name)
        unbind = [new(ast.If, self._part_is_set(), self._unbind(handler.name), [])] if handler.name else []
        self._place(sorting)
        # Lk: its lines past the keyword (_spans), as match has it.
        extent = clause_extent(handler)
        # An exception of the engine's is sorted first: one that propagates alone is re-raised, an interrupt
        # is recorded as the body's.  The body's way falls through an empty branch and jumps
        # unconditionally (3.10 runs signal handlers on taken conditional jumps).
        sort = new(ast.Call, self._runtime("interrupted"), [self._name(self.star), new(ast.Constant, index + 1),
                                                           new(ast.Constant, extent)], [])
        # The engine's Star, made by it if Star() had not returned; None if the exception propagates alone.
        engine_raised = [new(ast.Assign, [self._name(self.star, True)], sort),
                         new(ast.If, new(ast.Compare, self._name(self.star), [_IS], [self._none()]),
                             [self._release(), self._raise()], [])]
        caught = new(ast.ExceptHandler, self._runtime("BaseException"), self.raised,
                     [new(ast.If, self._part_is_set(), [new(ast.Pass)], engine_raised), record, *caught_unbind])
        self._place(keyword_position(handler))
        # The body's own list, kept (`show` numbers what holds it with the clause's line).
        run: List[Any] = handler.body
        if handler.name:
            run.insert(0, new(ast.Assign, [self._name(handler.name, True)], self._name(self.part)))
        # Every argument given (no defaults: CPython's fast call).
        arguments = [handler.type, new(ast.Constant, extent), new(ast.Constant, index == 0)]
        # Until match returns a part, `part` is None (the Star's own state tells the engine's exceptions apart).
        # Star() is guarded too, though it runs no Python code: 3.10+ run signal handlers as a call returns.
        if index:
            start = new(ast.Assign, [self._name(self.part, True)], self._none())
        else:
            start = new(ast.Assign, [self._name(self.star, True)], new(ast.Call, self._runtime("Star"), [], []))
        match = new(ast.Call, self._attribute("match"), arguments, [])
        calls = [start, new(ast.Assign, [self._name(self.part, True)], match),
                 new(ast.If, self._part_is_set(), run, [])]
        return [new(ast.Try, calls, [caught], unbind, [])]

    def _finish(self) -> "List[Any]":
        """Ask the engine what propagates and re-raise it, with a bare ``raise`` as CPython's RERAISE."""
        new = self._new
        interrupt_at: Dict[str, int] = self.at
        if sys.version_info[:2] == (3, 10):
            # No line event: a tracer (coverage's branches) sees a handler's last line followed by wherever
            # the statement goes next, as natively (before PEP 626 a line table cannot say "no line").
            self._place(NO_LINE)
            # But the compiler gives an implicit `return` with no line (the statement last in a module or
            # function) the line of the code laid out last before it that has one: without one here, the last
            # clause's body, reported run although it never ran.  The handling of an interrupt, laid out last
            # and run only after one, takes the last clause's line, which is 3.11's for that return.
            interrupt_at = keyword_position(self.node.handlers[-1])
        # An interrupt in outcome(): the engine records it and makes the new outcome the handled
        # exception there, in the guard's handler, whose bare raise sends it (the handled exception
        # set there would not outlive the handler).  Fresh nodes (never shared ones): positioned afterwards.
        interrupt = ast.Expr(ast.Call(ast.Attribute(ast.Name("__exceptstar__", _LOAD), "interrupted", _LOAD),
                                      [ast.Name(self.star, _LOAD)], []))
        position_all([interrupt], interrupt_at)
        outcome = new(ast.Assign, [self._name(self.part, True)], new(ast.Call, self._attribute("outcome"), [], []))
        guard = new(ast.Try, [outcome], [new(ast.ExceptHandler, None, None, [interrupt, self._release(),
                                                                             self._raise()])], [], [])
        # Every part taken, nothing raised: no call.  `&` of two bools, not `and`: the way with something to
        # propagate takes no conditional jump before the guard (3.10 runs signal handlers on one).
        handled = new(ast.BinOp, new(ast.Compare, self._attribute("_rest"), [_IS], [self._none()]), ast.BitAnd(),
                      new(ast.UnaryOp, ast.Not(), self._attribute("_raised")))
        return [
            new(ast.If, new(ast.UnaryOp, ast.Not(), handled), [
                guard, new(ast.If, self._part_is_set(), [self._release(), self._raise()], [])], []),
            self._release(),
        ]

    def _new(self, kind: "Any", *fields: "Any") -> "Any":
        node = kind(*fields)
        # Positions are plain instance attributes: set in one step, not as
        # keyword arguments (which cost the constructor a lookup each).
        node.__dict__.update(self.at)
        return node

    def _place(self, at: "Dict[str, int]") -> None:
        """Make what follows at ``at``; with a memo, alike nodes there are shared: ``kit.get(key) or
        kit.setdefault(key, node)``, the dictionary's own methods (a method of ours costs a call per node)."""
        self.at = at
        memo = self.memo
        self.kit: Any = _UNSHARED if memo is None else memo.setdefault((at["lineno"], at["col_offset"]), {})

    def _name(self, name: str, store: bool = False) -> "ast.Name":
        key = (name, store)
        return self.kit.get(key) or self.kit.setdefault(  # type: ignore[no-any-return]
            key, self._new(ast.Name, name, _STORE if store else _LOAD))

    def _none(self) -> "Any":
        return self.kit.get(None) or self.kit.setdefault(None, self._new(ast.Constant, None))

    def _runtime(self, attr: str) -> "ast.expr":
        key = ("runtime", attr)
        return self.kit.get(key) or self.kit.setdefault(  # type: ignore[no-any-return]
            key, self._new(ast.Attribute, self._name("__exceptstar__"), attr, _LOAD))

    def _attribute(self, name: str) -> "ast.expr":
        return self._new(ast.Attribute, self._name(self.star), name, _LOAD)  # type: ignore[no-any-return]

    def _part_is_set(self) -> "Any":
        key = ("part is set", self.part)
        return self.kit.get(key) or self.kit.setdefault(key, self._new(
            ast.Compare, self._name(self.part), [_IS_NOT], [self._none()]))

    def _release(self) -> "Any":
        key = ("release", self.star)
        return self.kit.get(key) or self.kit.setdefault(key, self._new(
            ast.Delete, [self._new(ast.Name, self.star, _DEL), self._new(ast.Name, self.part, _DEL)]))

    def _unbind(self, name: "Optional[str]") -> "List[Any]":
        """``name = None; del name``, as CPython ends an ``except ... as name`` (nothing without a name)."""
        if not name:
            return []
        return [self._new(ast.Assign, [self._name(name, True)], self._none()),
                self._new(ast.Delete, [self._new(ast.Name, name, _DEL)])]

    def _raise(self) -> "Any":
        return self.kit.get("raise") or self.kit.setdefault("raise", self._new(ast.Raise))


# Context and operator nodes carry no position: one of each serves every use, as in the parser's trees.
_LOAD, _STORE, _DEL = ast.Load(), ast.Store(), ast.Del()
_ADD, _IS, _IS_NOT = ast.Add(), ast.Is(), ast.IsNot()


class _Unshared(dict):  # type: ignore[type-arg]
    """The kit of a rewrite that shares nothing: empty, it finds nothing, and it keeps nothing."""

    def setdefault(self, key: "Any", node: "Any" = None) -> "Any":
        return node


_UNSHARED = _Unshared()
