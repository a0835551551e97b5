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


@pytest.mark.slow
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


@pytest.mark.slow
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
def test_a_by_value_struct_main_reads_from_a_file_is_an_input_and_host_code_on_it_runs_main(
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
    assert (args.role, args.tensor) == ("input", "args") and unsupported == []
    host = op.tiling.host_program if op.tiling else None
    if host_fills_it:
        # main.cpp's own code rewrites what it read: the twin runs main.cpp itself (the file still
        # holds the input main.cpp starts from), and says so on the call.
        call_line = main.read_text().splitlines().index("    PrepareArgs(args, 4);") + 1
        assert host is not None and host.calls == [f"PrepareArgs(…) at main.cpp:{call_line}"]
        (note,) = [i for i in op.issues if i.severity == "info"]
        assert (note.file, note.line) == ("main.cpp", call_line)
    else:
        assert host is None


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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_sample_whose_main_cpp_computes_the_tiling_runs_its_own_host_program(tmp_path: Path) -> None:
    # VectorAddMultiCoreWithTiling's pattern: main.cpp reads the length from ./input, its own
    # GenerateTilingData(tiling, BLOCK_DIM) (another .cpp) fills the rest, the struct goes by value.
    import asyncio

    from ascendopt.operators.candidate import Candidate

    root = style.write_host_tiling_sample(tmp_path)
    op = load_operator(root)
    host = op.tiling.host_program if op.tiling else None
    assert host is not None and host.sources == ["scale_custom_tiling.cpp"]
    lines = (root / "main.cpp").read_text().splitlines()
    call = lines.index("    GenerateTilingData(tiling, BLOCK_DIM);") + 1
    assert host.calls == [f"GenerateTilingData(…) at main.cpp:{call}"]
    assert host.files == {
        "tiling": "./input/input_tiling.bin",
        "x": "./input/input_x.bin",
        "y": "./output/output_y.bin",
    }
    assert not [i for i in op.issues if i.severity == "error"], op.issues
    (note,) = [i for i in op.issues if i.severity == "info"]
    assert (note.file, note.line) == ("main.cpp", call) and "run.sh -r cpu" in note.message
    # its host tiling source is tiling code: BUFFER_NUM there and in the kernel is one knob
    (buffers,) = [k for k in op.knobs if k.name == "BUFFER_NUM"]
    assert {buffers.range.file, *(link.file for link in buffers.links)} == {
        "scale_custom.cpp",
        "scale_custom_tiling.cpp",
    }
    draft = starting_spec(op).text
    assert "fixed = true  # main.cpp runs and fixes the shapes" in draft
    # the length and dtype code gen_data.py writes for main.cpp to read (a dict lookup included)
    assert "values = { tiling = [8192, 1] }" in draft and "tiling = [2]" in draft
    op = load_operator(_with_spec(root))
    result = asyncio.run(verify(CpuTwinEvaluator(), op))
    assert result.correct, result.model_dump_json(indent=1)[:2000]
    assert [c.block_dim for c in result.cases] == [4]
    # The block dim main.cpp passes to its host tiling and its launch is a candidate's to change: the
    # host code then splits the length over 8 cores, and the run follows it.
    files = {rel: (root / rel).read_text() for rel in op.files.all()}
    files["main.cpp"] = files["main.cpp"].replace("BLOCK_DIM = 4;", "BLOCK_DIM = 8;")
    ev = asyncio.run(
        CpuTwinEvaluator().evaluate(op, Candidate(operator=op.name, files=files), op.spec.resolve_cases())
    )
    assert ev.correct and [c.block_dim for c in ev.cases] == [8], ev.model_dump_json(indent=1)[:1500]
    # A host tiling that gets the split wrong is the candidate's error, seen in the output.
    files["scale_custom_tiling.cpp"] = files["scale_custom_tiling.cpp"].replace(
        "totalLength / blockDim", "totalLength / blockDim / 2"
    )
    ev = asyncio.run(
        CpuTwinEvaluator().evaluate(op, Candidate(operator=op.name, files=files), op.spec.resolve_cases())
    )
    assert not ev.correct


@pytest.mark.slow
def test_the_pad_sample_runs_main_cpp_with_its_host_pad_tiling(tmp_path: Path) -> None:
    # AbsPad's pattern: GenerateTiling(shapePad, shapeUsed, tilingBuf) with ge::Shape, GetPadMaxMinTmpSize,
    # PadTilingFunc and SaveToBuffer into a malloc'd buffer that memcpy_s moves into the launch's tiling.
    import asyncio

    root = style.write_pad_sample(tmp_path)
    op = load_operator(root)
    assert op.tiling is not None and op.tiling.host_program is not None
    assert op.tiling.host_program.sources == ["pad_abs_tiling.cpp"]
    roles = [(p.name, p.role) for p in op.kernel.params]
    assert roles == [("x", "input"), ("z", "output"), ("tilingGM", "tiling")]
    assert not [i for i in op.issues if i.severity == "error"], op.issues
    _with_spec(root)
    result = asyncio.run(verify(CpuTwinEvaluator(), load_operator(root)))
    assert result.correct, result.model_dump_json(indent=1)[:2000]
    assert result.cases[0].block_dim == 2


def test_host_tiling_is_still_refused_where_main_cpp_has_no_cpu_debug_launch(tmp_path: Path) -> None:
    # Without ICPU_RUN_KF, main.cpp cannot run on the twin: the call that fills the buffer is named.
    root = style.write_host_tiling_sample(tmp_path)
    main = root / "main.cpp"
    text = main.read_text()
    launch = next(line for line in text.splitlines(keepends=True) if "ICPU_RUN_KF(" in line)
    main.write_text(text.replace(launch, ""))
    op = load_operator(root)
    assert op.tiling is not None and op.tiling.host_program is None
    (issue,) = [i for i in op.issues if i.code == "unsupported"]
    assert issue.file == "main.cpp" and "GenerateTilingData(…)" in issue.message
