from __future__ import annotations

import pytest
from pydantic import ValidationError

from ascendopt.experience.records import EditApplicator, ExperienceEntry, KnobApplicator
from tests.experience.conftest import entry


def test_id_is_a_content_hash_that_ignores_timing_and_creation() -> None:
    a = entry()
    b = entry(slow_us=99.0, fast_us=33.0, created="2020-01-01T00:00:00Z")
    c = entry(title="Something else")
    assert a.id == b.id and len(a.id) == 16
    assert c.id != a.id


def test_a_given_id_is_kept() -> None:
    assert entry(id="abc").id == "abc"


def test_timing_label_and_durations_must_agree() -> None:
    with pytest.raises(ValidationError, match="not_measured"):
        entry(timing="not_measured")  # durations given but labelled not measured
    with pytest.raises(ValidationError, match="needs both"):
        entry(timing="measured", fast_us=None)
    ok = entry(timing="not_measured", slow_us=None, fast_us=None)
    assert ok.speedup is None
    assert entry().speedup == pytest.approx(12.5 / 8.0)


def test_bad_family_tags_are_refused() -> None:
    for bad in ("", ".kernel", "kernel."):
        with pytest.raises(ValidationError):
            entry(family=bad)


def test_applicator_is_a_discriminated_union_from_plain_dicts() -> None:
    knob = entry(applicator={"kind": "knob", "knob_kind": "buffer_num", "value": 2}).applicator
    edit = entry(applicator={"kind": "edit", "search": "PipeBarrier<PIPE_ALL>();", "replace": ""}).applicator
    assert isinstance(knob, KnobApplicator) and knob.value == 2
    assert isinstance(edit, EditApplicator) and edit.file == "kernel"
    with pytest.raises(ValidationError):
        entry(applicator={"kind": "knob", "knob_kind": "not_a_knob", "value": 2})
    with pytest.raises(ValidationError):
        entry(applicator={"kind": "teleport"})


def test_json_round_trip_is_exact() -> None:
    e = entry(applicator={"kind": "knob", "knob_kind": "block_dim", "value": "max"})
    again = ExperienceEntry.model_validate_json(e.model_dump_json())
    assert again == e
    assert again.model_dump_json() == e.model_dump_json()
