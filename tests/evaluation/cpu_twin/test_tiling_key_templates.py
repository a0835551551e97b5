"""A kernel entry templated over its tiling key (ASCENDC_TPL_*) builds and runs on the CPU twin the way
CANN's build runs it: one instantiation per ASCENDC_TPL_SEL combination, the tiling key picks one.

Real g++ builds of a look-alike written for these tests (tests/evaluation/cpu_twin/cann_open_lookalike.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.launcher import template_params
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.soc import soc
from tests.evaluation.cpu_twin.cann_open_lookalike import HOST, write_axpy_like

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available"),
]


async def _verify(op_dir: Path) -> Evaluation:
    project = load_operator(op_dir)
    # Parser tolerance of OP_CHECK_IF & co is discovery's concern; the twin is judged here.
    project.issues = [i for i in project.issues if i.code != "parse"]
    assert project.kernel.tiling_key_template
    return await verify(CpuTwinEvaluator(), project)


def _by_name(ev: Evaluation) -> dict[str, object]:
    names = ["float-small", "float-large", "int32"]
    return {names[c.index]: c for c in ev.cases}


async def test_each_tiling_key_reaches_its_instantiation(tmp_path: Path) -> None:
    ev = await _verify(write_axpy_like(tmp_path))
    assert ev.status == "ok", ev.model_dump_json(indent=1)
    cases = _by_name(ev)
    # keys by the documented rule: schMode (2 bits, its index in {0, 1, 2}) | doubleBuffer (1 bit) << 2
    assert {n: c.tiling_key for n, c in cases.items()} == {  # type: ignore[attr-defined]
        "float-small": 0,
        "float-large": 0 | 1 << 2,
        "int32": 1 | 1 << 2,
    }
    # float and int32 paths compute in their own type: both match the reference
    assert all(c.status == "passed" for c in ev.cases), [(c.index, c.message) for c in ev.cases]


async def test_a_key_outside_the_selection_names_it_and_the_combinations(tmp_path: Path) -> None:
    host = HOST.replace(
        "context->SetTilingKey(GET_TPL_TILING_KEY(mode, doubleBuffer));",
        "context->SetTilingKey(dt == ge::DT_INT32 ? 1 : GET_TPL_TILING_KEY(mode, doubleBuffer));",
    )
    ev = await _verify(write_axpy_like(tmp_path, host=host))
    int32 = _by_name(ev)["int32"]
    assert int32.status != "passed"  # type: ignore[attr-defined]
    found = [f for f in int32.findings if f.kind == "tiling_key_not_instantiated"]  # type: ignore[attr-defined]
    assert found, int32
    msg = found[0].message
    assert "tiling key 1," in msg
    assert "schMode=0, doubleBuffer=0 (key 0)" in msg and "schMode=1, doubleBuffer=1 (key 5)" in msg
    assert found[0].file == "op_kernel/axpy_like.cpp" and found[0].line == 3
    assert all(c.status == "passed" for c in ev.cases if c.index != 2)


async def test_the_910b_architecture_branch_is_the_one_compiled(tmp_path: Path) -> None:
    ok = await _verify(write_axpy_like(tmp_path / "b", soc="Ascend910B4"))
    other = await _verify(write_axpy_like(tmp_path / "p", soc="Ascend310P3"))
    float_cases = ("float-small", "float-large")
    assert all(_by_name(ok)[n].status == "passed" for n in float_cases)  # type: ignore[attr-defined]
    # on 310P (__CCE_AICORE__ 200) the other branch scales x by 3: not x + y
    assert all(_by_name(other)[n].status == "failed" for n in float_cases)  # type: ignore[attr-defined]


def test_arch_macros_follow_the_documented_table() -> None:
    assert soc("Ascend910B4").arch_defines == ["-D__CCE_AICORE__=220", "-D__NPU_ARCH__=2201"]
    assert soc("Ascend910_9391").arch_defines == ["-D__CCE_AICORE__=220", "-D__NPU_ARCH__=2201"]
    assert soc("Ascend310P3").arch_defines == ["-D__CCE_AICORE__=200", "-D__NPU_ARCH__=2002"]
    assert soc("Ascend910A").arch_defines == ["-D__CCE_AICORE__=100", "-D__NPU_ARCH__=1001"]
    assert soc("SomethingElse").arch_defines == []


def test_template_parameter_lists() -> None:
    assert template_params("<uint32_t schMode>") == [("uint32_t", "schMode")]
    assert template_params("<typename D_T_X, int BUFFER_MODE = 1, bool B>") == [
        ("typename", "D_T_X"),
        ("int", "BUFFER_MODE"),
        ("bool", "B"),
    ]


async def test_a_templated_entry_without_a_declaration_says_so(tmp_path: Path) -> None:
    op = write_axpy_like(tmp_path)
    key_h = op / "op_kernel" / "axpy_like_tiling_key.h"
    key_h.write_text(key_h.read_text().split("ASCENDC_TPL_ARGS_DECL")[0] + "#endif\n")
    host = op / "op_host" / "axpy_like_tiling.cpp"
    host.write_text(host.read_text().replace("GET_TPL_TILING_KEY(mode, doubleBuffer)", "mode"))
    ev = await _verify(op)
    assert ev.status == "compile_error"
    assert any("no ASCENDC_TPL_ARGS_DECL" in e.message for e in ev.compile_errors), ev.compile_errors
