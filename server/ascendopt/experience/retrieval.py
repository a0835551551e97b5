"""From a diagnosis to the lessons that fit it: FTS5 BM25, hard filters, best lesson per family.

The episode depends only on `LessonRetriever`; the bank implements it, and tests or later
retrievers (a remote bank, a fixed list) can stand in.
"""

from __future__ import annotations

import sqlite3
from typing import Protocol

from ascendopt.experience import families
from ascendopt.experience.records import Diagnosis, ExperienceEntry, ScoredLesson, SearchFilters
from ascendopt.experience.text import fts_match, query_tokens

# bm25() weights per FTS column (schema.FTS_COLUMNS order): a match in what the lesson is about
# (bottleneck, title, keywords) counts more than one somewhere in its diff.
COLUMN_WEIGHTS = (3.0, 4.0, 2.0, 3.0, 2.0, 1.0)
BOUND_BONUS = 1.25  # a lesson for the same bound as the diagnosis
POOL = 40  # candidates fetched before the family dedupe thins them to k

# What a dominant pipe or a bound says in the words lessons are written in.
_PIPE_WORDS = {
    "mte2": "mte2 copy in DataCopy GM load memory bandwidth",
    "mte3": "mte3 copy out GM store write",
    "vec": "vector compute",
    "scalar": "scalar loop GetValue SetValue",
    "mte1": "mte1 L1 copy",
    "cube": "cube matmul",
}
_BOUND_WORDS = {
    "memory": "memory bound bandwidth mte2 copy",
    "vector": "vector bound compute",
    "scalar": "scalar bound loop",
    "sync": "sync barrier wait stall serialised",
    "launch": "launch cores block dim idle",
}
DOMINANT_RATIO = 0.4  # a pipe busier than this share of the kernel's time is worth naming


class LessonRetriever(Protocol):
    def retrieve(self, diagnosis: Diagnosis, k: int) -> list[ExperienceEntry]: ...


def _pipe_key(name: str) -> str | None:
    lowered = name.lower()
    return next((p for p in _PIPE_WORDS if p in lowered), None)


def diagnosis_text(diagnosis: Diagnosis) -> str:
    """The diagnosis as words, most telling first (query_tokens keeps the first ones if it must cut)."""
    parts = [diagnosis.bottleneck]
    if diagnosis.bound:
        parts.append(_BOUND_WORDS[diagnosis.bound])
    for pipe, ratio in sorted(diagnosis.pipe_ratios.items(), key=lambda kv: -kv[1]):
        key = _pipe_key(pipe)
        if key and ratio >= DOMINANT_RATIO:
            parts.append(_PIPE_WORDS[key])
    parts.append(diagnosis.hot_code)
    return "\n".join(p for p in parts if p)


def _filter_sql(filters: SearchFilters) -> tuple[str, list[object]]:
    clauses: list[str] = []
    args: list[object] = []
    if filters.family_prefix:
        clauses.append("(l.family = ? OR l.family LIKE ? ESCAPE '\\')")
        args += [filters.family_prefix.rstrip("."), families.like_pattern(filters.family_prefix)]
    if filters.layout:
        clauses.append("(l.layout IS NULL OR l.layout = ?)")
        args.append(filters.layout)
    if filters.dtype:
        clauses.append("(l.dtypes = '[]' OR EXISTS (SELECT 1 FROM json_each(l.dtypes) WHERE value = ?))")
        args.append(filters.dtype)
    return "".join(f" AND {c}" for c in clauses), args


def search(
    conn: sqlite3.Connection,
    diagnosis: Diagnosis,
    k: int,
    filters: SearchFilters | None = None,
) -> list[ScoredLesson]:
    """Top-k lessons for the diagnosis, at most one per family, best first."""
    match = fts_match(query_tokens(diagnosis_text(diagnosis)))
    if match is None or k <= 0:
        return []
    where, args = _filter_sql(filters or SearchFilters())
    weights = ", ".join(str(w) for w in COLUMN_WEIGHTS)
    rows = conn.execute(
        f"""SELECT l.body, bm25(lessons_fts, {weights}) AS rank
            FROM lessons_fts JOIN lessons AS l ON l.rowid = lessons_fts.rowid
            WHERE lessons_fts MATCH ?{where}
            ORDER BY rank LIMIT ?""",
        [match, *args, POOL],
    ).fetchall()
    scored: list[ScoredLesson] = []
    for body, rank in rows:
        entry = ExperienceEntry.model_validate_json(body)
        score = -float(rank)  # SQLite's bm25 is negative, lower is better
        if diagnosis.bound and entry.bound == diagnosis.bound:
            score *= BOUND_BONUS
        scored.append(ScoredLesson(entry=entry, score=score))
    scored.sort(key=lambda s: -s.score)
    return best_per_family(scored, k)


def best_per_family(scored: list[ScoredLesson], k: int) -> list[ScoredLesson]:
    """Keep the first (best) lesson of each family: k near-duplicates would waste the LLM's prompt."""
    out: list[ScoredLesson] = []
    seen: set[str] = set()
    for s in scored:
        if s.entry.family in seen:
            continue
        seen.add(s.entry.family)
        out.append(s)
        if len(out) == k:
            break
    return out
