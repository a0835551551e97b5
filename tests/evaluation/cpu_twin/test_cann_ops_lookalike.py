"""An older cann-ops elementwise operator (a look-alike: cpu_twin/cann_ops_lookalike.py) gets a
spec from its OpDef and `examples/AclNNInvocationNaive/` sample and verifies where it sits, with
real g++ builds: its kernel named like a C library function, `float16_t`/`float32_t`, and host code
leaning on what CANN's headers bring (`std::cout`, `TypeUtils::GetDataTypeLength`,
`GetSigmoidMaxMinTmpSize`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import tomllib

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.spec_init import starting_spec
from tests.evaluation.cpu_twin.cann_ops_lookalike import REFERENCE, write_cann_ops_repo

_FP32_CASE = '\n[[cases]]\nname = "fp32"\ndtype = "float32"\nshapes = { x = [16, 512] }\n'


def test_init_spec_leaves_out_the_complex_column_and_reads_the_examples_sample(tmp_path: Path) -> None:
    op = load_operator(write_cann_ops_repo(tmp_path))
    assert op.name == "fabs" and op.files.host == "op_host/fabs.cpp"
    draft = starting_spec(op)
    spec = tomllib.loads(draft.text)
    # DT_COMPLEX128 is no spec dtype: its column goes from every tensor, not mapped to another type.
    assert spec["inputs"][0]["dtypes"] == ["float16", "float32"]
    assert spec["outputs"][0]["dtypes"] == ["float16", "float32"]
    assert any("columns left out: 3 (DT_COMPLEX128)" in n for n in draft.notes), draft.notes
    assert any("examples/AclNNInvocationNaive/gen_data.py" in n for n in draft.notes), draft.notes
    assert spec["cases"][0]["shapes"] == {"x": [16, 512]} and spec["cases"][0]["dtype"] == "float16"
    assert spec["inputs"][0]["range"] == [-3.0, 3.0]


def test_init_spec_reads_shapes_from_the_samples_aclnn_call(tmp_path: Path) -> None:
    draft = starting_spec(load_operator(write_cann_ops_repo(tmp_path, gen_data=False)))
    spec = tomllib.loads(draft.text)
    assert spec["cases"][0]["shapes"] == {"x": [4, 2048]}, draft.notes
    assert any("examples/AclNNInvocationNaive/main.cpp" in n for n in draft.notes), draft.notes


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available")
async def test_it_verifies_where_it_sits(tmp_path: Path) -> None:
    root = write_cann_ops_repo(tmp_path)
    # the reference first: with one, init-spec does not make the sample's generator the oracle
    # (which would fix the shapes to its own and refuse the added fp32 case)
    (root / "reference.py").write_text(REFERENCE)
    (root / "ascendopt.toml").write_text(starting_spec(load_operator(root)).text + _FP32_CASE)
    project = load_operator(root)
    ev = await verify(CpuTwinEvaluator(), project)
    assert ev.status == "ok", ev.model_dump_json(indent=1)
    assert [c.status for c in ev.cases] == ["passed"] * 3, [(c.index, c.message) for c in ev.cases]
    assert [c.block_dim for c in ev.cases] == [4, 4, 4]
