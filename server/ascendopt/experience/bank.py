"""The experience bank: lessons in `<workspace>/.ascendopt/experience.sqlite`, searchable by FTS5.

Several episodes (threads or processes) may write to one bank at once: WAL journal, a long
busy_timeout and one BEGIN IMMEDIATE transaction per write keep it whole. A connection is
used by one thread at a time (a lock), so `await asyncio.to_thread(bank.add, entry)` is safe.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from types import TracebackType

from ascendopt.experience import families, retrieval
from ascendopt.experience.guard import lesson_refusal, sanitized
from ascendopt.experience.io import read_jsonl
from ascendopt.experience.records import Diagnosis, ExperienceEntry, ScoredLesson, SearchFilters
from ascendopt.experience.schema import connect, ensure_schema
from ascendopt.experience.text import index_text

BANK_FILE = Path(".ascendopt") / "experience.sqlite"
log = logging.getLogger(__name__)


def seed_path() -> Path:
    """The hand-written seed lessons shipped with the package (templates/experience/seed.jsonl)."""
    return Path(str(resources.files("ascendopt.templates") / "experience" / "seed.jsonl"))


def load_seed() -> list[ExperienceEntry]:
    return read_jsonl(seed_path())


def _fts_row(entry: ExperienceEntry) -> tuple[str, ...]:
    guidance = "\n".join(p for p in (entry.summary, entry.applies_when, entry.expected_effect) if p)
    return (
        index_text(entry.title),
        index_text(entry.bottleneck),
        index_text(guidance),
        index_text(" ".join(entry.keywords)),
        " ".join(entry.family.split(".")) + " " + entry.family,
        index_text(entry.code_diff.text()),
    )


def insert(conn: sqlite3.Connection, entry: ExperienceEntry) -> bool:
    """Insert one lesson inside the caller's transaction; False if its id is already there."""
    cur = conn.execute(
        """INSERT OR IGNORE INTO lessons (id, family, layout, dtypes, provenance, created, body, bound)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            entry.id,
            entry.family,
            entry.layout,
            json.dumps(entry.dtypes),
            entry.provenance,
            entry.created.isoformat(),
            entry.model_dump_json(),
            entry.bound,
        ),
    )
    if cur.rowcount != 1:
        return False
    conn.execute(
        "INSERT INTO lessons_fts (rowid, title, bottleneck, guidance, keywords, family, code) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (cur.lastrowid, *_fts_row(entry)),
    )
    return True


def _remove(conn: sqlite3.Connection, lesson_id: str) -> None:
    """Delete one lesson and its search row inside the caller's transaction."""
    conn.execute(
        "DELETE FROM lessons_fts WHERE rowid = (SELECT rowid FROM lessons WHERE id = ?)", (lesson_id,)
    )
    conn.execute("DELETE FROM lessons WHERE id = ?", (lesson_id,))


class Bank:
    """One open experience bank. Use as a context manager, or call close()."""

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = threading.Lock()
        self.path = path

    @classmethod
    def open(cls, workspace: Path, *, seed: bool = True) -> Bank:
        """Open (creating if needed) the bank of a workspace; a new bank starts with the seed lessons."""
        return cls.open_file(Path(workspace) / BANK_FILE, seed=seed)

    @classmethod
    def open_file(cls, path: Path, *, seed: bool = True) -> Bank:
        conn = connect(path)
        try:
            seeds = load_seed() if seed else []

            def add_seeds(c: sqlite3.Connection) -> None:
                for entry in seeds:
                    insert(c, entry)

            ensure_schema(conn, on_create=add_seeds)
        except BaseException:
            conn.close()
            raise
        return cls(conn, path)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> Bank:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def add(self, entry: ExperienceEntry) -> bool:
        """Store a lesson (its text as data, see guard.py); one whose id is already stored, or whose
        code diff the audit refuses, changes nothing and returns False."""
        return self.add_many([entry]) == 1

    def add_many(self, entries: Iterable[ExperienceEntry]) -> int:
        """Store several lessons in one transaction (all or none); returns how many were new. A lesson
        whose code diff the audit refuses is left out, with a warning."""
        kept = []
        for entry in entries:
            if refusal := lesson_refusal(entry):
                log.warning("lesson %s not stored: %s", entry.id, refusal)
            else:
                kept.append(sanitized(entry))
        with self._write() as conn:
            return sum(insert(conn, e) for e in kept)

    def delete(self, ids: Iterable[str] = (), provenance: str | None = None) -> list[str]:
        """Remove the lessons with these ids, or of this provenance; the ids removed."""
        where, args = ("provenance = ?", [provenance]) if provenance else ("id = ?", None)
        with self._write() as conn:
            if args is not None:
                gone = [r[0] for r in conn.execute(f"SELECT id FROM lessons WHERE {where}", args)]
            else:
                gone = [i for i in ids if conn.execute("SELECT 1 FROM lessons WHERE id = ?", (i,)).fetchone()]
            for lesson_id in gone:
                _remove(conn, lesson_id)
        return gone

    def get(self, lesson_id: str) -> ExperienceEntry | None:
        with self._lock:
            row = self._conn.execute("SELECT body FROM lessons WHERE id = ?", (lesson_id,)).fetchone()
        return ExperienceEntry.model_validate_json(row[0]) if row else None

    def find(self, id_prefix: str) -> list[ExperienceEntry]:
        """Lessons whose id starts with the prefix (the CLI accepts abbreviated ids)."""
        escaped = id_prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        with self._lock:
            rows = self._conn.execute(
                "SELECT body FROM lessons WHERE id LIKE ? ESCAPE '\\' ORDER BY id", (escaped + "%",)
            ).fetchall()
        return [ExperienceEntry.model_validate_json(r[0]) for r in rows]

    def all(self, family: str | None = None, provenance: str | None = None) -> list[ExperienceEntry]:
        """Every lesson (of a family prefix, of a provenance, if given), oldest first."""
        where, args = ["1"], []
        if family:
            where.append("(family = ? OR family LIKE ? ESCAPE '\\')")
            args += [family.rstrip("."), families.like_pattern(family)]
        if provenance:
            where.append("provenance = ?")
            args.append(provenance)
        with self._lock:
            rows = self._conn.execute(
                f"SELECT body FROM lessons WHERE {' AND '.join(where)} ORDER BY created, id", args
            ).fetchall()
        return [ExperienceEntry.model_validate_json(r[0]) for r in rows]

    def count(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT count(*) FROM lessons").fetchone()[0])

    def search_scored(
        self,
        diagnosis: Diagnosis,
        k: int = 3,
        filters: SearchFilters | None = None,
    ) -> list[ScoredLesson]:
        with self._lock:
            return retrieval.search(self._conn, diagnosis, k, filters)

    def search(
        self,
        diagnosis: Diagnosis,
        k: int = 3,
        filters: SearchFilters | None = None,
    ) -> list[ExperienceEntry]:
        return [s.entry for s in self.search_scored(diagnosis, k, filters)]

    def retrieve(self, diagnosis: Diagnosis, k: int) -> list[ExperienceEntry]:
        """LessonRetriever: the bank itself is the episode's default retriever."""
        return self.search(diagnosis, k)
