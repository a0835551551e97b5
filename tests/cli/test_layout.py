"""The CLI at 80 and 160 columns: every line fits, no word is cut that would fit on a line of its
own, and `--json` parses. Through typer's CliRunner with the console's width set as COLUMNS does."""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.pager import Pager
from typer.testing import CliRunner

from ascendopt.cli import app, common
from ascendopt.cli.layout import Field, records, show
from ascendopt.report.campaign import SUMMARY_HEADER

runner = CliRunner()
WIDTHS = (80, 160)


def run(monkeypatch: pytest.MonkeyPatch, width: int, *args: str) -> Any:
    monkeypatch.setattr(common.out, "_width", width)
    result = runner.invoke(app, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def words(values: Iterable[Any]) -> set[str]:
    found: set[str] = set()
    for v in values:
        if isinstance(v, dict):
            found |= words(v.values())
        elif isinstance(v, list):
            found |= words(v)
        elif isinstance(v, str | int | float) and not isinstance(v, bool):
            found |= set(str(v).replace(",", " ").split())
    return found


def assert_readable(output: str, width: int, expected: Iterable[str]) -> None:
    lines = [line.rstrip() for line in output.splitlines()]
    too_long = [line for line in lines if len(line) > width]
    assert not too_long, too_long
    for word in expected:
        if len(word) <= width - 4:  # it fits a line of its own, indent included: it must be whole
            assert any(word in line for line in lines), f"{word!r} cut or missing:\n{output}"


@pytest.mark.parametrize("width", WIDTHS)
def test_discover_fits_and_keeps_every_shown_word_whole(
    templates: Path, monkeypatch: pytest.MonkeyPatch, width: int
) -> None:
    data = json.loads(run(monkeypatch, width, "discover", str(templates), "--json").stdout)
    result = run(monkeypatch, width, "discover", str(templates))
    names = [o["name"] for o in data["operators"]]
    knobs = [k["name"] for o in data["operators"] for k in o["knobs"]]
    assert_readable(result.stdout, width, [*names, *knobs, *(o["layout"] for o in data["operators"])])
    if width == 80:
        assert "not shown at 80 columns: kernel entry" in result.stdout
    else:
        fields = [f["name"] for o in data["operators"] for f in o["tiling_fields"]]
        assert_readable(result.stdout, width, fields)


@pytest.mark.parametrize("width", WIDTHS)
def test_knobs_fit(templates: Path, monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    op = str(templates / "softmax_custom")
    knobs = json.loads(run(monkeypatch, width, "knobs", op, "--json").stdout)
    out = run(monkeypatch, width, "knobs", op).stdout
    shown = [k["name"] for k in knobs] + [str(v) for k in knobs for v in k["values"]]
    assert_readable(out, width, shown + [k["kind"] for k in knobs])


@pytest.mark.parametrize("width", WIDTHS)
def test_experience_list_and_search_fit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    ws = str(tmp_path)
    lessons = json.loads(run(monkeypatch, width, "experience", "list", "-w", ws, "--json").stdout)
    listed = run(monkeypatch, width, "experience", "list", "-w", ws).stdout
    assert_readable(listed, width, words([[e["id"], e["family"], e["title"]] for e in lessons]))
    # a lesson takes at most three lines at 80 columns, two at 160 (14 seed lessons: were 166 lines)
    assert len(listed.splitlines()) <= 2 + (3 if width == 80 else 2) * len(lessons)
    hits = json.loads(
        run(monkeypatch, width, "experience", "search", "pipe barrier", "-w", ws, "--json").stdout
    )
    found = run(monkeypatch, width, "experience", "search", "pipe barrier", "-w", ws).stdout
    assert hits and {"score", "lesson"} <= set(hits[0])
    assert_readable(found, width, words([[h["lesson"]["id"], h["lesson"]["title"]] for h in hits]))


@pytest.mark.slow
@pytest.mark.parametrize("width", WIDTHS)
def test_verify_fits(add_op: Path, monkeypatch: pytest.MonkeyPatch, width: int) -> None:
    result = run(monkeypatch, width, "verify", str(add_op))
    assert result.exit_code == 0, result.output
    cases = json.loads(run(monkeypatch, width, "verify", str(add_op), "--json").stdout)["cases"]
    shown = [c["name"] for c in cases] + [c["status"] for c in cases] + ["correct on every case"]
    assert len(cases) == 2 and all(c["dtypes"] for c in cases)
    assert_readable(result.stdout, width, words([*shown, *(d for c in cases for d in c["dtypes"].values())]))


def test_the_campaign_summary_keeps_its_headers_at_80_columns() -> None:
    console = Console(width=80, file=io.StringIO(), color_system=None)
    rows = [
        ["ours", "14/14", "9", "1.04x", "64%", "7%", "0%", "336"],
        ["random", "14/14", "8", "1.03x", "57%", "7%", "0%", "336"],
    ]
    console.print(
        records(console, [Field(c, right=c != "strategy") for c in SUMMARY_HEADER], rows, "campaign")
    )
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert_readable(text, 80, [*SUMMARY_HEADER, *words(rows)])


def test_a_narrow_terminal_gets_one_block_per_record() -> None:
    console = Console(width=40, file=io.StringIO(), color_system=None)
    fields = [Field("name"), Field("where"), Field("what", free=True)]
    rows = [["BUFFER_NUM", "op_host/softmax_custom.cpp:7", "queue depth of the copy-in and copy-out stages"]]
    console.print(records(console, fields, rows))
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert re.search(r"^BUFFER_NUM$", text, re.M) and re.search(
        r"^  where +op_host/softmax_custom\.cpp:7", text, re.M
    )
    assert_readable(text, 40, words(rows))


class RecordingPager(Pager):
    def __init__(self) -> None:
        self.shown: list[str] = []
        self.less: list[str | None] = []

    def show(self, content: str) -> None:
        self.shown.append(content)
        self.less.append(os.environ.get("LESS"))


def test_the_pager_is_less_as_git_runs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [[f"lesson-{i}", "a line of free text"] for i in range(30)]
    fields = [Field("id"), Field("title", free=True)]
    tty = Console(width=80, height=24, file=io.StringIO(), force_terminal=True)
    monkeypatch.delenv("LESS", raising=False)
    pager = RecordingPager()
    show(tty, records(tty, fields, rows), pager=pager)
    assert pager.less == ["FRX"] and "LESS" not in os.environ  # set while paging only
    monkeypatch.setenv("LESS", "-S")  # the user's own
    show(tty, records(tty, fields, rows), pager=pager)
    assert pager.less == ["FRX", "-S"]


def test_long_output_is_paged_on_a_terminal_only() -> None:
    rows = [[f"lesson-{i}", "a line of free text"] for i in range(30)]
    fields = [Field("id"), Field("title", free=True)]
    tty = Console(width=80, height=24, file=io.StringIO(), force_terminal=True)
    pager = RecordingPager()
    show(tty, records(tty, fields, rows), pager=pager)
    assert len(pager.shown) == 1 and "lesson-29" in pager.shown[0]
    piped = Console(width=80, height=24, file=io.StringIO())
    show(piped, records(piped, fields, rows), pager=pager)
    assert len(pager.shown) == 1 and "lesson-29" in piped.file.getvalue()  # type: ignore[attr-defined]
    short = RecordingPager()
    show(tty, records(tty, fields, rows[:3]), pager=short)
    assert short.shown == []


def test_templates_json_lists_the_names(monkeypatch: pytest.MonkeyPatch) -> None:
    listed = json.loads(run(monkeypatch, 80, "templates", "--json").stdout)
    names = [t["name"] for t in listed]
    assert "add_custom" in names and names == sorted(names)
    assert all(t["summary"] for t in listed)  # one line each, as the plain listing shows
