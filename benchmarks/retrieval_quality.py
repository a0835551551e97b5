"""Recall@k of experience retrieval (BM25 over the bank) on the labelled diagnoses.

    .venv/bin/python benchmarks/retrieval_quality.py [--k 1 3] [--misses] [--queries FILE]

The bank is a fresh one holding the shipped seed lessons (one lesson per family), so a hit means
the query found the one lesson of its family among them. Each run is done twice: on the full
diagnosis (bottleneck text, bound, pipe ratios, hot code) and on the bottleneck text alone.
Prints figures; asserts nothing. Caveat: the queries were written by the author of the seed
lessons, so the figures flatter both; they are a regression check, not a field measurement.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from ascendopt.experience.bank import Bank
from ascendopt.experience.quality import LabelledQuery, load_labelled, recall_at_k
from ascendopt.experience.records import Diagnosis

REPO = Path(__file__).resolve().parents[1]


def _text_only(queries: list[LabelledQuery]) -> list[LabelledQuery]:
    return [
        LabelledQuery(expect=q.expect, diagnosis=Diagnosis(bottleneck=q.diagnosis.bottleneck))
        for q in queries
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="+", default=[1, 3], help="recall@k for each k given")
    parser.add_argument(
        "--queries", type=Path, default=REPO / "tests" / "experience" / "labelled_queries.json"
    )
    parser.add_argument("--misses", action="store_true", help="list the queries that missed")
    args = parser.parse_args()

    queries = load_labelled(args.queries)
    variants = {"full diagnosis": queries, "bottleneck text only": _text_only(queries)}
    with tempfile.TemporaryDirectory() as tmp, Bank.open(Path(tmp)) as bank:
        families = {e.family for e in bank.all()}
        print(
            f"bank: {bank.count()} seed lessons in {len(families)} families; {len(queries)} labelled queries"
        )
        for name, qs in variants.items():
            for label, retriever in [("bm25", bank)]:
                for k in args.k:
                    start = time.perf_counter()
                    report = recall_at_k(retriever, qs, k)
                    ms = (time.perf_counter() - start) * 1000 / max(1, len(qs))
                    print(
                        f"recall@{k} {name:22s} {label:28s} {report.recall:.3f} "
                        f"({report.hits}/{report.queries}), {ms:.1f} ms/query"
                    )
                    if args.misses:
                        for miss in report.misses:
                            print(f"    miss: {miss}")


if __name__ == "__main__":
    main()
