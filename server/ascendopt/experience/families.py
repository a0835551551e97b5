"""Family tags: matching by prefix, and guessing a family for a lesson that came without one.

Families are dotted (`kernel.sync.remove_barrier`); a prefix selects a subtree on dot
boundaries, so `kernel.sync` matches `kernel.sync.remove_barrier` but not `kernel.synchronous`.
"""

from __future__ import annotations

import re

UNCLASSIFIED = "imported.unclassified"

# family → patterns that point at it in a lesson's text (title, description, bottleneck, diff).
# Ordered roughly from specific to general; the family with most hits wins, ties go to the first.
FAMILY_PATTERNS: dict[str, list[str]] = {
    "kernel.pipeline.double_buffer": [r"double[- ]?buffer", r"\bBUFFER_NUM\b", r"ping[- ]?pong"],
    "kernel.sync.remove_barrier": [r"PipeBarrier", r"PIPE_ALL", r"\bbarrier", r"SetFlag|WaitFlag"],
    "kernel.vectorize.scalar_loop": [r"GetValue", r"SetValue", r"scalar loop", r"element[- ]wise loop"],
    "kernel.datacopy.pad_tail": [r"DataCopyPad", r"\btail\b", r"unaligned"],
    "kernel.datacopy.burst": [r"blockCount", r"DataCopyParams", r"\bburst", r"strided cop"],
    "kernel.precision.fp32_accumulate": [r"\bfp32 accum", r"accumulat\w* in fp32", r"\bCast\b.*float"],
    "kernel.loop.hoist_invariant": [r"\bhoist", r"loop[- ]invariant", r"Duplicate"],
    "kernel.fusion.single_pass": [r"\bfus(e|ion|ing)\b", r"second pass", r"single pass", r"one pass"],
    "kernel.memory.gm_roundtrip": [r"redundant (GM )?write", r"workspace", r"round[- ]?trip"],
    "kernel.memory.ub_reuse": [r"in[- ]place", r"reuse (the )?(UB|buffer)", r"TBuf"],
    "kernel.vectorize.batch_calls": [r"repeat(Times| times)", r"\bmask\b", r"per[- ]repeat"],
    "host.tiling.block_dim": [r"SetBlockDim", r"block[_ ]?dim", r"GetCoreNumAiv", r"all (vector )?cores"],
    "host.tiling.tile_length": [r"tile[_ ]?length", r"\bUB (budget|size)", r"GetCoreMemSize", r"tiling"],
    "host.tiling.balance_cores": [r"load[- ]balanc", r"imbalanc", r"former|tail core", r"big core"],
}


def matches(family: str, prefix: str | None) -> bool:
    if not prefix:
        return True
    prefix = prefix.rstrip(".")
    return family == prefix or family.startswith(prefix + ".")


def like_pattern(prefix: str) -> str:
    """The SQL LIKE pattern for the strict descendants of a prefix (`_`/`%` escaped with `\\`)."""
    escaped = prefix.rstrip(".").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + ".%"


def infer_family(text: str) -> str:
    best, best_hits = UNCLASSIFIED, 0
    for family, patterns in FAMILY_PATTERNS.items():
        hits = sum(1 for p in patterns if re.search(p, text, re.IGNORECASE))
        if hits > best_hits:
            best, best_hits = family, hits
    return best
