"""Records laid out for the terminal's width: a table when every column fits whole, else one block
per record. Short fields (names, numbers, paths) are never cut; only free text wraps, at spaces.

Long output goes through a pager on a terminal (`$PAGER`, as pydoc picks it), never when piped or
when it fits the screen; `less` behaves as under git (`LESS=FRX` unless the user set `LESS`).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel
from rich import box
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.pager import Pager
from rich.table import Table
from rich.text import Text

Cell = str | Text
# A free-text column narrower than this reads as a column of word fragments: use blocks instead.
FREE_MIN = 24
_PADDING = 1  # each side of a cell


@dataclass(frozen=True)
class Field:
    name: str
    free: bool = False  # free text: may wrap at spaces (the others stay whole on one line)
    right: bool = False  # numbers
    essential: bool = True  # kept in the narrow table; the others only in the wide table and blocks


def _text(cell: Cell) -> Text:
    return cell if isinstance(cell, Text) else Text(cell)


def _longest_word(text: Text) -> int:
    return max((len(w) for w in text.plain.split()), default=0)


def table_width(fields: Sequence[Field], rows: Sequence[Sequence[Text]]) -> int:
    """The narrowest the table can be with every short cell on one line and free text at least
    FREE_MIN wide (or as wide as its longest cell, when shorter)."""
    total = 0
    for i, f in enumerate(fields):
        cells = [r[i] for r in rows]
        longest = max([len(f.name), *(c.cell_len for c in cells)])
        if f.free:
            words = max([len(f.name), *(_longest_word(c) for c in cells)])
            total += max(words, min(FREE_MIN, longest))
        else:
            total += longest
    # SIMPLE_HEAD without edges: padding between cells (not at the edges), one rule between columns.
    return total + (2 * _PADDING + 1) * max(0, len(fields) - 1)


def records(
    console: Console,
    fields: Sequence[Field],
    rows: Sequence[Sequence[Cell]],
    title: str | None = None,
    narrow: Literal["columns", "lines"] = "columns",
) -> RenderableType:
    """`rows` as a table if it fits `console.width`. Narrower: with `narrow="columns"` the essential
    fields as a table and a line naming the ones left out; with `"lines"` each row as one line of its
    short fields with its free text wrapped below. Narrower still: one block per row, the first field
    as its heading and the others as `name  value` lines (empty values left out)."""
    texts = [[_text(c) for c in row] for row in rows]
    if table_width(fields, texts) <= console.width:
        return _table(fields, texts, title)
    if narrow == "lines":
        short = [i for i, f in enumerate(fields) if not f.free]
        if all(_joined([row[i] for i in short]).cell_len <= console.width for row in texts):
            return _lines(fields, texts, title)
    keep = [i for i, f in enumerate(fields) if f.essential]
    if (
        len(keep) < len(fields)
        and table_width([fields[i] for i in keep], [[r[i] for i in keep] for r in texts]) <= console.width
    ):
        # Add back the optional fields that still fit, in their order.
        for i, f in enumerate(fields):
            if not f.essential:
                more = sorted([*keep, i])
                if (
                    table_width([fields[k] for k in more], [[r[k] for k in more] for r in texts])
                    <= console.width
                ):
                    keep = more
        left_out = ", ".join(f.name for i, f in enumerate(fields) if i not in keep)
        note = Text(f"not shown at {console.width} columns: {left_out} (see --json)", style="dim")
        table = _table([fields[i] for i in keep], [[r[i] for i in keep] for r in texts], title)
        return Group(table, note)
    return blocks(fields, texts, title)


def _table(fields: Sequence[Field], rows: Sequence[Sequence[Text]], title: str | None) -> RenderableType:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, _PADDING))
    for f in fields:
        table.add_column(
            f.name,
            no_wrap=not f.free,
            overflow="fold",
            justify="right" if f.right else "left",
        )
    for row in rows:
        table.add_row(*row)
    return Group(Text(title, style="bold"), table) if title else table


def _joined(cells: Sequence[Text]) -> Text:
    return Text("  ").join(c for c in cells if c.plain.strip())


def _lines(fields: Sequence[Field], rows: Sequence[Sequence[Text]], title: str | None) -> RenderableType:
    free = [i for i, f in enumerate(fields) if f.free]
    parts: list[RenderableType] = [Text(title, style="bold")] if title else []
    for row in rows:
        head = _joined([row[i] for i, f in enumerate(fields) if not f.free])
        head.stylize("bold", 0, row[0].cell_len)
        parts.append(head)
        for i in free:
            if row[i].plain.strip():
                label = Text(f"{fields[i].name}: ", style="cyan") if len(free) > 1 else Text("")
                parts.append(_indent(Text.assemble(label, row[i])))
    return Group(*parts)


def blocks(
    fields: Sequence[Field], rows: Sequence[Sequence[Cell]], title: str | None = None
) -> RenderableType:
    parts: list[RenderableType] = [Text(title, style="bold")] if title else []
    for row in rows:
        head, *rest = (_text(c) for c in row)
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True, style="cyan")
        grid.add_column(overflow="fold")
        for f, value in zip(fields[1:], rest, strict=True):
            if value.plain.strip():
                grid.add_row(f.name, value)
        parts.append(Group(Text(""), Text.assemble(head, style="bold"), _indent(grid)))
    return Group(*parts)


def _indent(renderable: RenderableType) -> RenderableType:
    return Padding(renderable, (0, 0, 0, 2), expand=False)


def show(console: Console, *renderables: RenderableType, pager: Pager | None = None) -> None:
    """Print; through the pager (`pager`, default `$PAGER` as pydoc picks it) when on a terminal
    and taller than the screen."""
    group = Group(*renderables)
    if console.is_terminal and not console.is_dumb_terminal:
        height = len(console.render_lines(group, console.options, pad=False))
        if height > console.height - 1:
            with _less_like_git(), console.pager(pager):
                console.print(group)
            return
    console.print(group)


@contextlib.contextmanager
def _less_like_git() -> Iterator[None]:
    """`LESS=FRX` while paging, as git sets it, unless the user set `LESS`: quit when it fits one
    screen (-F), colours as they are (-R), and the text stays on the screen after `q` (-X)."""
    if "LESS" in os.environ:
        yield
        return
    os.environ["LESS"] = "FRX"
    try:
        yield
    finally:
        os.environ.pop("LESS", None)


def print_json(data: BaseModel | Sequence[BaseModel]) -> None:
    """Records as JSON on stdout: a model as its pydantic JSON, a list as a JSON array of them."""
    if isinstance(data, BaseModel):
        print(data.model_dump_json(indent=2))
    else:
        print(json.dumps([m.model_dump(mode="json") for m in data], indent=2, ensure_ascii=False))
