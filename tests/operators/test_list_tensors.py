"""List (DYNAMIC) inputs end to end on the CPU twin: the spec's form and its errors, init-spec from
the OpDef / the kernel and the sample's files, the host's GetDynamicInput* calls and the kernel's
ListTensorDesc, built with g++ (look-alikes in list_style.py)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from ascendopt.evaluation.cpu_twin.build import INCLUDE_DIR
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.cpu_twin.untimed import raw_gm_findings
from ascendopt.evaluation.manifest import manifest_files
from ascendopt.evaluation.reference import run_reference
from ascendopt.evaluation.tensors import make_inputs
from ascendopt.evaluation.toolchain import CaseJob
from ascendopt.evaluation.verify import verify
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.issues import SpecError
from ascendopt.operators.soc import soc
from ascendopt.operators.spec import parse_spec
from ascendopt.operators.spec_init import starting_spec
from tests.operators import list_style as style

SPEC = """\
schema_version = 1
name = "sum_list_custom"
reference = "reference.py:sum_list_custom"

[[inputs]]
name = "xs"
dtypes = ["float16"]
param_type = "dynamic"

[[inputs]]
name = "bias"
dtypes = ["float16"]

[[outputs]]
name = "z"
dtypes = ["float16"]

[[cases]]
name = "three"
shapes = { xs = [[4, 32], [4, 32], [4, 32]], bias = [4, 32] }
"""


def _write(root: Path, spec: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "ascendopt.toml").write_text(spec)
    return root


def _spec_error(text: str) -> tuple[int, str]:
    with pytest.raises(SpecError) as err:
        parse_spec(text, Path("ascendopt.toml"))
    issue = err.value.issues[0]
    return issue.line, issue.message


def test_a_list_input_resolves_to_one_instance_per_tensor() -> None:
    spec = parse_spec(SPEC, Path("ascendopt.toml"))
    case = spec.resolve_cases()[0]
    assert case.lists == {"xs": 3}
    assert list(case.input_shapes) == ["xs.0", "xs.1", "xs.2", "bias"]
    assert case.instances("xs") == ["xs.0", "xs.1", "xs.2"] and case.dtype_of("xs.2") == "float16"
    inputs = make_inputs(spec, case, seed=1)
    assert list(inputs) == list(case.input_shapes)
    assert not np.array_equal(inputs["xs.0"], inputs["xs.1"])  # each tensor has its own values

    seen: list[object] = []

    def reference(xs: list[np.ndarray], bias: np.ndarray) -> np.ndarray:
        seen.append(xs)
        return sum(xs) + bias

    out = run_reference(reference, spec, case, inputs)
    assert isinstance(seen[0], list) and len(seen[0]) == 3
    assert np.allclose(out["z"], inputs["xs.0"] + inputs["xs.1"] + inputs["xs.2"] + inputs["bias"])


def test_the_manifest_announces_the_list_before_its_tensors() -> None:
    spec = parse_spec(SPEC, Path("ascendopt.toml"))
    case = spec.resolve_cases()[0]
    project = type(
        "P",
        (),
        {"spec": spec, "op_type": "SumListCustom", "layout": "msopgen", "tiling": None, "opdef": None},
    )()
    inputs = make_inputs(spec, case, 0)
    job = CaseJob(project, case, inputs, {"z": [4, 32]}, "/w", "/s", False, soc("Ascend910B4"))  # type: ignore[arg-type]
    files = manifest_files(job)
    lines = files["manifest.txt"].decode().splitlines()
    start = lines.index("dynamic_input xs 3")
    assert [line.split()[1] for line in lines[start + 1 : start + 5]] == ["xs.0", "xs.1", "xs.2", "bias"]
    assert {"in_xs.0.bin", "in_xs.2.bin", "in_bias.bin"} <= set(files)


@pytest.mark.parametrize(
    ("edit", "line", "words"),
    [
        # a list input with one shape: the error says how to write a list, on the case's shapes line
        (("xs = [[4, 32], [4, 32], [4, 32]]", "xs = [4, 32]"), 20, "one shape per tensor"),
        # a plain input with a list of shapes
        (("bias = [4, 32]", "bias = [[4, 32]]"), 20, 'param_type = "dynamic"'),
        # a bad dim inside the list names the tensor
        (("[4, 32], [4, 32], [4, 32]]", "[4, 32], [4, 0], [4, 32]]"), 20, "'xs.1'"),
    ],
)
def test_list_spec_errors_name_the_line(edit: tuple[str, str], line: int, words: str) -> None:
    got_line, message = _spec_error(SPEC.replace(*edit))
    assert words in message, message
    assert got_line == line, (got_line, message)


def test_the_kernel_s_list_api_is_not_raw_gm_work_but_pointer_walking_is() -> None:
    sanctioned = style.SUM_KERNEL + style.PAIR_KERNEL.format(count=2)
    assert raw_gm_findings("k.cpp", sanctioned) == []
    walking = (
        "__aicore__ inline __gm__ half *Nth(GM_ADDR list, int i) {\n"
        "    __gm__ uint64_t *w = reinterpret_cast<__gm__ uint64_t *>(list);\n"
        "    __gm__ uint64_t *ptrs = w + (*w >> 3);\n"
        "    return reinterpret_cast<__gm__ half *>(ptrs[i]);\n"
        "}\n"
    )
    assert [f.line for f in raw_gm_findings("k.cpp", walking)] == [2, 3]


@pytest.mark.slow
def test_msopgen_list_sample_is_specced_from_its_opdef_and_verified(tmp_path: Path) -> None:
    root = style.write_msopgen_list_sample(tmp_path)
    op = load_operator(root)
    assert op.layout == "msopgen" and op.op_type == "SumListCustom"
    draft = starting_spec(op)
    spec = parse_spec(draft.text, root / "ascendopt.toml")
    assert [(t.name, t.param_type) for t in spec.inputs] == [("xs", "dynamic")]
    # the sample's three input files are the list's three tensors
    assert spec.cases[0].shapes == {"xs": [[16, 1024]] * 3}
    assert spec.inputs[0].range == (-3.0, 3.0)
    assert "TODO" not in draft.text.split("[domain]")[0], draft.text
    (root / "ascendopt.toml").write_text(draft.text)
    result = asyncio.run(verify(CpuTwinEvaluator(), load_operator(root)))
    assert result.correct, result.model_dump_json(indent=1)[:3000]
    assert all(c.block_dim == 8 for c in result.cases)


@pytest.mark.slow
def test_the_tiling_program_sees_each_list_length_the_spec_gives(tmp_path: Path) -> None:
    root = style.write_msopgen_list_sample(tmp_path)
    text = starting_spec(load_operator(root)).text.split("[[cases]]")[0]
    text += '[[cases]]\nname = "one"\nshapes = { xs = [[8, 512]] }\n'
    text += '[[cases]]\nname = "five"\nshapes = { xs = [[8, 512], [8, 512], [8, 512], [8, 512], [8, 512]] }\n'
    text += '[[cases]]\nname = "unequal"\nshapes = { xs = [[8, 512], [1, 512]] }\n'
    (root / "ascendopt.toml").write_text(text)
    result = asyncio.run(verify(CpuTwinEvaluator(), load_operator(root)))
    by_name = {c.name: c for c in result.cases}
    assert by_name["one"].status == "passed" and by_name["five"].status == "passed", by_name
    # the tiling program refuses tensors of different shapes (GetDynamicInputShape(0, 1) differs)
    assert by_name["unequal"].status == "error" and "tiling" in by_name["unequal"].message


@pytest.mark.slow
def test_kernel_launch_list_sample_is_specced_from_its_kernel_and_main_and_verified(tmp_path: Path) -> None:
    root = style.write_launch_list_sample(tmp_path)
    op = load_operator(root)
    assert op.layout == "kernel_launch" and [(p.name, p.role) for p in op.kernel.params] == [
        ("pair", "input"),
        ("z", "output"),
    ]
    draft = starting_spec(op)
    spec = parse_spec(draft.text, root / "ascendopt.toml")
    assert [(t.name, t.param_type) for t in spec.inputs] == [("pair", "dynamic")]
    assert spec.cases[0].shapes == {"pair": [[4, 512], [4, 512]]}
    (root / "ascendopt.toml").write_text(draft.text)
    result = asyncio.run(verify(CpuTwinEvaluator(), load_operator(root)))
    assert result.correct, result.model_dump_json(indent=1)[:3000]
    assert not [f for c in result.cases for f in c.findings if f.kind == "raw_gm_access"]


@pytest.mark.slow
def test_a_list_length_check_that_fails_is_an_error_on_its_line(tmp_path: Path) -> None:
    root = style.write_launch_list_sample(tmp_path, count=3)  # the kernel expects 3 pointers, gets 2
    (root / "ascendopt.toml").write_text(starting_spec(load_operator(root)).text)
    result = asyncio.run(verify(CpuTwinEvaluator(), load_operator(root)))
    hits = [
        f
        for c in result.cases
        for f in c.findings
        if f.kind == "bad_list_tensor" and f.line == style.PAIR_LIST_LINE
    ]
    assert hits and hits[0].severity == "error" and "shapeSize 3" in hits[0].message
    assert not result.correct


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_sample_s_own_cpu_debug_main_builds_its_list_and_the_twin_reads_it(tmp_path: Path) -> None:
    """The block main.cpp lays out by hand is the layout the twin's ListTensorDesc parses."""
    root = style.write_launch_list_sample(tmp_path)
    (root / "data_utils.cpp").write_text(style.DATA_UTILS_CPP)
    runtime = INCLUDE_DIR.parent / "runtime"
    flags = ["-std=c++17", "-O1", "-DASCENDC_CPU_DEBUG=1", "-D__CCE_KT_TEST__=1", "-I", str(INCLUDE_DIR)]
    # main.cpp keeps its own main here (a build by hand); the product's build swaps in cpu_debug_main.cpp
    twin = [str(p) for p in sorted(runtime.glob("*.cpp")) if p.name != "cpu_debug_main.cpp"]
    sources = ["main.cpp", "pair_sub_custom.cpp", "data_utils.cpp", *twin]
    subprocess.run(
        ["g++", *flags, "-I", str(root), "-I", str(runtime), *sources, "-pthread", "-o", "app"],
        cwd=root,
        check=True,
        capture_output=True,
    )
    (root / "input").mkdir()
    (root / "output").mkdir()
    rng = np.random.default_rng(0)
    a, b = (rng.uniform(-5, 5, [4, 512]).astype(np.float16) for _ in range(2))
    a.tofile(root / "input" / "input_a.bin")
    b.tofile(root / "input" / "input_b.bin")
    run = subprocess.run(["./app"], cwd=root, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    z = np.fromfile(root / "output" / "output_z.bin", dtype=np.float16).reshape(4, 512)
    assert np.array_equal(z, (a - b).astype(np.float16))
    assert "bad_list_tensor" not in run.stderr


def test_the_re_check_draws_fresh_shapes_for_every_tensor_of_a_list() -> None:
    from ascendopt.agent.recheck import extra_shapes

    spec = parse_spec(
        SPEC.replace(", bias = [4, 32]", "").replace(
            '[[inputs]]\nname = "bias"\ndtypes = ["float16"]\n\n', ""
        ),
        Path("ascendopt.toml"),
    )
    extra, notes = extra_shapes(spec, spec.resolve_cases())
    assert extra, [n.line() for n in notes]
    for case in extra:
        assert case.lists == {"xs": 3} and list(case.input_shapes) == ["xs.0", "xs.1", "xs.2"]
        assert len({tuple(s) for s in case.input_shapes.values()}) == 1
