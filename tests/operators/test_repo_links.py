"""An open-repo operator whose build reaches other operators' files (look-alike in
tests/operators/cann_links_style.py): the host sources that define what its repo headers declare are
linked, as CANN's one host library links them; a knob in a sibling operator's kernel header is found,
and its change goes to that header."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.agent.suggestion import apply_suggestion, make_suggestion
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.verify import verify
from ascendopt.operators.candidate import apply_knobs, baseline
from ascendopt.operators.discovery import load_operator
from tests.operators.cann_links_style import write_linked_sq_like

GRAD_CPP = "../sq_like_grad/op_host/sq_like_grad_tiling_regbase.cpp"
RULE_CPP = "../../common/src/op_host/core_rule.cpp"
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available")


def test_sources_defining_what_carried_host_headers_declare_are_linked(tmp_path: Path) -> None:
    op = load_operator(write_linked_sq_like(tmp_path))
    assert op.repo is not None
    # beside the header, and at the inc/ -> src/ mirror of common/inc/op_host/core_rule.h
    assert sorted(op.repo.host_links) == sorted([GRAD_CPP, RULE_CPP])
    assert {GRAD_CPP, RULE_CPP} <= set(op.files.context)  # carried into every build
    assert op.files.host_sources == []  # not the operator's own: no knobs are read from them
    assert not any(k.range.file in (GRAD_CPP, RULE_CPP) for k in op.knobs)


def test_the_queue_depth_from_a_sibling_operators_kernel_header_is_a_knob(tmp_path: Path) -> None:
    op_dir = write_linked_sq_like(tmp_path)
    op = load_operator(op_dir)
    [depth] = [k for k in op.knobs if k.name == "BUFFER_NUM"]
    # where the kernel build sees it (CANN copies op_kernel/ folders side by side), not the dead
    # op_kernel/sq_like_base.h with its 3
    assert (depth.range.file, depth.current, depth.side) == ("sq_like_grad/sq_like_grad_base.h", 1, "kernel")
    assert any("../sq_like_grad/op_kernel/sq_like_grad_base.h" in c for c in depth.constraints)
    assert op.repo is not None
    base = baseline(op)
    cand = apply_knobs(op, base, {"BUFFER_NUM": 2})
    s = make_suggestion(
        operator=op.name,
        root=op.root,
        episode="e1",
        candidate_id=cand.id,
        base_files=base.files,
        proposed_files=cand.files,
        speedups=[],
        geomean=1.0,
        summary="test",
        places=op.repo.relocated,
    )
    assert [c.path for c in s.changes] == ["../sq_like_grad/op_kernel/sq_like_grad_base.h"]
    apply_suggestion(s)
    real = tmp_path / "activation/sq_like_grad/op_kernel/sq_like_grad_base.h"
    assert "BUFFER_NUM = 2;" in real.read_text()
    assert not (op_dir / "sq_like_grad").exists()  # nothing written at the build-tree place


@pytest.mark.slow
@needs_gxx
async def test_it_links_and_verifies_only_with_the_other_operators_source(tmp_path: Path) -> None:
    op = load_operator(write_linked_sq_like(tmp_path))
    ev = await verify(CpuTwinEvaluator(), op)
    assert ev.status == "ok", ev.model_dump_json(indent=1)
    assert all(c.status == "passed" for c in ev.cases)
    assert op.repo is not None
    op.repo.host_links = [RULE_CPP]  # as before: only what the operator's own folder holds, and common
    ev = await verify(CpuTwinEvaluator(), op)
    assert ev.status == "compile_error"
    assert "undefined reference to `vtable for optiling::SqGradTiling4RegBase" in ev.model_dump_json()
