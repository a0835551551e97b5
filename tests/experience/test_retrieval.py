from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ascendopt.experience.bank import Bank
from ascendopt.experience.quality import load_labelled, recall_at_k
from ascendopt.experience.records import Diagnosis, ExperienceEntry, SearchFilters
from ascendopt.experience.retrieval import LessonRetriever, diagnosis_text
from ascendopt.experience.text import fts_match, query_tokens, words
from tests.experience.conftest import LABELLED, entry


def test_identifiers_are_indexed_whole_and_in_parts() -> None:
    assert words("PipeBarrier<PIPE_ALL>()") == ["pipebarrier", "pipe", "barrier", "pipe_all", "pipe", "all"]
    assert words("DataCopyPad fp16") == ["datacopypad", "data", "copy", "pad", "fp16"]
    assert query_tokens("the barrier AND the barrier") == ["barrier"]  # stopwords, 'and', repeats dropped


@pytest.mark.parametrize(
    "text",
    [
        "NEAR(a b",
        'x" OR "y',
        "col:value",
        "a*",
        "^start",
        "AND",
        "OR NOT",
        "(((",
        '"',
        "+-*/",
        "",
        "\x00",
        "中文 瓶颈",
    ],
)
def test_fts_syntax_in_user_text_never_raises(bank: Bank, text: str) -> None:
    bank.add(entry(bottleneck="near and or not col value start"))
    bank.search(Diagnosis(bottleneck=text, hot_code=text), 3)


@settings(max_examples=150, deadline=None)
@given(st.text())
def test_any_text_makes_a_valid_query(text: str) -> None:
    match = fts_match(query_tokens(text))
    if match is None:
        return
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE t USING fts5(a, tokenize = \"porter unicode61 tokenchars '_'\")")
    conn.execute("INSERT INTO t VALUES ('something')")
    conn.execute("SELECT * FROM t WHERE t MATCH ?", (match,)).fetchall()


def _lessons(bank: Bank) -> dict[str, ExperienceEntry]:
    lessons = {
        "barrier": entry(
            title="Remove full pipe barriers",
            family="kernel.sync.remove_barrier",
            bound="sync",
            bottleneck="PipeBarrier PIPE_ALL after every copy stalls the pipes",
            layout=None,
            dtypes=[],
        ),
        "barrier_fp32": entry(
            title="Remove barriers around fp32 casts",
            family="kernel.sync.remove_barrier",
            bound="sync",
            bottleneck="barrier after Cast",
            dtypes=["float32"],
        ),
        "scalar": entry(
            title="Vectorise the scalar loop",
            family="kernel.vectorize.scalar_loop",
            bound="scalar",
            bottleneck="GetValue SetValue loop keeps the scalar pipe busy",
            layout="kernel_launch",
            dtypes=[],
        ),
        "dbuf": entry(),  # double buffering, msopgen, float16
    }
    for e in lessons.values():
        bank.add(e)
    return lessons


def test_best_lesson_per_family_and_the_diagnosis_terms_rank(bank: Bank) -> None:
    ls = _lessons(bank)
    hits = bank.search(Diagnosis(bottleneck="pipe barrier stalls after every copy"), 3)
    families = [h.family for h in hits]
    assert families[0] == "kernel.sync.remove_barrier"
    assert len(families) == len(set(families))  # two barrier lessons match; only the better one is kept
    assert hits[0].id == ls["barrier"].id


def test_filters_by_family_prefix_layout_and_dtype(bank: Bank) -> None:
    ls = _lessons(bank)
    everything = Diagnosis(bottleneck="barrier scalar loop copy serialised GetValue buffer")

    def ids(filters: SearchFilters) -> set[str]:
        return {e.id for e in bank.search(everything, 10, filters)}

    assert ids(SearchFilters(family_prefix="kernel.vectorize")) == {ls["scalar"].id}
    # layout: a lesson for another layout is out; one with no layout is general and stays in
    assert ls["scalar"].id not in ids(SearchFilters(layout="msopgen"))
    assert ls["barrier"].id in ids(SearchFilters(layout="msopgen"))
    # dtype: float16 drops the float32-only lesson, so the other barrier lesson represents the family
    got = ids(SearchFilters(dtype="float16"))
    assert ls["barrier_fp32"].id not in got and ls["dbuf"].id in got
    assert ls["dbuf"].id not in ids(SearchFilters(dtype="float32"))


def test_bound_breaks_a_tie_between_equally_worded_lessons(bank: Bank) -> None:
    a = entry(title="x", family="kernel.a", bottleneck="slow copies", bound="memory")
    b = entry(title="x", family="kernel.b", bottleneck="slow copies", bound="vector")
    bank.add_many([a, b])
    assert bank.search(Diagnosis(bottleneck="slow copies", bound="vector"), 1)[0].id == b.id
    assert bank.search(Diagnosis(bottleneck="slow copies", bound="memory"), 1)[0].id == a.id


def test_pipe_ratios_and_hot_code_feed_the_query() -> None:
    d = Diagnosis(pipe_ratios={"aiv_scalar_ratio": 0.9, "aiv_vec_ratio": 0.05}, hot_code="x.GetValue(i)")
    text = diagnosis_text(d)
    assert "scalar loop" in text and "vector compute" not in text and "GetValue" in text


def test_an_empty_diagnosis_returns_nothing(bank: Bank) -> None:
    _lessons(bank)
    assert bank.search(Diagnosis(), 3) == []


def test_the_bank_is_a_lesson_retriever(bank: Bank) -> None:
    retriever: LessonRetriever = bank
    _lessons(bank)
    assert (
        retriever.retrieve(Diagnosis(bottleneck="GetValue loop"), 1)[0].family
        == "kernel.vectorize.scalar_loop"
    )


def test_recall_at_3_on_the_labelled_diagnoses(tmp_path: Path) -> None:
    queries = load_labelled(LABELLED)
    assert len(queries) >= 20
    with Bank.open(tmp_path) as bank:
        families = {e.family for e in bank.all()}
        assert {q.expect for q in queries} <= families  # every label names a family the seeds hold
        report = recall_at_k(bank, queries, 3)
    # 14 families: chance is ~0.21. Measured 1.0 when written; a drop below 0.9 is a regression.
    assert report.recall >= 0.9, report.misses
