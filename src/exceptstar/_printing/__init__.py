"""The printing wing: tracebacks of groups and notes, byte for byte as CPython 3.15 prints them.

Owns: how nested groups are drawn (``layout``), exceptstar's 3.15
``TracebackException`` for any interpreter (``pure_traceback``), its hints
(``suggestions``) and its frames that span lines on 3.8-3.10 (``spans``),
3.15's colours and when to use them (``colour``), the public traceback API
choosing stdlib / subclass / pure (``formatting``), and every printing path of
3.8-3.10 routed through it (``patches``).

May import: the core and the standard library; never the compiler, asyncio,
integrations or commands wings.
"""
