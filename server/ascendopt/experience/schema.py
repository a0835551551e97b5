"""The SQLite layout of the bank, its version, and the migrations between versions.

A new database is created at version 1 and migrated up like any old one, so every migration
runs on every new bank and cannot rot unnoticed.

Version history:
  1  lessons (id, family, layout, dtypes, provenance, created, body) + FTS5 index + meta
  2  lessons.bound, backfilled from the body, so the bound bonus/filters need no JSON parsing
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

SCHEMA_VERSION = 2
BUSY_TIMEOUT_MS = 30_000

# porter stems English words; tokenchars '_' keeps PIPE_ALL / BUFFER_NUM whole, while
# retrieval.text also indexes their parts (pipe, all, buffer, num) so either form matches.
_FTS_TOKENIZER = "porter unicode61 tokenchars '_'"

# Index columns, in the order bm25() weights are given (retrieval.COLUMN_WEIGHTS).
FTS_COLUMNS = ("title", "bottleneck", "guidance", "keywords", "family", "code")

_V1 = [
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE lessons (
        id TEXT PRIMARY KEY,
        family TEXT NOT NULL,
        layout TEXT,
        dtypes TEXT NOT NULL,
        provenance TEXT NOT NULL,
        created TEXT NOT NULL,
        body TEXT NOT NULL
    )""",
    "CREATE INDEX lessons_family ON lessons(family)",
    f"""CREATE VIRTUAL TABLE lessons_fts USING fts5(
        {", ".join(FTS_COLUMNS)}, tokenize = "{_FTS_TOKENIZER}"
    )""",
    "INSERT INTO meta(key, value) VALUES ('schema_version', '1')",
]


class SchemaError(RuntimeError):
    pass


def migrate_1_to_2(conn: sqlite3.Connection) -> None:
    conn.execute("ALTER TABLE lessons ADD COLUMN bound TEXT")
    conn.execute("UPDATE lessons SET bound = json_extract(body, '$.bound')")


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {1: migrate_1_to_2}


def connect(path: Path) -> sqlite3.Connection:
    """A connection ready for concurrent use by several processes.

    isolation_level=None: we issue BEGIN IMMEDIATE ourselves, so a writer takes the write lock at
    the start of its transaction (waiting under busy_timeout) instead of failing with SQLITE_BUSY
    when a deferred read transaction tries to upgrade.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")  # durable enough in WAL; a crash loses no committed lesson
    return conn


def schema_version(conn: sqlite3.Connection) -> int:
    has_meta = conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
    if not has_meta:
        return 0
    row = conn.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    return int(row[0]) if row else 0


def ensure_schema(
    conn: sqlite3.Connection, on_create: Callable[[sqlite3.Connection], None] | None = None
) -> bool:
    """Create or migrate the schema in one write transaction. Returns True if the bank was new.

    Two processes opening the same fresh bank serialise on BEGIN IMMEDIATE; the second one then
    sees the version the first wrote and does nothing. `on_create` (the seed lessons) runs inside
    the same transaction, so no reader ever sees a new bank without its seeds.
    """
    if schema_version(conn) == SCHEMA_VERSION:
        return False  # the common case, without taking the write lock
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = schema_version(conn)
        created = version == 0
        if version > SCHEMA_VERSION:
            raise SchemaError(
                f"experience bank has schema version {version}; this ascendopt knows up to "
                f"{SCHEMA_VERSION} — upgrade ascendopt"
            )
        if created:
            for statement in _V1:
                conn.execute(statement)
            version = 1
        while version < SCHEMA_VERSION:
            MIGRATIONS[version](conn)
            version += 1
            conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
        if created and on_create is not None:
            on_create(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return created
