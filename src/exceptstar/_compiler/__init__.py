"""The compiler wing: everything that makes ``except*`` run where the parser rejects it.

Owns: reading source and finding ``except*`` (``source``), CPython's SyntaxErrors
for its misuses (``syntax``), the AST rewrite of a starred ``try`` (``rewrite``),
source -> checked tree -> code (``transform``), the builtin the rewritten code
calls (``runtime``), 3.9's ``ast.unparse`` for 3.8 (``unparse``, with
``literals`` and ``precedence``), the import
hook with its bytecode cache (``hook``), and the ``.pyi`` stubs that wheels
get for modules using ``except*`` (``stubs``).

May import: the core (the top-level ``exceptstar._*`` modules) and the standard
library; never the printing, asyncio, integrations or commands wings.
"""
