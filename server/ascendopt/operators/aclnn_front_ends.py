"""CANN's own aclnn front ends that a benchmark task's binding (validation/pybind.cpp) may call in
place of its op's generated `aclnn<Op>`: each launches the op with its own parameters in another
order (and under other names) than the OpDef's, and may convert them before it launches.

Per front end: the op type it launches; per aclnn parameter before the outputs (inputs, then attrs,
in the aclnn's order), the OpDef input or attr it is; and where the front end does more than hand its
parameters on: per aclnn output the OpDef output it is, the dtypes it casts inputs to, the cases in
which it launches another op instead, and inputs it reshapes. Written from CANN's aclnn API reference
(the front end's parameter list and what it documents doing); only what the benchmark's bindings call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

_FLOATS = ("float16", "bfloat16", "float32")


def promote(a: str, b: str) -> str:
    """The dtype two float tensors promote to (the op API's PromoteType): the same one, else float32
    (half with bfloat16 included)."""
    return a if a == b else "float32"


@dataclass(frozen=True)
class FrontEnd:
    op_type: str
    params: tuple[str, ...]  # per aclnn parameter before the outputs: the OpDef input or attr it is
    outputs: tuple[str, ...] = ()  # per aclnn output: the OpDef output it is (empty: the OpDef's order)
    # the input dtypes the op is launched with, from the dtypes the binding passes (by OpDef input)
    launched_dtypes: Callable[[Mapping[str, str]], dict[str, str]] | None = None
    # why this case launches another op instead ("" when it launches this one), from the inputs' shapes
    # and the attrs' values (by OpDef name)
    other_op: Callable[[Mapping[str, object], Mapping[str, object]], str] | None = None
    # inputs of fewer dims than this are launched with trailing 1s up to it (0: none reshaped)
    min_rank: dict[str, int] | None = None


def _batch_norm_dtypes(seen: Mapping[str, str]) -> dict[str, str]:
    """aclnnBatchNorm before BatchNormV3: weight and bias in x's dtype when they promote to it, else in
    float32; running mean and variance in float32."""
    out = dict(seen)
    x = seen.get("x")
    pair = [seen[n] for n in ("weight", "bias") if n in seen]
    if x in _FLOATS and pair:
        both = promote(pair[0], pair[-1])
        for n in ("weight", "bias"):
            if n in seen:
                out[n] = x if both == x else "float32"
    for n in ("running_mean", "running_var"):
        if seen.get(n) in _FLOATS:
            out[n] = "float32"
    return out


_BN_MIN_CHANNELS = 64  # aclnnBatchNorm launches BatchNormV3 only for C >= 64 (else BNTrainingReduce/Update)


def _batch_norm_other_op(shapes: Mapping[str, object], attrs: Mapping[str, object]) -> str:
    if not attrs.get("is_training", True):
        return "aclnnBatchNorm launches BNInfer in inference (training false), not BatchNormV3"
    x = shapes.get("x")
    channels = x[1] if isinstance(x, list) and len(x) > 1 and isinstance(x[1], int) else 0
    if channels < _BN_MIN_CHANNELS:
        return (
            f"aclnnBatchNorm launches BNTrainingReduce + BNTrainingUpdate for {channels} channels "
            f"(BatchNormV3 from {_BN_MIN_CHANNELS}), not BatchNormV3"
        )
    return ""


FRONT_ENDS: dict[str, FrontEnd] = {
    # aclnnMseLossBackward(gradOutput, self, target, reduction, gradInput): MseLossGradV2 takes
    # (predict = self, label = target, dout = gradOutput); the reduction int is the attr's string.
    "aclnnMseLossBackward": FrontEnd("MseLossGradV2", ("dout", "predict", "label", "reduction")),
    # aclnnBatchNorm(input, weight, bias, runningMean, runningVar, training, momentum, eps, output,
    # saveMean, saveInvstd): BatchNormV3 takes (x, weight, bias, mean, variance; is_training, momentum,
    # epsilon) and gives (y, running mean and variance in place, save_mean, save_rstd). It launches
    # BatchNormV3 only when training with at least 64 channels, casts as _batch_norm_dtypes says, and
    # launches a 2-D or 3-D input as 4-D (N, C, L…, 1).
    "aclnnBatchNorm": FrontEnd(
        "BatchNormV3",
        ("x", "weight", "bias", "running_mean", "running_var", "is_training", "momentum", "epsilon"),
        outputs=("y", "save_mean", "save_rstd"),
        launched_dtypes=_batch_norm_dtypes,
        other_op=_batch_norm_other_op,
        min_rank={"x": 4},
    ),
}
