"""The open repos' host tiling framework on the CPU twin (issue 28: LayerNormV4, GroupNormSwish,
DequantSwigluQuant include it): a tiling program of TilingBaseClass subclasses registered with
REGISTER_TILING_TEMPLATE, run through TilingRegistry::DoTilingImpl, with the OPS_* log and check
macros, builds and verifies; the registry tries classes by priority, a class that is not capable
passes to the next, none capable fails the tiling. Host odds of the benchmark's answers in the same
look-alike: `SUCCESS` under `using namespace ge`, an op_host constant the kernel defines too
(StridedSliceAssignV2's MAX_DIM_NUM), the shape-out argument of an OutputShapeDependOnCompute
output (MaskedSelectV3). Real g++ builds of the norm look-alike (norm_lookalike.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import load_operator
from tests.evaluation.cpu_twin.norm_lookalike import DEF, KERNEL, SPEC, TILING_H, write_rms_like

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available"),
]

TWIN_INCLUDE = Path(__file__).resolve().parents[3] / "server/ascendopt/evaluation/cpu_twin/include"

# Two classes for one op, registered out of priority order: the "paired" one (two rows a block) takes
# up to 80 rows, the general one (ceil(rows / cores) rows a block) the rest. A third class at the
# paired one's priority is refused, so its failing tiling never runs.
FRAMEWORK_HOST = """\
#include "rms_like_tiling.h"
#include "register/op_impl_registry.h"
#include "tiling/tiling_base.h"
#include "tiling/tiling_templates_registry.h"
#include "error/ops_error.h"

using namespace ge;

namespace optiling {
static uint32_t ColsOf(gert::TilingContext *context, uint32_t &cols)
{
    const gert::StorageShape *gamma = context->GetInputShape(1);
    if (gamma == nullptr) return FAILED;
    cols = static_cast<uint32_t>(gamma->GetStorageShape().GetShapeSize());
    return cols % 64 == 0 ? SUCCESS : FAILED;
}

class RmsLikeTilingBase : public TilingBaseClass {
public:
    explicit RmsLikeTilingBase(gert::TilingContext *context) : TilingBaseClass(context) {}

protected:
    ge::graphStatus GetShapeAttrsInfo() override
    {
        OPS_ERR_IF(ColsOf(context_, cols_) != SUCCESS,
                   OPS_REPORT_VECTOR_INNER_ERR(context_, "gamma must hold a multiple of 64"),
                   return ge::GRAPH_FAILED);
        rows_ = static_cast<uint32_t>(context_->GetInputShape(0)->GetStorageShape().GetShapeSize() / cols_);
        const float *eps = context_->GetAttrs()->GetFloat(0);
        OPS_LOG_E_IF_NULL(context_, eps, return ge::GRAPH_FAILED);
        eps_ = *eps;
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus GetPlatformInfo() override
    {
        auto platform = platform_ascendc::PlatformAscendC(context_->GetPlatformInfo());
        aicoreParams_.blockDim = platform.GetCoreNumAiv();
        platform.GetCoreMemSize(platform_ascendc::CoreMemType::UB, aicoreParams_.ubSize);
        OPS_CHECK(aicoreParams_.blockDim == 0, OPS_LOG_E(context_, "no cores"), return ge::GRAPH_FAILED);
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus DoLibApiTiling() override { return ge::GRAPH_SUCCESS; }
    uint64_t GetTilingKey() const override { return 0; }
    ge::graphStatus GetWorkspaceSize() override
    {
        context_->GetWorkspaceSizes(1)[0] = 0;
        return ge::GRAPH_SUCCESS;
    }
    ge::graphStatus PostTiling() override
    {
        RmsLikeTilingData tiling;
        tiling.set_numRow(rows_);
        tiling.set_numCol(cols_);
        tiling.set_rowsPerCore(per_);
        tiling.set_avgFactor(1.0f / cols_);
        tiling.set_epsilon(eps_);
        context_->SetBlockDim((rows_ + per_ - 1) / per_);
        gert::TilingData *raw = context_->GetRawTilingData();
        tiling.SaveToBuffer(raw->GetData(), raw->GetCapacity());
        raw->SetDataSize(tiling.GetDataSize());
        OPS_LOG_D(context_, "rows %u, %u a block", rows_, per_);
        return ge::GRAPH_SUCCESS;
    }
    uint32_t rows_ = 0, cols_ = 0, per_ = 1;
    float eps_ = 0;
};

class RmsLikeGeneral : public RmsLikeTilingBase {
public:
    using RmsLikeTilingBase::RmsLikeTilingBase;

protected:
    bool IsCapable() override { return true; }
    ge::graphStatus DoOpTiling() override
    {
        per_ = static_cast<uint32_t>((rows_ + aicoreParams_.blockDim - 1) / aicoreParams_.blockDim);
        return ge::GRAPH_SUCCESS;
    }
};

class RmsLikePaired : public RmsLikeTilingBase {
public:
    using RmsLikeTilingBase::RmsLikeTilingBase;

protected:
    bool IsCapable() override { return rows_ <= MAX_ROWS_PAIRED; }
    ge::graphStatus DoOpTiling() override
    {
        per_ = 2;
        return ge::GRAPH_SUCCESS;
    }
};

class RmsLikeBroken : public RmsLikeTilingBase {
public:
    using RmsLikeTilingBase::RmsLikeTilingBase;

protected:
    bool IsCapable() override { return true; }
    ge::graphStatus DoOpTiling() override { return ge::GRAPH_FAILED; }
};

REGISTER_TILING_TEMPLATE("RmsLike", RmsLikeGeneral, 20);
REGISTER_TILING_TEMPLATE("RmsLike", RmsLikePaired, 10);
REGISTER_TILING_TEMPLATE("RmsLike", RmsLikeBroken, 10);

static ge::graphStatus TilingRmsLike(gert::TilingContext *context)
{
    return TilingRegistry::GetInstance().DoTilingImpl(context);
}

IMPL_OP_OPTILING(RmsLike).Tiling(TilingRmsLike);
}  // namespace optiling
"""

# op_host's tiling header (which the kernel build sees) and the kernel each define the constant at their
# own scope, as StridedSliceAssignV2's do: CANN's kernel build never sees op_host's.
FRAMEWORK_TILING_H = TILING_H.replace(
    "namespace optiling {\n", "namespace optiling {\nconstexpr uint32_t MAX_ROWS_PAIRED = 80;\n"
)
KERNEL_WITH_OWN_CONSTANT = (
    'constexpr uint32_t MAX_ROWS_PAIRED = 80;\nstatic_assert(MAX_ROWS_PAIRED == 80, "the kernel\'s own");\n'
    + KERNEL
)


def _write_framework(root: Path, host: str) -> Path:
    op = write_rms_like(root, host=host, kernel=KERNEL_WITH_OWN_CONSTANT)
    (op / "op_host" / "rms_like_tiling.h").write_text(FRAMEWORK_TILING_H)
    return op


async def _verify(op_dir: Path) -> Evaluation:
    project = load_operator(op_dir)
    project.issues = [i for i in project.issues if i.code != "parse"]
    return await verify(CpuTwinEvaluator(), project)


async def test_registered_tiling_classes_run_by_priority(tmp_path: Path) -> None:
    ev = await _verify(_write_framework(tmp_path, FRAMEWORK_HOST))
    assert ev.status == "ok", ev.model_dump_json(indent=1)
    assert all(c.status == "passed" for c in ev.cases), [(c.index, c.message) for c in ev.cases]
    # 3 and 16 rows: the paired class (priority 10), two rows a block; 100 rows: it declines, the
    # general one (priority 20) splits them over the 40 cores. The refused duplicate never ran.
    assert [c.block_dim for c in ev.cases] == [2, 34, 8]


async def test_no_capable_class_fails_the_tiling(tmp_path: Path) -> None:
    host = FRAMEWORK_HOST.replace(
        "bool IsCapable() override { return true; }", "bool IsCapable() override { return false; }"
    )
    host = host.replace("return rows_ <= MAX_ROWS_PAIRED;", "return false;")
    ev = await _verify(_write_framework(tmp_path, host))
    assert all(c.status != "passed" for c in ev.cases)
    # DoTilingImpl's GRAPH_FAILED (its error line names the op on the tiling program's stderr)
    assert all(c.message == "the tiling function of RmsLike returned 4294967295" for c in ev.cases), ev.cases


# rstd's shape comes from the kernel (OutputShapeDependOnCompute): CANN passes one more argument after
# the outputs, where block 0 writes rank and dims per output (9 uint64 each; rstd is the second).
SHAPE_DEF = DEF.replace(
    'this->Output("rstd").ParamType(REQUIRED)',
    'this->Output("rstd").OutputShapeDependOnCompute().ParamType(REQUIRED)',
)
SHAPE_SPEC = SPEC[: SPEC.index('[[cases]]\nname = "wide"')]


def _shape_kernel(rows: str) -> str:
    kernel = KERNEL.replace("GM_ADDR y, GM_ADDR rstd,\n", "GM_ADDR y, GM_ADDR rstd, GM_ADDR shapeOut,\n")
    return kernel.replace(
        "        op.Process();\n",
        "        op.Process();\n"
        "        if (GetBlockIdx() == 0) {\n"
        "            GlobalTensor<uint64_t> s;\n"
        "            s.SetGlobalBuffer((__gm__ uint64_t *)shapeOut, 18);\n"
        "            s.SetValue(9, 2);\n"
        f"            s.SetValue(10, {rows});\n"
        "            s.SetValue(11, 1);\n"
        "        }\n",
    )


@pytest.mark.parametrize(("rows", "passes"), [("tilingData.numRow", True), ("tilingData.numRow - 1", False)])
async def test_the_shape_out_argument_is_passed_and_checked(tmp_path: Path, rows: str, passes: bool) -> None:
    op = write_rms_like(tmp_path, kernel=_shape_kernel(rows))
    (op / "op_host" / "rms_like_def.cpp").write_text(SHAPE_DEF)
    (op / "ascendopt.toml").write_text(SHAPE_SPEC)
    ev = await _verify(op)
    statuses = [c.status == "passed" for c in ev.cases]
    assert statuses == [passes, passes], [(c.index, c.message) for c in ev.cases]
    if not passes:
        kinds = {f.kind for c in ev.cases for f in c.findings}
        assert "shape_out_mismatch" in kinds, ev.model_dump_json(indent=1)


HOST_ODDS = """\
#include <cstdio>
#include "register/op_impl_registry.h"
#include "tiling/tiling_api.h"
using namespace ge;
int main()
{
    gert::RuntimeAttrs attrs;
    attrs.v_.resize(2);
    attrs.v_[0].i = 7;
    attrs.v_[1].i = -1;
    const uint64_t *mode = attrs.GetAttrPointer<uint64_t>(0);
    const uint64_t *all = attrs.GetAttrPointer<uint64_t>(1);
    const uint32_t Status_ok = SUCCESS;
    std::printf("%llu %llx %u %u\\n", (unsigned long long)*mode, (unsigned long long)*all, Status_ok,
                (unsigned)FAILED);
    return 0;
}
"""


def _compile(tmp_path: Path, source: str) -> subprocess.CompletedProcess[str]:
    src = tmp_path / "odds.cpp"
    src.write_text(source)
    return subprocess.run(
        ["g++", "-std=c++17", "-I", str(TWIN_INCLUDE), str(src), "-o", str(tmp_path / "odds")],
        capture_output=True,
        text=True,
        check=False,
    )


def test_uint64_attrs_and_ge_status_codes(tmp_path: Path) -> None:
    built = _compile(tmp_path, HOST_ODDS)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(tmp_path / "odds")], capture_output=True, text=True, check=True)
    # an Int attr read as uint64_t: all its bytes (-1 is every bit set), as CANN's storage gives them
    assert ran.stdout.split() == ["7", "ffffffffffffffff", "0", "1"]


def test_an_attr_type_the_twin_does_not_store_still_fails_to_build(tmp_path: Path) -> None:
    built = _compile(tmp_path, HOST_ODDS.replace("GetAttrPointer<uint64_t>(1)", "GetAttrPointer<double>(1)"))
    assert built.returncode != 0
    assert "type not supported by the CPU twin" in built.stderr


def test_the_framework_headers_leave_op_log_names_to_the_operator(tmp_path: Path) -> None:
    # The benchmark's answers define OP_LOGD & co themselves after including the framework headers, as
    # CANN's framework headers do not: a redefinition warning here would mean the twin's do.
    source = (
        '#include "tiling/tiling_templates_registry.h"\n'
        '#include "error/ops_error.h"\n'
        "#define OP_LOGD(n, fmt, ...) 0\n#define OP_LOGE(n, fmt, ...) 0\n#define OP_CHECK(c, l, r) 0\n"
        'int main() { return OP_LOGD(0, "x") + OP_CHECK(0, 0, 0); }\n'
    )
    built = _compile(tmp_path, source)
    assert built.returncode == 0 and "redefined" not in built.stderr, built.stderr
