"""The realistic-reply corpus (tests/agent/reply_corpus.py) through the parser and the audit, the
fuzzy ladder's edges, linear-time parsing, and the send-back of an edit that does not apply."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

import pytest

from ascendopt.agent.edits import EditRejected, edit_files
from ascendopt.agent.rewrite import Rejection, ask_for_edits
from tests.agent import reply_corpus
from tests.agent.reply_corpus import CORPUS, EDITABLE, HOST, KERNEL, run, start_files


@pytest.mark.parametrize("sample", CORPUS, ids=[s.name for s in CORPUS])
def test_each_reply_has_its_outcome(sample: reply_corpus.Sample) -> None:
    result = run(sample)
    assert result.status == sample.outcome, result.why
    if sample.outcome == "refused":
        assert sample.contains in result.why, result.why
        return
    start = start_files()
    assert {p for p in result.files if result.files[p] != start.get(p)} == sample.changed, result.why
    if sample.outcome == "audit":
        assert sample.contains in result.why
    else:
        assert any(sample.contains in result.files[p] for p in sample.changed), result.why


def test_the_corpus_covers_the_styles_and_prints_as_a_table() -> None:
    assert len(CORPUS) >= 12
    assert {"applied", "refused", "audit"} == {s.outcome for s in CORPUS}
    table = reply_corpus.table()
    print("\n" + table)
    assert all(s.name in table for s in CORPUS)


def _edit(reply: str, files: dict[str, str] | None = None) -> dict[str, str]:
    return edit_files(reply, files or start_files(), EDITABLE)


def _block(search: str, replace: str, file: str = KERNEL) -> str:
    return f"FILE: {file}\n<<<<<<< SEARCH\n{search}\n=======\n{replace}\n>>>>>>> REPLACE\n"


def test_a_looser_rung_never_guesses_between_two_places() -> None:
    # CopyIn and CopyOut both hold this line: once its tab is ignored, an error, not a guess
    copy = "AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};"
    with pytest.raises(EditRejected, match=r"more than once .*ignoring indentation"):
        _edit(_block("\t" + copy, "x"))
    # an elided search whose first piece is every method's opening brace
    with pytest.raises(EditRejected, match=r"occurs more than once .*ignoring trailing whitespace"):
        _edit(_block("    {\n    ...\n    }", "x"))


def test_an_elided_search_keeps_the_run_its_replacement_elides_too() -> None:
    files = _edit(
        _block(
            "    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)\n    {\n    ...\n    }",
            "    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)\n    {\n"
            "        // copy-out\n        ...\n    }",
        )
    )
    text = files[KERNEL]
    assert "        // copy-out\n        AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();" in text
    assert "outQueueZ.FreeTensor(zLocal);\n    }\n\n    AscendC::TPipe pipe;" in text
    with pytest.raises(EditRejected, match="elides 2 runs"):
        _edit(
            _block(
                "    __aicore__ inline void CopyOut(uint32_t progress, uint32_t count)\n...\n    }",
                "...\n...",
            )
        )


def test_a_crlf_file_keeps_its_line_ends() -> None:
    files = start_files()
    files[KERNEL] = files[KERNEL].replace("\n", "\r\n")
    out = _edit(
        _block(
            "CopyIn(i, count);\n            Compute(count);", "CopyIn(i, count);\n  Compute(count);  // c"
        ),
        files,
    )
    assert "            Compute(count);  // c\r\n" in out[KERNEL]
    assert out[KERNEL].count("\r\n") == files[KERNEL].count("\r\n")


def test_file_names_resolve_only_to_editable_paths() -> None:
    assert set(
        _edit(_block("  TILING_DATA_FIELD_DEF(uint32_t, totalLength);", "", "add_custom_tiling.h"))
    ) >= {reply_corpus.TILING_H}
    with pytest.raises(EditRejected, match=r"could be op_host/add_custom\.cpp or op_kernel/add_custom\.cpp"):
        _edit(_block("x", "y", "add_custom.cpp"))
    for bad in ("/etc/passwd", "../op_kernel/add_custom.cpp", "op_kernel/../reference.py", "reference.py"):
        with pytest.raises(EditRejected, match="not the operator's kernel or tiling program"):
            _edit(_block("import numpy as np", "x", bad))
    with pytest.raises(EditRejected, match="deletes"):
        _edit(f'--- a/{HOST}\n+++ /dev/null\n@@ -1 +0,0 @@\n-#include "add_custom_tiling.h"\n')


def test_explicit_edits_win_over_fenced_snippets_and_unnamed_code_is_sent_back() -> None:
    reply = "The loop now reads:\n```cpp\nfor (;;) {}\n```\n" + _block(
        "constexpr int32_t BUFFER_NUM = 1;", "constexpr int32_t BUFFER_NUM = 2;"
    )
    assert "BUFFER_NUM = 2" in _edit(reply)[KERNEL]
    with pytest.raises(EditRejected, match="names no file") as info:
        _edit("Here it is:\n```cpp\nint main() {}\n```\n")
    assert info.value.fixable


def _cpu_seconds(action: Callable[[], object]) -> float:
    """The least CPU time of three runs: this process's own, so other load on the machine does not count."""
    best = float("inf")
    for _ in range(3):
        began = time.process_time()
        with contextlib.suppress(EditRejected):
            action()
        best = min(best, time.process_time() - began)
    return max(best, 1e-4)


def _growth(make: Callable[[int], Callable[[], object]], size: int) -> float:
    """How much dearer the work is at 8x the size: about 8 when linear, about 64 when quadratic."""
    return _cpu_seconds(make(size * 8)) / _cpu_seconds(make(size))


@pytest.mark.parametrize(
    "unit",
    [
        "<<<<<<< SEARCH\n",
        "@@ -1 +1 @@\n",
        "@@ -1 +1 @@\n-a\n+b\n",
        "FILE: op_kernel/add_custom.cpp\n<<<<<<< SEARCH\n"
        + "    }\n" * 20_000
        + "=======\n>>>>>>> REPLACE\n",
        "```\n",
        "--- a/x\n+++ b/x\n",
        "FILE: op_kernel/add_custom.cpp\n",
        "-" * 50 + "\n",
        " `a.cpp` `b.cpp` **x**:\n",
        "x" * 10_000 + "\n",
    ],
)
def test_a_flood_of_any_marker_parses_in_linear_time(unit: str) -> None:
    # A cost ratio, not a time limit: the absolute figures live in benchmarks/reply_corpus.py.
    def flood(size: int) -> Callable[[], object]:
        text = unit * max(1, size // len(unit))
        return lambda: edit_files(text, start_files(), EDITABLE)

    assert _growth(flood, 125_000) < 24


def test_a_flood_of_lines_to_search_locates_fast() -> None:
    def locate(lines: int) -> Callable[[], object]:
        files = start_files()
        files[KERNEL] += "    }\n" * lines
        search = "\n".join(["    }"] * (lines // 20))

        def both() -> None:
            with pytest.raises(EditRejected, match="occurs"):
                _edit(_block(search, "x"), files)
            with pytest.raises(EditRejected, match="does not occur"):
                _edit(_block(search + "\n    {", "x"), files)

        return both

    assert _growth(locate, 7_500) < 24


class _Script:
    """A stand-in for LLMClient.chat: the replies in order, and every conversation it was sent."""

    def __init__(self, *replies: str) -> None:
        self.replies = list(replies)
        self.calls: list[tuple[list[dict[str, str]], str]] = []

    async def chat(self, messages: list[dict[str, str]], purpose: str) -> str:
        self.calls.append((messages, purpose))
        return self.replies.pop(0)


BAD = _block("    this line is not in the kernel;\n            Compute(count);", "    nothing;")
GOOD = reply_corpus.BY_NAME["two-files-aider-style"].text


async def test_an_edit_that_does_not_apply_is_sent_back_once_with_its_error() -> None:
    llm = _Script(BAD, GOOD)
    out = await ask_for_edits(llm, start_files(), EDITABLE, "rewrite", "rewrite")  # type: ignore[arg-type]
    assert not isinstance(out, Rejection), out
    assert "BUFFER_NUM = 2" in out[0][KERNEL] and out[1] == GOOD
    (first, _), (second, purpose) = llm.calls
    assert second[: len(first)] == first and purpose == "rewrite (edits sent back)"
    assert second[-2] == {"role": "assistant", "content": BAD}
    assert "block 1: this text does not occur in op_kernel/add_custom.cpp" in second[-1]["content"]
    assert "Compute(count);" in second[-1]["content"]  # the closest lines


async def test_a_second_failure_is_refused_with_both_reasons_and_unfixable_ones_are_not_sent_back() -> None:
    llm = _Script(BAD, "no more edits")
    out = await ask_for_edits(llm, start_files(), EDITABLE, "rewrite", "rewrite")  # type: ignore[arg-type]
    assert isinstance(out, Rejection) and out.stage == "apply"
    assert "does not occur" in out.reason and "second reply: the reply holds no SEARCH/REPLACE" in out.reason
    for name in ("diff-not-editable", "cut-mid-block", "prose-only"):
        llm = _Script(reply_corpus.BY_NAME[name].text)
        out = await ask_for_edits(llm, start_files(), EDITABLE, "rewrite", "rewrite")  # type: ignore[arg-type]
        assert isinstance(out, Rejection) and len(llm.calls) == 1, name
