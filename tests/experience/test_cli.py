from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.experience.bank import BANK_FILE, Bank
from tests.experience.conftest import entry

runner = CliRunner()


def _run(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["experience", *args])
    return result.exit_code, result.stdout if "--json" in args else result.output


def test_list_json_and_family_filter(tmp_path: Path) -> None:
    Bank.open(tmp_path).close()  # what the first optimize there leaves: the seed lessons
    code, output = _run("list", "--workspace", str(tmp_path), "--json")
    assert code == 0, output
    lessons = json.loads(output)
    assert len(lessons) >= 10 and all(e["provenance"] == "seed" for e in lessons)
    assert (tmp_path / BANK_FILE).exists()
    code, output = _run("list", "-w", str(tmp_path), "--family", "host.tiling", "--json")
    families = {e["family"] for e in json.loads(output)}
    assert families and all(f.startswith("host.tiling.") for f in families)
    code, output = _run("list", "-w", str(tmp_path))
    assert code == 0 and "kernel.sync.remove_barrier" in output


def test_workspace_defaults_to_the_current_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["experience", "list", "--json"])  # read-only: no bank, none created
    assert result.exit_code == 0 and not (tmp_path / ".ascendopt").exists(), result.output
    code, output = _run("import", str(_lesson_file(tmp_path)))  # a writing command creates it here
    assert code == 0 and (tmp_path / BANK_FILE).exists()
    code, output = _run("list", "--json")
    assert code == 0 and len(json.loads(output)) >= 10


def _lesson_file(folder: Path) -> Path:
    src = folder / "in.jsonl"
    src.write_text(entry().model_dump_json() + "\n")
    return src


def test_read_only_commands_never_create_a_bank(tmp_path: Path) -> None:
    for args in (
        ("list",),
        ("search", "pipe barrier stalls"),
        ("show", "zzzz"),
        ("delete", "zzzz"),
        ("export", str(tmp_path / "out.jsonl")),
    ):
        result = runner.invoke(app, ["experience", *args, "-w", str(tmp_path)])
        assert "no bank at" in result.output, (args, result.output)
        assert not (tmp_path / ".ascendopt").exists(), args


def test_search_json_returns_the_fitting_family_first(tmp_path: Path) -> None:
    Bank.open(tmp_path).close()
    code, output = _run("search", "scalar GetValue loop is slow", "-w", str(tmp_path), "--k", "2", "--json")
    assert code == 0, output
    hits = json.loads(output)
    assert len(hits) == 2 and hits[0]["lesson"]["family"] == "kernel.vectorize.scalar_loop"
    assert hits[0]["score"] >= hits[1]["score"]
    code, output = _run("search", 'NEAR("broken AND (', "-w", str(tmp_path))
    assert code == 0


def test_show_by_prefix_prints_the_diff_and_says_not_measured(tmp_path: Path) -> None:
    with Bank.open(tmp_path) as bank:
        lesson = bank.all("kernel.pipeline.double_buffer")[0]
    code, output = _run("show", lesson.id[:6], "-w", str(tmp_path))
    assert code == 0, output
    assert "not measured" in output and "+constexpr int32_t BUFFER_NUM = 2;" in output
    code, output = _run("show", lesson.id, "-w", str(tmp_path), "--json")
    assert json.loads(output)["id"] == lesson.id
    code, output = _run("show", "zzzz", "-w", str(tmp_path))
    assert code == 2 and "no lesson" in output


def test_import_export_and_a_bad_file(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_text(entry().model_dump_json() + "\n")
    ws = tmp_path / "ws"
    code, output = _run("import", str(src), "-w", str(ws))
    assert code == 0 and "added 1" in output
    out_file = tmp_path / "out.jsonl"
    code, output = _run("export", str(out_file), "-w", str(ws))
    assert code == 0
    ids = [json.loads(line)["id"] for line in out_file.read_text().splitlines()]
    assert entry().id in ids
    bad = tmp_path / "bad.json"
    bad.write_text('[{"title": "only a title"}]')
    code, output = _run("import", str(bad), "--format", "paper", "-w", str(ws))
    assert code == 1 and "bad.json:1" in output and "nothing imported" in output
    code, output = _run("import", str(src), "--format", "yaml", "-w", str(ws))
    assert code == 2
