"""Build output while it happens: a remote CANN build takes minutes and must not be silent.

On a terminal, the last lines in a panel on stderr that goes away when the work ends; elsewhere
(a CI log, a pipe) each line as it comes, on stderr, so stdout keeps only the result.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator

from rich.console import Console
from rich.live import Live
from rich.panel import Panel
from rich.text import Text

from ascendopt.evaluation import build_output

PANEL_LINES = 8


@contextlib.contextmanager
def build_panel(console: Console, title: str, enabled: bool = True) -> Iterator[None]:
    if not enabled:
        yield
        return
    if not console.is_terminal:
        with build_output.streaming(lambda line: console.print(line, markup=False, highlight=False)):
            yield
        return
    lines: deque[str] = deque(maxlen=PANEL_LINES)

    def render() -> Panel:
        text = Text("\n".join(lines), no_wrap=True, overflow="ellipsis")
        return Panel(text, title=title, title_align="left")

    with Live(render(), console=console, transient=True, refresh_per_second=8) as live:

        def show(line: str) -> None:
            lines.append(line)
            live.update(render())

        with build_output.streaming(show):
            yield
