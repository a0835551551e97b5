"""Benchmark tasks as they sit (issue 28, point 1): a task's answer is an operator whose spec comes
from the task (OpDef, ModelNew's call of the binding, test_cases.csv), its PyTorch Model the oracle,
run in the sandbox; the skeleton is listed, not run. Look-alikes: benchmark_task_style.py."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ascendopt.cli import app
from ascendopt.evaluation.oracle import kernel_values, run_oracle
from ascendopt.evaluation.task_spec import with_task_spec
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.issues import SpecError
from ascendopt.operators.soc import calibration_note, soc
from ascendopt.operators.spec import parse_spec
from ascendopt.operators.task import (
    TaskSpecError,
    map_arguments,
    read_test_cases,
    skeleton_of,
    task_of,
    typed_columns,
)
from tests.operators.benchmark_task_style import ADD_CASES, ADD_PREPARE, add_task, make_task, scale_task

runner = CliRunner()
# torch is the `benchmark` extra (a CPU build); without it the oracle cannot run, and these say so.
needs_torch = pytest.mark.skipif(
    importlib.util.find_spec("torch") is None,
    reason="torch is not installed (pip install 'ascendopt[benchmark]'): a task's Model cannot run",
)


def test_case_list_errors_name_the_file_and_line(tmp_path: Path) -> None:
    csv = tmp_path / "test_cases.csv"
    csv.write_text("case_id;shape;dtype\n0;[4];float16\n1;[8]\n", encoding="utf-8")
    with pytest.raises(SpecError) as err:
        read_test_cases(csv)
    assert (err.value.issues[0].file, err.value.issues[0].line) == (str(csv), 3)
    csv.write_text("shape,dtype\n[4],float16\n", encoding="utf-8")
    with pytest.raises(SpecError, match="no header"):
        read_test_cases(csv)
    csv.write_text("case_id;shape;dtype\n\n5;[4, 4];float32\n", encoding="utf-8")
    assert read_test_cases(csv) == [(3, {"case_id": "5", "shape": "[4, 4]", "dtype": "float32"})]


def test_case_rows_are_typed_by_column_as_pandas_reads_them() -> None:
    """get_inputs gets a row as the benchmark's harness (pandas) reads it: a whole column of integers
    is int, one with a decimal anywhere is float, the rest text."""
    rows = [
        {"case_id": "0", "value": "1.2", "n": "4", "flag": "True", "shape": "[4]"},
        {"case_id": "1", "value": "1", "n": "8", "flag": "False", "shape": "[8, 2]"},
    ]
    assert typed_columns(rows) == [
        {"case_id": 0, "value": 1.2, "n": 4, "flag": True, "shape": "[4]"},
        {"case_id": 1, "value": 1.0, "n": 8, "flag": False, "shape": "[8, 2]"},
    ]
    assert isinstance(typed_columns(rows)[1]["value"], float)


def test_answer_and_skeleton_are_told_apart(tmp_path: Path) -> None:
    task = add_task(tmp_path)
    assert task_of(task / "answer" / "0") is not None
    assert task_of(task / "question") is None
    assert skeleton_of(task / "question") is not None
    assert skeleton_of(task / "answer" / "0") is None


def test_binding_arguments_map_in_aclnn_order(tmp_path: Path) -> None:
    op = load_operator(scale_task(tmp_path) / "answer" / "0")
    tensor = {"kind": "tensor", "dtype": "float32", "shape": [3, 256]}
    record = {"args": [tensor, {"kind": "number", "value": 0.5}], "outputs": [tensor]}
    mapping = map_arguments(op, record)
    assert (mapping.args, mapping.outputs) == (["x", "scale"], ["y"])
    # a string where the OpDef has a float attr: said, not guessed
    with pytest.raises(TaskSpecError, match="attr scale"):
        map_arguments(op, {"args": [tensor, {"kind": "str", "value": "mean"}], "outputs": [tensor]})
    with pytest.raises(TaskSpecError, match="Model returns 2 value"):
        map_arguments(op, {"args": [tensor], "outputs": [tensor, tensor]})


@needs_torch
def test_spec_derived_from_the_task(tmp_path: Path) -> None:
    task = add_task(tmp_path)
    op, draft = asyncio.run(with_task_spec(load_operator(task / "answer" / "0")))
    spec = op.spec
    assert spec is not None and spec.oracle is not None
    assert (spec.oracle.args, spec.oracle.outputs) == (["x", "y"], ["z"])
    assert [c.name for c in spec.cases] == ["case3", "case7"]
    assert [c.dtypes["x"] for c in spec.cases] == ["float16", "float32"]
    assert spec.cases[1].shapes == {"x": [2, 8, 96], "y": [2, 8, 96]}
    assert spec.cases[0].params == {"case_id": 3, "size": "[4, 512]", "dtype": "float16"}
    assert spec.tolerance("float32").rtol == 1e-3  # the benchmark's, not CANN's 1e-4
    # the complex row, which no OpDef dtype column takes, is left out with its CSV line, commented out
    assert "# left out: case9 (test_cases.csv:4): no OpDef dtype column takes x=complex64" in draft.text
    assert parse_spec(draft.text, tmp_path / "s.toml").cases == spec.cases
    assert not list((task / "answer" / "0").glob("*.toml"))  # nothing written into the task
    # the SoC the benchmark's answers are written for (48 vector cores), its borrowed calibration said
    assert spec.soc == "Ascend910B2" and soc(spec.soc).core_num_aiv == 48
    assert 'soc = "Ascend910B2"  # Ascend910B2: 48 vector cores, timed with Ascend910B1' in draft.text


@needs_torch
def test_a_derived_spec_sets_the_knob_domains_as_a_spec_file_does(tmp_path: Path) -> None:
    """`optimize`/`knobs` on an answer with no spec search what the campaign (a spec file) searches:
    the domains from the task's shapes and SoC, not the unrefined defaults."""
    task = add_task(tmp_path / "bench")
    plain = load_operator(task / "answer" / "0")
    op, draft = asyncio.run(with_task_spec(plain))
    spec_file = tmp_path / "add.toml"
    spec_file.write_text(draft.text, encoding="utf-8")
    given = load_operator(task / "answer" / "0", spec=spec_file)
    domains = [(k.name, k.values) for k in op.knobs]
    assert domains == [(k.name, k.values) for k in given.knobs]
    assert domains != [(k.name, k.values) for k in plain.knobs]
    assert op.external_spec is not None and task not in op.external_spec.parents
    assert not list(task.rglob("*.toml"))  # nothing written into the task


def test_the_calibration_note_says_whose_data_times_a_soc() -> None:
    assert calibration_note("Ascend910B4") == "Ascend910B4: timed with its own calibration"
    assert "Ascend910B1's calibration (no data of its own)" in calibration_note("Ascend910B2")
    assert "cannot time it" in calibration_note("Ascend310P3")


@needs_torch
def test_a_python_scalar_becomes_the_attr(tmp_path: Path) -> None:
    op, _ = asyncio.run(with_task_spec(load_operator(scale_task(tmp_path) / "answer" / "0")))
    assert op.spec is not None
    assert [c.attrs for c in op.spec.cases] == [{"scale": 0.5}, {"scale": -1.25}]


@pytest.mark.slow  # init-spec pre-checks the cases: builds
@needs_torch
def test_init_spec_out_writes_the_derived_spec(tmp_path: Path) -> None:
    task = add_task(tmp_path / "bench")
    out = tmp_path / "specs" / "add.toml"
    done = runner.invoke(app, ["init-spec", str(task / "answer" / "0"), "--out", str(out)])
    assert done.exit_code == 0, done.output
    assert "the task's Model is the oracle" in done.output
    assert parse_spec(out.read_text(encoding="utf-8"), out).oracle is not None


@needs_torch
def test_the_oracle_runs_sandboxed(tmp_path: Path) -> None:
    """The task's Python sees no network and none of the user's files (it is third-party code)."""
    probe = tmp_path / "secret.txt"
    probe.write_text("secret", encoding="utf-8")
    module = f"""\
import socket, torch, torch.nn as nn
try:
    socket.create_connection(("127.0.0.1", 9), timeout=1)
    NET = "open"
except OSError:
    NET = "closed"
try:
    open({str(probe)!r}).read()
    SEEN = 1.0
except OSError:
    SEEN = 0.0


class Model(nn.Module):
    def forward(self, left, right):
        assert NET == "closed", NET
        return left + right + SEEN
"""
    task = make_task(tmp_path, "add_custom", module, ADD_PREPARE, ADD_CASES)
    op, _ = asyncio.run(with_task_spec(load_operator(task / "answer" / "0")))
    assert op.spec is not None
    case = op.spec.resolve_cases()[0]
    assert op.spec.oracle is not None
    got = asyncio.run(run_oracle(op.root, op.spec.oracle, [("c", case.params, 1)]))["c"]
    assert not isinstance(got, str), got
    inputs, expected = kernel_values(op.spec, case, got)
    assert abs(expected["z"] - (inputs["x"].astype("float64") + inputs["y"])).max() < 1e-2  # SEEN == 0


@pytest.mark.slow
@needs_torch
def test_verify_a_task_as_it_sits(tmp_path: Path) -> None:
    task = add_task(tmp_path)
    done = runner.invoke(app, ["verify", str(task / "answer" / "0"), "--json"])
    assert done.exit_code == 0, done.output
    ev = json.loads(done.stdout[done.stdout.index("{") :])
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"]


@pytest.mark.slow
@needs_torch
def test_a_wrong_model_fails_verify(tmp_path: Path) -> None:
    """The oracle decides: a Model computing something else makes the same answer fail."""
    task = add_task(tmp_path, expr="left - right")
    done = runner.invoke(app, ["verify", str(task / "answer" / "0"), "--json"])
    assert done.exit_code == 1, done.output
    ev = json.loads(done.stdout[done.stdout.index("{") :])
    assert {c["status"] for c in ev["cases"]} == {"failed"}


@pytest.mark.slow
@needs_torch
def test_verify_passes_the_scalar_as_the_kernel_takes_it(tmp_path: Path) -> None:
    done = runner.invoke(app, ["verify", str(scale_task(tmp_path) / "answer" / "0"), "--json"])
    assert done.exit_code == 0, done.output


def test_an_open_repo_answer_in_a_folder_named_0(tmp_path: Path) -> None:
    """An answer in the open repos' shape sits in `answer/0/`: its name, tiling program and tiling
    data come from its OpDef file's name (`op_host/<op>_def.cpp`), not from the folder's."""
    import shutil

    from tests.operators.cann_open_style import write_repo

    src = write_repo(tmp_path / "repo")
    answer = tmp_path / "task" / "answer" / "0"
    shutil.copytree(src, answer)
    op = load_operator(answer)
    assert (op.layout, op.files.host, op.files.tiling_data) == (
        "cann_open",
        "op_host/scale_norm_tiling.cpp",
        "op_kernel/scale_norm_tiling_data.h",
    )


@needs_torch
def test_a_campaign_over_tasks_plans_answers_and_lists_skeletons(tmp_path: Path) -> None:
    """`ascendopt campaign <tasks>`: each answer runs with the spec its task gives (written in the
    campaign's folder, never in the task); each skeleton is listed with why it is not run."""
    from ascendopt.campaign.records import CampaignSettings
    from ascendopt.campaign.service import CampaignService

    tasks = tmp_path / "tasks"
    add_task(tasks)
    workspace = tmp_path / "ws"
    workspace.mkdir()
    before = sorted(p.relative_to(tasks) for p in tasks.rglob("*"))
    record = CampaignService(workspace).plan(CampaignSettings(paths=[tasks], budget=4, strategies=["ours"]))
    by_root = {e.root.relative_to(tasks).as_posix(): e for e in record.operators}
    answer, skeleton = (
        by_root["level1/Cat/TaskAddCustom/answer/0"],
        by_root["level1/Cat/TaskAddCustom/question"],
    )
    assert answer.usable and answer.spec is not None and workspace in answer.spec.parents
    assert parse_spec(answer.spec.read_text(encoding="utf-8"), answer.spec).oracle is not None
    assert not skeleton.usable and "skeleton (question/)" in skeleton.reason
    assert [t.spec for t in record.tasks] == [answer.spec]
    assert sorted(p.relative_to(tasks) for p in tasks.rglob("*")) == before


def test_an_open_repo_answer_whose_struct_an_op_host_header_registers(tmp_path: Path) -> None:
    """No `<op>_tiling_data.h` nor `<op>_tiling.h`: the op_host header that registers the operator's
    struct (`REGISTER_TILING_DATA_CLASS(<Op>, …)`, MaskedSelectV3's masked_select_v3.h) is its tiling
    data; a header registering another operator's is not."""
    import shutil

    from tests.operators.cann_open_style import write_repo

    answer = tmp_path / "task" / "answer" / "0"
    shutil.copytree(write_repo(tmp_path / "repo"), answer)
    (answer / "op_kernel" / "scale_norm_tiling_data.h").unlink()
    struct = (
        "BEGIN_TILING_DATA_DEF({0}TilingData)\nTILING_DATA_FIELD_DEF(uint32_t, n);\nEND_TILING_DATA_DEF;\n"
    )
    (answer / "op_host" / "another.h").write_text(
        struct.format("Other") + "REGISTER_TILING_DATA_CLASS(Other, OtherTilingData)\n", encoding="utf-8"
    )
    assert load_operator(answer).files.tiling_data is None
    (answer / "op_host" / "scale_norm_shapes.h").write_text(
        struct.format("ScaleNorm") + "REGISTER_TILING_DATA_CLASS(ScaleNorm, ScaleNormTilingData)\n",
        encoding="utf-8",
    )
    assert load_operator(answer).files.tiling_data == "op_host/scale_norm_shapes.h"


RANDOM_FACTOR_PREPARE = """\
import torch


def get_inputs(param, device=None):
    shape = eval(param["input_shape"])
    # drawn at random, as Tril's diagonal is: another value under another seed
    factor = float(torch.randint(2, 9, (1,)).item())
    return torch.randn(shape, dtype=getattr(torch, param["dtype"])), factor
"""


@pytest.mark.slow
@needs_torch
def test_an_attr_get_inputs_draws_per_seed_reaches_the_kernel(tmp_path: Path) -> None:
    """The spec records the attr the derivation's seed drew; verify's oracle runs under other seeds,
    and the kernel gets the value the Model got then (with the recorded one the outputs differ)."""
    from tests.operators.benchmark_task_style import SCALE_CASES, SCALE_MODULE

    task = make_task(
        tmp_path, "muls_custom", SCALE_MODULE, RANDOM_FACTOR_PREPARE, SCALE_CASES, with_question=False
    )
    done = runner.invoke(app, ["verify", str(task / "answer" / "0"), "--json", "--seed", "5"])
    assert done.exit_code == 0, done.output
    ev = json.loads(done.stdout[done.stdout.index("{") :])
    assert [c["status"] for c in ev["cases"]] == ["passed", "passed"]
