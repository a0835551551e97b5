"""The building blocks every report shares: tables and diffs in Markdown and HTML, one page style,
speedup formatting. A report module composes these; none writes its own table or page shell."""

from __future__ import annotations

import html
import re

# One page style for the browser and the editor's webview: VS Code's theme variables where the
# webview sets them (--vscode-*), else a light or dark palette by prefers-color-scheme. Backgrounds
# are translucent greys, so tables and code read on either ground.
STYLE = """
:root{--fg:#1f2328;--bg:#ffffff;--muted:#59636e;--link:#0969da;--bad:#cf222e;--good:#1a7f37;
--c-better:#1a7f37;--c-notfaster:#9a6700;--c-wrong:#cf222e;--c-refused:#8250df;--c-line:#0969da;
--c-s1:#bc4c00;--c-s2:#8250df;--c-s3:#1a7f37;--c-s4:#cf222e;--c-s5:#6e7781;color-scheme:light}
@media (prefers-color-scheme: dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--link:#4493f8;
--bad:#f85149;--good:#3fb950;--c-better:#3fb950;--c-notfaster:#d29922;--c-wrong:#f85149;
--c-refused:#a371f7;--c-line:#58a6ff;--c-s1:#f0883e;--c-s2:#a371f7;--c-s3:#3fb950;--c-s4:#f85149;
--c-s5:#9198a1;color-scheme:dark}}
body{font-family:var(--vscode-font-family,system-ui,sans-serif);margin:2em;max-width:72em;
color:var(--vscode-editor-foreground,var(--fg));background:var(--vscode-editor-background,var(--bg))}
a{color:var(--vscode-textLink-foreground,var(--link))}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid rgba(128,128,128,.35);padding:.3em .6em;text-align:left;vertical-align:top}
th{background:rgba(128,128,128,.14)}
pre,code{font-family:var(--vscode-editor-font-family,ui-monospace,monospace)}
pre{background:rgba(128,128,128,.12);padding:.6em;overflow-x:auto}
.note{color:var(--vscode-descriptionForeground,var(--muted));font-size:.9em}
.bad{color:var(--vscode-errorForeground,var(--bad))}.good{color:var(--vscode-charts-green,var(--good))}
svg{max-width:100%;height:auto}.ao-wide{width:100%;max-width:52em}
.ao-figs{display:flex;flex-wrap:wrap;gap:0 1.5em}.ao-figs>div{flex:1 1 26em;max-width:40em}
figure{margin:.5em 0}
.ao-plot{fill:none;stroke:rgba(128,128,128,.45)}
.ao-grid{stroke:rgba(128,128,128,.22)}.ao-axis{stroke:rgba(128,128,128,.7)}
.ao-tick,.ao-note,.ao-label,.ao-series-label{font:11px var(--vscode-font-family,system-ui,sans-serif)}
.ao-tick,.ao-label{fill:var(--vscode-editor-foreground,var(--fg))}
.ao-note{fill:var(--vscode-descriptionForeground,var(--muted))}
.ao-band-model{fill:var(--vscode-charts-yellow,var(--c-notfaster));fill-opacity:.08}
.ao-band-noise{fill:var(--vscode-charts-blue,var(--c-line));fill-opacity:.18}
.ao-best{fill:none;stroke:var(--vscode-charts-blue,var(--c-line));stroke-width:2}
.ao-mark-baseline{stroke:var(--vscode-descriptionForeground,var(--muted));stroke-dasharray:3 3}
.ao-mark-winner{stroke:var(--vscode-charts-green,var(--c-better));stroke-opacity:.7}
.ao-pt{stroke-width:1.6}
.ao-better{fill:var(--vscode-charts-green,var(--c-better));stroke:var(--vscode-charts-green,var(--c-better))}
.ao-not-faster{fill:none;stroke:var(--vscode-charts-yellow,var(--c-notfaster))}
.ao-wrong{fill:none;stroke:var(--vscode-charts-red,var(--c-wrong));stroke-width:2}
.ao-refused{fill:var(--vscode-charts-purple,var(--c-refused));stroke:var(--vscode-charts-purple,var(--c-refused))}
.ao-measure{fill:none;stroke:var(--vscode-descriptionForeground,var(--muted))}
.ao-legend{display:flex;flex-wrap:wrap;gap:.4em 1.2em;font-size:.9em}
.ao-series{fill:none;stroke-width:2}
.ao-s0{stroke:var(--vscode-charts-blue,var(--c-line));fill:var(--vscode-charts-blue,var(--c-line))}
.ao-s1{stroke:var(--vscode-charts-orange,var(--c-s1));fill:var(--vscode-charts-orange,var(--c-s1))}
.ao-s2{stroke:var(--vscode-charts-purple,var(--c-s2));fill:var(--vscode-charts-purple,var(--c-s2))}
.ao-s3{stroke:var(--vscode-charts-green,var(--c-s3));fill:var(--vscode-charts-green,var(--c-s3))}
.ao-s4{stroke:var(--vscode-charts-red,var(--c-s4));fill:var(--vscode-charts-red,var(--c-s4))}
.ao-s5{stroke:var(--vscode-descriptionForeground,var(--c-s5));fill:var(--vscode-descriptionForeground,var(--c-s5))}
path.ao-series{fill:none}
.ao-side{width:100%}.ao-side td{white-space:pre-line;width:45%}
.ao-side td:first-child{width:10%;white-space:nowrap}
"""


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


def html_table(
    header: list[str],
    rows: list[list[str]],
    marked: set[int] | None = None,
    links: dict[tuple[int, int], str] | None = None,
    cls: str = "",
) -> str:
    """`marked`: indices of rows shown as bad (a regression, a rejected candidate); `links`: (row,
    column) -> the id in this page a cell links to."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)

    def cell(i: int, j: int, c: str) -> str:
        text = html.escape(c)
        target = links.get((i, j)) if links else None
        return f'<td><a href="#{html.escape(target)}">{text}</a></td>' if target else f"<td>{text}</td>"

    body = "".join(
        ('<tr class="bad">' if marked and i in marked else "<tr>")
        + "".join(cell(i, j, c) for j, c in enumerate(r))
        + "</tr>"
        for i, r in enumerate(rows)
    )
    attr = f' class="{html.escape(cls)}"' if cls else ""
    return f"<table{attr}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


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
