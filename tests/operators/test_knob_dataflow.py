"""Knobs by dataflow: small look-alike operators whose tiling constants carry names the old name
list never knew, each found by where its value lands (operators/dataflow.py)."""

from __future__ import annotations

from pathlib import Path

from ascendopt.operators import dataflow
from ascendopt.operators.cpp_source import CppSource
from ascendopt.operators.extract import constants, more_constants
from ascendopt.operators.issues import Issue
from ascendopt.operators.knobs import _kind_of, knobs_of
from ascendopt.operators.model import Knob, RefusedConstant, Side


def _find(host: str, kernel: str) -> tuple[dict[str, Knob], dict[str, RefusedConstant]]:
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
    assert issues == []
    return {k.name: k for k in knobs}, {r.name: r for r in refused}


_KERNEL_READING_TILE = """
class Scale {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, ScaleTiling t) {
        tile_ = t.tileElems;
        count_ = t.count;
        pipe_.InitBuffer(in_, 2, tile_ * sizeof(half));
        pipe_.InitBuffer(out_, 2, tile_ * sizeof(half));
    }
    __aicore__ inline void Process() {
        uint32_t rounds = count_ / tile_;
        for (uint32_t r = 0; r < rounds; ++r) {
            DataCopy(xl_, xg_[r * tile_], tile_);
        }
    }
};
"""


def test_google_style_tile_reaches_the_kernel_buffers_through_the_tiling_data() -> None:
    host = """
namespace scale_op {
namespace {
constexpr uint32_t kTileElems = 6144;
constexpr uint32_t kVersion = 3;
}  // namespace
static ge::graphStatus ScaleTiling(gert::TilingContext* ctx) {
    ScaleTilingData td;
    td.set_tileElems(kTileElems);
    td.set_count(ctx->GetInputShape(0)->GetStorageShape().GetShapeSize());
    OP_LOGD(ctx, "scale tiling v%u", kVersion);
    ctx->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}
}  // namespace scale_op
"""
    assert _kind_of("kTileElems") is None  # the name list never knew it
    knobs, refused = _find(host, _KERNEL_READING_TILE)
    assert knobs["kTileElems"].kind == "tile_length" and knobs["kTileElems"].role == "tile_elems"
    assert any("op_kernel/k.cpp" in s for s in knobs["kTileElems"].sinks)
    # the negative: a constant that only feeds a log message is no knob, and says why
    assert "kVersion" not in knobs
    assert "reaches no tiling sink" in refused["kVersion"].reason


def test_constexpr_block_dim_local_to_the_tiling_function() -> None:
    host = """
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    constexpr uint32_t kBlockDim = 24;
    constexpr uint32_t kPerCoreFloor = 2048;
    uint64_t n = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t used = static_cast<uint32_t>((n + kPerCoreFloor - 1) / kPerCoreFloor);
    context->SetBlockDim(used < kBlockDim ? used : kBlockDim);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, _ = _find(host, "")
    assert _kind_of("kBlockDim") is None
    assert knobs["kBlockDim"].role == "block_dim" and knobs["kBlockDim"].kind == "block_dim"
    # a divisor of the block dim is how many elements a core gets before another is used
    assert knobs["kPerCoreFloor"].role == "core_grain"


def test_block_size_as_bytes_in_one_operator_and_elements_in_another() -> None:
    as_bytes = """
#define BLOCK_SIZE 8192
class Copy {
    __aicore__ inline void Init() {
        pipe.InitBuffer(q, 2, BLOCK_SIZE);
    }
    __aicore__ inline void Step(uint32_t i) {
        DataCopy(xl, xg[i * (BLOCK_SIZE / sizeof(float))], BLOCK_SIZE / sizeof(float));
    }
};
"""
    as_elements = """
#define BLOCK_SIZE 2048
class Copy {
    __aicore__ inline void Init() {
        pipe.InitBuffer(q, 2, BLOCK_SIZE * sizeof(half));
    }
    __aicore__ inline void Step(uint32_t i) {
        DataCopy(xl, xg[i * BLOCK_SIZE], BLOCK_SIZE);
    }
};
"""
    knobs, _ = _find("", as_bytes)
    assert knobs["BLOCK_SIZE"].role == "tile_bytes" and knobs["BLOCK_SIZE"].kind == "tile_length"
    knobs, _ = _find("", as_elements)
    assert knobs["BLOCK_SIZE"].role == "tile_elems"


def test_array_of_candidate_tile_sizes() -> None:
    host = """
static constexpr uint32_t kTileChoices[] = {1024, 4096, 2048};
static uint32_t PickTile(uint64_t n) {
    for (uint32_t c : kTileChoices) { if (n % c == 0) { return c; } }
    return kTileChoices[0];
}
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    uint64_t n = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    uint32_t tile = PickTile(n);
    TilingData t;
    t.set_tileElems(tile);
    context->SetBlockDim(16);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, _ = _find(host, _KERNEL_READING_TILE)
    knob = knobs["kTileChoices[1]"]  # the largest candidate
    assert knob.current == 4096 and knob.role == "tile_elems"


def test_enumerator_threshold_picks_the_tiling_key() -> None:
    host = """
enum SplitPolicy : uint32_t { SMALL_INPUT_LIMIT = 32768, KEY_ONE_PASS = 1, KEY_TWO_PASS = 2 };
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    uint64_t n = context->GetInputShape(0)->GetStorageShape().GetShapeSize();
    if (n <= SMALL_INPUT_LIMIT) {
        context->SetTilingKey(KEY_ONE_PASS);
    } else {
        context->SetTilingKey(KEY_TWO_PASS);
    }
    context->SetBlockDim(40);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, refused = _find(host, "")
    assert knobs["SMALL_INPUT_LIMIT"].role == "threshold" and knobs["SMALL_INPUT_LIMIT"].kind == "threshold"
    # the tiling key's own values name kernel branches: refused, with why
    assert "KEY_TWO_PASS" not in knobs and "tiling key" in refused["KEY_TWO_PASS"].reason


def test_default_argument_is_the_queue_depth() -> None:
    kernel = """
class Relu {
public:
    __aicore__ inline void Init(GM_ADDR x, uint32_t len, int32_t depth = 3) {
        pipe.InitBuffer(inQueue, depth, len * sizeof(float));
        INNER_TILE_ = len;
    }
};
"""
    knobs, _ = _find("", kernel)
    assert knobs["depth"].role == "buffer_num" and knobs["depth"].kind == "buffer_num"
    assert knobs["depth"].current == 3


def test_upper_case_names_outside_the_list() -> None:
    host = """
const uint32_t MAX_BLOCK_DIM = 32;
const uint32_t INNER_TILE = 4096;
const uint32_t ALIGN_BYTES = 32;
static ge::graphStatus TilingFunc(gert::TilingContext* context) {
    uint32_t total = 1 << 20;
    uint32_t cores = std::min(MAX_BLOCK_DIM, total / INNER_TILE);
    context->SetBlockDim(cores);
    TilingData t;
    t.set_tileElems(INNER_TILE);
    t.set_align(ALIGN_BYTES);
    return ge::GRAPH_SUCCESS;
}
"""
    knobs, refused = _find(host, _KERNEL_READING_TILE)
    assert knobs["MAX_BLOCK_DIM"].role == "block_dim"
    # one tile, a divisor of the core count as well: the kernel's buffers make it a tile
    assert knobs["INNER_TILE"].role in ("tile_elems", "core_grain")
    assert "ALIGN_BYTES" in refused


def test_domains_follow_the_block_the_ub_and_the_shapes() -> None:
    from ascendopt.operators.domains import refine
    from ascendopt.operators.soc import soc
    from ascendopt.operators.spec import parse_spec

    spec = parse_spec(
        'name = "scale"\nreference = "ref.py:ref"\n[[inputs]]\nname = "x"\ndtypes = ["float32"]\n'
        '[[outputs]]\nname = "y"\ndtypes = ["float32"]\n'
        '[[cases]]\nname = "big"\nshapes = { x = [48, 4096] }\n'
        '[[cases]]\nname = "small"\nshapes = { x = [1024] }\n',
        Path("ascendopt.toml"),
    )
    kernel = "constexpr uint32_t kChunk = 2048;\n" + _KERNEL_READING_TILE.replace("t.tileElems", "kChunk")
    knobs, _ = _find("", kernel)
    knobs2, _ = _find(
        "static void F(gert::TilingContext* c) { constexpr uint32_t kCores = 8; c->SetBlockDim(kCores); }", ""
    )
    tile, block = knobs["kChunk"], knobs2["kCores"]
    refine([tile, block], spec, soc("Ascend910B4"), ub_tensors=2)
    # whole 32-byte blocks (8 fp32 elements), up to the UB share of the 2 tensors x their depth 2
    assert all(v % 8 == 0 for v in tile.values) and tile.values[0] == 8
    assert max(tile.values) <= 196608 // (2 * 2 * 4) and tile.current in tile.values
    assert any(v & (v - 1) for v in tile.values)  # not powers of two only
    # block dims: every count up to the cores, and an even splitter past them (48 x 4096 fp32 elements)
    assert set(range(1, 41)) <= set(block.values) and 48 in block.values
