from __future__ import annotations

import json
from pathlib import Path

import pytest

from ascendopt.experience.bank import Bank
from ascendopt.experience.families import UNCLASSIFIED
from ascendopt.experience.io import LessonFileError, export_file, import_file, read_jsonl, read_paper
from tests.experience.conftest import entry

PAPER = [
    {
        "title": "Enable double buffering",
        "description": "Set BUFFER_NUM to 2 so that copy and compute overlap.",
        "bottleneck": "MTE2 and vector pipes run serially",
        "code_diff": "-constexpr int32_t BUFFER_NUM = 1;\n+constexpr int32_t BUFFER_NUM = 2;\n",
    },
    {
        "title": "Drop full barriers",
        "description": "Queues already synchronise the pipes.",
        "bottleneck": "PipeBarrier<PIPE_ALL> after each copy",
        "code_diff": "-    PipeBarrier<PIPE_ALL>();\n",
        "source": "extra keys are ignored",
    },
    {
        "title": "Mystery speedup",
        "description": "It was faster.",
        "bottleneck": "unknown",
        "code_diff": "-a\n+b\n",
    },
]


def test_jsonl_export_import_round_trips_exactly(tmp_path: Path) -> None:
    first, second = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    with Bank.open(tmp_path / "a") as a:
        a.add(entry(applicator={"kind": "knob", "knob_kind": "buffer_num", "value": 2}))
        a.add(
            entry(
                title="edit lesson",
                applicator={"kind": "edit", "search": "x", "replace": "y"},
                timing="not_measured",
                slow_us=None,
                fast_us=None,
                bound=None,
                layout=None,
            )
        )
        assert export_file(a, first) == a.count()
        original = a.all()
    with Bank.open(tmp_path / "b", seed=False) as b:
        report = import_file(b, first)
        assert report.read == report.added == len(original)
        assert b.all() == original
        export_file(b, second)
    assert first.read_bytes() == second.read_bytes()
    assert read_jsonl(first) == original


def test_importing_twice_adds_nothing_new(tmp_path: Path, bank: Bank) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text(entry().model_dump_json() + "\n\n")  # blank lines are fine
    assert import_file(bank, path).added == 1
    again = import_file(bank, path)
    assert (again.read, again.added) == (1, 0)


def test_paper_format_as_json_lines_and_as_array(tmp_path: Path, bank: Bank) -> None:
    lines, array = tmp_path / "bank.jsonl", tmp_path / "bank.json"
    lines.write_text("\n".join(json.dumps(o) for o in PAPER) + "\n")
    array.write_text(json.dumps(PAPER, indent=2))
    from_lines, from_array = read_paper(lines), read_paper(array)
    assert [e.model_dump(exclude={"created"}) for e in from_lines] == [
        e.model_dump(exclude={"created"}) for e in from_array
    ]
    families = [e.family for e in from_lines]
    assert families == ["kernel.pipeline.double_buffer", "kernel.sync.remove_barrier", UNCLASSIFIED]
    first = from_lines[0]
    assert first.provenance == "imported" and first.timing == "not_measured"
    assert first.summary == PAPER[0]["description"] and first.code_diff.kernel == PAPER[0]["code_diff"]
    assert "BUFFER_NUM" in first.keywords and "PIPE_ALL" in from_lines[1].keywords
    assert import_file(bank, array, "paper").added == 3


@pytest.mark.parametrize(
    ("text", "line", "why"),
    [
        (
            '{"title": "a", "description": "b", "bottleneck": "c", "code_diff": "d"}\n{"title": "x"\n',
            2,
            "not JSON",
        ),
        (
            '{"title": "a", "description": "b", "bottleneck": "c", "code_diff": "d"}\n\n{"title": "x"}\n',
            3,
            "description",
        ),
        (
            '[\n  {"title": "a", "description": "b", "bottleneck": "c", "code_diff": "d"},\n  {"title": 5,\n'
            '   "description": "b", "bottleneck": "c", "code_diff": "d"}\n]',
            3,
            "title",
        ),
        (
            '[\n  {"title": "a", "description": "b", "bottleneck": "c", "code_diff": "d"},\n  {"oops"\n]',
            4,
            "not JSON",
        ),
        ('[\n  {"title": "a", "description": "b", "bottleneck": "c", "code_diff": "d"}\n', 3, "unterminated"),
        ('[{"title": "a", "description": "b", "bottleneck": "c", "code_diff": "d"} {}]', 1, "expected ','"),
    ],
)
def test_a_malformed_paper_file_names_its_line_and_imports_nothing(
    tmp_path: Path, bank: Bank, text: str, line: int, why: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(LessonFileError) as info:
        import_file(bank, path, "paper")
    assert info.value.line == line and why in info.value.message
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert bank.count() == 0


def test_a_malformed_jsonl_file_imports_nothing(tmp_path: Path, bank: Bank) -> None:
    path = tmp_path / "bad.jsonl"
    good = [entry(title=f"ok {i}").model_dump_json() for i in range(3)]
    bad = entry().model_dump() | {"timing": "measured", "slow_us": None}
    path.write_text("\n".join([*good, json.dumps(bad, default=str), good[0]]) + "\n")
    with pytest.raises(LessonFileError) as info:
        import_file(bank, path)
    assert info.value.line == 4 and "needs both" in info.value.message
    assert bank.count() == 0
