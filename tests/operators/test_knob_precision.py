"""Knobs by dataflow, precise on real code: look-alikes (other names, other layouts) of what the
ops-nn norm and activation operators do, each a constant that reaches a tiling sink yet is no choice
(operators/dataflow.py, operators/knobs.py `_fact`)."""

from __future__ import annotations

from ascendopt.operators import dataflow
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.extract import constants, more_constants
from ascendopt.operators.issues import Issue
from ascendopt.operators.knobs import knobs_of
from ascendopt.operators.model import Knob, RefusedConstant, Side


def _find(host: str, kernel: str = "") -> tuple[dict[str, Knob], dict[str, RefusedConstant]]:
    sources: list[tuple[CppSource, Side]] = [
        (CppSource.parse("op_host/t.cpp", host), "host"),
        (CppSource.parse("op_kernel/k.cpp", kernel), "kernel"),
    ]
    per = [(s, side, [*constants(s, side), *more_constants(s, side)]) for s, side in sources]
    flow = dataflow.analyze(sources, [(s, c) for s, _, cs in per for c in cs])
    knobs: list[Knob] = []
    refused: list[RefusedConstant] = []
    issues: list[Issue] = []
    for s, side, cs in per:
        knobs.extend(knobs_of(s, side, cs, issues, {}, flow.verdicts, refused))
    return {k.name: k for k in knobs}, {r.name: r for r in refused}


def test_a_constant_passed_to_an_unknown_helper_does_not_reach_the_block_dim() -> None:
    host = """
constexpr uint32_t kLogLevel = 3;
constexpr uint32_t kWorkers = 16;
static ge::graphStatus Tiling(gert::TilingContext* ctx) {
    uint32_t cores = ReportAndGetCores(ctx, kLogLevel);
    ctx->SetBlockDim(std::min<uint32_t>(cores, kWorkers));
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, refused = _find(host)
    assert "kLogLevel" not in knobs and "kLogLevel" in refused
    assert knobs["kWorkers"].role == "block_dim"  # through std::min it still flows


def test_a_defined_ceiling_helper_is_followed_per_call_not_through_one_shared_return() -> None:
    # Two unrelated CeilDiv calls: the row split's divisor must not reach the other call's result.
    host = """
constexpr uint32_t kRowsPerChunk = 4096;
constexpr uint32_t kMinRows = 64;
template <typename T> T CeilDiv(T x, T y) { return (x + y - 1) / y; }
static ge::graphStatus Tiling(gert::TilingContext* ctx) {
    uint32_t rows = ctx->GetInputShape(0)->GetStorageShape().GetDim(0);
    uint32_t chunks = CeilDiv(rows, kRowsPerChunk);
    TilingData td;
    td.set_chunks(chunks);
    uint32_t used = CeilDiv(rows, kMinRows);
    ctx->SetBlockDim(used);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, _ = _find(host)
    assert knobs["kMinRows"].role == "core_grain"
    assert "kRowsPerChunk" not in knobs or knobs["kRowsPerChunk"].role != "block_dim"


def test_hardware_fact_names_multiplied_into_a_buffer_size_are_no_knobs() -> None:
    kernel = """
constexpr int32_t ELEMS_PER_REPEAT_F32 = 64;
constexpr int32_t LANES_PER_BLK = 8;
constexpr int32_t TILE_ROWS = 48;
class K {
    __aicore__ inline void Init() {
        pipe.InitBuffer(buf, TILE_ROWS * ELEMS_PER_REPEAT_F32 * sizeof(float));
        pipe.InitBuffer(tmp, TILE_ROWS * LANES_PER_BLK * sizeof(float));
    }
};
"""
    knobs, refused = _find("", kernel)
    assert "TILE_ROWS" in knobs
    for name in ("ELEMS_PER_REPEAT_F32", "LANES_PER_BLK"):
        assert name not in knobs and "hardware" in refused[name].reason


def test_a_name_that_spells_its_value_is_a_named_literal() -> None:
    kernel = """
constexpr int32_t SHIFT_8 = 8;
constexpr int32_t IDX_FOUR = 4;
class K {
    __aicore__ inline void Reduce(uint32_t n) {
        for (uint32_t i = 0; i < n / SHIFT_8; ++i) { DataCopy(a, b, IDX_FOUR); }
    }
};
"""
    knobs, refused = _find("", kernel)
    assert knobs == {} or not ({"SHIFT_8", "IDX_FOUR"} & set(knobs))
    assert "spells its value" in refused["SHIFT_8"].reason
    assert "spells its value" in refused["IDX_FOUR"].reason


def test_a_small_power_of_two_factor_and_a_reserved_offset_are_no_knobs() -> None:
    host = """
constexpr uint32_t kRowChunk = 3000;
constexpr uint32_t kPair = 2;
constexpr uint32_t kScratch = 1000;
static ge::graphStatus Tiling(gert::TilingContext* ctx) {
    uint64_t ub = 0;
    uint32_t cols = ctx->GetInputShape(0)->GetStorageShape().GetDim(1);
    uint32_t rows = (ub - kScratch) / (cols * kPair);
    TilingData td;
    td.set_rows(rows);
    td.set_chunk(kRowChunk);
    return ge::GRAPH_SUCCESS;
}
"""
    kernel = """
class K {
    __aicore__ inline void Init(TilingData t) {
        pipe.InitBuffer(q, 1, t.rows * t.chunk * sizeof(float));
    }
};
"""
    knobs, refused = _find(host, kernel)
    assert "kRowChunk" in knobs
    assert "kPair" not in knobs and "factor" in refused["kPair"].reason
    assert "kScratch" not in knobs and "offset" in refused["kScratch"].reason


def test_a_divisor_of_the_ub_capacity_counts_tensors_not_a_choice() -> None:
    host = """
constexpr int32_t UB_SIZE = 196608;
constexpr int32_t ERFC_TMP_COUNT = 8;
static ge::graphStatus Tiling(gert::TilingContext* ctx) {
    int32_t perLoop = UB_SIZE / ERFC_TMP_COUNT / static_cast<int32_t>(sizeof(float));
    TilingData td;
    td.set_perLoop(perLoop);
    return ge::GRAPH_SUCCESS;
}
"""
    kernel = """
class K {
    __aicore__ inline void Init(TilingData t) { pipe.InitBuffer(q, 2, t.perLoop * sizeof(float)); }
};
"""
    knobs, refused = _find(host, kernel)
    assert "ERFC_TMP_COUNT" not in knobs and "share" in refused["ERFC_TMP_COUNT"].reason


def test_a_comparison_whose_branch_only_fails_is_no_threshold() -> None:
    host = """
constexpr uint32_t kMaxCols = 8192;
constexpr uint32_t kSplit = 4096;
static ge::graphStatus Tiling(gert::TilingContext* ctx) {
    uint32_t cols = ctx->GetInputShape(0)->GetStorageShape().GetDim(1);
    if (cols > kMaxCols) {
        OP_LOGE(ctx, "too wide");
        return ge::GRAPH_FAILED;
    }
    if (cols > kSplit) {
        ctx->SetTilingKey(2);
        ctx->SetBlockDim(cols / 64);
    }
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, _ = _find(host)
    assert knobs["kSplit"].role == "threshold"
    assert "kMaxCols" not in knobs


def test_a_tile_written_through_a_reference_parameter_reaches_the_callers_sinks() -> None:
    # ops-nn style: a helper picks the column split into `uint32_t& colTile`; the caller ships it.
    host = """
constexpr uint32_t kColTileSplit = 7168;
constexpr uint32_t DIV_BY_HALF = 2;
static void PickMode(uint32_t cols, uint32_t& colTile) {
    colTile = kColTileSplit;
}
static ge::graphStatus Tiling(gert::TilingContext* ctx) {
    uint32_t cols = ctx->GetInputShape(0)->GetStorageShape().GetDim(1);
    uint32_t colTile = 0;
    PickMode(cols, colTile);
    TilingData td;
    td.set_colTile(colTile);
    td.set_half(colTile / DIV_BY_HALF);
    return ge::GRAPH_SUCCESS;
}
"""
    kernel = """
class K {
    __aicore__ inline void Init(TilingData t) {
        pipe.InitBuffer(q, 2, t.colTile * sizeof(float));
        for (uint32_t i = 0; i < t.half; ++i) { DataCopy(a, b, 64); }
    }
};
"""
    knobs, refused = _find(host, kernel)
    assert knobs["kColTileSplit"].role == "tile_elems"
    assert "DIV_BY_HALF" not in knobs and "spells its value" in refused["DIV_BY_HALF"].reason


def test_a_loop_that_repeats_a_computation_counts_no_tiles() -> None:
    # a series summed term by term and a host loop over the inputs: their trip counts are no tiles;
    # the loop that copies tiles in and out is
    host = """
constexpr uint32_t kInputs = 3;
static ge::graphStatus Tiling(gert::TilingContext* ctx) {
    uint64_t total = 0;
    for (uint32_t i = 0; i < kInputs; ++i) {
        total += ctx->GetInputShape(i)->GetStorageShape().GetShapeSize();
    }
    return ge::GRAPH_SUCCESS;
}
"""
    kernel = """
constexpr int32_t kTerms = 12;
constexpr int32_t kChunks = 6;
class Series {
    __aicore__ inline void Sum(LocalTensor<float>& acc, LocalTensor<float>& x, uint32_t n) {
        for (int32_t t = 0; t < kTerms; ++t) { Mul(acc, acc, x, n); Adds(acc, acc, Term(t), n); }
    }
    __aicore__ inline float Term(int32_t t) { return 1.0f / (t + 1); }
    __aicore__ inline void Load(int32_t i) {
        auto t = q.AllocTensor<float>();
        DataCopy(t, g[i * 64], 64);
        q.EnQue(t);
    }
    __aicore__ inline void Run() { for (int32_t i = 0; i < kChunks; ++i) { Load(i); } }
};
"""
    knobs, refused = _find(host, kernel)
    assert "kTerms" in refused and "kInputs" in refused
    assert knobs["kChunks"].role == "tile_num"


def test_a_block_named_size_of_32_and_a_dtype_size_with_a_digit_are_facts() -> None:
    host = """
const uint32_t BLOCK_SIZE = 32;
static const uint32_t DT_SIZE2 = 4;
const uint32_t MAX_CORES = 32;
static ge::graphStatus Tiling(gert::TilingContext* ctx) {
    uint32_t n = ctx->GetInputShape(0)->GetStorageShape().GetShapeSize() * DT_SIZE2;
    uint32_t blocks = n / BLOCK_SIZE;
    ctx->SetBlockDim(blocks < MAX_CORES ? blocks : MAX_CORES);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, refused = _find(host)
    assert "hardware fact" in refused["BLOCK_SIZE"].reason
    assert "DT_SIZE2" in refused
    assert knobs["MAX_CORES"].role == "block_dim"  # a cap of 32 cores is a choice, not the block


def test_a_chunk_size_that_divides_the_work_and_the_ub_is_a_grain_not_a_core_count() -> None:
    # bytes per chunk: elements per chunk divide the length, chunks that fit the UB divide it again
    host = """
const uint32_t CHUNK = 256;
static ge::graphStatus Tiling(gert::TilingContext* ctx) {
    uint32_t typeSize = 2;
    uint64_t ub = 0;
    uint32_t total = ctx->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t perChunk = CHUNK / typeSize;
    uint32_t chunks = ub / CHUNK / 2;
    ctx->SetBlockDim(total / perChunk / chunks);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, _ = _find(host)
    assert knobs["CHUNK"].role == "core_grain"


def test_every_constant_left_out_is_listed_with_why() -> None:
    # --all lists them: another SoC's branch and a pinned one, as well as the refused
    kernel = """
#if __NPU_ARCH__ == 3510
constexpr int32_t TILE_OTHER_SOC = 8192;
#endif
constexpr int32_t BUFFER_NUM = 2;  // ascendopt: fixed
constexpr int32_t HALF_TILE = TILE_SIZE / 2;
constexpr float SCALE = 0.5f;
class K {
    __aicore__ inline void Init() { pipe.InitBuffer(q, BUFFER_NUM, HALF_TILE * sizeof(float)); }
};
"""
    knobs, refused = _find("", kernel)
    assert not knobs
    assert "#if" in refused["TILE_OTHER_SOC"].reason
    assert "fixed" in refused["BUFFER_NUM"].reason


def test_a_fields_limit_and_the_floats_of_a_block_are_facts() -> None:
    host = """
constexpr uint32_t ROWS = 64;
constexpr uint32_t COPY_LIMIT = 4095;
static ge::graphStatus Tiling(gert::TilingContext* ctx) {
    uint32_t rows = ctx->GetInputShape(0)->GetStorageShape().GetDim(0);
    uint32_t perTile = rows < ROWS ? rows : ROWS;
    perTile = perTile < COPY_LIMIT ? perTile : COPY_LIMIT;
    TilingData t;
    t.set_rowsPerTile(perTile);
    return ge::GRAPH_SUCCESS;
}
"""
    kernel = """
constexpr uint32_t BLOCK_HALFS = 16;
class K {
    __aicore__ inline void Init(uint32_t rows) { pipe.InitBuffer(q, 2, rows * BLOCK_HALFS * sizeof(half)); }
};
extern "C" __global__ __aicore__ void k(GM_ADDR t) { GET_TILING_DATA(td, t); K op; op.Init(td.rowsPerTile); }
"""
    knobs, refused = _find(host, kernel)
    assert "hardware field" in refused["COPY_LIMIT"].reason
    assert "BLOCK_HALFS" in refused
    assert "ROWS" in knobs
