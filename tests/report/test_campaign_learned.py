"""The campaign report's "what the bank learned": lessons stored by the campaign's episodes (read
from their journals), who produced them, and how often later episodes were offered them."""

from __future__ import annotations

from pathlib import Path

from ascendopt.campaign.records import CampaignRecord, CampaignSettings, TaskEntry, TaskResult
from ascendopt.experience.records import ExperienceEntry
from ascendopt.journal.events import DiagnosisEvent, LessonProvisional, LessonStored
from ascendopt.journal.store import EpisodeJournal
from ascendopt.report.campaign import build_report, write_reports


def _task(op: str, episode: str) -> TaskEntry:
    return TaskEntry(
        operator=op,
        root=Path("/x") / op,
        strategy="ours",
        episode=episode,
        status="done",
        result=TaskResult(message="", evaluations=6, baseline_correct=True),
    )


def _lesson(op: str, title: str) -> ExperienceEntry:
    return ExperienceEntry(
        title=title,
        family="kernel.pipeline.double_buffer",
        bottleneck="MTE2",
        operator=op,
        provenance="episode",
    )


def test_lessons_stored_in_the_campaign_with_their_later_retrievals(tmp_path: Path) -> None:
    ws = tmp_path
    lesson = _lesson("add_custom", "Double-buffer the input queues")
    provisional_only = _lesson("add_custom", "Never banked: its winner failed the re-check")
    first = EpisodeJournal.create(ws, "e1-add_custom")
    first.append(DiagnosisEvent(bottleneck="MTE2", change="x", lessons=[lesson.id]))  # before it existed
    first.append(LessonProvisional(lesson=lesson.id, entry=lesson.model_dump(mode="json")))
    first.append(
        LessonProvisional(lesson=provisional_only.id, entry=provisional_only.model_dump(mode="json"))
    )
    first.append(LessonStored(lesson=lesson.id))
    second = EpisodeJournal.create(ws, "e2-mul_custom")
    second.append(DiagnosisEvent(bottleneck="MTE2", change="y", lessons=[lesson.id, "seed-lesson"]))
    second.append(DiagnosisEvent(bottleneck="MTE2", change="z", lessons=[lesson.id]))
    record = CampaignRecord(
        id="c1",
        settings=CampaignSettings(paths=[ws], budget=6),
        tasks=[
            _task("add_custom", "e1-add_custom"),
            _task("mul_custom", "e2-mul_custom"),
            _task("gone", "e3"),
        ],
    )
    (learned,) = build_report(record, ws).learned
    assert (learned.title, learned.operator, learned.strategy) == (
        "Double-buffer the input queues",
        "add_custom",
        "ours",
    )
    assert learned.retrieved_after == 2  # the offer before it was stored does not count
    assert build_report(record).learned == []  # without the workspace there are no journals to read

    folder = tmp_path / "out"
    folder.mkdir()
    write_reports(record, folder, ws)
    md, page = (folder / "report.md").read_text(), (folder / "report.html").read_text()
    assert "## What the bank learned" in md
    assert f"| {lesson.id[:12]} | Double-buffer the input queues | add_custom | ours | episode | 2 |" in md
    assert "<h2>What the bank learned</h2>" in page and "Never banked" not in page


def test_a_campaign_that_learned_nothing_says_so(tmp_path: Path) -> None:
    record = CampaignRecord(id="c2", settings=CampaignSettings(paths=[tmp_path], budget=6), tasks=[])
    write_reports(record, tmp_path, tmp_path)
    assert "No lesson was stored" in (tmp_path / "report.md").read_text()
