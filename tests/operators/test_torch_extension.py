"""A torch-extension launch is a layout (issue 28): pybind11.cpp's function fills what the kernel
gets and launches it (ACLRT_LAUNCH_KERNEL, or an `extern "C" k_do` wrapper); no main.cpp, no
op_host/. The twin builds the function against its torch stand-in and calls it with each case's
tensors (look-alikes in torch_ext_style.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.cpu_twin.torch_ext import call_file, driver_source
from ascendopt.evaluation.verify import verify
from ascendopt.operators.candidate import Candidate
from ascendopt.operators.discovery import discover, load_operator
from ascendopt.operators.spec import parse_spec
from ascendopt.operators.spec_init import starting_spec
from tests.operators import torch_ext_style as style


def test_an_aclrt_extension_is_found_with_its_function_as_the_host_program(tmp_path: Path) -> None:
    root = style.write_aclrt_extension(tmp_path)
    op = load_operator(root)
    assert (op.name, op.layout, op.files.host) == ("twice_kernel", "kernel_launch", "pybind11.cpp")
    assert [(p.name, p.role, p.tensor) for p in op.kernel.params][:2] == [
        ("src", "input", "src"),
        ("dst", "output", "dst"),
    ]
    host = op.tiling.host_program if op.tiling else None
    assert host is not None and host.call is not None
    assert (host.call.function, host.call.params, host.call.outputs) == (
        "twice_ext::twice",
        [("src", "tensor")],
        ["dst"],
    )
    assert host.files == {"src": "input/src.bin", "dst": "output/dst.bin"}
    # CANN generates aclrtlaunch_<k>.h; the twin's build generates one that launches on the twin
    (header,) = host.call.headers.items()
    assert header[0] == "aclrtlaunch_twice_kernel.h"
    assert (
        "aclrtlaunch_twice_kernel(uint32_t blockDim, void *stream, void *src, void *dst, uint32_t count)"
        in header[1]
    )
    assert op.tiling is not None and op.tiling.block_dim == 4
    assert not [i for i in op.issues if i.severity == "error"], op.issues
    (note,) = [i for i in op.issues if i.severity == "info"]
    assert note.file == "pybind11.cpp" and "twice_ext::twice" in note.message


def test_init_spec_takes_the_tensors_from_the_function_and_the_shapes_from_the_python_test(
    tmp_path: Path,
) -> None:
    root = style.write_aclrt_extension(tmp_path)
    draft = starting_spec(load_operator(root))
    spec = parse_spec(draft.text, root / "ascendopt.toml")
    assert [t.name for t in spec.inputs] == ["src"] and [t.name for t in spec.outputs] == ["dst"]
    assert spec.inputs[0].dtypes == ["float32"]
    assert spec.cases[0].shapes == {"src": [4, 512]}
    assert "fixed = true" not in draft.text  # the function sizes the launch from any shape
    assert any("test_twice.py" in n for n in draft.notes), draft.notes


def test_a_do_wrapper_extension_gets_its_guarded_wrapper_back_as_glue(tmp_path: Path) -> None:
    root = style.write_do_extension(tmp_path)
    op = load_operator(root)
    host = op.tiling.host_program if op.tiling else None
    assert host is not None and host.call is not None
    assert host.call.params == [("lhs", "tensor"), ("rhs", "tensor"), ("alpha", "scalar")]
    assert host.call.outputs == ["result"]
    # the kernel file keeps its <<<>>> wrapper out of the CPU-debug build: the glue is that function
    assert 'extern "C" void axpy_kernel_do(uint32_t blockDim, void *stream' in host.call.glue
    assert "ICPU_RUN_KF(axpy_kernel, blockDim, a, b, out, t);" in host.call.glue
    # roles through the locals that hold a tensor's GM (`auto pl = lhs.storage().data();`)
    assert [(p.name, p.role, p.tensor) for p in op.kernel.params][:3] == [
        ("a", "input", "lhs"),
        ("b", "input", "rhs"),
        ("out", "output", "result"),
    ]
    assert op.spec is not None
    case = op.spec.resolve_cases()[1]
    text = call_file(host.call, case, host.files).decode()
    assert text.splitlines() == [
        "tensor float32 2 16 256 input/lhs.bin",
        "tensor float32 2 16 256 input/rhs.bin",
        "scalar -2.0",
        "output output/result.bin",
    ]
    main = driver_source(host.call, "binding.cpp")
    assert '#include "binding.cpp"' in main
    assert "call.Outputs(axpy(call.Tensor(0), call.Tensor(1), call.Scalar<double>(2)));" in main


def test_a_folder_with_a_module_but_no_kernel_is_no_operator(tmp_path: Path) -> None:
    # ops-nn's torch_extension/csrc/*.cpp call aclnn through a macro: no kernel launched here
    (tmp_path / "csrc").mkdir()
    (tmp_path / "csrc" / "ext.cpp").write_text(
        "#include <torch/extension.h>\nat::Tensor f(const at::Tensor &x) { return x; }\n"
        'PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("f", &f, ""); }\n'
    )
    found = discover(tmp_path)
    assert found.operators == [] and not [i for i in found.issues if i.severity == "error"]


@pytest.mark.slow
def test_both_extension_forms_verify_on_the_twin(tmp_path: Path) -> None:
    root = style.write_aclrt_extension(tmp_path)
    (root / "ascendopt.toml").write_text(starting_spec(load_operator(root)).text)
    result = asyncio.run(verify(CpuTwinEvaluator(), load_operator(root)))
    assert result.correct, result.model_dump_json(indent=1)[:2000]
    assert [c.block_dim for c in result.cases] == [4]

    root = style.write_do_extension(tmp_path)
    op = load_operator(root)
    result = asyncio.run(verify(CpuTwinEvaluator(), op))
    assert result.correct, result.model_dump_json(indent=1)[:2000]
    assert [c.block_dim for c in result.cases] == [8, 8]


@pytest.mark.slow
def test_a_function_that_computes_on_the_host_without_a_launch_is_refused(tmp_path: Path) -> None:
    # The hostile candidate: the right values written by host code, the kernel never launched.
    root = style.write_do_extension(tmp_path)
    op = load_operator(root)
    assert op.spec is not None
    files = {rel: (root / rel).read_text() for rel in op.files.all()}
    files["binding.cpp"] = files["binding.cpp"].replace(
        "    axpy_kernel_do(blockDim, stream, (uint8_t *)pl, (uint8_t *)pr, (uint8_t *)po, t);\n",
        "    for (int64_t i = 0; i < lhs.numel(); ++i)\n"
        "        ((float *)po)[i] = ((const float *)pl)[i] * t.alpha + ((const float *)pr)[i];\n",
    )
    ev = asyncio.run(
        CpuTwinEvaluator().evaluate(op, Candidate(operator=op.name, files=files), op.spec.resolve_cases())
    )
    assert not ev.correct
    assert any("binding.cpp launched no kernel" in (c.message or "") for c in ev.cases), ev.model_dump_json(
        indent=1
    )[:2000]
