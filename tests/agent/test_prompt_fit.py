"""Prompt fitting: files ordered by what the profile says matters, what does not fit named."""

from __future__ import annotations

from pydantic import SecretStr

from ascendopt.agent.llm import LLMSettings
from ascendopt.agent.prompt_fit import HOST, HOT, INCLUDED, KERNEL, fit, fit_for, rank, sources_block

KERNEL_SRC = '#include "kernel_operator.h"\n#include "add_tile.h"\nextern "C" __global__ void add() {}\n'
FILES = [
    ("op_host/add.cpp", "host " * 40, "editable"),
    ("op_kernel/add.cpp", KERNEL_SRC, "editable"),
    ("op_kernel/add_tile.h", "tile " * 40, "read-only"),
    ("op_kernel/hot.h", "hot " * 40, "editable"),
    ("README.md", "notes " * 40, "read-only"),
]


def words(text: str) -> int:  # a stand-in tokenizer: one token a word
    return len(text.split())


def _ranked():  # type: ignore[no-untyped-def]
    return rank(
        FILES,  # type: ignore[arg-type]
        kernel="op_kernel/add.cpp",
        host=["op_host/add.cpp"],
        hot_lines=["/build/op/op_kernel/hot.h:12 (31%)", "op_kernel/add.cpp:3 (20%)", "hot.h:14"],
    )


def test_the_hot_files_come_first_then_the_kernel_its_headers_and_the_host() -> None:
    ranked = _ranked()
    assert [(f.path, f.priority) for f in ranked] == [
        ("op_kernel/hot.h", HOT),  # the hottest line first (a longer path in the trace)
        ("op_kernel/add.cpp", HOT),
        ("op_kernel/add_tile.h", INCLUDED),
        ("op_host/add.cpp", HOST),
        ("README.md", 4),
    ]
    without_profile = rank(FILES, kernel="op_kernel/add.cpp", host=["op_host/add.cpp"])  # type: ignore[arg-type]
    assert [f.priority for f in without_profile][:2] == [KERNEL, INCLUDED]


def test_a_tiny_budget_keeps_the_first_files_and_names_the_rest() -> None:
    ranked = _ranked()
    fitted = fit("fixed text " * 10, ranked, budget=120, count=words, counting="words")
    assert [f.path for f in fitted.included] == ["op_kernel/hot.h", "op_kernel/add.cpp"]
    assert fitted.left_out == ["op_kernel/add_tile.h", "op_host/add.cpp", "README.md"]
    assert fitted.tokens <= 120
    block = sources_block(fitted)
    assert block.startswith("--- op_kernel/hot.h ---\nhot hot")
    assert "Not shown, for lack of room in the model's context (the prompt may take 120 tokens): " in block
    assert block.rstrip().endswith(
        "op_kernel/add_tile.h, op_host/add.cpp, README.md. Do not edit a file you were not shown."
    )
    everything = fit("fixed", ranked, budget=10_000, count=words, counting="words")
    assert everything.left_out == [] and "Not shown" not in sources_block(everything)
    assert "--- op_kernel/add_tile.h (read-only: for reference, do not edit) ---" in sources_block(everything)


def test_fit_for_counts_the_template_against_the_models_context() -> None:
    settings = LLMSettings(base_url="http://127.0.0.1:9/v1", model="m", api_key=SecretStr("k"))
    values = {"operator": "add", "layout": "msopgen", "profile": "(none)", "profile_label": "x"}
    values |= {"findings": "none", "tried": "none"}
    roomy = fit_for(settings.model_copy(update={"context_tokens": 65_536}), "diagnose", _ranked(), **values)
    assert roomy.left_out == [] and 0 < roomy.tokens < 65_536
    need = roomy.tokens
    small = settings.model_copy(update={"context_tokens": need + 100 - 80, "max_tokens": 100})
    tight = fit_for(small, "diagnose", _ranked(), **values)
    assert tight.left_out and tight.tokens <= need - 80
    assert tight.included[0].path == "op_kernel/hot.h"  # what was kept is what matters most
