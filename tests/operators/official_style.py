"""Look-alikes of Huawei's official samples, written here in their style (no code copied):
kernel-launch folders (`main.cpp` + kernel + `data_utils.h` + `scripts/gen_data.py` + CMake) that
launch through a `k_do` wrapper, `ACLRT_LAUNCH_KERNEL` or `ICPU_RUN_KF` behind
`#ifndef ASCENDC_CPU_DEBUG`, templated and C++-linkage entries, and an msOpGen project whose
kernel only takes sizes its core split divides.
"""

from __future__ import annotations

from pathlib import Path

# A scale-by-two kernel over a fixed length, split over the cores; its sizes live in a local header.
SCALE_TILING_H = """\
#ifndef SCALE_CUSTOM_TILING_H
#define SCALE_CUSTOM_TILING_H
#include <cstdint>
constexpr uint32_t TOTAL_LENGTH = 4 * 1024;   // elements of x
constexpr uint32_t USE_CORE_NUM = 4;
constexpr uint32_t BLOCK_LENGTH = TOTAL_LENGTH / USE_CORE_NUM;
constexpr uint32_t TILE_NUM = 4;
constexpr uint32_t BUFFER_NUM = 2;
constexpr uint32_t TILE_LENGTH = BLOCK_LENGTH / TILE_NUM / BUFFER_NUM;
#endif
"""

SCALE_BODY = """\
#include "kernel_operator.h"
#include "scale_custom_tiling.h"

template <typename T>
class KernelScale {
public:
    __aicore__ inline KernelScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y)
    {
        xGm.SetGlobalBuffer((__gm__ T *)x + BLOCK_LENGTH * AscendC::GetBlockIdx(), BLOCK_LENGTH);
        yGm.SetGlobalBuffer((__gm__ T *)y + BLOCK_LENGTH * AscendC::GetBlockIdx(), BLOCK_LENGTH);
        pipe.InitBuffer(inQ, BUFFER_NUM, TILE_LENGTH * sizeof(T));
        pipe.InitBuffer(outQ, BUFFER_NUM, TILE_LENGTH * sizeof(T));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < TILE_NUM * BUFFER_NUM; i++) {
            AscendC::LocalTensor<T> xl = inQ.AllocTensor<T>();
            AscendC::DataCopy(xl, xGm[i * TILE_LENGTH], TILE_LENGTH);
            inQ.EnQue(xl);
            AscendC::LocalTensor<T> xin = inQ.DeQue<T>();
            AscendC::LocalTensor<T> yl = outQ.AllocTensor<T>();
            AscendC::Muls(yl, xin, (T)2.0, TILE_LENGTH);
            outQ.EnQue<T>(yl);
            inQ.FreeTensor(xin);
            AscendC::LocalTensor<T> yout = outQ.DeQue<T>();
            AscendC::DataCopy(yGm[i * TILE_LENGTH], yout, TILE_LENGTH);
            outQ.FreeTensor(yout);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQ;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQ;
    AscendC::GlobalTensor<T> xGm, yGm;
};
"""

# Entry forms: (kernel text after the body, entry name as main.cpp writes it at the launch)
ENTRY_EXTERN_C = """
extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y)
{
    KernelScale<half> op;
    op.Init(x, y);
    op.Process();
}
"""

WRAPPER = """
#ifndef ASCENDC_CPU_DEBUG
void scale_custom_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y)
{
    scale_custom<<<blockDim, nullptr, stream>>>(x, y);
}
#endif
"""

ENTRY_TEMPLATE = """
template <typename T>
__global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y)
{
    KernelScale<T> op;
    op.Init(x, y);
    op.Process();
}
"""

# C++ linkage, an attribute, inside a guard the CPU-debug build takes.
ENTRY_CPP_GUARDED = """
#if !defined(SCALE_DISABLED)
__global__ __attribute__((used)) __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y)
{
    KernelScale<half> op;
    op.Init(x, y);
    op.Process();
}
#endif
"""

DATA_UTILS_H = """\
#ifndef DATA_UTILS_H
#define DATA_UTILS_H
#include <cstdint>
#include <cstdio>
#include <string>
bool ReadFile(const std::string &filePath, size_t fileSize, void *buffer, size_t bufferSize);
bool WriteFile(const std::string &filePath, const void *buffer, size_t size);
#endif
"""

MAIN_HEAD = """\
#include "data_utils.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
{npu_decl}
#else
#include "tikicpulib.h"
{cpu_decl}
#endif

int32_t main(int32_t argc, char *argv[])
{{
{block_dim_decl}
    size_t inputByteSize = 4 * 1024 * sizeof(uint16_t);
    size_t outputByteSize = 4 * 1024 * sizeof(uint16_t);
#ifdef ASCENDC_CPU_DEBUG
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(inputByteSize);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(outputByteSize);
    ReadFile("./input/input_x.bin", inputByteSize, x, inputByteSize);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF({cpu_name}, {block_dim}, x, y);
    WriteFile("./output/output_y.bin", y, outputByteSize);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)y);
#else
    aclrtStream stream = nullptr;
    uint8_t *xDevice, *yDevice;
    {npu_launch}
#endif
    return 0;
}}
"""

LAUNCHES = {
    # form: (npu declaration, npu launch line)
    "do": (
        "extern void scale_custom_do(uint32_t blockDim, void *stream, uint8_t *x, uint8_t *y);",
        "scale_custom_do({bd}, stream, xDevice, yDevice);",
    ),
    "aclrt": (
        '#include "aclrtlaunch_scale_custom.h"',
        "ACLRT_LAUNCH_KERNEL(scale_custom)({bd}, stream, xDevice, yDevice);",
    ),
    "chevron": ("", "scale_custom{targs}<<<{bd}, nullptr, stream>>>(xDevice, yDevice);"),
}

GEN_DATA = """\
import numpy as np


def gen_golden_data_simple():
    input_x = np.random.uniform(-4, 4, [4, 1024]).astype(np.float16)
    golden = (input_x * 2).astype(np.float16)
    input_x.tofile("./input/input_x.bin")
    golden.tofile("./output/golden.bin")


if __name__ == "__main__":
    gen_golden_data_simple()
"""

CMAKE = """\
cmake_minimum_required(VERSION 3.16)
project(Ascend_c)
file(GLOB KERNEL_FILES ${CMAKE_CURRENT_SOURCE_DIR}/scale_custom.cpp)
include(cmake/cpu_lib.cmake)
add_executable(ascendc_kernels_bbit ${CMAKE_CURRENT_SOURCE_DIR}/main.cpp)
"""

REFERENCE = "def scale_custom(x):\n    return x * 2\n"


def write_launch_sample(
    root: Path,
    form: str = "do",
    entry: str = "extern_c",
    block_dim: str = "variable",
    name: str = "ScaleKernelInvocation",
) -> Path:
    """A kernel-launch sample; `entry` is extern_c | template | cpp_guarded; `block_dim` is how
    main.cpp gives it: variable (`uint32_t blockDim = 4;`), constexpr, or literal."""
    op = root / name
    (op / "scripts").mkdir(parents=True)
    (op / "cmake").mkdir()
    templ = entry == "template"
    kernel = (
        SCALE_BODY
        + {"extern_c": ENTRY_EXTERN_C, "template": ENTRY_TEMPLATE, "cpp_guarded": ENTRY_CPP_GUARDED}[entry]
    )
    if form == "do":
        kernel += WRAPPER.replace("scale_custom<<<", "scale_custom<half><<<" if templ else "scale_custom<<<")
    decl_sig = "__global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y);"
    cpu_decl = ("template <typename T> " + decl_sig) if templ else ('extern "C" ' + decl_sig)
    bd_decl, bd = {
        "variable": ("    uint32_t blockDim = 4;", "blockDim"),
        "constexpr": ("    constexpr uint32_t BLOCK_DIM = 2 * 2;", "BLOCK_DIM"),
        "literal": ("", "4"),
    }[block_dim]
    npu_decl, npu_launch = LAUNCHES[form]
    (op / "scale_custom.cpp").write_text(kernel)
    (op / "scale_custom_tiling.h").write_text(SCALE_TILING_H)
    (op / "main.cpp").write_text(
        MAIN_HEAD.format(
            npu_decl=npu_decl,
            cpu_decl=cpu_decl,
            block_dim_decl=bd_decl,
            cpu_name="scale_custom<half>" if templ else "scale_custom",
            block_dim=bd,
            npu_launch=npu_launch.format(bd=bd, targs="<half>" if templ else ""),
        )
    )
    (op / "data_utils.h").write_text(DATA_UTILS_H)
    (op / "scripts" / "gen_data.py").write_text(GEN_DATA)
    (op / "CMakeLists.txt").write_text(CMAKE)
    (op / "cmake" / "cpu_lib.cmake").write_text("add_library(ascendc_kernels_cpu SHARED ${KERNEL_FILES})\n")
    (op / "reference.py").write_text(REFERENCE)
    return op


def split_by_block_num(op: Path) -> Path:
    """The sample's kernel takes its per-core share from GetBlockNum() (like the TilingNeo samples)
    instead of the compiled-in USE_CORE_NUM."""
    kernel = op / "scale_custom.cpp"
    kernel.write_text(
        kernel.read_text()
        .replace(
            "    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y)\n    {\n",
            "    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y)\n    {\n"
            "        blockLength = TOTAL_LENGTH / AscendC::GetBlockNum();\n"
            "        tileLength = blockLength / TILE_NUM / BUFFER_NUM;\n",
        )
        .replace("BLOCK_LENGTH", "blockLength")
        .replace("TILE_LENGTH", "tileLength")
        .replace(
            "    AscendC::GlobalTensor<T> xGm, yGm;\n",
            "    AscendC::GlobalTensor<T> xGm, yGm;\n    uint32_t blockLength, tileLength;\n",
        )
    )
    return op


# An abs kernel whose last DataCopy reads a whole 32-byte block past a 1000-element input.
OOB_KERNEL = """\
#include "kernel_operator.h"
constexpr uint32_t TOTAL_LENGTH = 1000;
constexpr uint32_t PADDED = 1008;   // 1000 rounded up to 16 halves

extern "C" __global__ __aicore__ void abs_tail_custom(GM_ADDR x, GM_ADDR y)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, PADDED * sizeof(half));
    AscendC::GlobalTensor<half> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ half *)x, TOTAL_LENGTH);
    yGm.SetGlobalBuffer((__gm__ half *)y, TOTAL_LENGTH);
    AscendC::LocalTensor<half> t = buf.Get<half>();
    AscendC::DataCopy(t, xGm, PADDED);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Abs(t, t, PADDED);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(yGm, t, 992);
}
"""
OOB_LINE = 14  # the DataCopy that reads past the end

OOB_MAIN = """\
#include "data_utils.h"
#ifdef ASCENDC_CPU_DEBUG
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void abs_tail_custom(GM_ADDR x, GM_ADDR y);
#endif
int32_t main(int32_t argc, char *argv[])
{
    uint32_t blockDim = 1;
    size_t byteSize = 1000 * sizeof(uint16_t);
#ifdef ASCENDC_CPU_DEBUG
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(byteSize);
    ReadFile("./input/input_x.bin", byteSize, x, byteSize);
    ICPU_RUN_KF(abs_tail_custom, blockDim, x, y);
    WriteFile("./output/output_y.bin", y, byteSize);
#endif
    return 0;
}
"""


def write_oob_sample(root: Path) -> Path:
    op = root / "AbsTailKernelInvocation"
    (op / "scripts").mkdir(parents=True)
    (op / "abs_tail.cpp").write_text(OOB_KERNEL)
    (op / "main.cpp").write_text(OOB_MAIN)
    (op / "data_utils.h").write_text(DATA_UTILS_H)
    (op / "scripts" / "gen_data.py").write_text(
        "import numpy as np\n\n\ndef gen():\n"
        "    input_x = np.random.uniform(-3, 3, [1000]).astype(np.float16)\n"
        '    input_x.tofile("./input/input_x.bin")\n'
    )
    (op / "reference.py").write_text(
        "import numpy as np\n\n\ndef abs_tail_custom(x):\n    return np.abs(x)\n"
    )
    return op


# An msOpGen project in the official layout: the OpDef and tiling in op_host/, the kernel in
# op_kernel/ ending in the `#ifndef ASCENDC_CPU_DEBUG` wrapper, the op description one folder
# up, shapes in ../AclNNInvocation/scripts/gen_data.py. The kernel splits the elements evenly
# over cores x tiles x buffers, so only sizes that split into whole 32-byte blocks come out right.
MUL_HOST = """\
#include "mul_custom_tiling.h"
#include "register/op_def_registry.h"

namespace optiling {
const uint32_t BLOCK_DIM = 8;
const uint32_t TILE_NUM = 8;
static ge::graphStatus TilingFunc(gert::TilingContext *context)
{
    MulCustomTilingData tiling;
    uint32_t totalLength = context->GetInputShape(0)->GetOriginShape().GetShapeSize();
    context->SetBlockDim(BLOCK_DIM);
    tiling.set_totalLength(totalLength);
    tiling.set_tileNum(TILE_NUM);
    tiling.SaveToBuffer(context->GetRawTilingData()->GetData(), context->GetRawTilingData()->GetCapacity());
    context->GetRawTilingData()->SetDataSize(tiling.GetDataSize());
    size_t *ws = context->GetWorkspaceSizes(1);
    ws[0] = 0;
    return ge::GRAPH_SUCCESS;
}
} // namespace optiling

namespace ops {
class MulCustom : public OpDef {
public:
    explicit MulCustom(const char *name) : OpDef(name)
    {
        this->Input("x").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Input("y").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16}).Format({ge::FORMAT_ND});
        this->Attr("scale").AttrType(OPTIONAL).Float(1.0);
        this->AICore().SetTiling(optiling::TilingFunc).AddConfig("ascend910b");
    }
};
OP_ADD(MulCustom);
} // namespace ops
"""

MUL_TILING_H = """\
#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(MulCustomTilingData)
TILING_DATA_FIELD_DEF(uint32_t, totalLength);
TILING_DATA_FIELD_DEF(uint32_t, tileNum);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(MulCustom, MulCustomTilingData)
} // namespace optiling
"""

MUL_KERNEL = """\
#include "kernel_operator.h"
constexpr int32_t BUFFER_NUM = 2;

class KernelMul {
public:
    __aicore__ inline KernelMul() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, uint32_t totalLength, uint32_t tileNum)
    {
        blockLength = totalLength / AscendC::GetBlockNum();
        this->tileNum = tileNum;
        tileLength = blockLength / tileNum / BUFFER_NUM;
        xGm.SetGlobalBuffer((__gm__ half *)x + blockLength * AscendC::GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ half *)y + blockLength * AscendC::GetBlockIdx(), blockLength);
        zGm.SetGlobalBuffer((__gm__ half *)z + blockLength * AscendC::GetBlockIdx(), blockLength);
        pipe.InitBuffer(inX, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(inY, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(outZ, BUFFER_NUM, tileLength * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum * BUFFER_NUM; i++) {
            AscendC::LocalTensor<half> xl = inX.AllocTensor<half>();
            AscendC::LocalTensor<half> yl = inY.AllocTensor<half>();
            AscendC::DataCopy(xl, xGm[i * tileLength], tileLength);
            AscendC::DataCopy(yl, yGm[i * tileLength], tileLength);
            inX.EnQue(xl);
            inY.EnQue(yl);
            AscendC::LocalTensor<half> xa = inX.DeQue<half>();
            AscendC::LocalTensor<half> ya = inY.DeQue<half>();
            AscendC::LocalTensor<half> zl = outZ.AllocTensor<half>();
            AscendC::Mul(zl, xa, ya, tileLength);
            outZ.EnQue<half>(zl);
            inX.FreeTensor(xa);
            inY.FreeTensor(ya);
            AscendC::LocalTensor<half> zo = outZ.DeQue<half>();
            AscendC::DataCopy(zGm[i * tileLength], zo, tileLength);
            outZ.FreeTensor(zo);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inX, inY;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outZ;
    AscendC::GlobalTensor<half> xGm, yGm, zGm;
    uint32_t blockLength, tileNum, tileLength;
};

extern "C" __global__ __aicore__ void mul_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                 GM_ADDR tiling)
{
    GET_TILING_DATA(tiling_data, tiling);
    KernelMul op;
    op.Init(x, y, z, tiling_data.totalLength, tiling_data.tileNum);
    op.Process();
}

#ifndef ASCENDC_CPU_DEBUG
void mul_custom_do(uint32_t blockDim, void *l2ctrl, void *stream, uint8_t *x, uint8_t *y, uint8_t *z,
                   uint8_t *workspace, uint8_t *tiling)
{
    mul_custom<<<blockDim, l2ctrl, stream>>>(x, y, z, workspace, tiling);
}
#endif
"""

MUL_JSON = """\
[{"op": "MulCustom",
  "input_desc": [{"name": "x", "param_type": "required", "format": ["ND"], "type": ["float16"]},
                 {"name": "y", "param_type": "required", "format": ["ND"], "type": ["float16"]}],
  "output_desc": [{"name": "z", "param_type": "required", "format": ["ND"], "type": ["float16"]}],
  "attr": [{"name": "scale", "param_type": "optional", "type": "float", "default_value": "1.0"}]}]
"""

MUL_GEN_DATA = """\
import numpy as np


def gen_golden_data_simple():
    input_x = np.random.uniform(-2, 2, [8, 2048]).astype(np.float16)
    input_y = np.random.uniform(-2, 2, [8, 2048]).astype(np.float16)
    golden = (input_x * input_y).astype(np.float16)
    input_x.tofile("./input/input_x.bin")
    input_y.tofile("./input/input_y.bin")
    golden.tofile("./output/golden.bin")


if __name__ == "__main__":
    gen_golden_data_simple()
"""


def write_msopgen_sample(root: Path) -> Path:
    """`<root>/4_mul_frameworklaunch/{MulCustom.json, MulCustom/, AclNNInvocation/}`; the project."""
    top = root / "4_mul_frameworklaunch"
    op = top / "MulCustom"
    (op / "op_host").mkdir(parents=True)
    (op / "op_kernel").mkdir()
    (op / "op_host" / "mul_custom.cpp").write_text(MUL_HOST)
    (op / "op_host" / "mul_custom_tiling.h").write_text(MUL_TILING_H)
    (op / "op_kernel" / "mul_custom.cpp").write_text(MUL_KERNEL)
    (top / "MulCustom.json").write_text(MUL_JSON)
    (top / "AclNNInvocation" / "scripts").mkdir(parents=True)
    (top / "AclNNInvocation" / "scripts" / "gen_data.py").write_text(MUL_GEN_DATA)
    (op / "reference.py").write_text("def mul_custom(x, y, scale=1.0):\n    return x * y\n")
    return op


# -- samples whose main.cpp computes what the kernel gets (VectorAddMultiCoreWithTiling, AbsPad style) ----
# data_utils.h with the file helpers defined: these samples' own main.cpp is built and run.
DATA_UTILS_IMPL_H = """\
#ifndef DATA_UTILS_H
#define DATA_UTILS_H
#include <cstdint>
#include <cstdio>
#include <string>
inline bool ReadFile(const std::string &filePath, size_t fileSize, void *buffer, size_t bufferSize)
{
    FILE *f = std::fopen(filePath.c_str(), "rb");
    if (f == nullptr) {
        std::printf("cannot open %s\\n", filePath.c_str());
        return false;
    }
    size_t got = std::fread(buffer, 1, bufferSize, f);
    std::fclose(f);
    return got > 0 && got <= fileSize;
}
inline bool WriteFile(const std::string &filePath, const void *buffer, size_t size)
{
    FILE *f = std::fopen(filePath.c_str(), "wb");
    if (f == nullptr) {
        return false;
    }
    std::fwrite(buffer, 1, size, f);
    std::fclose(f);
    return true;
}
#endif
"""

TILED_TILING_H = """\
#ifndef SCALE_CUSTOM_TILING_H
#define SCALE_CUSTOM_TILING_H
#include <cstdint>
struct ScaleCustomTilingData {
    uint32_t totalLength;
    uint32_t dataType;
    uint32_t blockLength;
    uint32_t tileNum;
    uint32_t tileLength;
};
#endif
"""

# The host tiling main.cpp calls: the sizes from the file's totalLength and main.cpp's block dim.
TILED_HOST = """\
#include "scale_custom_tiling.h"

constexpr uint32_t TILE_NUM = 4;
constexpr uint32_t BUFFER_NUM = 2;

void GenerateTilingData(uint8_t *tilingBuf, uint32_t blockDim)
{
    ScaleCustomTilingData *tiling = reinterpret_cast<ScaleCustomTilingData *>(tilingBuf);
    tiling->blockLength = tiling->totalLength / blockDim;
    tiling->tileNum = TILE_NUM;
    tiling->tileLength = tiling->blockLength / TILE_NUM / BUFFER_NUM;
}
"""

TILED_KERNEL = """\
#include "kernel_operator.h"
#include "scale_custom_tiling.h"
constexpr uint32_t BUFFER_NUM = 2;

class KernelScale {
public:
    __aicore__ inline KernelScale() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, ScaleCustomTilingData tiling)
    {
        tileNum = tiling.tileNum;
        tileLength = tiling.tileLength;
        uint32_t offset = tiling.blockLength * AscendC::GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ half *)x + offset, tiling.blockLength);
        yGm.SetGlobalBuffer((__gm__ half *)y + offset, tiling.blockLength);
        pipe.InitBuffer(inQ, BUFFER_NUM, tileLength * sizeof(half));
        pipe.InitBuffer(outQ, BUFFER_NUM, tileLength * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (uint32_t i = 0; i < tileNum * BUFFER_NUM; i++) {
            AscendC::LocalTensor<half> xl = inQ.AllocTensor<half>();
            AscendC::DataCopy(xl, xGm[i * tileLength], tileLength);
            inQ.EnQue(xl);
            AscendC::LocalTensor<half> xin = inQ.DeQue<half>();
            AscendC::LocalTensor<half> yl = outQ.AllocTensor<half>();
            AscendC::Muls(yl, xin, (half)2.0, tileLength);
            outQ.EnQue<half>(yl);
            inQ.FreeTensor(xin);
            AscendC::LocalTensor<half> yout = outQ.DeQue<half>();
            AscendC::DataCopy(yGm[i * tileLength], yout, tileLength);
            outQ.FreeTensor(yout);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, BUFFER_NUM> inQ;
    AscendC::TQue<AscendC::TPosition::VECOUT, BUFFER_NUM> outQ;
    AscendC::GlobalTensor<half> xGm, yGm;
    uint32_t tileNum, tileLength;
};

extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, ScaleCustomTilingData tiling)
{
    KernelScale op;
    op.Init(x, y, tiling);
    op.Process();
}
"""

TILED_MAIN = """\
#include "scale_custom_tiling.h"
#include "data_utils.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
#include "aclrtlaunch_scale_custom.h"
#else
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y, ScaleCustomTilingData tiling);
#endif
extern void GenerateTilingData(uint8_t *tilingBuf, uint32_t blockDim);

int32_t main(int32_t argc, char *argv[])
{
    constexpr uint32_t BLOCK_DIM = 4;
    size_t tilingSize = sizeof(ScaleCustomTilingData);
#ifdef ASCENDC_CPU_DEBUG
    uint8_t *tiling = (uint8_t *)AscendC::GmAlloc(tilingSize);
    ReadFile("./input/input_tiling.bin", tilingSize, tiling, tilingSize);
    GenerateTilingData(tiling, BLOCK_DIM);
    size_t byteSize = reinterpret_cast<ScaleCustomTilingData *>(tiling)->totalLength * sizeof(uint16_t);
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *y = (uint8_t *)AscendC::GmAlloc(byteSize);
    ReadFile("./input/input_x.bin", byteSize, x, byteSize);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(scale_custom, BLOCK_DIM, x, y, *reinterpret_cast<ScaleCustomTilingData *>(tiling));
    WriteFile("./output/output_y.bin", y, byteSize);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)y);
    AscendC::GmFree((void *)tiling);
#else
    aclrtStream stream = nullptr;
    uint8_t *xDevice, *yDevice, *tiling;
    ACLRT_LAUNCH_KERNEL(scale_custom)(BLOCK_DIM, stream, xDevice, yDevice,
        reinterpret_cast<ScaleCustomTilingData *>(tiling));
#endif
    return 0;
}
"""

TILED_GEN_DATA = """\
import numpy as np


def gen_golden_data_simple():
    dtype = np.float16
    dtype_emu = {np.float16: 1, np.float32: 2}
    input_x = np.random.uniform(-4, 4, [8, 1024]).astype(dtype)
    golden = (input_x * 2).astype(dtype)
    tiling = np.array([8 * 1024, dtype_emu[dtype]], dtype=np.uint32)
    tiling.tofile("./input/input_tiling.bin")
    input_x.tofile("./input/input_x.bin")
    golden.tofile("./output/golden.bin")


if __name__ == "__main__":
    gen_golden_data_simple()
"""


def write_host_tiling_sample(root: Path, name: str = "ScaleTilingKernelInvocation") -> Path:
    """VectorAddMultiCoreWithTiling's pattern: main.cpp reads the length from ./input, calls its own
    `GenerateTilingData(tiling, BLOCK_DIM)` (in scale_custom_tiling.cpp) and passes the struct by value."""
    op = root / name
    (op / "scripts").mkdir(parents=True)
    (op / "cmake").mkdir()
    (op / "scale_custom.cpp").write_text(TILED_KERNEL)
    (op / "scale_custom_tiling.h").write_text(TILED_TILING_H)
    (op / "scale_custom_tiling.cpp").write_text(TILED_HOST)
    (op / "main.cpp").write_text(TILED_MAIN)
    (op / "data_utils.h").write_text(DATA_UTILS_IMPL_H)
    (op / "scripts" / "gen_data.py").write_text(TILED_GEN_DATA)
    (op / "CMakeLists.txt").write_text(
        CMAKE.replace("${CMAKE_CURRENT_SOURCE_DIR}/main.cpp)", "${CMAKE_CURRENT_SOURCE_DIR}/main.cpp\n"
                      "    ${CMAKE_CURRENT_SOURCE_DIR}/scale_custom_tiling.cpp)")
    )
    (op / "cmake" / "cpu_lib.cmake").write_text("add_library(ascendc_kernels_cpu SHARED ${KERNEL_FILES})\n")
    (op / "reference.py").write_text("def scale_custom(x, tiling):\n    return x * 2\n")
    return op


# AbsPad's pattern: rows of 16 halves of which the first 11 are data; the host's Pad tiling (ge::Shape,
# GetPadMaxMinTmpSize, PadTilingFunc, SaveToBuffer) reaches the kernel through malloc + memcpy_s.
PAD_HOST = """\
#include "graph/tensor.h"
#include "tiling/tiling_api.h"
#include "tiling/platform/platform_ascendc.h"

void GenerateTiling(const std::vector<int64_t> shapePad, const std::vector<int64_t> shapeUsed,
                    uint8_t *tilingBuf)
{
    ge::Shape srcShape(shapePad);
    ge::Shape oriSrcShape(shapeUsed);
    uint32_t tmpMinSize, tmpMaxSize;
    AscendC::GetPadMaxMinTmpSize(srcShape, sizeof(int16_t), tmpMaxSize, tmpMinSize);
    optiling::PadTiling tilingData;
    AscendC::PadTilingFunc(srcShape, oriSrcShape, tmpMinSize, sizeof(int16_t), tilingData);
    tilingData.SaveToBuffer(tilingBuf, tilingData.GetDataSize());
}
"""

PAD_KERNEL = """\
#include "kernel_operator.h"
constexpr int32_t ROWS = 16;
constexpr int32_t COLS = 16;
constexpr int32_t VALID = 11;
constexpr int32_t TILE = ROWS * COLS;
constexpr int32_t TILES_PER_CORE = 4;

__aicore__ inline void CopyTiling(PadTiling *tiling, GM_ADDR tilingGM)
{
    uint32_t *ptr = reinterpret_cast<uint32_t *>(tiling);
    auto tiling32 = reinterpret_cast<__gm__ uint32_t *>(tilingGM);
    for (uint32_t i = 0; i < sizeof(PadTiling) / sizeof(uint32_t); i++, ptr++) {
        *ptr = *(tiling32 + i);
    }
}

class KernelPadAbs {
public:
    __aicore__ inline KernelPadAbs() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR z, PadTiling tiling)
    {
        this->tiling = tiling;
        const uint32_t offset = TILE * TILES_PER_CORE * AscendC::GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ half *)x + offset, TILE * TILES_PER_CORE);
        zGm.SetGlobalBuffer((__gm__ half *)z + offset, TILE * TILES_PER_CORE);
        pipe.InitBuffer(inQ, 2, TILE * sizeof(half));
        pipe.InitBuffer(outQ, 2, TILE * sizeof(half));
    }
    __aicore__ inline void Process()
    {
        for (int32_t i = 0; i < TILES_PER_CORE; i++) {
            AscendC::LocalTensor<half> in = inQ.AllocTensor<half>();
            AscendC::DataCopy(in, xGm[i * TILE], TILE);
            inQ.EnQue(in);
            AscendC::LocalTensor<half> src = inQ.DeQue<half>();
            AscendC::LocalTensor<half> out = outQ.AllocTensor<half>();
            AscendC::PadParams padParams = {0, COLS - VALID, 0};
            AscendC::Pad(out, src, padParams, this->tiling);
            AscendC::Abs(out, out, TILE);
            outQ.EnQue<half>(out);
            inQ.FreeTensor(src);
            AscendC::LocalTensor<half> res = outQ.DeQue<half>();
            AscendC::DataCopy(zGm[i * TILE], res, TILE);
            outQ.FreeTensor(res);
        }
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, 2> inQ;
    AscendC::TQue<AscendC::TPosition::VECOUT, 2> outQ;
    AscendC::GlobalTensor<half> xGm, zGm;
    PadTiling tiling;
};

extern "C" __global__ __aicore__ void pad_abs_custom(GM_ADDR x, GM_ADDR z, GM_ADDR tilingGM)
{
    PadTiling tiling;
    CopyTiling(&tiling, tilingGM);
    KernelPadAbs op;
    op.Init(x, z, tiling);
    op.Process();
}
"""

PAD_MAIN = """\
#include "data_utils.h"
#include "kernel_tiling/kernel_tiling.h"
#ifndef ASCENDC_CPU_DEBUG
#include "acl/acl.h"
#include "aclrtlaunch_pad_abs_custom.h"
#else
#include "tikicpulib.h"
extern "C" __global__ __aicore__ void pad_abs_custom(GM_ADDR x, GM_ADDR z, GM_ADDR tiling);
#endif
extern void GenerateTiling(const std::vector<int64_t> shapePad, const std::vector<int64_t> shapeUsed,
                           uint8_t *tilingBuf);

int32_t main(int32_t argc, char *argv[])
{
    const std::vector<int64_t> shapeUsed({16, 11});
    const std::vector<int64_t> shapePad({16, 16});
    uint32_t blockDim = 2;
    size_t byteSize = 2 * 4 * 16 * 16 * sizeof(int16_t);
    size_t tilingSize = sizeof(PadTiling);
    uint8_t *tilingBuf = (uint8_t *)malloc(tilingSize);
    GenerateTiling(shapePad, shapeUsed, tilingBuf);
#ifdef ASCENDC_CPU_DEBUG
    uint8_t *x = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *z = (uint8_t *)AscendC::GmAlloc(byteSize);
    uint8_t *tiling = (uint8_t *)AscendC::GmAlloc(tilingSize);
    memcpy_s(tiling, tilingSize, tilingBuf, tilingSize);
    ReadFile("./input/input_x.bin", byteSize, x, byteSize);
    AscendC::SetKernelMode(KernelMode::AIV_MODE);
    ICPU_RUN_KF(pad_abs_custom, blockDim, x, z, tiling);
    WriteFile("./output/output_z.bin", z, byteSize);
    AscendC::GmFree((void *)x);
    AscendC::GmFree((void *)z);
    AscendC::GmFree((void *)tiling);
#else
    aclrtStream stream = nullptr;
    uint8_t *xDevice, *zDevice, *tilingDevice;
    ACLRT_LAUNCH_KERNEL(pad_abs_custom)(blockDim, stream, xDevice, zDevice, tilingDevice);
#endif
    free(tilingBuf);
    return 0;
}
"""

PAD_GEN_DATA = """\
import numpy as np


def gen_golden_data_simple():
    input_x = np.random.uniform(-8, 8, [128, 16]).astype(np.float16)
    golden = np.abs(input_x)
    golden[:, 11:] = 0
    input_x.tofile("./input/input_x.bin")
    golden.tofile("./output/golden.bin")


if __name__ == "__main__":
    gen_golden_data_simple()
"""

PAD_REFERENCE = """\
import numpy as np


def pad_abs_custom(x):
    z = np.abs(x)
    z[:, 11:] = 0
    return z
"""


def write_pad_sample(root: Path, name: str = "PadAbsKernelInvocation") -> Path:
    op = root / name
    (op / "scripts").mkdir(parents=True)
    (op / "pad_abs.cpp").write_text(PAD_KERNEL)
    (op / "pad_abs_tiling.cpp").write_text(PAD_HOST)
    (op / "main.cpp").write_text(PAD_MAIN)
    (op / "data_utils.h").write_text(DATA_UTILS_IMPL_H)
    (op / "scripts" / "gen_data.py").write_text(PAD_GEN_DATA)
    (op / "reference.py").write_text(PAD_REFERENCE)
    return op
