"""Realistic rewrite replies for add_custom (single-buffered start: BUFFER_NUM 1 on both sides), in
the styles models actually answer in, written by us. Each has what must come of it: applied (the
files that change and a piece of the new text), refused by the parser (a piece of the reason), or
applied by the parser and then refused by the judge's audit (a piece of the audit rule).

tests/agent/test_reply_corpus.py runs them through the parser and the audit; the slow tests there
send some of them through the real `openai` client and episode; benchmarks/reply_corpus.py prints
the table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

TEMPLATE = Path(__file__).resolve().parents[2] / "templates" / "operators" / "add_custom"
KERNEL = "op_kernel/add_custom.cpp"
HOST = "op_host/add_custom.cpp"
TILING_H = "op_host/add_custom_tiling.h"
EDITABLE = [KERNEL, HOST, TILING_H]

K_BUF1 = (
    "constexpr int32_t BUFFER_NUM = 1;  // double buffering: copy-in of tile i+1 overlaps compute of tile i"
)
K_BUF2 = K_BUF1.replace("= 1;", "= 2;")
H_BUF1 = "constexpr uint32_t BUFFER_NUM = 1;      // must match the kernel's BUFFER_NUM"
H_BUF2 = H_BUF1.replace("= 1;", "= 2;")
COPY_PARAMS = (
    "       AscendC::DataCopyExtParams params{1, static_cast<uint32_t>(count * sizeof(T)), 0, 0, 0};"
)


def start_files() -> dict[str, str]:
    """The operator's files as the episode starts them (single buffering on both sides)."""
    files = {p: (TEMPLATE / p).read_text() for p in (*EDITABLE, "reference.py")}
    files[KERNEL] = files[KERNEL].replace(
        "constexpr int32_t BUFFER_NUM = 2;", "constexpr int32_t BUFFER_NUM = 1;"
    )
    files[HOST] = files[HOST].replace(
        "constexpr uint32_t BUFFER_NUM = 2;", "constexpr uint32_t BUFFER_NUM = 1;"
    )
    return files


@dataclass
class Sample:
    name: str
    style: str  # what it imitates
    text: str
    outcome: str  # applied | refused | audit
    changed: set[str] = field(default_factory=set)  # applied/audit: the files that change
    contains: str = ""  # applied: in the new text of a changed file; refused/audit: in the reason


def _whole(path: str, text: str, how: str) -> str:
    if how == "comment":
        return (
            "Double buffering lets MTE2 fetch tile i+1 while the vector unit adds tile i. The complete "
            f"kernel:\n\n```cpp\n// file: {path}\n{text}```\n\n"
            "The host side already sizes tiles by BUFFER_NUM."
        )
    return f"## Updated `{path}`\n\n```cpp\n{text}```\n\nNothing else changes.\n"


def _corpus() -> list[Sample]:
    f = start_files()
    kernel2 = f[KERNEL].replace(K_BUF1, K_BUF2)
    host2 = f[HOST].replace(H_BUF1, H_BUF2)
    crlf = (
        "I'll overlap copy-in with compute.\r\n\r\nFILE: op_kernel/add_custom.cpp\r\n<<<<<<< SEARCH\r\n"
        "\tfor (uint32_t i = 0; i < tileCount; i++) {  \r\n"
        "\t\tuint32_t count = (i == tileCount - 1) ? length - i * tileLength : tileLength;\r\n"
        "=======\r\n"
        "\tfor (uint32_t i = 0; i < tileCount; ++i) {\r\n"
        "\t\tuint32_t count = (i + 1 == tileCount) ? length - i * tileLength : tileLength;  // tail tile\r\n"
        ">>>>>>> REPLACE\r\n"
    )
    return [
        Sample(
            "prose-fenced-diff",
            "explanation, then a ```diff of both files (blank context lines without their space)",
            "The profile shows MTE2 and the vector pipe taking turns: with BUFFER_NUM = 1 the copy-in of\n"
            "tile i+1 waits for tile i to be computed. Raising BUFFER_NUM to 2 on both sides fixes it:\n\n"
            "```diff\n"
            "--- a/op_kernel/add_custom.cpp\n+++ b/op_kernel/add_custom.cpp\n"
            "@@ -1,5 +1,5 @@\n"
            ' #include "kernel_operator.h"\n'
            "\n"
            f"-{K_BUF1}\n+{K_BUF2}\n"
            "\n"
            " template <typename T>\n"
            "--- a/op_host/add_custom.cpp\n+++ b/op_host/add_custom.cpp\n"
            "@@ -6,3 +6,3 @@\n"
            " constexpr uint32_t TILE_LENGTH = 4096;  // elements per UB tile\n"
            f"-{H_BUF1}\n+{H_BUF2}\n"
            " constexpr uint32_t BLOCK_BYTES = 32;    // GM<->UB copies move whole 32 B blocks\n"
            "```\n\nThis keeps the tiling's UB budget consistent with the kernel's queues.\n",
            "applied",
            {KERNEL, HOST},
            "BUFFER_NUM = 2",
        ),
        Sample(
            "whole-file-comment",
            "the whole kernel in a ```cpp fence, its first line `// file: <path>`",
            _whole(KERNEL, kernel2, "comment"),
            "applied",
            {KERNEL},
            K_BUF2,
        ),
        Sample(
            "whole-file-heading",
            "a markdown heading naming the file, then the whole file",
            _whole(HOST, host2, "heading"),
            "applied",
            {HOST},
            H_BUF2,
        ),
        Sample(
            "search-ellipsis",
            "SEARCH with `// ...` standing for the loop body",
            "Hoisting the tail computation out of the loop:\n\n"
            "FILE: op_kernel/add_custom.cpp\n<<<<<<< SEARCH\n"
            "        uint32_t tileCount = (length + tileLength - 1) / tileLength;\n"
            "        for (uint32_t i = 0; i < tileCount; i++) {\n"
            "            // ...\n"
            "        }\n"
            "=======\n"
            "        uint32_t tileCount = (length + tileLength - 1) / tileLength;\n"
            "        for (uint32_t i = 0; i + 1 < tileCount; i++) {\n"
            "            CopyIn(i, tileLength);\n            Compute(tileLength);\n"
            "            CopyOut(i, tileLength);\n"
            "        }\n"
            "        uint32_t last = tileCount - 1;\n"
            "        uint32_t rest = length - last * tileLength;\n"
            "        CopyIn(last, rest);\n        Compute(rest);\n        CopyOut(last, rest);\n"
            ">>>>>>> REPLACE\n",
            "applied",
            {KERNEL},
            "        CopyOut(last, rest);\n    }\n\nprivate:",
        ),
        Sample(
            "search-wrong-indent",
            "SEARCH copied without the class's indentation",
            "FILE: op_kernel/add_custom.cpp\n<<<<<<< SEARCH\n"
            "for (uint32_t i = 0; i < tileCount; i++) {\n"
            "    uint32_t count = (i == tileCount - 1) ? length - i * tileLength : tileLength;\n"
            "=======\n"
            "for (uint32_t i = 0; i < tileCount; i++) {\n"
            "    uint32_t count = i + 1 < tileCount ? tileLength : length - i * tileLength;\n"
            ">>>>>>> REPLACE\n",
            "applied",
            {KERNEL},
            "\n            uint32_t count = i + 1 < tileCount ? tileLength",
        ),
        Sample(
            "search-tabs-crlf",
            "tab-indented SEARCH, CRLF line ends, trailing spaces",
            crlf,
            "applied",
            {KERNEL},
            "\n            uint32_t count = (i + 1 == tileCount) ? length - i * tileLength : tileLength;"
            "  // tail",
        ),
        Sample(
            "two-files-aider-style",
            "path line, ```cpp fence, SEARCH/REPLACE: kernel and host BUFFER_NUM",
            "Both sides must agree on BUFFER_NUM.\n\n"
            f"{KERNEL}\n```cpp\n<<<<<<< SEARCH\n{K_BUF1}\n=======\n{K_BUF2}\n>>>>>>> REPLACE\n```\n\n"
            f"{HOST}\n```cpp\n<<<<<<< SEARCH\n{H_BUF1}\n=======\n{H_BUF2}\n>>>>>>> REPLACE\n```\n",
            "applied",
            {KERNEL, HOST},
            "BUFFER_NUM = 2",
        ),
        Sample(
            "diff-wrong-line-numbers",
            "a unified diff whose @@ line numbers are far off",
            "```diff\n--- op_kernel/add_custom.cpp\n+++ op_kernel/add_custom.cpp\n"
            "@@ -140,6 +140,7 @@ class KernelAdd {\n"
            "         AscendC::LocalTensor<T> zLocal = outQueueZ.DeQue<T>();\n"
            f"  {COPY_PARAMS}\n"
            "         AscendC::DataCopyPad(zGm[progress * tileLength], zLocal, params);\n"
            "+        // the output queue is freed as soon as its tile is on its way out\n"
            "         outQueueZ.FreeTensor(zLocal);\n"
            "     }\n```\n",
            "applied",
            {KERNEL},
            "on its way out\n        outQueueZ.FreeTensor(zLocal);",
        ),
        Sample(
            "diff-two-hunks-fuzz",
            "two hunks; the second's last context line is wrong (patch --fuzz)",
            "--- a/op_kernel/add_custom.cpp\n+++ b/op_kernel/add_custom.cpp\n"
            "@@ -3 +3 @@\n"
            f"-{K_BUF1}\n+{K_BUF2}\n"
            "@@ -59,4 +59,4 @@\n"
            "         } else {\n"
            "-            AscendC::Add(zLocal, xLocal, yLocal, count);\n"
            "+            AscendC::Add<T>(zLocal, xLocal, yLocal, count);\n"
            "         }\n"
            "         outQueueZ.EnQue(zLocal);\n",
            "applied",
            {KERNEL},
            "AscendC::Add<T>(zLocal, xLocal, yLocal, count);",
        ),
        Sample(
            "header-edit",
            "SEARCH/REPLACE on the tiling-data header",
            f"FILE: {TILING_H}\n<<<<<<< SEARCH\n"
            "  TILING_DATA_FIELD_DEF(uint32_t, tileLength);     // elements per UB tile (32 B aligned)\n"
            "=======\n"
            "  TILING_DATA_FIELD_DEF(uint32_t, tileLength);     // elements per UB tile (32 B aligned)\n"
            "  TILING_DATA_FIELD_DEF(uint32_t, tileCount);      // tiles per core\n"
            ">>>>>>> REPLACE\n",
            "applied",
            {TILING_H},
            "TILING_DATA_FIELD_DEF(uint32_t, tileCount);",
        ),
        Sample(
            "diff-not-editable",
            "a diff of the reference the result is checked against",
            "The reference is too strict; relaxing it:\n\n```diff\n--- a/reference.py\n+++ b/reference.py\n"
            "@@ -1,2 +1,2 @@\n-import numpy as np\n+import numpy as np  # relaxed\n```\n",
            "refused",
            contains="not the operator's kernel or tiling program",
        ),
        Sample(
            "path-traversal-whole-file",
            "a whole file for a path outside the operator",
            "```cpp\n// file: ../../op_kernel/add_custom.cpp\nint x;\n```\n",
            "refused",
            contains="not the operator's kernel or tiling program",
        ),
        Sample(
            "cut-mid-block",
            "the reply hit the token limit inside a SEARCH/REPLACE block",
            f"FILE: {KERNEL}\n<<<<<<< SEARCH\n{K_BUF1}\n=======\n{K_BUF2}\n>>>>>>> REPLACE\n\n"
            f"FILE: {HOST}\n<<<<<<< SEARCH\n{H_BUF1}\n=======\nconstexpr uint32_t BUF",
            "refused",
            contains="truncated",
        ),
        Sample(
            "cut-mid-diff",
            "the reply hit the token limit inside a fenced diff",
            "```diff\n--- a/op_kernel/add_custom.cpp\n+++ b/op_kernel/add_custom.cpp\n@@ -3 +3 @@\n"
            f"-{K_BUF1}\n+constexpr int32_t BUFFER_NUM = 2;  // double buff",
            "refused",
            contains="truncated",
        ),
        Sample(
            "ambiguous-search",
            "SEARCH on a line CopyIn and CopyOut both hold",
            f"FILE: {KERNEL}\n<<<<<<< SEARCH\n"
            f" {COPY_PARAMS}\n"
            "=======\n"
            f" {COPY_PARAMS.replace('count * sizeof(T)', 'count) * static_cast<uint32_t>(sizeof(T)')}\n"
            ">>>>>>> REPLACE\n",
            "refused",
            contains="occurs 2 times",
        ),
        Sample(
            "search-not-in-file",
            "SEARCH text the model misremembered",
            f"FILE: {KERNEL}\n<<<<<<< SEARCH\n"
            "        for (int32_t i = 0; i < this->tileNum * BUFFER_NUM; i++) {\n"
            "            CopyIn(i);\n=======\n"
            "        for (int32_t i = 0; i < this->tileNum; i++) {\n"
            "            CopyIn(i);\n>>>>>>> REPLACE\n",
            "refused",
            contains="does not occur in op_kernel/add_custom.cpp",
        ),
        Sample(
            "whole-file-elided",
            "a 'whole file' with `// ... rest unchanged`",
            f"```cpp\n// file: {KERNEL}\n"
            + "\n".join(kernel2.split("\n")[:6])
            + "\n    // ... rest of the class unchanged ...\n};\n```\n",
            "refused",
            contains="leaves lines out",
        ),
        Sample(
            "whole-file-cstdio",
            "a whole kernel that adds #include <cstdio> and a printf",
            _whole(
                KERNEL,
                kernel2.replace(
                    '#include "kernel_operator.h"\n', '#include "kernel_operator.h"\n#include <cstdio>\n'
                ).replace("    op.Process();\n", '    op.Process();\n    std::printf("done\\n");\n'),
                "comment",
            ),
            "audit",
            {KERNEL},
            "include",
        ),
        Sample(
            "prose-only",
            "an explanation without any edit",
            "I would double buffer the queues and let the tiling pick a larger tile.",
            "refused",
            contains="no SEARCH/REPLACE block, unified diff or whole file",
        ),
    ]


CORPUS = _corpus()
BY_NAME = {s.name: s for s in CORPUS}


@dataclass
class Result:
    status: str  # applied | refused | audit
    why: str  # the changed files, or the parser's or the audit's reason
    files: dict[str, str]


def run(sample: Sample) -> Result:
    """The sample through the parser (the kernel rewriter's editable files), then the judge's audit."""
    from ascendopt.agent.edits import EditRejected, edit_files
    from ascendopt.evaluation.audit import audit_change

    start = start_files()
    try:
        files = edit_files(sample.text, start, EDITABLE)
    except EditRejected as exc:
        return Result("refused", str(exc), start)
    changed = sorted(p for p in files if files[p] != start.get(p))
    refusals = audit_change(start, files)
    if refusals:
        why = "; ".join(f"{r.rule} at {r.file}:{r.line}: {r.message}" for r in refusals)
        return Result("audit", f"audit refuses: {why}", files)
    return Result("applied", "changes " + ", ".join(changed), files)


def table() -> str:
    lines = [f"| {'reply':27} | {'style':58} | outcome | why |", f"|{'-' * 29}|{'-' * 60}|---------|-----|"]
    for sample in CORPUS:
        result = run(sample)
        why = " ".join(result.why.split())[:150]
        lines.append(f"| {sample.name:27} | {sample.style[:58]:58} | {result.status:7} | {why} |")
    return "\n".join(lines)
