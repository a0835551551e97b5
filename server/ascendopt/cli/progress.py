"""The progress line of long work (an episode, a campaign): evaluations done of the budget,
elapsed time and an ETA, on one line that fits the terminal (the free text is cut with an
ellipsis, never wrapped, so a redraw never leaves half lines behind). On stderr.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Column, Table

from ascendopt.agent.episode import Progress as EpisodeProgress
from ascendopt.campaign.service import CampaignProgress

# The bar shrinks, then goes, on narrow terminals: the numbers matter more than the bar.
BAR_WIDTHS = ((100, 20), (70, 10))


class _Line(Progress):
    """A progress line three columns short of the terminal: a full-width line leaves the cursor at the
    wrap point, and the `^C` a terminal echoes would push the redraw down a line."""

    def __init__(self, *columns: ProgressColumn, console: Console, disable: bool) -> None:
        self._terminal = console  # Progress keeps it on its Live, made after the first table
        super().__init__(*columns, console=console, disable=disable, expand=True)

    def make_tasks_table(self, tasks: Iterable[Task]) -> Table:
        table = super().make_tasks_table(tasks)
        # Off a terminal (a log) the line is printed once, at the end, at a log's usual width.
        width = self._terminal.width if self._terminal.is_terminal else 80
        table.width = max(20, width - 3)
        return table


def _columns(console: Console, first: TextColumn) -> list[ProgressColumn]:
    bar = next((w for least, w in BAR_WIDTHS if console.width >= least), 0)
    return [
        first,
        *([BarColumn(bar_width=bar)] if bar else []),
        MofNCompleteColumn(),
        TextColumn("evals"),
        TimeElapsedColumn(),
        TextColumn("ETA {task.fields[eta]}", table_column=Column(no_wrap=True)),
        TextColumn(
            "{task.fields[status]}",
            markup=False,
            table_column=Column(no_wrap=True, overflow="ellipsis", ratio=1),
        ),
    ]


def _name_column() -> TextColumn:
    return TextColumn(
        "{task.description}",
        markup=False,
        table_column=Column(no_wrap=True, overflow="ellipsis", max_width=24),
    )


@contextlib.contextmanager
def episode_progress(
    console: Console, name: str, total: int, enabled: bool = True
) -> Iterator[Callable[[EpisodeProgress], None]]:
    """`name ━━━ 12/40 evals 0:00:31 ETA 1:12 best 1.02x · tiling search · …`; the ETA is the
    evaluations left at this run's pace so far (an estimate: a build is slower than a re-run)."""
    bar = _Line(*_columns(console, _name_column()), console=console, disable=not enabled)
    with bar:
        task = bar.add_task(name, total=total, status="", eta=_eta(None))
        pace = _Pace()

        def show(p: EpisodeProgress) -> None:
            best = f"best {p.best_speedup:.2f}x" if p.best_speedup else "best -"
            status = " · ".join(x for x in (best, p.phase, p.message) if x)
            eta = _eta(0 if p.phase == "done" else pace.eta(p.used, p.budget))
            bar.update(task, completed=p.used, total=p.budget, status=status, eta=eta)

        yield show


@contextlib.contextmanager
def campaign_progress(
    console: Console, campaign: str, enabled: bool = True
) -> Iterator[Callable[[CampaignProgress], None]]:
    """`3/14 operators ━━━ 40/336 evals 0:01:02 ETA 4:10 1 running · 0 failed · best 1.23x`, the ETA
    the campaign's own (evaluations left at the pace so far)."""
    first = TextColumn("{task.fields[operators]}", markup=False, table_column=Column(no_wrap=True))
    bar = _Line(*_columns(console, first), console=console, disable=not enabled)
    with bar:
        task = bar.add_task(campaign, total=None, operators="", eta=_eta(None), status="")

        def show(p: CampaignProgress) -> None:
            best = f"best {p.best_speedup:.2f}x" if p.best_speedup else "best -"
            bar.update(
                task,
                completed=p.evaluations,
                total=p.budget,
                operators=f"{p.done}/{p.total} episodes",
                eta=_eta(0 if p.done + p.failed >= p.total else p.eta_s),
                status=f"{p.running} running · {p.failed} failed · {best}",
            )

        yield show


class _Pace:
    """Seconds per evaluation since the first report (work done before it, replayed from a journal
    on resume, is not counted in the pace)."""

    def __init__(self) -> None:
        self._start: tuple[float, int] | None = None

    def eta(self, used: int, budget: int) -> float | None:
        now = time.monotonic()
        if self._start is None:
            self._start = (now, used)
            return None
        t0, used0 = self._start
        if used <= used0:
            return None
        return (now - t0) / (used - used0) * max(0, budget - used)


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return "-:--"
    if seconds == 0:
        return "0:00"
    m, s = divmod(int(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
