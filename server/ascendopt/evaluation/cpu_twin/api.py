"""The one registry of AscendC APIs the CPU twin implements, with the header that defines each.

The twin's headers (``include/ascendopt_twin/*.h``) are split by the official API families; every
public name they define is listed here, and ``tests/evaluation/test_twin_api_registry.py`` checks
both directions (each entry is defined in its header, each public definition has an entry) and
that the timing model's cost table and the vector APIs listed here agree. The compile-error
message for an unsupported API lists these names.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

Kind = Literal[
    "tensor",
    "queue",
    "sync",
    "system",
    "copy",
    "cube",
    "gm",
    "mask",
    "register",
    "vector",
    "util",
    "cpu_debug",
    "host_tiling",
]


class TwinApi(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    header: str  # path under the twin's include/ folder
    kind: Kind  # "vector": runs on PIPE_V and must have a cost in timing/costs.py


def _family(header: str, kind: Kind, names: str) -> list[TwinApi]:
    return [TwinApi(name=n, header=header, kind=kind) for n in names.split()]


_H = "ascendopt_twin/"
SUPPORTED_API: tuple[TwinApi, ...] = tuple(
    _family(_H + "tensor.h", "tensor", "LocalTensor GlobalTensor")
    # kernel_operator_list_tensor_intf.h (a kernel includes it itself, as on CANN)
    + _family(_H + "list_tensor.h", "tensor", "ListTensorDesc TensorDesc")
    + _family(_H + "tpipe.h", "queue", "TPipe TQue TQueBind TQueConfig TBuf GetTPipePtr PopStackBuffer")
    + _family(
        _H + "tpipe.h",
        "sync",
        "SetFlag WaitFlag PipeBarrier TQueSync SyncAll SetAtomicAdd SetAtomicMax SetAtomicMin SetAtomicNone "
        "DisableDmaAtomic",
    )
    + _family(
        _H + "sys_var.h",
        "system",
        "GetBlockIdx GetBlockNum GetSubBlockIdx GetSubBlockNum GetTaskRation GetSystemCycle",
    )
    + _family(_H + "datacopy.h", "copy", "DataCopy DataCopyPad")
    + _family(_H + "gm_init.h", "gm", "InitGlobalMemory Fill InitOutput")
    + _family(_H + "mask.h", "mask", "SetMaskCount SetMaskNorm SetVectorMask ResetMask")
    + _family(_H + "vec_binary.h", "vector", "Add Sub Mul Div Max Min And Or")
    + _family(
        _H + "vec_binary_scalar.h", "vector", "Adds Subs Muls Divs Maxs Mins LeakyRelu ShiftLeft ShiftRight"
    )
    + _family(_H + "vec_unary.h", "vector", "Abs Exp Ln Sqrt Rsqrt Reciprocal Relu Not")
    + _family(_H + "vec_ternary.h", "vector", "Axpy")
    + _family(
        _H + "vec_fused.h",
        "vector",
        "AddRelu SubRelu AddReluCast SubReluCast AddDeqRelu MulCast FusedMulAdd MulAddDst FusedMulAddRelu "
        "MulAddRelu",
    )
    + _family(_H + "vec_duplicate.h", "vector", "Duplicate")
    + _family(_H + "vec_copy.h", "vector", "Copy")
    + _family(_H + "vec_vconv.h", "vector", "Cast")
    + _family(_H + "vec_vconv.h", "register", "SetDeqScale")
    + _family(_H + "vec_cmpsel.h", "vector", "Compare CompareScalar Select")
    + _family(
        _H + "vec_reduce.h",
        "vector",
        "ReduceSum ReduceMax ReduceMin WholeReduceSum RepeatReduceSum WholeReduceMax WholeReduceMin "
        "BlockReduceSum BlockReduceMax BlockReduceMin PairReduceSum",
    )
    # The reduction result registers the scalar unit reads (ACC_VAL, the max/min value and index).
    + _family(_H + "vec_reduce.h", "register", "GetReduceMaxMinCount GetAccVal")
    + _family(_H + "vec_brcb.h", "vector", "Brcb")
    + _family(_H + "vec_transpose.h", "vector", "Transpose")
    # TransDataTo5HDImpl: CANN's implementation function on raw UB pointer lists, which answers call directly
    + _family(_H + "vec_nchwconv.h", "vector", "TransDataTo5HD TransDataTo5HDImpl")
    + _family(_H + "vec_gather_mask.h", "vector", "GatherMask")
    + _family(_H + "vec_gather.h", "vector", "Gather")
    + _family(_H + "vec_index.h", "vector", "CreateVecIndex")
    + _family(_H + "adv_activation.h", "vector", "Sigmoid Gelu FasterGelu Silu Swish")
    + _family(
        _H + "adv_math.h",
        "vector",
        "Tanh Log Exp ClampMax ClampMin Sin Cos Tan Asin Acos Atan Sinh Cosh Erf Erfc Log2 Log10 Sign Power",
    )
    + _family(_H + "adv_broadcast.h", "vector", "BroadCast Broadcast")
    + _family(_H + "adv_pad.h", "vector", "Pad UnPad")
    + _family(_H + "adv_softmax.h", "vector", "SoftMax SoftmaxGrad SoftmaxFlashV2")
    + _family(_H + "adv_softmax.h", "util", "SoftMaxFlashV2TilingFuncImpl")
    + _family(_H + "adv_reduce.h", "vector", "Sum Mean")
    + _family(_H + "adv_select.h", "vector", "SelectWithBytesMask")
    + _family(_H + "cross_core.h", "sync", "CrossCoreSetFlag CrossCoreWaitFlag")
    + _family("ascendopt_twin/reduce_tiling.h", "host_tiling", "GetSumMaxMinTmpSize GetMeanMaxMinTmpSize")
    # Host side: the advanced APIs' tiling functions (op_host code includes tiling/tiling_api.h).
    + _family(
        "tiling/tiling_api.h",
        "host_tiling",
        "GetBroadCastMaxMinTmpSize GetPadMaxMinTmpSize PadTilingFunc GetUnPadMaxMinTmpSize UnPadTilingFunc "
        "GetSigmoidMaxMinTmpSize GetSoftMaxMaxTmpSize GetSoftMaxMinTmpSize SoftMaxTilingFunc "
        "GetSoftMaxGradMaxTmpSize GetSoftMaxGradMinTmpSize SoftMaxGradTilingFunc GetSoftMaxFlashV2MaxTmpSize "
        "GetSoftMaxFlashV2MinTmpSize SoftMaxFlashV2TilingFunc",
    )
    + _family(
        _H + "kernel_misc.h",
        "util",
        "GetUserWorkspace GetSysWorkSpacePtr SetSysWorkspace GetUBSizeInBytes GetRuntimeUBSize "
        "GetDataBlockSizeInBytes GetVecLen DivCeil AlignUp ConstCeil Ceil ToFloat ToBfloat16 "
        "DataCacheCleanAndInvalid",
    )
    + _family(_H + "cpu_debug.h", "cpu_debug", "GmAlloc GmFree SetKernelMode")
    # The cube core (AIC): GM -> L1 ND2NZ DataCopy, L1 -> L0 LoadData and LoadDataWithTranspose (1-, 2- and
    # 4-byte types), Mmad, Fixpipe.
    + _family(_H + "cube.h", "cube", "DataCopy Fixpipe LoadData LoadDataWithTranspose Mmad")
    # The high-level Matmul API (a functional model: the product computed where the vector core sees it done;
    # matmul_api.h), AscendC's names for matmul::Matmul and MatmulType.
    + _family(_H + "matmul_api.h", "cube", "Matmul MatmulType")
)


def supported_names() -> tuple[str, ...]:
    return tuple(sorted({a.name for a in SUPPORTED_API}))
