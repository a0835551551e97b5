"""A look-alike of a CANN open operator repository (ops-math / ops-nn style), written for the tests.

`<repo>/build.sh`, `<repo>/CMakeLists.txt`, `<repo>/common/inc/op_host/scale_registry.h`,
`<repo>/norm/norm_helpers/blend.h` (reached by a relative include), another operator's kernel
header (reached as CANN's kernel build lays kernels out: `../other_op/other.h`) and one operator
`<repo>/norm/scale_norm/` with an OpDef in `op_host/scale_norm_def.cpp` (two inputs, a float32
secondary output, an attr), a tiling program full of `OP_CHECK_IF(…, return …)` and an `#if`-split
if/else chain, a templated kernel entry, an `arch35` variant for the 950 and an aclnn example.
"""

from __future__ import annotations

from pathlib import Path

DEF = """\
#include "register/op_def_registry.h"

namespace ops {
class ScaleNorm : public OpDef {
public:
    explicit ScaleNorm(const char* name) : OpDef(name)
    {
        this->Input("x")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Input("weight")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("y")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Output("inv")
            .ParamType(REQUIRED)
            .DataType({ge::DT_FLOAT, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("eps").AttrType(OPTIONAL).Float(1e-5);
        this->Attr("mode").AttrType(OPTIONAL).Int(2);

        this->AICore().AddConfig("ascend910b");

        OpAICoreConfig cfg950;
        cfg950.DynamicShapeSupportFlag(true)
            .ExtendCfgInfo("opFile.value", "scale_norm_apt");
        this->AICore().AddConfig("ascend950", cfg950);
    }
};
OP_ADD(ScaleNorm);
}  // namespace ops
"""

TILING = """\
#include "log/log.h"
#include "op_host/scale_registry.h"
#include "../op_kernel/scale_norm_tiling_data.h"

namespace optiling {
constexpr uint32_t BUFFER_NUM = 2;

static ge::graphStatus ScaleNormTiling(gert::TilingContext* context)
{
    OP_CHECK_IF(context == nullptr, OP_LOGE("ScaleNorm", "no context"), return ge::GRAPH_FAILED);
    auto shape = context->GetInputShape(0);
    OP_CHECK_NULL_WITH_CONTEXT(context, shape);
    uint64_t key = 0;
    if (shape->GetStorageShape().GetDimNum() == 1) {
        key = 1;
#if defined(SCALE_NORM_WIDE)
    } else if (shape->GetStorageShape().GetDimNum() > 4) {
        key = 3;
#endif
    } else {
        key = 2;
    }
    context->SetTilingKey(key);
    context->SetBlockDim(8);
    return ge::GRAPH_SUCCESS;
}

IMPL_OP_OPTILING(ScaleNorm).Tiling(ScaleNormTiling).TilingParse<ScaleNormCompileInfo>(ScaleNormParse);
}  // namespace optiling
"""

TILING_ARCH35 = """\
#include "log/log.h"
namespace optiling {
int ScaleNormTilingArch35() { return 0; }
}
"""

TILING_DATA = """\
#pragma once
#include <cstdint>
struct ScaleNormTilingData {
    uint32_t rows;
    uint32_t cols;
};
"""

KERNEL = """\
#include "kernel_operator.h"
#include "scale_norm.h"
#include "../../norm_helpers/blend.h"
#include "../other_op/other.h"

template <uint32_t schMode>
__global__ __aicore__ void scale_norm(GM_ADDR x, GM_ADDR weight, GM_ADDR y, GM_ADDR inv,
                                      GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(ScaleNormTilingData);
    GET_TILING_DATA_WITH_STRUCT(ScaleNormTilingData, tilingData, tiling);
#if defined(__CCE_AICORE__) && __CCE_AICORE__ == 220
    if (schMode == 1) {
        ScaleNormKernel<DTYPE_X> op;
        op.Process();
    } else if (schMode == 2) {
#else
    if (schMode == 2) {
#endif
        ScaleNormKernel<DTYPE_X> op;
        op.Process();
    }
}
"""

KERNEL_APT = """\
#include "kernel_operator.h"
#include "arch35/scale_norm_regbase.h"

template <uint32_t schMode>
__global__ __aicore__ void scale_norm(GM_ADDR x, GM_ADDR weight, GM_ADDR y, GM_ADDR inv,
                                      GM_ADDR workspace, GM_ADDR tiling)
{
}
"""

EXAMPLE = """\
#include "acl/acl.h"
int main() {
    std::vector<int64_t> xShape = {4, 64};
    std::vector<int64_t> weightShape = {64};
    std::vector<int64_t> yShape = {4, 64};
    std::vector<int64_t> invShape = {4, 1};
    ret = CreateAclTensor(invHostData, invShape, &invDeviceAddr, aclDataType::ACL_FLOAT, &inv);
    ret = CreateAclTensor(selfXHostData, xShape, &selfXDeviceAddr, aclDataType::ACL_FLOAT16, &selfX);
    ret = CreateAclTensor(weightHostData, weightShape, &weightDeviceAddr, aclDataType::ACL_FLOAT, &weight);
    ret = CreateAclTensor(outHostData, yShape, &outDeviceAddr, aclDataType::ACL_FLOAT16, &out);
    return 0;
}
"""


def write_repo(root: Path, *, missing_header: bool = False) -> Path:
    """The repository under `root`; returns the operator folder (`norm/scale_norm`)."""
    files = {
        "build.sh": "#!/bin/bash\ncmake -S . -B build\n",
        "CMakeLists.txt": "cmake_minimum_required(VERSION 3.16)\nproject(ops_lookalike)\n",
        "common/CMakeLists.txt": "# common\n",
        "common/inc/op_host/scale_registry.h": "#pragma once\nstruct ScaleNormCompileInfo {};\n",
        "common/inc/op_host/unused_registry.h": "#pragma once\n",
        "norm/norm_helpers/blend.h": '#pragma once\n#include "blend_impl.h"\n',
        "norm/norm_helpers/blend_impl.h": "#pragma once\ninline int Blend(int a) { return a; }\n",
        "norm/other_op/op_kernel/other.h": "#pragma once\n// other_op's kernel header\n",
        "norm/other_op/op_kernel/unused.h": "#pragma once\n",
        "norm/scale_norm/op_host/scale_norm_def.cpp": DEF,
        "norm/scale_norm/op_host/scale_norm_tiling.cpp": TILING,
        "norm/scale_norm/op_host/scale_norm_tiling_arch35.cpp": TILING_ARCH35,
        "norm/scale_norm/op_kernel/scale_norm_tiling_data.h": TILING_DATA,
        "norm/scale_norm/op_kernel/scale_norm.h": (
            '#pragma once\n#include "kernel_operator.h"\n'
            + ('#include "nowhere/vanished.h"\n' if missing_header else "")
            + "template <typename T> class ScaleNormKernel { public: void Process() {} };\n"
        ),
        "norm/scale_norm/op_kernel/scale_norm.cpp": KERNEL,
        "norm/scale_norm/op_kernel/scale_norm_apt.cpp": KERNEL_APT,
        "norm/scale_norm/op_kernel/arch35/scale_norm_regbase.h": "#pragma once\n",
        "norm/scale_norm/examples/test_aclnn_scale_norm.cpp": EXAMPLE,
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root / "norm" / "scale_norm"
