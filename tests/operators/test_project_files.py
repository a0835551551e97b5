"""The build context: what the operator's build reads, and nothing a build or run wrote."""

from __future__ import annotations

from pathlib import Path

from ascendopt.operators.project_files import project_files


def _touch(root: Path, rel: str, text: str = "x\n") -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text)


def test_msopgen_project_context_keeps_build_files_and_drops_outputs(tmp_path: Path) -> None:
    keep = [
        "build.sh",
        "CMakePresets.json",
        "CMakeLists.txt",
        "cmake/config.cmake",
        "cmake/util/makeself/makeself.sh",
        "cmake/util/kernel_impl.temp",
        "scripts/install.sh",
        "framework/tf_plugin/tensorflow_add_custom_plugin.cc",
        "op_host/add_custom.cpp",
        "op_host/add_custom_tiling.h",
        "op_host/CMakeLists.txt",
        "op_kernel/add_custom.cpp",
        "op_kernel/common.h",
        "ascendopt.toml",
        "reference.py",
    ]
    drop = [
        ".ascendopt/episodes/1/events.jsonl",
        ".git/config",
        "build/CMakeCache.txt",
        "build_out/custom_opp_ubuntu_x86_64.run",
        "build_out/op_kernel/add_custom.h",
        "out/bin/ascendc_kernels_bbit",
        "output/output_z.bin",
        "__pycache__/reference.cpython-311.pyc",
        "input/input_x.bin",
        "README.md",
    ]
    for rel in keep + drop:
        _touch(tmp_path, rel)
    got = project_files(tmp_path, "msopgen")
    assert sorted(got) == sorted(keep)
    assert all(p.is_absolute() and p == tmp_path.resolve() / rel for rel, p in got.items())


def test_kernel_launch_context_has_local_headers_and_cmake(tmp_path: Path) -> None:
    for rel in (
        "main.cpp",
        "add_custom.cpp",
        "add_custom_tiling.h",
        "data_utils.h",
        "run.sh",
        "CMakeLists.txt",
        "cmake/cpu_lib.cmake",
        "cmake/npu_lib.cmake",
        "scripts/gen_data.py",
        "input/input_x.bin",
    ):
        _touch(tmp_path, rel)
    (tmp_path / "huge.h").write_bytes(b"/" * 3_000_001)  # generated data, not a source
    got = project_files(tmp_path, "kernel_launch")
    assert "data_utils.h" in got and "add_custom_tiling.h" in got and "cmake/cpu_lib.cmake" in got
    assert "input/input_x.bin" not in got and "huge.h" not in got


def test_discovered_operator_carries_its_build_context(tmp_path: Path) -> None:
    from ascendopt.operators.candidate import baseline
    from ascendopt.operators.discovery import load_operator
    from tests.operators.synthetic import write_kernel_launch

    root = write_kernel_launch(tmp_path)
    _touch(root, "data_utils.h", "#pragma once\n")
    _touch(root, "cmake/cpu_lib.cmake")
    _touch(root, "build/junk.h")
    op = load_operator(root)
    assert {"data_utils.h", "cmake/cpu_lib.cmake"} <= set(op.files.context)
    assert op.files.kernel not in op.files.context and "build/junk.h" not in op.files.context
    assert baseline(op).files["data_utils.h"] == "#pragma once\n"
