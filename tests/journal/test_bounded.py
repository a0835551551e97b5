"""No record grows a journal without bound, and no line of a journal crashes its reader."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from ascendopt.agent.kernel_rewrite import _parse_diagnosis
from ascendopt.agent.rewrite import Rejection
from ascendopt.journal import store
from ascendopt.journal.events import EvaluationEvent, LlmEvent, NoiseEvent
from ascendopt.journal.store import MAX_RECORD_BYTES, EpisodeJournal

DEEP_LIST = "[" * 50_000 + "]" * 50_000
DEEP_OBJECT = '{"a":' * 100_000 + "1" + "}" * 100_000


def test_past_its_cap_a_journal_grows_by_small_records_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(store, "MAX_JOURNAL_BYTES", 100_000)
    journal = EpisodeJournal.create(tmp_path, "ep")
    for n in range(40):  # a model that keeps answering with 20 KB replies
        prompt = [{"role": "user", "content": "r" * 20_000}]
        journal.append(LlmEvent(key=str(n), purpose="rewrite", messages=prompt, response="x" * 20_000))
    lines = journal.events_path.read_text().splitlines()
    late = lines[3:]
    assert len(lines) == 40 and all(len(line.encode()) <= store.MAX_LATE_RECORD_BYTES for line in late)
    assert journal.events_path.stat().st_size < 100_000 + 40 * store.MAX_LATE_RECORD_BYTES
    assert all(e.shortened for e in journal.events()[3:])


def test_an_evaluation_flooded_with_findings_is_stored_shortened_with_a_note(tmp_path: Path) -> None:
    journal = EpisodeJournal.create(tmp_path, "ep")
    finding = {"kind": "runner", "severity": "warning", "message": "unreadable finding: " + "x" * 180}
    case = {
        "index": 0,
        "name": "c",
        "status": "error",
        "message": "m" * 2_000_000,
        "findings": [finding] * 200_000,
    }
    journal.append(EvaluationEvent(key="k", candidate="c", purpose="p", seed=0, evaluation={"cases": [case]}))
    journal.append(NoiseEvent(band=0.01, threshold=0.02))
    lines = journal.events_path.read_text().splitlines()
    assert all(len(line.encode()) <= MAX_RECORD_BYTES for line in lines)
    first, second = journal.events()
    assert first.shortened is not None and "shortened" in first.shortened
    assert isinstance(first.data, EvaluationEvent)
    kept = first.data.evaluation["cases"][0]
    assert "more characters cut" in kept["message"] and len(kept["findings"]) < 200_000
    assert second.shortened is None and isinstance(second.data, NoiseEvent)
    assert '"shortened"' not in lines[1]  # an ordinary record is written as before


@pytest.mark.parametrize("garbage", [DEEP_LIST, DEEP_OBJECT, "\x00\xff not json", '{"v": 1, "seq": "x"}'])
def test_a_journal_line_that_does_not_parse_is_skipped_with_a_warning(
    tmp_path: Path, garbage: str, caplog: pytest.LogCaptureFixture
) -> None:
    journal = EpisodeJournal.create(tmp_path, "ep")
    journal.append(NoiseEvent(band=0.01, threshold=0.02))
    with open(journal.events_path, "a") as fh:
        fh.write(garbage + "\n")
    journal.append(LlmEvent(key="k", purpose="diagnose", response=DEEP_OBJECT))
    with caplog.at_level(logging.WARNING):
        events = EpisodeJournal.open(tmp_path, "ep").events()
    assert [e.type for e in events] == ["noise", "llm"]
    assert "does not parse" in caplog.text


@pytest.mark.parametrize(
    "reply", [DEEP_LIST, '{"d": ' + DEEP_LIST + "}", DEEP_OBJECT, '{"bottleneck": 1' + "0" * 10_000 + "}"]
)
def test_a_hostile_diagnosis_is_a_rejection(reply: str) -> None:
    parsed = _parse_diagnosis(reply)
    assert isinstance(parsed, Rejection) and parsed.reason.startswith("unreadable diagnosis: ")


def test_a_diagnosis_with_odd_types_is_text() -> None:
    assert _parse_diagnosis('{"bottleneck": [1, 2], "change": {"x": 1}}') == (
        '{"bottleneck": [1, 2], "change": {"x": 1}}',
        "",
    )
