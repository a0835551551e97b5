from __future__ import annotations

import asyncio
import json
import multiprocessing
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from ascendopt.experience.bank import BANK_FILE, Bank, seed_path
from ascendopt.experience.records import Diagnosis, ExperienceEntry
from ascendopt.experience.schema import SCHEMA_VERSION, SchemaError, schema_version
from tests.experience.conftest import entry


def test_a_new_workspace_bank_holds_the_seed_lessons_once(tmp_path: Path) -> None:
    seed_lines = [json.loads(line) for line in seed_path().read_text().splitlines() if line.strip()]
    assert 10 <= len(seed_lines) <= 15
    with Bank.open(tmp_path) as bank:
        assert (tmp_path / BANK_FILE).exists()
        lessons = bank.all()
        assert {e.id for e in lessons} == {s["id"] for s in seed_lines}
        assert all(e.provenance == "seed" and e.timing == "not_measured" for e in lessons)
        assert all(e.slow_us is None and e.fast_us is None for e in lessons)
        assert all(e.code_diff.kernel or e.code_diff.tiling for e in lessons)
        bank.add(entry())
    with Bank.open(tmp_path) as bank:  # reopening adds no second copy of the seeds
        assert bank.count() == len(seed_lines) + 1


def test_seed_diffs_are_unified_diffs_written_slow_to_fast(tmp_path: Path) -> None:
    with Bank.open(tmp_path) as bank:
        double = bank.all("kernel.pipeline.double_buffer")
    assert len(double) == 1
    diff = double[0].code_diff.kernel
    assert diff.startswith("--- a/") and "\n+++ b/" in diff and "\n@@ " in diff
    assert "-constexpr int32_t BUFFER_NUM = 1;" in diff and "+constexpr int32_t BUFFER_NUM = 2;" in diff
    assert double[0].applicator is not None and double[0].applicator.kind == "knob"


def test_add_is_idempotent_and_get_returns_the_same_record(bank: Bank) -> None:
    e = entry()
    assert bank.add(e) is True
    assert bank.add(e) is False
    assert bank.add(entry(slow_us=50.0)) is False  # same lesson, other timing: same id
    assert bank.count() == 1
    assert bank.get(e.id) == e
    assert bank.get("nope") is None


def test_all_filters_by_family_prefix_on_dot_boundaries(bank: Bank) -> None:
    bank.add(entry(family="kernel.sync.remove_barrier", title="a"))
    bank.add(entry(family="kernel.synchronous", title="b"))
    bank.add(entry(family="host.tiling.block_dim", title="c"))
    bank.add(entry(family="kernel_sync.x", title="d"))  # '_' must not act as a LIKE wildcard
    assert [e.title for e in bank.all("kernel.sync")] == ["a"]
    assert [e.title for e in bank.all("kernel.sync.")] == ["a"]
    assert sorted(e.title for e in bank.all("kernel")) == ["a", "b"]
    assert [e.title for e in bank.all("host.tiling.block_dim")] == ["c"]
    assert len(bank.all()) == 4


def test_add_many_is_all_or_nothing(bank: Bank) -> None:
    class Boom(Exception):
        pass

    def entries() -> Iterator[ExperienceEntry]:
        yield entry(title="one")
        raise Boom

    with pytest.raises(Boom):
        bank.add_many(entries())
    assert bank.count() == 0
    assert bank.add_many([entry(title="one"), entry(title="two"), entry(title="one")]) == 2


def test_close_and_context_manager(tmp_path: Path) -> None:
    with Bank.open(tmp_path, seed=False) as bank:
        bank.add(entry())
    with pytest.raises(sqlite3.ProgrammingError):
        bank.count()


async def test_usable_from_threads_via_to_thread(bank: Bank) -> None:
    entries = [entry(title=f"lesson {i}") for i in range(40)]
    added = await asyncio.gather(*(asyncio.to_thread(bank.add, e) for e in entries))
    assert all(added) and bank.count() == 40
    found = await asyncio.to_thread(bank.search, Diagnosis(bottleneck="copy-in serialised"), 3)
    assert found and found[0].family == "kernel.pipeline.double_buffer"


# --- schema versions -----------------------------------------------------------------------

_V1_DDL = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE lessons (id TEXT PRIMARY KEY, family TEXT NOT NULL, layout TEXT, dtypes TEXT NOT NULL,
    provenance TEXT NOT NULL, created TEXT NOT NULL, body TEXT NOT NULL);
CREATE INDEX lessons_family ON lessons(family);
CREATE VIRTUAL TABLE lessons_fts USING fts5(title, bottleneck, guidance, keywords, family, code,
    tokenize = "porter unicode61 tokenchars '_'");
INSERT INTO meta(key, value) VALUES ('schema_version', '1');
"""


def _write_v1_bank(path: Path) -> str:
    """A bank as version 1 of the code left it (no `bound` column)."""
    e = entry(
        bound="sync",
        family="kernel.sync.remove_barrier",
        title="drop the PIPE_ALL barriers",
        bottleneck="pipes stall on barriers",
    )
    path.parent.mkdir(parents=True)
    conn = sqlite3.connect(path)
    conn.executescript(_V1_DDL)
    cur = conn.execute(
        "INSERT INTO lessons VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            e.id,
            e.family,
            e.layout,
            json.dumps(e.dtypes),
            e.provenance,
            e.created.isoformat(),
            e.model_dump_json(),
        ),
    )
    conn.execute(
        "INSERT INTO lessons_fts (rowid, title, bottleneck, guidance, keywords, family, code) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (cur.lastrowid, e.title, e.bottleneck, "", "", e.family, e.code_diff.kernel),
    )
    conn.commit()
    conn.close()
    return e.id


def test_a_version_1_bank_is_migrated_and_keeps_its_lessons(tmp_path: Path) -> None:
    path = tmp_path / BANK_FILE
    lesson_id = _write_v1_bank(path)
    with Bank.open(tmp_path) as bank:  # an existing bank: no seeds are added to it
        assert bank.count() == 1
        assert bank.get(lesson_id) is not None
        hits = bank.search(Diagnosis(bottleneck="barrier stalls"), 3)
        assert [h.id for h in hits] == [lesson_id]
        bank.add(entry())
    conn = sqlite3.connect(path)
    assert schema_version(conn) == SCHEMA_VERSION == 2
    rows = dict(conn.execute("SELECT id, bound FROM lessons").fetchall())
    assert rows[lesson_id] == "sync"  # backfilled from the body
    assert rows[entry().id] == "memory"


def test_a_bank_from_a_newer_ascendopt_is_refused(tmp_path: Path) -> None:
    with Bank.open(tmp_path, seed=False):
        pass
    conn = sqlite3.connect(tmp_path / BANK_FILE)
    conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with pytest.raises(SchemaError, match="version 99"):
        Bank.open(tmp_path)


# --- two processes writing at once ---------------------------------------------------------


def _writer(workspace: str, tag: str, count: int) -> None:
    with Bank.open(Path(workspace)) as bank:
        for i in range(count):
            bank.add(
                entry(
                    title=f"{tag} lesson {i}",
                    bottleneck=f"{tag} bottleneck number {i}",
                    family=f"kernel.test.{tag}",
                )
            )
            if i % 50 == 0:  # readers interleaved with the writes
                bank.search(Diagnosis(bottleneck=f"{tag} bottleneck"), 3)


def test_two_processes_writing_200_lessons_each_leave_400_intact(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")  # fresh interpreters: no shared sqlite state
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), tag, 200)) for tag in ("alpha", "beta")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
        assert p.exitcode == 0
    with Bank.open(tmp_path) as bank:
        for tag in ("alpha", "beta"):
            mine = bank.all(f"kernel.test.{tag}")
            assert sorted(e.title for e in mine) == sorted(f"{tag} lesson {i}" for i in range(200))
            assert all(bank.get(e.id) == e for e in mine)
        conn = sqlite3.connect(tmp_path / BANK_FILE)
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        # both processes raced to create the bank: the seeds are there once, every lesson indexed once
        seeds = len([line for line in seed_path().read_text().splitlines() if line.strip()])
        fts = conn.execute("SELECT count(*) FROM lessons_fts").fetchone()[0]
        assert fts == bank.count() == 400 + seeds
        hits = bank.search(Diagnosis(bottleneck="beta bottleneck number 137"), 1)
        assert hits[0].title == "beta lesson 137"
