"""Cost constants that msopmodeling does not provide, and the AscendC API -> intrinsic map.

Every figure here is a modelling choice, not a measurement; the reasoning sits next to
it. ``benchmarks/timing_calibration.py`` shows how the whole model fares against
msopmodeling's real 910B profiling records.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ascendopt.operators.dtypes import DTYPES


class CostConstants(BaseModel):
    model_config = ConfigDict(frozen=True)

    # Kernel launch: task dispatch, AI-core start, end-of-task report. msopmodeling's
    # measured CANN Add/Mul records on 910B4 with <= 1 KB per tensor and block_dim 1
    # take 1.28-1.48 µs (median Task Duration); this model puts ~0.3-0.4 µs of that
    # in the kernel body, which leaves ~1 µs of fixed cost per launch. FITTED with
    # block_dispatch_us (grid 0.8-1.2 × 0-0.15 µs) on those 31 Add/Mul records
    # (timing_calibration.py --set): median error 17.9 % → 13.2 %, mean 30.4 → 24.0 %.
    launch_overhead_us: float = 1.1
    # Block dispatch: the task scheduler starts a launch's blocks on their cores one after
    # another, so block c of the first wave starts c·δ after block 0. FITTED with
    # launch_overhead_us on the same Add/Mul records (benchmarks/timing_calibration.py
    # --set): their small cases take 1.3-1.5 µs at block dim 1 but 2.0 at 4, 2.9 at 8 and
    # 3.2-5.5 at 32-38 blocks for the same tiny work per block.
    block_dispatch_us: float = 0.04
    # Fixed cost of one MTE instruction (descriptor set-up, first-beat latency),
    # paid on the MTE pipe in addition to bytes / bandwidth. ~100 cycles: small
    # enough that a 16 KB tile stays bandwidth-bound, large enough that thousands
    # of tiny DataCopy calls look as slow as they are.
    mte_latency_cycles: float = 100.0
    # Every AscendC API call is dispatched by the scalar unit: address arithmetic,
    # mask/repeat registers, the issue itself. ~16 scalar cycles per call.
    scalar_issue_cycles: float = 16.0
    # PipeBarrier<PIPE_V>: the next vector instruction waits until the last one has
    # written back, this many cycles after it started (vector pipeline depth; an
    # instruction whose issue takes longer exposes nothing). FITTED on the three 910B1
    # RmsNorm records of msopmodeling (ops-nn's open kernel run on the twin: 12-62
    # barriers per block, measured 3.1-4.7 µs; benchmarks/timing_fit.py, grid 0-256,
    # after the launch terms above: 128 → 112); the 910B4 RmsNorm/AddRmsNorm records
    # are held out (benchmarks/timing_fidelity.py --ops-repo). The Add/Mul records have
    # no barriers, so they do not see it.
    pipe_barrier_cycles: float = 112.0
    # Work of an API call on the S pipe itself (GetValue/SetValue go through the
    # scalar unit's UB port and are ordered with the vector pipe).
    scalar_op_cycles: float = 24.0
    # GlobalTensor::GetValue/SetValue: a scalar GM access through the scalar data
    # cache; a miss costs GM latency (hundreds of cycles). 200 cycles on average.
    scalar_gm_cycles: float = 200.0
    # Extra cost of SyncAll (cross-core barrier through GM) once the last core arrives.
    sync_all_us: float = 0.5
    # Bound classification (model.classify_bound).
    launch_bound_share: float = 0.5
    busy_bound_ratio: float = 0.6


DEFAULT_CONSTANTS = CostConstants()


def constants_with(overrides: list[str]) -> CostConstants:
    """The default constants with `NAME=VALUE` overrides (the benchmarks' `--set`); ValueError names
    an unknown constant or a value that is not a number."""
    changed: dict[str, float] = {}
    for item in overrides:
        name, _, value = item.partition("=")
        if name not in CostConstants.model_fields:
            raise ValueError(f"{item}: {name} is not a constant of costs.CostConstants")
        try:
            changed[name] = float(value)
        except ValueError:
            raise ValueError(f"{item}: {value!r} is not a number") from None
    return CostConstants(**changed)


MAX_REPEAT = 255  # one vector instruction repeats at most 255 times; APIs loop beyond that

# AscendC API (as it appears in the trace) -> msopmodeling vector intrinsics executed,
# in order. Composite high-level APIs list one pass per elementary instruction.
VEC_INTRINSICS: dict[str, tuple[str, ...]] = {
    "Add": ("VADD",),
    "Sub": ("VSUB",),
    "Mul": ("VMUL",),
    "Div": ("VDIV",),
    "Max": ("VMAX",),
    "Min": ("VMIN",),
    # msopmodeling has no VAND/VOR row: a one-pass elementwise integer op, costed as VADD (an estimate)
    "And": ("VADD",),
    "Or": ("VADD",),
    # msopmodeling has no shift row: one pass with a scalar operand, as Adds.
    "ShiftLeft": ("VADDS",),
    "ShiftRight": ("VADDS",),
    "Adds": ("VADDS",),
    "Subs": ("VSUBS",),
    "Muls": ("VMULS",),
    "Divs": ("VDIVS",),
    "Maxs": ("VMAX",),
    "Mins": ("VMINS",),
    "Exp": ("VEXP",),
    "Ln": ("LOG",),
    "Log": ("LOG",),
    "Sqrt": ("VSQRT",),
    "Abs": ("VABS",),
    "Not": ("VABS",),  # msopmodeling has no bitwise-not row: one elementwise pass, as Abs
    "Relu": ("RELU",),
    "Rsqrt": ("VSQRT", "VDIV"),
    "Reciprocal": ("VDIV",),
    "LeakyRelu": ("VMULS", "VMAX"),
    "Axpy": ("AXPY",),
    # Dual-input fused instructions are one pass each on the hardware; msopmodeling has no row of
    # their own, so they are costed as the one-pass instruction of the same shape (an estimate):
    # add/sub + relu (+ cast) as VADD, the multiply-adds reading dst as a third operand as AXPY.
    "AddRelu": ("VADD",),
    "SubRelu": ("VSUB",),
    "AddReluCast": ("VADD",),
    "SubReluCast": ("VSUB",),
    # msopmodeling has no fused add-deq-relu row: one elementwise pass, as AddRelu
    "AddDeqRelu": ("VADD",),
    "MulCast": ("VMUL",),
    "FusedMulAdd": ("AXPY",),
    "MulAddDst": ("AXPY",),
    "FusedMulAddRelu": ("AXPY",),
    "MulAddRelu": ("AXPY",),
    "Duplicate": ("VECTOR_DUP",),
    "Copy": ("VCOPY",),
    "DataCopy": ("VCOPY",),
    "Select": ("VSEL",),
    "Compare": ("VCMPV_GE",),
    "CompareScalar": ("VCMPV_GE",),
    "ReduceSum": ("VCADD",),
    "WholeReduceSum": ("VCADD",),
    "RepeatReduceSum": ("VCADD",),
    "BlockReduceSum": ("VCGADD",),
    # no pairwise-add row in msopmodeling: an in-repeat group add, as BlockReduceSum
    "PairReduceSum": ("VCGADD",),
    "ReduceMax": ("VCGMAX", "VCADD"),
    "WholeReduceMax": ("VCGMAX",),
    "BlockReduceMax": ("VCGMAX",),
    "ReduceMin": ("VCGMIN", "VCADD"),
    "WholeReduceMin": ("VCGMIN",),
    "BlockReduceMin": ("VCGMIN",),
    "Brcb": ("VBRCB",),
    "Transpose": ("VTRANS",),
    # msopmodeling has no VNCHWCONV row: a 512 B block transpose a repeat (traced as two 256 B
    # repeats), costed as VTRANS, Transpose's one 16 x 16 matrix (an estimate)
    "TransDataTo5HD": ("VTRANS",),
    "TransDataTo5HDImpl": ("VTRANS",),
    "GatherMask": ("VREDUCEV2",),
    # msopmodeling has no cycle entry for vgather; VREDUCEV2 (GatherMask) is the nearest
    # instruction it does time: also a data-dependent rearrangement of one 256 B repeat.
    "Gather": ("VREDUCEV2",),
    # no index-generation row in msopmodeling: a fill then an add per repeat (an estimate)
    "CreateVecIndex": ("VECTOR_DUP", "VADD"),
    "BroadCast": ("VBRCB", "VCOPY"),
    "Broadcast": ("VBRCB", "VCOPY"),  # the later releases' name of BroadCast
    "Pad": ("VECTOR_DUP", "VCOPY"),
    "UnPad": ("VCOPY",),
    # the docs' steps in fp32 (traced as fp32 256 B repeats): rowmax, broadcast, sub, exp, rowsum,
    # broadcast, div (an estimate, as the other composites)
    "SoftMax": ("VCGMAX", "VBRCB", "VSUB", "VEXP", "VCADD", "VBRCB", "VDIV"),
    # mul, rowsum, broadcast, sub, mul (isFront stops after the broadcast; costed as the whole)
    "SoftmaxGrad": ("VMUL", "VCADD", "VBRCB", "VSUB", "VMUL"),
    # SoftMax's steps without the division, then the update's exp(inMax - max) and sum rescale
    "SoftmaxFlashV2": ("VCGMAX", "VBRCB", "VSUB", "VEXP", "VCADD", "VBRCB", "VEXP", "VMUL", "VADD"),
    "ClampMax": ("VMINS",),
    "ClampMin": ("VMAX",),
    "Sigmoid": ("VMULS", "VEXP", "VADDS", "VDIV"),
    "Silu": ("SILU",),
    "Swish": ("VMULS", "VEXP", "VADDS", "VDIV", "VMUL"),
    "Tanh": ("VMULS", "VEXP", "VADDS", "VDIV", "VMULS", "VADDS"),
    "Gelu": ("VMUL", "VMULS", "VADDS", "VMUL", "VMULS", "VEXP", "VADDS", "VDIV", "VMUL"),
    "FasterGelu": ("VMULS", "VEXP", "VADDS", "VDIV", "VMUL"),
    # lib/math APIs CANN does not publish the sequences of: the twin's guess, a range reduction and a
    # degree-9 odd polynomial (Horner) for the trigonometric ones, exp for the hyperbolic ones.
    "Sin": ("VMULS", "VADDS", "VMUL", "VMULS", "VADDS", "VMUL", "VADDS", "VMUL", "VADDS", "VMUL", "VMUL"),
    "Cos": ("VMULS", "VADDS", "VMUL", "VMULS", "VADDS", "VMUL", "VADDS", "VMUL", "VADDS", "VMUL", "VMUL"),
    "Tan": ("VMULS", "VADDS", "VMUL", "VMULS", "VADDS", "VMUL", "VADDS", "VMUL", "VADDS", "VMUL", "VDIV"),
    "Asin": ("VMUL", "VMULS", "VADDS", "VSQRT", "VMUL", "VADDS", "VMUL", "VADDS", "VMUL", "VADDS", "VMUL"),
    "Acos": ("VMUL", "VMULS", "VADDS", "VSQRT", "VMUL", "VADDS", "VMUL", "VADDS", "VMUL", "VADDS", "VMULS"),
    "Atan": ("VABS", "VDIV", "VMUL", "VMULS", "VADDS", "VMUL", "VADDS", "VMUL", "VADDS", "VMUL", "VMULS"),
    "Sinh": ("VEXP", "VMULS", "VEXP", "VSUB", "VMULS"),
    "Cosh": ("VEXP", "VMULS", "VEXP", "VADD", "VMULS"),
    "Erf": ("VMUL", "VMULS", "VEXP", "VMULS", "VADDS", "VMUL", "VADDS", "VMUL", "VADDS", "VDIV", "VMUL"),
    "Erfc": ("VMUL", "VMULS", "VEXP", "VMULS", "VADDS", "VMUL", "VADDS", "VMUL", "VADDS", "VDIV", "VMULS"),
    "Log2": ("LOG", "VMULS"),
    "Log10": ("LOG", "VMULS"),
    "Sign": ("VCMPV_GE", "VSEL", "VCMPV_GE", "VSEL"),
    "Power": ("LOG", "VMUL", "VEXP"),
    # lib/reduce (CANN does not publish the sequences; the twin's guess): a repeat-wise add of the rows
    # then the per-row reduction, Mean scaling by 1/n.
    "Sum": ("VADD", "VCADD"),
    "Mean": ("VADD", "VCADD", "VMULS"),
    # the docs' steps (the mask compaction when its rows are longer not counted): mask to half, compare,
    # select
    "SelectWithBytesMask": ("CONV_F322F16", "VCMPV_GE", "VSEL"),
}

# Cast intrinsic by (source, destination) dtype; when the trace carries only one dtype
# (the destination), the most common conversion into it is assumed.
CAST_INTRINSICS: dict[tuple[str, str], str] = {
    ("float16", "float32"): "CONV_F162F32",
    ("float32", "float16"): "CONV_F322F16",
    ("bfloat16", "float32"): "CONV_BF162F32",
    ("float32", "bfloat16"): "CONV_F322BF16",
    ("float32", "int32"): "CONV_F322S32R",
    ("int32", "float32"): "CONV_S322F32",
    ("float16", "int8"): "CONV_F162S8R",
    ("int32", "float16"): "CONV_DEQ",
}
CAST_INTO: dict[str, str] = {
    "float32": "CONV_F162F32",
    "float": "CONV_F162F32",
    "float16": "CONV_F322F16",
    "half": "CONV_F322F16",
    "bfloat16": "CONV_F322BF16",
    "int32": "CONV_F322S32R",
    "int8": "CONV_F162S8R",
}

# Element sizes by the names a trace uses: the spec's dtypes and the C++ names the twin writes.
DTYPE_BYTES: dict[str, int] = {name: d.bytes for name, d in DTYPES.items()} | {
    "half": 2,
    "float": 4,
    "uint16": 2,
    "uint32": 4,
    "uint64": 8,
}


def vec_intrinsics(op: str, dtype: str, src_dtype: str | None = None) -> tuple[str, ...] | None:
    """Intrinsics one vector API call executes, or None when the API is unknown."""
    if op == "Cast":
        if src_dtype and (src_dtype, dtype) in CAST_INTRINSICS:
            return (CAST_INTRINSICS[(src_dtype, dtype)],)
        return (CAST_INTO.get(dtype, "CONV_F322F16"),)
    return VEC_INTRINSICS.get(op)


# The cube core (910B's AIC). GUESSES, not fitted: no cube record of msopmodeling's data was checked
# against them. The cube unit multiplies one 16 x 16 x C0 fractal triple per cycle (C0 = 32 B of the
# input type: 16 halves, 32 int8, 8 floats); L1 -> L0 moves 256 B a cycle; each instruction pays a
# start-up of about 20 cycles. A Mmad's traced `n` counts multiply-adds over whole fractals.
CUBE_START_CYCLES = 20.0
CUBE_L1_TO_L0_BYTES_PER_CYCLE = 256.0


def cube_cycles(mmad: bool, dtype: str, n: int, nbytes: int) -> float:
    """Cycles of one cube instruction: a Mmad of `n` multiply-adds of `dtype`, else a move of `nbytes`."""
    if mmad:
        c0 = 32 // DTYPE_BYTES.get(dtype, 2)
        return CUBE_START_CYCLES + n / (16 * 16 * c0)
    return CUBE_START_CYCLES + nbytes / CUBE_L1_TO_L0_BYTES_PER_CYCLE
