"""The journal: typed events on disk in the shape journals always had, torn lines, unknown types,
and the files an episode keeps (the suggestion and its patch)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from ascendopt.journal.events import (
    KnobRejected,
    NoiseEvent,
    OtherEvent,
    RewriteRejected,
    UserDecision,
)
from ascendopt.journal.store import EpisodeJournal


def test_an_event_is_written_as_type_beside_its_data_and_read_back_typed(tmp_path: Path) -> None:
    journal = EpisodeJournal.create(tmp_path, "ep")
    journal.append(NoiseEvent(band=0.01, threshold=0.02))
    journal.append(RewriteRejected(type="tiling.rejected", reason="edits outside", stage="apply"))
    line = json.loads(journal.events_path.read_text().splitlines()[0])
    assert line["type"] == "noise" and line["data"] == {"band": 0.01, "threshold": 0.02}
    events = EpisodeJournal.open(tmp_path, "ep").events()
    assert isinstance(events[0].data, NoiseEvent) and events[0].data.threshold == 0.02
    assert isinstance(events[1].data, RewriteRejected) and events[1].data.type == "tiling.rejected"
    assert [e.seq for e in events] == [0, 1]


def test_a_journal_written_by_hand_in_the_old_shape_reads_typed(tmp_path: Path) -> None:
    journal = EpisodeJournal.create(tmp_path, "ep")
    old = {"v": 1, "seq": 0, "type": "precheck.rejected", "time": "2026-01-01T00:00:00Z"}
    old["data"] = {"candidate": "c1", "assignment": {"MAX_CORES": 0}, "reason": "block dim 0"}
    journal.events_path.write_text(json.dumps(old) + "\n")
    (event,) = journal.events("precheck.rejected")
    assert isinstance(event.data, KnobRejected) and event.data.assignment == {"MAX_CORES": 0}


def test_an_unknown_type_is_kept_and_a_torn_last_line_is_dropped(tmp_path: Path) -> None:
    journal = EpisodeJournal.create(tmp_path, "ep")
    newer = {"v": 1, "seq": 0, "type": "from.the.future", "time": "2026-01-01T00:00:00Z", "data": {"x": 1}}
    journal.events_path.write_text(json.dumps(newer) + "\n")
    journal = EpisodeJournal.open(tmp_path, "ep")
    journal.append(UserDecision(suggestion="s1", decision="accepted"))
    with journal.events_path.open("a") as fh:
        fh.write('{"v": 1, "seq": 2, "type": "noi')  # a crash mid-write
    events = EpisodeJournal.open(tmp_path, "ep").events()
    assert [e.type for e in events] == ["from.the.future", "decision.user"]
    assert isinstance(events[0].data, OtherEvent) and events[0].model_dump(mode="json")["data"] == {"x": 1}


def test_a_bad_field_is_refused_when_written(tmp_path: Path) -> None:
    journal = EpisodeJournal.create(tmp_path, "ep")
    try:
        journal.append(UserDecision(suggestion="s1", decision="maybe"))  # type: ignore[arg-type]
    except ValueError:
        pass
    else:
        raise AssertionError("a decision other than accepted/rejected was journaled")
    assert journal.events() == []


def test_the_suggestion_and_its_patch_are_the_journals_files(tmp_path: Path) -> None:
    journal = EpisodeJournal.create(tmp_path, "ep")
    patch = journal.write_suggestion(NoiseEvent(band=0, threshold=0), "add_custom", "--- a/x\n+++ b/x\n")
    assert patch == journal.folder / "add_custom.patch" and patch.read_text().startswith("--- a/x")
    assert journal.read_json("suggestion.json") == {"band": 0.0, "threshold": 0.0}


def test_an_evaluation_with_nan_errors_reads_back(tmp_path: Path) -> None:
    """A wrong candidate's errors may be NaN or inf; the record must survive the round trip (resume)."""
    from ascendopt.journal.events import EvaluationEvent

    journal = EpisodeJournal.create(tmp_path, "e")
    errors = {"max_abs_error": float("nan"), "max_rel_error": float("inf")}
    journal.append(EvaluationEvent(key="k", candidate="c", purpose="p", seed=0, evaluation=errors))
    (event,) = EpisodeJournal.open(tmp_path, "e").events("evaluation")
    assert isinstance(event.data, EvaluationEvent)
    assert math.isnan(float(event.data.evaluation["max_abs_error"]))  # JSON null would not convert
    assert float(event.data.evaluation["max_rel_error"]) == math.inf
