"""Knobs a tiling function writes as locals, a cap on the platform's cores, and constants that are
no knobs by how they are used (issue 28 point 3): look-alike tiling sources written for these tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.operators import dataflow
from ascendopt.operators.candidate import KnobError, apply_knobs, baseline
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.extract import constants, core_count_reads, local_literals, more_constants
from ascendopt.operators.issues import Issue
from ascendopt.operators.knobs import core_cap_knobs, knobs_of
from ascendopt.operators.model import Knob, RefusedConstant, Side

from .cann_knobs_style import write_sub_like

_KERNEL = """
class Cmp {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, CmpTiling t) {
        tile_ = t.tileLen;
        rounds_ = t.rounds;
        pipe_.InitBuffer(inQ_, 2, tile_ * sizeof(half));
        pipe_.InitBuffer(outQ_, 2, tile_ * sizeof(half));
    }
    __aicore__ inline void Process() {
        for (uint32_t r = 0; r < rounds_; ++r) {
            DataCopy(xl_, xg_[r * tile_], tile_);
        }
    }
};
"""


def _find(
    host: str, kernel: str = _KERNEL, cores: int = 40
) -> tuple[dict[str, Knob], dict[str, RefusedConstant]]:
    """Knobs the way assemble finds them: the host's locals and core-count reads walked with the rest."""
    sources: list[tuple[CppSource, Side]] = [
        (CppSource.parse("op_host/t.cpp", host), "host"),
        (CppSource.parse("op_kernel/k.cpp", kernel), "kernel"),
    ]
    per = [
        (
            s,
            side,
            [
                *constants(s, side),
                *more_constants(s, side),
                *(local_literals(s, side) if side == "host" else []),
            ],
        )
        for s, side in sources
    ]
    reads = [(s, c) for s, side in sources if side == "host" for c in core_count_reads(s, side)]
    flow = dataflow.analyze(sources, [*((s, c) for s, _, cs in per for c in cs), *reads])
    knobs: list[Knob] = []
    refused: list[RefusedConstant] = []
    issues: list[Issue] = []
    for s, side, cs in per:
        knobs.extend(knobs_of(s, side, cs, issues, {}, flow.verdicts, refused))
    considered = [c for _, _, cs in per for c in cs]
    caps = core_cap_knobs([c for _, c in reads], flow.verdicts, cores, refused, list(knobs), considered)
    knobs.extend(caps)
    assert issues == []
    return {k.name: k for k in knobs}, {r.name: r for r in refused}


_HOST_WITH_LOCALS = """
static ge::graphStatus CmpTiling(gert::TilingContext* context) {
    CmpTilingData tiling;
    uint64_t ubSize;
    uint32_t partCount = 16;
    uint32_t dataSize = 2;
    uint32_t spare = 8;
    uint32_t moving = 4;
    uint32_t typeLen = 1;
    ge::TypeUtils::GetDataTypeLength(context->GetInputDesc(0)->GetDataType(), typeLen);
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    plat.GetCoreMemSize(platform_ascendc::CoreMemType::UB, ubSize);
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    auto coreNum = plat.GetCoreNumAiv();
    if (total > 4096) {
        moving = 8;
    }
    uint32_t tileLen = ubSize / partCount / dataSize / moving / typeLen;
    if (total < 32 * coreNum) {
        coreNum = total / 32;
    }
    context->SetBlockDim(coreNum);
    tiling.set_tileLen(tileLen);
    tiling.set_rounds(total / coreNum / tileLen);
    OP_LOGD(context, "spare %u", spare);
    return ge::GRAPH_SUCCESS;
}
"""


def test_a_local_that_splits_the_ub_is_a_knob_and_its_values_never_reach_zero() -> None:
    knobs, refused = _find(_HOST_WITH_LOCALS)
    parts = knobs["partCount"]
    assert (parts.role, parts.kind, parts.current) == ("ub_parts", "tile_num", 16)
    assert parts.range.start_line == 5 and parts.side == "host"
    # more parts: smaller tiles, always fit; fewer down to a quarter; a zero divisor is never offered
    assert min(parts.values) == 4 and max(parts.values) == 32 and 0 not in parts.values
    # the local read only by a log, a dtype size, a local written again: no knobs, each with why
    assert "spare" not in knobs and "reaches no tiling sink" in refused["spare"].reason
    assert "dataSize" not in knobs and "dataSize" in refused
    assert "moving" not in knobs and "moving" not in refused  # a variable, not a constant
    assert "typeLen" not in knobs and "typeLen" not in refused  # a getter's out-parameter: written


def test_the_platforms_core_count_launched_as_the_block_dim_becomes_a_cap() -> None:
    knobs, _ = _find(_HOST_WITH_LOCALS, cores=24)
    cap = knobs["coreNum_cap"]
    assert (cap.kind, cap.role, cap.current) == ("block_dim", "core_cap", 24)
    assert cap.values == list(range(1, 25))  # never more than the SoC has, never 0
    assert cap.range.start_line == 14
    # a core count read only to size a split, never launched: no cap
    host = _HOST_WITH_LOCALS.replace("context->SetBlockDim(coreNum);", "context->SetBlockDim(8);")
    knobs, refused = _find(host)
    assert "coreNum_cap" not in knobs and "not launched as the block dim" in refused["coreNum"].reason


def test_op_codes_compared_for_equality_are_no_knobs() -> None:
    host = """
constexpr uint32_t UB_PARTS_ERF = 9;
constexpr uint8_t ERF_CODE = 12;
constexpr uint8_t TAN_CODE = 15;
constexpr uint8_t ABS_CODE = 24;
class Dispatch {
public:
    void Init(uint8_t code) { opCode = code; }
    uint32_t Parts() {
        if (opCode <= TAN_CODE) {
            if (opCode == ERF_CODE) {
                return UB_PARTS_ERF;
            }
            return 4;
        }
        switch (opCode) {
            case ABS_CODE:
                return 2;
            default:
                return 3;
        }
    }
    uint8_t opCode;
};
static ge::graphStatus CmpTiling(gert::TilingContext* context) {
    Dispatch d;
    d.Init(ABS_CODE);
    CmpTilingData tiling;
    tiling.set_tileLen(196608 / d.Parts());
    context->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, refused = _find(host)
    for code in ("ERF_CODE", "TAN_CODE", "ABS_CODE"):
        assert code not in knobs, code
        assert "compared for equality" in refused[code].reason, refused[code].reason
    # the divisor the code picks is still a tiling size (its role from where it lands)
    assert "UB_PARTS_ERF" in knobs


def test_two_sizes_found_equal_name_nothing_the_tile_stays_a_knob() -> None:
    host = """
constexpr uint32_t TILE_ELEMS = 4096;
static ge::graphStatus CmpTiling(gert::TilingContext* context) {
    CmpTilingData tiling;
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t tileLen = TILE_ELEMS;
    uint32_t lastLen = total % tileLen;
    if (lastLen == tileLen) {
        lastLen = 0;
    }
    tiling.set_tileLen(tileLen);
    tiling.set_rounds(total / tileLen);
    context->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, _ = _find(host)
    assert knobs["TILE_ELEMS"].kind == "tile_length"


def test_a_32_byte_granule_sizes_are_rounded_to_is_no_knob() -> None:
    host = """
constexpr uint32_t kUnit = 32;
constexpr uint32_t kRound = 256;
static ge::graphStatus CmpTiling(gert::TilingContext* context) {
    CmpTilingData tiling;
    uint64_t ubSize = 196608;
    uint32_t quantum = 64;
    uint32_t raw = ubSize / 6;
    uint32_t tileLen = raw / kUnit * kUnit;
    uint32_t padded = (tileLen + kRound - 1) / kRound * kRound;
    uint32_t fine = AlignUp(padded, quantum);
    tiling.set_tileLen(fine / sizeof(half));
    context->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, refused = _find(host)
    for name in ("kUnit", "kRound", "quantum"):
        assert name not in knobs, name
        assert "alignment granule" in refused[name].reason, refused[name].reason


def test_values_that_would_break_the_tilings_arithmetic_are_refused_before_a_build(tmp_path: Path) -> None:
    op = load_operator(write_sub_like(tmp_path))
    cap = op.knob("coreNum_cap")
    assert 0 not in cap.values and max(cap.values) == cap.current
    base = baseline(op)
    for bad in (0, cap.current + 1, -4):  # a zero count divides by zero; more than the SoC has is no cap
        with pytest.raises(KnobError):
            apply_knobs(op, base, {"coreNum_cap": bad})
    cand = apply_knobs(op, base, {"coreNum_cap": 8})
    assert "int64_t coreNum = 8;" in cand.files["op_host/sub_like_tiling.cpp"]
    # the current value keeps the platform's call: the baseline's text is untouched
    same = apply_knobs(op, base, {"coreNum_cap": cap.current})
    assert "platform.GetCoreNumAiv()" in same.files["op_host/sub_like_tiling.cpp"]


def test_no_cap_where_a_core_grain_already_sets_the_launch() -> None:
    host = """
constexpr uint32_t MIN_PER_CORE = 8192;
static ge::graphStatus CmpTiling(gert::TilingContext* context) {
    CmpTilingData tiling;
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t coreNum = plat.GetCoreNumAiv();
    uint32_t need = (total + MIN_PER_CORE - 1) / MIN_PER_CORE;
    uint32_t used = need < coreNum ? need : coreNum;
    context->SetBlockDim(used);
    tiling.set_tileLen(4096);
    tiling.set_rounds(total / used / 4096);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, refused = _find(host)
    assert knobs["MIN_PER_CORE"].role == "core_grain"
    assert "coreNum_cap" not in knobs and "already sets the launch" in refused["coreNum"].reason


def test_no_cap_where_a_pinned_core_grain_sets_the_launch() -> None:
    # The user fixed the grain (`ascendopt: fixed`): a cap would move the launch they pinned.
    host = """
constexpr uint32_t MIN_PER_CORE = 8192;  // ascendopt: fixed
static ge::graphStatus CmpTiling(gert::TilingContext* context) {
    CmpTilingData tiling;
    auto plat = platform_ascendc::PlatformAscendC(context->GetPlatformInfo());
    uint32_t total = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t coreNum = plat.GetCoreNumAiv();
    uint32_t need = (total + MIN_PER_CORE - 1) / MIN_PER_CORE;
    uint32_t used = need < coreNum ? need : coreNum;
    context->SetBlockDim(used);
    tiling.set_tileLen(4096);
    tiling.set_rounds(total / used / 4096);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, refused = _find(host)
    assert "MIN_PER_CORE" not in knobs and "fixed" in refused["MIN_PER_CORE"].reason
    assert "coreNum_cap" not in knobs and "already sets the launch" in refused["coreNum"].reason
