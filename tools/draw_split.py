"""Draw docs/_static/split.svg: how except* clauses take a group apart, from a real run.

The program in ``PROGRAM`` is run (natively on 3.11+, through ``exceptstar.compile`` on
3.8-3.10); each clause records the group it received, and what propagates out of the
statement is caught. The figure shows the four trees side by side, each leaf in the colour
of the clause that took it. tests/test_docs.py checks that the committed figure is what
this script draws, on the oldest and the newest interpreter.

    python3 tools/draw_split.py [OUT.svg]
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path
from typing import Any, Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))
import exceptstar  # noqa: E402

PROGRAM = '''
group = ExceptionGroup("batch", [
    ValueError("bad row 3"),
    OSError("disk full"),
    ExceptionGroup("retry", [TimeoutError("slow"), ValueError("bad row 9")]),
    KeyError("id"),
])
try:
    try:
        raise group
    except* ValueError as e:
        seen.append(("except* ValueError", "handled", e))
    except* OSError as e:
        seen.append(("except* OSError", "re-raised with raise", e))
        raise
except BaseException as rest:
    seen.append(("propagated", "out of the statement", rest))
'''

Row = Tuple[int, str, str]  # depth, text, colour


def run() -> Tuple[Any, List[Tuple[str, str, Any]]]:
    """Run PROGRAM; return the group raised and what each step saw."""
    seen: List[Tuple[str, str, Any]] = []
    scope: Dict[str, Any] = {"seen": seen, "ExceptionGroup": exceptstar.ExceptionGroup}
    exec(exceptstar.compile(PROGRAM, "<figure>", "exec"), scope)
    return scope["group"], seen


def rows(exc: BaseException, colours: Dict[int, str], depth: int = 0) -> List[Row]:
    if isinstance(exc, exceptstar.BaseExceptionGroup):
        out: List[Row] = [(depth, f"{type(exc).__name__}({exc.message!r})", "#444")]
        for member in exc.exceptions:
            out += rows(member, colours, depth + 1)
        return out
    return [(depth, repr(exc), colours.get(id(exc), "#444"))]


PALETTE = {"except* ValueError": "#1f77b4", "except* OSError": "#d62728", "propagated": "#7f7f7f"}


def svg() -> str:
    group, seen = run()
    colours: Dict[int, str] = {}
    for title, _, part in seen:
        for leaf, _ in exceptstar.leaf_exceptions(part):
            colours.setdefault(id(leaf), PALETTE[title])
    columns = [("raise group", "the group raised", group), *seen]
    width, line, top = 300, 22, 70
    height = top + line * max(len(rows(g, colours)) for _, _, g in columns) + 30
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width * len(columns)}" height="{height}" '
             f'font-family="monospace" font-size="13">',
             '<rect width="100%" height="100%" fill="white"/>']
    for i, (title, what, exc) in enumerate(columns):
        x = i * width + 10
        colour = PALETTE.get(title, "#000")
        parts.append(f'<text x="{x}" y="24" font-weight="bold" fill="{colour}">{escape(title)}</text>')
        parts.append(f'<text x="{x}" y="44" fill="#555">{escape(what)}</text>')
        if i:
            parts.append(f'<text x="{x - 22}" y="{top + 14}" font-size="20" fill="#999">&#8594;</text>')
        for k, (depth, text, fill) in enumerate(rows(exc, colours)):
            y = top + k * line + 14
            parts.append(f'<text x="{x + 16 * depth}" y="{y}" fill="{fill}">{escape(text)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "_static" / "split.svg"
    out.write_text(svg())
