"""CANN's own aclnn front ends that a benchmark task's binding (validation/pybind.cpp) may call in
place of its op's generated `aclnn<Op>`: each launches the op with its own parameters in another
order (and under other names) than the OpDef's.

Per front end: the op type it launches and, per aclnn parameter before the outputs (inputs, then
attrs, in the aclnn's order), the OpDef input or attr it is. Written from CANN's aclnn API reference
(the front end's parameter list and the op it documents launching); only what the benchmark's
bindings call.
"""

from __future__ import annotations

FRONT_ENDS: dict[str, tuple[str, tuple[str, ...]]] = {
    # aclnnMseLossBackward(gradOutput, self, target, reduction, gradInput): MseLossGradV2 takes
    # (predict = self, label = target, dout = gradOutput); the reduction int is the attr's string.
    "aclnnMseLossBackward": ("MseLossGradV2", ("dout", "predict", "label", "reduction")),
    # aclnnBatchNorm(input, weight, bias, runningMean, runningVar, training, momentum, eps, output,
    # saveMean, saveInvstd): BatchNormV3 takes (x, weight, bias, mean, variance; is_training, momentum,
    # epsilon).
    "aclnnBatchNorm": (
        "BatchNormV3",
        ("x", "weight", "bias", "running_mean", "running_var", "is_training", "momentum", "epsilon"),
    ),
}
