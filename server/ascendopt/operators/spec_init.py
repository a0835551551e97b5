"""Write a starting `ascendopt.toml` from what the operator's code declares."""

from __future__ import annotations

from ascendopt.operators.model import OperatorProject

# ge::DataType → spec dtype
GE_DTYPES = {
    "DT_FLOAT16": "float16",
    "DT_FLOAT": "float32",
    "DT_BF16": "bfloat16",
    "DT_INT8": "int8",
    "DT_INT16": "int16",
    "DT_INT32": "int32",
    "DT_INT64": "int64",
    "DT_UINT8": "uint8",
    "DT_BOOL": "bool",
}


def starting_spec(op: OperatorProject) -> str:
    """TOML text: tensors from the OpDef (or the kernel signature), one small and one large case."""
    if op.opdef is not None:
        ins = [
            (t.name, [GE_DTYPES.get(d, "float16") for d in t.dtypes] or ["float16"]) for t in op.opdef.inputs
        ]
        outs = [
            (t.name, [GE_DTYPES.get(d, "float16") for d in t.dtypes] or ["float16"]) for t in op.opdef.outputs
        ]
        attrs = op.opdef.attrs
    else:
        ins = [(n, ["float16"]) for n in op.kernel.names("input")]
        outs = [(n, ["float16"]) for n in op.kernel.names("output")]
        attrs = []
    lines = [
        "# AscendOptimizer operator spec: what the kernel computes and how to test it.",
        "# Written by `ascendopt init-spec`; check the dtypes, ranges and shapes, then write reference.py.",
        "schema_version = 1",
        f'name = "{op.name}"',
        'soc = "Ascend910B4"',
        f'reference = "reference.py:{op.name}"',
    ]
    if op.layout == "kernel_launch":
        lines.append("block_dim = 8  # kernel-launch projects: the block dim the harness launches with")
    for table, tensors in (("inputs", ins), ("outputs", outs)):
        for name, dtypes in tensors:
            lines += [
                "",
                f"[[{table}]]",
                f'name = "{name}"',
                f"dtypes = [{', '.join(repr(d) for d in dtypes)}]".replace("'", '"'),
            ]
            if table == "inputs":
                lines.append("range = [-1.0, 1.0]")
    for attr in attrs:
        lines += [
            "",
            "[[attrs]]",
            f'name = "{attr}"',
            'type = "float"',
            "default = 0.0  # TODO: the OpDef default",
        ]
    first = ins[0][1][0] if ins else "float16"
    for case, shape in (("small", [8, 2000]), ("large", [1024, 4096])):
        shapes = ", ".join(f"{n} = {shape}" for n, _ in ins)
        lines += ["", "[[cases]]", f'name = "{case}"', f'dtype = "{first}"', f"shapes = {{ {shapes} }}"]
    return "\n".join(lines) + "\n"
