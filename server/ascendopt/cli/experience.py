"""`ascendopt experience …`: list, show, search, import and export the workspace's lessons."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import RenderableType
from rich.text import Text

from ascendopt.cli.common import JsonOpt, app, fail, out, workspace_for
from ascendopt.cli.layout import Field, print_json, records, show
from ascendopt.experience.bank import Bank
from ascendopt.experience.io import Format, LessonFileError, export_file, import_file
from ascendopt.experience.records import Diagnosis, ExperienceEntry, ScoredLesson, SearchFilters
from ascendopt.experience.schema import SchemaError

experience_app = typer.Typer(
    no_args_is_help=True, help="The experience bank: lessons that guide kernel rewriting."
)
app.add_typer(experience_app, name="experience")

WorkspaceOpt = Annotated[
    Path | None,
    typer.Option(
        "--workspace",
        "-w",
        help="folder holding .ascendopt/ (default: the nearest one above the current folder holding "
        ".ascendopt/ or a VCS root, else the current folder)",
    ),
]
ProvenanceOpt = Annotated[
    str | None,
    typer.Option("--provenance", help="only lessons of this provenance: episode, imported, rewind, seed"),
]
FamilyOpt = Annotated[str | None, typer.Option("--family", help="family or family prefix, e.g. kernel.sync")]


def _open(workspace: Path | None) -> Bank:
    try:
        return Bank.open(workspace_for(workspace, Path.cwd()))
    except SchemaError as exc:
        fail(str(exc))


def _short_timing(e: ExperienceEntry) -> str:
    if e.timing == "not_measured" or e.speedup is None:
        return "not measured"
    return f"{e.speedup:.2f}x " + ("measured" if e.timing == "measured" else "est.")


def _timing(e: ExperienceEntry) -> str:
    if e.timing == "not_measured":
        return "not measured"
    label = "measured" if e.timing == "measured" else "estimate"
    return f"{e.slow_us:g} → {e.fast_us:g} µs ({label}, {e.speedup:.2f}x)"


def _records(title: str, lessons: list[ExperienceEntry], scores: list[float] | None = None) -> RenderableType:
    fields = [
        Field("id"),
        *([Field("score", right=True)] if scores is not None else []),
        Field("family"),
        Field("title", free=True),
        Field("bound", essential=False),
        Field("timing", essential=False),
        Field("provenance", essential=False),
    ]
    rows = [
        [
            e.id,
            *([f"{scores[i]:.2f}"] if scores is not None else []),
            e.family,
            e.title,
            e.bound or "-",
            _short_timing(e),
            e.provenance,
        ]
        for i, e in enumerate(lessons)
    ]
    return records(out, fields, rows, title, narrow="lines")


@experience_app.command("list")
def list_cmd(
    workspace: WorkspaceOpt = None,
    family: FamilyOpt = None,
    provenance: ProvenanceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """List the lessons of the workspace's bank (a new bank starts with the seed lessons)."""
    with _open(workspace) as bank:
        lessons = bank.all(family, provenance)
    if as_json:
        print_json(lessons)
        return
    show(out, _records(f"{len(lessons)} lesson(s)", lessons))


@experience_app.command("delete")
def delete_cmd(
    ids: Annotated[list[str] | None, typer.Argument(help="ids of the lessons to delete")] = None,
    workspace: WorkspaceOpt = None,
    provenance: ProvenanceOpt = None,
) -> None:
    """Delete lessons: by id, or every lesson of one provenance (e.g. all that episodes stored)."""
    if bool(ids) == bool(provenance):
        fail("give lesson ids or --provenance, not both or neither")
    with _open(workspace) as bank:
        gone = bank.delete(ids or (), provenance)
    missing = sorted(set(ids or ()) - set(gone))
    out.print(f"deleted {len(gone)} lesson(s)" + (f"; no lesson {', '.join(missing)}" if missing else ""))


@experience_app.command("show")
def show_cmd(
    lesson_id: Annotated[str, typer.Argument(help="lesson id (a unique prefix is enough)")],
    workspace: WorkspaceOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """One lesson in full: when it applies, when to avoid it, its slow→fast diff, its evidence."""
    with _open(workspace) as bank:
        found = bank.find(lesson_id)
    exact = [e for e in found if e.id == lesson_id]
    found = exact or found  # a full id wins over longer ids it happens to prefix
    if len(found) != 1:
        why = "no lesson" if not found else f"{len(found)} lessons"
        fail(f"{why} with id {lesson_id!r}")
    e = found[0]
    if as_json:
        print(e.model_dump_json(indent=2))
        return
    out.print(Text.assemble((e.title, "bold"), f"  ({e.id})"))
    for label, value in (
        ("family", e.family),
        ("bound", e.bound or "-"),
        ("bottleneck", e.bottleneck),
        ("summary", e.summary),
        ("applies when", e.applies_when),
        ("avoid when", e.avoid_when),
        ("expected", e.expected_effect),
        ("timing", _timing(e)),
        ("provenance", e.provenance),
        (
            "from",
            " ".join(x for x in (e.operator, e.layout, ",".join(e.dtypes), e.backend, e.soc) if x) or "-",
        ),
        ("keywords", ", ".join(e.keywords) or "-"),
        ("applicator", e.applicator.model_dump_json() if e.applicator else "-"),
    ):
        if value:
            out.print(Text.assemble((f"{label}:", "cyan"), " ", value))
    for name, values in (("before", e.evidence_before), ("after", e.evidence_after)):
        if values:
            shown = ", ".join(f"{k}={v:g}" for k, v in values.items())
            out.print(Text.assemble((f"evidence {name}:", "cyan"), " ", shown))
    for diff in (e.code_diff.kernel, e.code_diff.tiling):
        if diff:
            out.print(diff, markup=False, highlight=False)


@experience_app.command("search")
def search_cmd(
    query: Annotated[str, typer.Argument(help="the bottleneck in words, e.g. 'pipe barrier stalls'")],
    workspace: WorkspaceOpt = None,
    k: Annotated[int, typer.Option("--k", min=1, help="how many lessons (one per family)")] = 3,
    family: FamilyOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Lessons that fit a bottleneck described in free text (BM25, best lesson per family)."""
    with _open(workspace) as bank:
        hits: list[ScoredLesson] = bank.search_scored(
            Diagnosis(bottleneck=query), k, SearchFilters(family_prefix=family)
        )
    if as_json:
        print(
            json.dumps(
                [{"score": h.score, "lesson": h.entry.model_dump(mode="json")} for h in hits], indent=2
            )
        )
        return
    show(
        out,
        _records(f"{len(hits)} lesson(s) for {query!r}", [h.entry for h in hits], [h.score for h in hits]),
    )


@experience_app.command("import")
def import_cmd(
    file: Annotated[Path, typer.Argument(help="lessons to import", exists=True, dir_okay=False)],
    workspace: WorkspaceOpt = None,
    fmt: Annotated[
        str,
        typer.Option("--format", help="jsonl (ours) or paper ({title, description, bottleneck, code_diff})"),
    ] = "jsonl",
) -> None:
    """Import lessons; a malformed file imports nothing and names its bad line."""
    if fmt not in ("jsonl", "paper"):
        fail(f"unknown format {fmt!r}; use jsonl or paper")
    chosen: Format = "paper" if fmt == "paper" else "jsonl"
    with _open(workspace) as bank:
        try:
            report = import_file(bank, file, chosen)
        except LessonFileError as exc:
            fail(f"{exc}; nothing imported", 1)
    out.print(
        f"read {report.read} lesson(s), added {report.added} ({report.read - report.added} already there)"
    )


@experience_app.command("export")
def export_cmd(
    file: Annotated[Path, typer.Argument(help="JSONL file to write")],
    workspace: WorkspaceOpt = None,
    family: FamilyOpt = None,
) -> None:
    """Write the bank's lessons as JSONL (re-importable as is)."""
    with _open(workspace) as bank:
        count = export_file(bank, file, family)
    out.print(f"wrote {count} lesson(s) to {file}")
