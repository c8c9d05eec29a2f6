"""The compiler wing: everything that makes ``except*`` run where the parser rejects it.

Owns, in the order a module goes through it: reading source and finding ``except*``
(``source``), a SyntaxError as CPython gives it (``problem``), the clauses read from the
tokens and the rules across them (``scan``, on ``clause_rules``), CPython's SyntaxErrors for
their misuses and the order of the compiler's passes (``syntax``, ``symtable_errors``,
``finally_flow`` for PEP 765's warning), the AST rewrite of a starred ``try`` (``rewrite``,
with ``positions``), source -> checked tree -> code (``transform``; ``native_parts`` and
``joined`` for what compiles natively), the builtin the rewritten code calls (``runtime``),
3.9's ``ast.unparse`` for 3.8 (``unparse``, with ``literals`` and ``precedence``), the import
hook (``hook``) with its bytecode cache (``pycache``), and the ``.pyi`` stubs that wheels get
for modules using ``except*`` (``stubs``).  Data flows one way, and so do the imports: no
module imports itself through others, lazily or not (``problem`` imports none of the wing,
``source`` only ``problem``'s types).

May import: the core (the top-level ``exceptstar._*`` modules) and the standard
library; never the printing, asyncio, integrations or commands wings.
"""
