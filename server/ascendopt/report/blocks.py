"""The building blocks every report shares: tables and diffs in Markdown and HTML, one page style,
speedup formatting. A report module composes these; none writes its own table or page shell."""

from __future__ import annotations

import html
import re

STYLE = (
    "body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}"
    "table{border-collapse:collapse;margin:1em 0}"
    "td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left}"
    "th{background:#f3f3f3}pre{background:#f6f6f6;padding:.6em;overflow-x:auto}.note{color:#555;font-size:.9em}"
    ".bad{color:#b00020}.good{color:#0a7a32}svg{max-width:100%;height:auto}"
)


def fmt_x(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f}x"


# An `_` inside a word (`add_custom`) is never emphasis in CommonMark: left as it is, for the raw
# Markdown's sake; one at a word's edge (`__aicore__`) is escaped.
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>|~#]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z]))")


def md_literal(text: str) -> str:
    """`text` as Markdown that renders as exactly `text` (compiler output, a path, a model's words:
    g++'s `[with T = half]`, `a*b*c`, `<T>` and `__aicore__` stay as they are)."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def md_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_literal(c).replace("\n", " ") for c in r) + " |" for r in rows]
    return "\n".join(lines)


def md_diff(patch: str) -> str:
    fence = "~~~~" if "```" in patch else "```"
    return f"{fence}diff\n{patch}{fence}"


def html_table(header: list[str], rows: list[list[str]], marked: set[int] | None = None) -> str:
    """`marked`: indices of rows shown as bad (a regression, a rejected candidate)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join(
        ('<tr class="bad">' if marked and i in marked else "<tr>")
        + "".join(f"<td>{html.escape(c)}</td>" for c in r)
        + "</tr>"
        for i, r in enumerate(rows)
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def html_diff(patch: str) -> str:
    return f"<pre>{html.escape(patch)}</pre>"


def html_page(title: str, body: str) -> str:
    """A self-contained page: inline style, no script, nothing fetched (opens offline and in a webview)."""
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{STYLE}</style></head><body>
<h1>{html.escape(title)}</h1>
{body}
</body></html>
"""
