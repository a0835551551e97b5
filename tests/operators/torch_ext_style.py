"""Look-alikes of a torch-extension launch (the pattern of Huawei's CppExtensions samples, written
here with other names): a kernel file, a pybind11 source whose function fills what the kernel gets
and launches it, a Python test calling the function. Two forms: ACLRT_LAUNCH_KERNEL with a length
computed from the tensor, and an `extern "C" k_do` wrapper taking a tiling struct by value."""

from __future__ import annotations

from pathlib import Path

_SCALE_KERNEL = """#include "kernel_operator.h"
constexpr int32_t DEPTH = 2;

class DoubleIt {
public:
    __aicore__ inline void Init(GM_ADDR src, GM_ADDR dst, uint32_t count)
    {
        share = count / AscendC::GetBlockNum();
        srcGm.SetGlobalBuffer((__gm__ float *)src + share * AscendC::GetBlockIdx(), share);
        dstGm.SetGlobalBuffer((__gm__ float *)dst + share * AscendC::GetBlockIdx(), share);
        pipe.InitBuffer(qin, DEPTH, share * sizeof(float));
        pipe.InitBuffer(qout, DEPTH, share * sizeof(float));
    }
    __aicore__ inline void Run()
    {
        AscendC::LocalTensor<float> a = qin.AllocTensor<float>();
        AscendC::DataCopy(a, srcGm, share);
        qin.EnQue(a);
        AscendC::LocalTensor<float> b = qin.DeQue<float>();
        AscendC::LocalTensor<float> c = qout.AllocTensor<float>();
        AscendC::Muls(c, b, 2.0f, share);
        qout.EnQue(c);
        qin.FreeTensor(b);
        AscendC::LocalTensor<float> d = qout.DeQue<float>();
        AscendC::DataCopy(dstGm, d, share);
        qout.FreeTensor(d);
    }

private:
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::TPosition::VECIN, DEPTH> qin;
    AscendC::TQue<AscendC::TPosition::VECOUT, DEPTH> qout;
    AscendC::GlobalTensor<float> srcGm, dstGm;
    uint32_t share;
};

extern "C" __global__ __aicore__ void twice_kernel(GM_ADDR src, GM_ADDR dst, uint32_t count)
{
    DoubleIt op;
    op.Init(src, dst, count);
    op.Run();
}
"""

_SCALE_BINDING = """#include <pybind11/pybind11.h>
#include <torch/extension.h>

#include "aclrtlaunch_twice_kernel.h"
#include "torch_npu/csrc/core/npu/NPUStream.h"

namespace twice_ext {
torch::Tensor twice(const torch::Tensor &src)
{
    auto stream = c10_npu::getCurrentNPUStream().stream(false);
    torch::Tensor dst = torch::empty_like(src);
    uint32_t cores = 4;
    uint32_t count = 1;
    for (auto d : src.sizes()) {
        count *= d;
    }
    ACLRT_LAUNCH_KERNEL(twice_kernel)
    (cores, stream, const_cast<void *>(src.storage().data()),
     const_cast<void *>(dst.storage().data()), count);
    return dst;
}
}  // namespace twice_ext

PYBIND11_MODULE(twice_kernel, m)
{
    m.doc() = "doubles a tensor";
    m.def("twice", &twice_ext::twice, "");
}
"""

_SCALE_TEST = """import torch
import twice_kernel


def test_twice():
    shape = [4, 512]
    src = torch.randn(shape, dtype=torch.float32)
    got = twice_kernel.twice(src.npu())
    assert torch.allclose(got.cpu(), src * 2)
"""

_AXPY_TILING = """#ifndef AXPY_TILING_H
#define AXPY_TILING_H
#include <cstdint>
struct AxpyTiling {
    uint32_t total;
    uint32_t perCore;
    float alpha;
};
#endif
"""

_AXPY_KERNEL = """#include "kernel_operator.h"
#include "axpy_tiling.h"

extern "C" __global__ __aicore__ void axpy_kernel(GM_ADDR a, GM_ADDR b, GM_ADDR out, AxpyTiling t)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    AscendC::GlobalTensor<float> aGm, bGm, oGm;
    uint32_t n = t.perCore, at = n * AscendC::GetBlockIdx();
    aGm.SetGlobalBuffer((__gm__ float *)a + at, n);
    bGm.SetGlobalBuffer((__gm__ float *)b + at, n);
    oGm.SetGlobalBuffer((__gm__ float *)out + at, n);
    pipe.InitBuffer(buf, 2 * n * sizeof(float));
    AscendC::LocalTensor<float> x = buf.Get<float>();
    AscendC::LocalTensor<float> y = x[n];
    AscendC::DataCopy(x, aGm, n);
    AscendC::DataCopy(y, bGm, n);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::Muls(x, x, t.alpha, n);
    AscendC::PipeBarrier<PIPE_V>();
    AscendC::Add(x, x, y, n);
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::DataCopy(oGm, x, n);
}

#ifndef ASCENDC_CPU_DEBUG
extern "C" void axpy_kernel_do(uint32_t blockDim, void *stream, uint8_t *a, uint8_t *b, uint8_t *out,
                               AxpyTiling t)
{
    axpy_kernel<<<blockDim, nullptr, stream>>>(a, b, out, t);
}
#endif
"""

_AXPY_BINDING = """#include <torch/extension.h>
#include "torch_npu/csrc/core/npu/NPUStream.h"
#include "axpy_tiling.h"

extern "C" void axpy_kernel_do(uint32_t blockDim, void *stream, uint8_t *a, uint8_t *b, uint8_t *out,
                               AxpyTiling t);

at::Tensor axpy(const at::Tensor &lhs, const at::Tensor &rhs, double alpha)
{
    at::Tensor result = at::empty_like(lhs);
    auto stream = c10_npu::getCurrentNPUStream().stream(false);
    auto pl = lhs.storage().data();
    auto pr = rhs.storage().data();
    auto po = result.storage().data();
    uint32_t blockDim = 8;
    AxpyTiling t;
    t.total = static_cast<uint32_t>(lhs.numel());
    t.perCore = t.total / blockDim;
    t.alpha = static_cast<float>(alpha);
    axpy_kernel_do(blockDim, stream, (uint8_t *)pl, (uint8_t *)pr, (uint8_t *)po, t);
    return result;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
    m.def("axpy", &axpy, "lhs * alpha + rhs", py::arg("lhs"), py::arg("rhs"), py::arg("alpha") = 0.5);
}
"""


def write_aclrt_extension(tmp: Path) -> Path:
    root = tmp / "twice_ext"
    root.mkdir(parents=True)
    (root / "twice_kernel.cpp").write_text(_SCALE_KERNEL)
    (root / "pybind11.cpp").write_text(_SCALE_BINDING)
    (root / "test_twice.py").write_text(_SCALE_TEST)
    (root / "reference.py").write_text("def twice_kernel(src):\n    return src * 2\n")
    return root


def write_do_extension(tmp: Path) -> Path:
    root = tmp / "axpy_ext"
    root.mkdir(parents=True)
    (root / "axpy_kernel.cpp").write_text(_AXPY_KERNEL)
    (root / "axpy_tiling.h").write_text(_AXPY_TILING)
    (root / "binding.cpp").write_text(_AXPY_BINDING)
    (root / "reference.py").write_text("def axpy_kernel(lhs, rhs, alpha):\n    return lhs * alpha + rhs\n")
    (root / "ascendopt.toml").write_text(
        """schema_version = 1
name = "axpy_kernel"
soc = "Ascend910B4"
reference = "reference.py:axpy_kernel"

[[inputs]]
name = "lhs"
dtypes = ["float32"]

[[inputs]]
name = "rhs"
dtypes = ["float32"]

[[outputs]]
name = "result"
dtypes = ["float32"]

[[attrs]]
name = "alpha"
type = "float"
default = 0.5

[[cases]]
name = "small"
shapes = { lhs = [8, 64], rhs = [8, 64] }

[[cases]]
name = "wide"
shapes = { lhs = [16, 256], rhs = [16, 256] }
attrs = { alpha = -2.0 }
"""
    )
    return root
