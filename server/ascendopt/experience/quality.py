"""Retrieval quality on labelled diagnoses: does the family a diagnosis calls for come back in the top k?"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel

from ascendopt.experience.records import Diagnosis
from ascendopt.experience.retrieval import LessonRetriever


class LabelledQuery(BaseModel):
    expect: str  # the family a good retriever returns for this diagnosis
    diagnosis: Diagnosis


class QualityReport(BaseModel):
    k: int
    queries: int
    hits: int
    misses: list[str]  # "expected family ← got f1, f2, f3: bottleneck…"

    @property
    def recall(self) -> float:
        return self.hits / self.queries if self.queries else 0.0


def load_labelled(path: Path) -> list[LabelledQuery]:
    return [LabelledQuery.model_validate(q) for q in json.loads(Path(path).read_text(encoding="utf-8"))]


def recall_at_k(retriever: LessonRetriever, queries: list[LabelledQuery], k: int = 3) -> QualityReport:
    hits, misses = 0, []
    for q in queries:
        got = [e.family for e in retriever.retrieve(q.diagnosis, k)]
        if q.expect in got:
            hits += 1
        else:
            misses.append(f"{q.expect} ← {', '.join(got) or 'nothing'}: {q.diagnosis.bottleneck[:70]}")
    return QualityReport(k=k, queries=len(queries), hits=hits, misses=misses)
