"""Per-SoC variants under `op_kernel/arch35/` and `op_host/arch35/` of an msOpGen-style operator are
variants, as in the open repos, not kernels outside every layout (issue 28; look-alike files here,
beside the project's own add_custom template)."""

from __future__ import annotations

import shutil
from pathlib import Path

from ascendopt.operators.discovery import discover

REPO = Path(__file__).resolve().parents[2]
ARCH35_KERNEL = """\
#include "kernel_operator.h"
// a look-alike 950 variant of the entry
extern "C" __global__ __aicore__ void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR w, GM_ADDR t) {}
"""
ARCH35_HELPER = "#pragma once\n__global__ __aicore__ void add_custom_regbase(GM_ADDR x) {}\n"
ARCH35_HOST = "// a look-alike 950 tiling\nint RegbaseTiling() { return 0; }\n"


def test_arch35_folders_are_variants_not_errors(tmp_path: Path) -> None:
    op = tmp_path / "add_custom"
    shutil.copytree(REPO / "templates" / "operators" / "add_custom", op)
    (op / "op_kernel" / "arch35").mkdir()
    (op / "op_kernel" / "arch35" / "add_custom.cpp").write_text(ARCH35_KERNEL)
    (op / "op_kernel" / "arch35" / "add_custom_regbase.h").write_text(ARCH35_HELPER)
    (op / "op_host" / "arch35").mkdir()
    (op / "op_host" / "arch35" / "add_custom_tiling.cpp").write_text(ARCH35_HOST)
    found = discover(tmp_path)
    [only] = found.operators
    assert only.name == "add_custom" and only.layout == "msopgen"
    assert only.files.kernel == "op_kernel/add_custom.cpp"
    errors = [i for i in [*found.issues, *only.issues] if i.severity == "error"]
    assert errors == [], errors
    variants = {i.file for i in only.issues if i.code == "variant"}
    assert variants == {"op_kernel/arch35/add_custom.cpp", "op_kernel/arch35/add_custom_regbase.h"}
