"""The commands wing: ``python -m exceptstar`` and the ``exceptstar`` console script.

Owns: the dispatch and usage text (``cli``), ``run`` (``run``), ``check``
(``check``), ``show`` and ``config`` (``tools``), and ``demo`` (``demo``, with
``demo_program.txt``).  A new command is a module of its own here, named in
``cli``'s dispatch.

May import: every other wing; nothing imports it but ``__main__``, the console
script and tests.
"""
