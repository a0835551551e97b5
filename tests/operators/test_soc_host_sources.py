"""The host sources an open-repo operator's build compiles depend on the SoC, as CANN's CMake selects
them (look-alike in tests/operators/cann_soc_sources_style.py): top-level `*_tiling*.cpp` always, the
CMakeLists' TILING_DIR folder of the SoC only; a 950 source the twin cannot build is left out, with a
trap for whatever the 910B path would call in it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.layouts.cann_open import tiling_dirs
from tests.operators.cann_soc_sources_style import HOST, write_abs_like

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available")


def test_the_socs_tiling_folder_is_the_one_its_cmake_maps(tmp_path: Path) -> None:
    op_dir = write_abs_like(tmp_path)
    assert tiling_dirs(op_dir) == {"ascend910b": "arch22", "ascend950": "arch35"}
    op = load_operator(op_dir)
    assert op.files.host == "op_host/abs_like_tiling.cpp"
    assert op.files.tiling_data == "op_host/abs_like_tiling_def.h"  # ops-math's *_tiling_def.h
    # every top-level tiling source (CMake compiles them for every SoC), and arch22/, not arch35/
    assert op.files.host_sources == [
        "op_host/abs_like_tiling_arch35.cpp",
        "op_host/arch22/abs_like_tiling_arch22.cpp",
    ]
    spec = op_dir / "ascendopt.toml"
    spec.write_text(spec.read_text().replace('soc = "Ascend910B4"', 'soc = "Ascend950PR"'))
    assert "op_host/arch35/abs_like_tiling_regbase.cpp" in load_operator(op_dir).files.host_sources


def test_a_class_static_queue_depth_is_a_knob(tmp_path: Path) -> None:
    op = load_operator(write_abs_like(tmp_path))
    depth = op.knob("BUFFER_NUM")
    assert (depth.kind, depth.current, depth.range.file) == ("buffer_num", 2, "op_kernel/abs_like.h")


@pytest.mark.slow
@needs_gxx
async def test_a_950_source_that_cannot_build_is_left_out_and_the_910b_path_verifies(tmp_path: Path) -> None:
    op = load_operator(write_abs_like(tmp_path))
    ev = await verify(CpuTwinEvaluator(), op)
    assert ev.status == "ok", ev.model_dump_json(indent=1)
    [case] = ev.cases
    assert case.status == "passed", case.message
    [note] = [f for f in case.findings if f.kind == "host_source_left_out"]
    assert note.severity == "warning" and note.file == "op_host/abs_like_tiling_arch35.cpp"
    assert "atvoss/util/dag.h" in note.message


@pytest.mark.slow
@needs_gxx
async def test_reaching_what_was_left_out_stops_the_tiling_naming_it(tmp_path: Path) -> None:
    host = HOST.replace("if (Ops::Base::IsRegbaseSocVersion(context)) {", "if (true) {")
    op = load_operator(write_abs_like(tmp_path, host=host))
    ev = await verify(CpuTwinEvaluator(), op)
    [case] = ev.cases
    assert case.status != "passed"
    text = ev.model_dump_json()
    assert "reached optiling::AbsLikeRegbaseTiling::RunTiling()" in text, text
    assert "op_host/abs_like_tiling_arch35.cpp" in text
