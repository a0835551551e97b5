"""A CANN-style norm operator (a look-alike of ops-nn `norm/rms_norm`: cpu_twin/norm_lookalike.py)
verifies on the CPU twin where it sits, with real g++ builds: the compile info comes from its
TilingParse function, and the kernel's buffer-handle DeQue(), Gather and SetDeqScale + int32 -> half
Cast give the reference's values."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import load_operator
from tests.evaluation.cpu_twin.norm_lookalike import HOST, REFERENCE, write_rms_like

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available"),
]


async def _verify(op_dir: Path) -> Evaluation:
    project = load_operator(op_dir)
    assert project.layout == "cann_open", project.layout
    project.issues = [i for i in project.issues if i.code != "parse"]
    return await verify(CpuTwinEvaluator(), project)


async def test_the_norm_lookalike_verifies_with_its_parsed_compile_info(tmp_path: Path) -> None:
    ev = await _verify(write_rms_like(tmp_path))
    assert ev.status == "ok", ev.model_dump_json(indent=1)
    assert all(c.status == "passed" for c in ev.cases), [(c.index, c.message) for c in ev.cases]
    assert [c.tiling_key for c in ev.cases] == [0, 0, 0]  # the SoC version the TilingParse read: 910B
    # ceil(rows / 40 parsed cores) rows per block: 100 rows -> 3 per block, 34 blocks
    assert [c.block_dim for c in ev.cases] == [3, 34, 16]
    kinds = {f.kind for c in ev.cases for f in c.findings}
    assert "gather_in_place" not in kinds and "deq_scale_unset" not in kinds


async def test_without_a_tiling_parse_the_compile_info_is_empty(tmp_path: Path) -> None:
    host = HOST.replace(".TilingParse<RmsLikeCompileInfo>(TilingPrepareRmsLike)", "")
    ev = await _verify(write_rms_like(tmp_path, host=host))
    assert all(c.status != "passed" for c in ev.cases)
    messages = [c.message for c in ev.cases]
    assert any("tiling function of RmsLike returned" in m for m in messages), messages


async def test_the_deq_scale_path_rounds_through_int32_and_half(tmp_path: Path) -> None:
    op = write_rms_like(tmp_path, host=HOST.replace("? 0 : 1", "? 2 : 1"))
    (op / "reference.py").write_text(
        REFERENCE.replace("return x * rstd * gamma, rstd", "return np.rint(x * rstd * gamma), rstd")
    )
    ev = await _verify(op)
    assert [c.tiling_key for c in ev.cases] == [2, 2, 2]
    assert all(c.status == "passed" for c in ev.cases), [(c.index, c.message) for c in ev.cases]


async def test_an_opdef_registering_the_infershape_links_beside_the_tiling_program(tmp_path: Path) -> None:
    # Both include a header defining a non-inline helper (NPUKernelBench GeluQuant's GetMod): two libraries on
    # CANN, so no clash there; the twin links the OpDef file as its own object with weakened symbols.
    op = write_rms_like(tmp_path)
    (op / "op_host" / "rms_like_util.h").write_text(
        "#pragma once\n#include <cstdint>\nint64_t RmsLikeHalf(int64_t v) { return v / 2; }\n"
    )
    host = op / "op_host" / "rms_like_tiling.cpp"
    host.write_text('#include "rms_like_util.h"\n' + host.read_text())
    opdef = op / "op_host" / "rms_like_def.cpp"
    opdef.write_text(
        opdef.read_text().replace(
            "namespace ops {",
            '#include "rms_like_util.h"\nnamespace ops {\n'
            "static ge::graphStatus InferRmsLike(gert::InferShapeContext *) "
            "{ return RmsLikeHalf(2) == 1 ? ge::GRAPH_SUCCESS : ge::GRAPH_FAILED; }\n"
            "IMPL_OP_INFERSHAPE(RmsLike).InferShape(InferRmsLike);",
            1,
        )
    )
    assert "op_host/rms_like_def.cpp" in load_operator(op).files.host_sources
    ev = await _verify(op)
    assert ev.status == "ok", ev.model_dump_json(indent=1)[:2000]
    assert all(c.status == "passed" for c in ev.cases), [(c.index, c.message) for c in ev.cases]
