"""The official samples' patterns, each discovered and verified on the CPU twin, or reported on the
right line (look-alikes in official_style.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.verify import VerifyError, verify
from ascendopt.operators.discovery import discover, load_operator
from ascendopt.operators.spec import parse_spec
from ascendopt.operators.spec_init import starting_spec
from tests.operators import official_style as style


def _with_spec(op_root: Path) -> Path:
    """Write init-spec's draft beside the operator (what a user does first)."""
    draft = starting_spec(load_operator(op_root))
    (op_root / "ascendopt.toml").write_text(draft.text)
    parse_spec(draft.text, op_root / "ascendopt.toml")  # it validates as written
    return op_root


@pytest.mark.parametrize(
    ("form", "entry", "block_dim"),
    [
        ("do", "extern_c", "variable"),  # k_do wrapper in the kernel file
        ("aclrt", "extern_c", "constexpr"),  # ACLRT_LAUNCH_KERNEL(k)(…)
        ("chevron", "template", "literal"),  # scale_custom<half><<<…>>> and ICPU_RUN_KF(k<half>, …)
        ("aclrt", "cpp_guarded", "variable"),  # C++ linkage, __attribute__, #if guard
    ],
)
def test_kernel_launch_sample_is_discovered_specced_and_verified(
    tmp_path: Path, form: str, entry: str, block_dim: str
) -> None:
    root = style.write_launch_sample(tmp_path, form, entry, block_dim)
    op = load_operator(root)
    assert op.layout == "kernel_launch" and op.name == "scale_custom"
    assert op.tiling is not None and op.tiling.block_dim == 4 and op.tiling.launch == "ICPU_RUN_KF"
    assert [(p.name, p.role, p.tensor) for p in op.kernel.params] == [
        ("x", "input", "x"),
        ("y", "output", "y"),
    ]
    assert op.kernel.extern_c == (entry == "extern_c")
    assert (op.kernel.template_args == "<half>") == (entry == "template")
    assert {"data_utils.h", "scale_custom_tiling.h", "CMakeLists.txt", "cmake/cpu_lib.cmake"} <= set(
        op.files.context
    )
    assert not [i for i in op.issues if i.severity == "error"], op.issues
    text = starting_spec(op).text
    assert "block_dim = 4" in text and "range = [-4.0, 4.0]" in text and "x = [4, 1024]" in text
    assert "fixed = true" in text
    _with_spec(root)
    result = pytest.importorskip("asyncio").run(verify(CpuTwinEvaluator(), load_operator(root)))
    assert result.correct, result.model_dump_json(indent=1)[:2000]


def test_every_launch_form_names_the_kernel_and_its_block_dim(tmp_path: Path) -> None:
    from ascendopt.operators.cpp_source import CppSource
    from ascendopt.operators.launch import int_value, launch_sites, wrappers_in

    root = style.write_launch_sample(tmp_path, "do")
    main = CppSource.parse("main.cpp", (root / "main.cpp").read_text())
    kernel = CppSource.parse("scale_custom.cpp", (root / "scale_custom.cpp").read_text())
    sites = launch_sites(main, wrappers_in(kernel))
    assert [(s.form, s.kernel, s.block_dim, s.args) for s in sites] == [
        ("ICPU_RUN_KF", "scale_custom", "blockDim", ["x", "y"]),
        ("scale_custom_do", "scale_custom", "blockDim", ["xDevice", "yDevice"]),
    ]
    assert {int_value(s.block_dim, main) for s in sites} == {4}
    assert sites[0].line == main.text.splitlines().index("    ICPU_RUN_KF(scale_custom, blockDim, x, y);") + 1


def test_a_template_nobody_instantiates_is_reported_on_its_line(tmp_path: Path) -> None:
    root = style.write_launch_sample(tmp_path, "chevron", "template")
    main = root / "main.cpp"
    main.write_text(main.read_text().replace("scale_custom<half>", "scale_custom"))
    op = load_operator(root)
    (issue,) = [i for i in op.issues if i.code == "unsupported"]
    assert issue.file == "scale_custom.cpp" and "template" in issue.message
    lines = (root / "scale_custom.cpp").read_text().splitlines()
    assert lines[issue.line - 1].startswith("template <typename T>")
    _with_spec(root)
    with pytest.raises(VerifyError, match="template"):
        pytest.importorskip("asyncio").run(verify(CpuTwinEvaluator(), load_operator(root)))


def test_entries_not_understood_are_never_silent(tmp_path: Path) -> None:
    # 1: a kernel beside a main.cpp that launches something else; 2: a kernel in no known layout
    root = style.write_launch_sample(tmp_path, "aclrt")
    (root / "main.cpp").write_text((root / "main.cpp").read_text().replace("scale_custom", "other_custom"))
    stray = tmp_path / "CppExtensions"
    stray.mkdir()
    shutil.copy(root / "scale_custom.cpp", stray / "scale_custom.cpp")
    shutil.copy(root / "scale_custom_tiling.h", stray / "scale_custom_tiling.h")
    found = discover(tmp_path)
    assert found.operators == []
    entry_line = (root / "scale_custom.cpp").read_text().splitlines().index(
        'extern "C" __global__ __aicore__ void scale_custom(GM_ADDR x, GM_ADDR y)'
    ) + 1
    by_file = {Path(i.file).parent.name: i for i in found.issues}
    assert (
        by_file[root.name].line == entry_line and "not launched from main.cpp" in by_file[root.name].message
    )
    assert (
        by_file["CppExtensions"].line == entry_line
        and "outside every layout" in by_file["CppExtensions"].message
    )


def test_out_of_bounds_tail_read_is_reported_on_its_line(tmp_path: Path) -> None:
    root = _with_spec(style.write_oob_sample(tmp_path))
    op = load_operator(root)
    assert op.tiling is not None and op.tiling.block_dim == 1
    result = pytest.importorskip("asyncio").run(verify(CpuTwinEvaluator(), op))
    findings = [f for c in result.cases for f in c.findings]
    hits = [f for f in findings if f.file and f.file.endswith("abs_tail.cpp") and f.line == style.OOB_LINE]
    assert hits, [f.model_dump() for f in findings]
    assert any("end" in f.message or "bound" in f.message for f in hits)


def test_msopgen_sample_spec_comes_from_its_opdef_json_and_gen_data(tmp_path: Path) -> None:
    root = style.write_msopgen_sample(tmp_path)
    op = load_operator(root)
    assert op.layout == "msopgen" and op.op_type == "MulCustom"
    draft = starting_spec(op)
    spec = parse_spec(draft.text, root / "ascendopt.toml")
    assert [t.name for t in spec.inputs] == ["x", "y"] and [t.name for t in spec.outputs] == ["z"]
    assert [(a.name, a.type, a.default) for a in spec.attrs] == [("scale", "float", 1.0)]
    assert spec.inputs[0].range == (-2.0, 2.0)
    assert spec.cases[0].shapes == {"x": [8, 2048], "y": [8, 2048]}
    assert any("gen_data.py" in n for n in draft.notes) and "TODO" not in draft.text.split("[domain]")[0]


@pytest.mark.parametrize("host_fills_it", [False, True])
def test_a_by_value_struct_is_an_input_only_when_main_reads_it_from_a_file(
    tmp_path: Path, host_fills_it: bool
) -> None:
    root = style.write_launch_sample(tmp_path, "aclrt")
    (root / "scale_custom_tiling.h").write_text(
        style.SCALE_TILING_H.replace(
            "#endif", "struct ScaleArgs { uint32_t length; uint32_t cores; };\n#endif"
        )
    )
    kernel = root / "scale_custom.cpp"
    kernel.write_text(
        kernel.read_text().replace(
            "void scale_custom(GM_ADDR x, GM_ADDR y)",
            "void scale_custom(GM_ADDR x, GM_ADDR y, ScaleArgs args)",
        )
    )
    main = root / "main.cpp"
    read = (
        "    uint8_t *args = (uint8_t *)AscendC::GmAlloc(8);\n"
        '    ReadFile("./input/input_args.bin", 8, args, 8);\n'
    )
    if host_fills_it:
        read += "    PrepareArgs(args, 4);\n"
    main.write_text(
        main.read_text()
        .replace("    AscendC::SetKernelMode", read + "    AscendC::SetKernelMode")
        .replace(
            "ICPU_RUN_KF(scale_custom, blockDim, x, y)",
            "ICPU_RUN_KF(scale_custom, blockDim, x, y, *reinterpret_cast<ScaleArgs *>(args))",
        )
    )
    op = load_operator(root)
    args = op.kernel.params[-1]
    unsupported = [i for i in op.issues if i.code == "unsupported"]
    if host_fills_it:
        assert args.role != "input" and len(unsupported) == 1 and "fills it in code" in unsupported[0].message
        # On main.cpp's call that fills it, naming the call and what to change.
        call_line = main.read_text().splitlines().index("    PrepareArgs(args, 4);") + 1
        assert (unsupported[0].file, unsupported[0].line) == ("main.cpp", call_line)
        assert "PrepareArgs(…args…)" in unsupported[0].message and "gen_data.py" in unsupported[0].message
    else:
        assert (args.role, args.tensor) == ("input", "args") and unsupported == []


@pytest.mark.parametrize("block_dim", ["variable", "constexpr", "literal"])
def test_launch_block_dim_is_a_knob_when_the_kernel_splits_by_get_block_num(
    tmp_path: Path, block_dim: str
) -> None:
    root = style.write_launch_sample(
        tmp_path, "aclrt", block_dim="literal" if block_dim == "literal" else "variable"
    )
    style.split_by_block_num(root)
    if block_dim == "constexpr":  # a name the BLOCK_DIM inference also knows: one knob, not two
        main = root / "main.cpp"
        main.write_text(
            main.read_text()
            .replace("uint32_t blockDim = 4;", "constexpr uint32_t BLOCK_DIM = 4;")
            .replace("blockDim", "BLOCK_DIM")
        )
    op = load_operator(root)
    knobs = [k for k in op.knobs if k.kind == "block_dim"]
    assert len(knobs) == 1, op.knobs
    k = knobs[0]
    text = (root / "main.cpp").read_text()
    assert (
        k.range.file == "main.cpp" and text[k.range.start_byte : k.range.end_byte] == "4" and k.current == 4
    )
    assert 16 in k.values and 40 in k.values
    # a literal in both launches (CPU-debug and NPU) is one knob with a link
    assert len(k.links) == (1 if block_dim == "literal" else 0)


def test_a_kernel_with_its_core_count_compiled_in_gets_no_block_dim_knob(tmp_path: Path) -> None:
    op = load_operator(style.write_launch_sample(tmp_path, "aclrt"))  # USE_CORE_NUM = 4 in its header
    assert [k for k in op.knobs if k.kind == "block_dim"] == []


def test_the_twin_launches_a_candidate_with_the_block_dim_its_main_cpp_sets(tmp_path: Path) -> None:
    import asyncio

    from ascendopt.operators.candidate import Candidate

    root = _with_spec(style.split_by_block_num(style.write_launch_sample(tmp_path, "aclrt")))
    op = load_operator(root)
    (k,) = [k for k in op.knobs if k.kind == "block_dim"]
    files = {rel: (root / rel).read_text() for rel in op.files.all()}
    main = files["main.cpp"]
    files["main.cpp"] = main[: k.range.start_byte] + "8" + main[k.range.end_byte :]
    ev = asyncio.run(
        CpuTwinEvaluator().evaluate(op, Candidate(operator=op.name, files=files), op.spec.resolve_cases())
    )
    assert ev.correct and [c.block_dim for c in ev.cases] == [8], ev.model_dump_json(indent=1)[:1500]


def test_a_tiling_buffer_main_cpp_computes_and_copies_is_refused_on_the_computing_call(
    tmp_path: Path,
) -> None:
    # Like the unaligned Pad/UnPad samples: a host GenerateTiling fills a malloc'd buffer, memcpy_s
    # moves it into the GmAlloc'd tiling the CPU-debug launch passes.
    root = style.write_launch_sample(tmp_path, "aclrt")
    kernel = root / "scale_custom.cpp"
    kernel.write_text(
        kernel.read_text().replace(
            "void scale_custom(GM_ADDR x, GM_ADDR y)",
            "void scale_custom(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)",
        )
    )
    main = root / "main.cpp"
    fill = (
        "    uint8_t *tilingBuf = (uint8_t *)malloc(8);\n"
        "    GenerateTiling(4096, tilingBuf);\n"
        "    uint8_t *tiling = (uint8_t *)AscendC::GmAlloc(8);\n"
        "    memcpy_s(tiling, 8, tilingBuf, 8);\n"
    )
    main.write_text(
        main.read_text()
        .replace("    AscendC::SetKernelMode", fill + "    AscendC::SetKernelMode")
        .replace(
            "ICPU_RUN_KF(scale_custom, blockDim, x, y)", "ICPU_RUN_KF(scale_custom, blockDim, x, y, tiling)"
        )
    )
    op = load_operator(root)
    (issue,) = [i for i in op.issues if i.code == "unsupported"]
    line = main.read_text().splitlines().index("    GenerateTiling(4096, tilingBuf);") + 1
    assert (issue.file, issue.line) == ("main.cpp", line)
    assert "GenerateTiling(…)" in issue.message and "ReadFile" in issue.message
    import asyncio

    from ascendopt.agent.service import Optimizer, OptimizeRequest

    with pytest.raises(VerifyError, match="GenerateTiling"):
        asyncio.run(verify(CpuTwinEvaluator(), load_operator(_with_spec(root))))
    # optimize stops on the same reason, on the same line, without spending budget
    outcome = asyncio.run(Optimizer(tmp_path).optimize(load_operator(root), OptimizeRequest(budget=6)))
    assert outcome.suggestion is None and outcome.evaluations == 0
    assert f"main.cpp:{line}:" in outcome.message and "GenerateTiling" in outcome.message
