"""Semantics of the twin's CANN-side headers, compiled with g++: the tiling-key encoding of
ascendc/host_api/tiling/template_argument.h (expected keys derived here from the documented rule) and
the ops-base / securec helpers tiling programs call."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.build import INCLUDE_DIR, OPBASE_DIRS

pytestmark = [pytest.mark.slow, pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available")]

INVALID = 2**64 - 1


def _run(tmp_path: Path, source: str) -> list[str]:
    (tmp_path / "t.cpp").write_text(source)
    flags = ["-I", str(INCLUDE_DIR), *(f for d in OPBASE_DIRS for f in ("-I", str(INCLUDE_DIR / d)))]
    subprocess.run(
        ["g++", "-std=c++17", "-O0", *flags, str(tmp_path / "t.cpp"), "-o", str(tmp_path / "t")],
        check=True,
        capture_output=True,
        text=True,
    )
    out = subprocess.run([str(tmp_path / "t")], check=True, capture_output=True, text=True)
    return out.stdout.split()


KEYS = """
#include "ascendc/host_api/tiling/template_argument.h"
#include <cstdio>
ASCENDC_TPL_ARGS_DECL(Probe,
    ASCENDC_TPL_UINT_DECL(DimNum, ASCENDC_TPL_4_BW, ASCENDC_TPL_UI_RANGE, 1, 1, 8),
    ASCENDC_TPL_BOOL_DECL(Split, 0, 1),
    ASCENDC_TPL_DTYPE_DECL(D_T_X, C_DT_FLOAT, C_DT_FLOAT16, C_DT_BF16, ASCENDC_TPL_INPUT(0)),
    ASCENDC_TPL_UINT_DECL(Tile, ASCENDC_TPL_8_BW, ASCENDC_TPL_UI_MIX, 2, 0, 2, 3, 5, 10, 12, 13, 9, 8),
    ASCENDC_TPL_UINT_DECL(Mode, ASCENDC_TPL_2_BW, ASCENDC_TPL_UI_LIST, 7, 3, 5), );
ASCENDC_TPL_SEL(
    ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_KERNEL_TYPE_SEL(ASCENDC_TPL_AIV_ONLY),
        ASCENDC_TPL_UINT_SEL(DimNum, ASCENDC_TPL_UI_RANGE, 1, 1, 8), ASCENDC_TPL_BOOL_SEL(Split, 0, 1),
        ASCENDC_TPL_DATATYPE_SEL(D_T_X, C_DT_FLOAT, C_DT_BF16),
        ASCENDC_TPL_UINT_SEL(Tile, ASCENDC_TPL_UI_LIST, 0, 9, 8),
        ASCENDC_TPL_UINT_SEL(Mode, ASCENDC_TPL_UI_LIST, 3, 5),
        ASCENDC_TPL_TILING_STRUCT_SEL(SomeStruct)), );
namespace tpl = ::ascendopt_twin::tpl;
constexpr size_t kN = ASCENDOPT_TWIN_TPL_COUNT(g_ascendoptTplDecl);
constexpr size_t kM = tpl::CountCombos(g_ascendoptTplDecl, kN, g_ascendoptTplSel, 1);
constexpr auto kTable = tpl::BuildCombos<kM, kN>(g_ascendoptTplDecl, g_ascendoptTplSel, 1);
static_assert(kM == 8 * 2 * 2 * 3 * 2, "cartesian product of the selection");
int main() {
    std::printf("%llu\\n", (unsigned long long)GET_TPL_TILING_KEY(1, false, C_DT_FLOAT, 0, 3));
    std::printf("%llu\\n", (unsigned long long)GET_TPL_TILING_KEY(3, true, C_DT_BF16, 9, 5));
    std::printf("%llu\\n", (unsigned long long)GET_TPL_TILING_KEY(8, true, C_DT_FLOAT, 8, 3));
    // a dtype not selected; a mode declared but not selected
    std::printf("%llu\\n", (unsigned long long)GET_TPL_TILING_KEY(3, true, C_DT_FLOAT16, 9, 5));
    std::printf("%llu\\n", (unsigned long long)GET_TPL_TILING_KEY(3, true, C_DT_BF16, 9, 7));
    std::printf("%llu\\n", (unsigned long long)kTable.keys[kM - 1]);
    return 0;
}
"""


def _key(dim: int, split: int, dtype: int, tile: int, mode: int) -> int:
    """The documented rule: fields in declaration order from bit 0; a UINT field is the value's index in
    its declared list (RANGE expanded, then MIX's listed values); BOOL and DTYPE fields are the value."""
    dims = list(range(1, 9))
    tiles = [0, 1, 2, 3, 4, 5, 10, 12, 13, 9, 8]
    modes = [7, 3, 5]
    return dims.index(dim) | split << 4 | dtype << 5 | tiles.index(tile) << 13 | modes.index(mode) << 21


def test_tiling_key_encoding_for_several_bit_widths(tmp_path: Path) -> None:
    out = [int(v) for v in _run(tmp_path, KEYS)]
    assert out[0] == _key(1, 0, 0, 0, 3) == 1 << 21
    assert out[1] == _key(3, 1, 27, 9, 5)
    assert out[2] == _key(8, 1, 0, 8, 3)
    assert out[3] == INVALID and out[4] == INVALID
    # the last combination of the product: every argument at its last selected value
    assert out[5] == _key(8, 1, 27, 8, 5)


HELPERS = """
#include "log/log.h"
#include "util/math_util.h"
#include "op_host/tiling_base_util.h"
#include "securec.h"
#include <cstdio>
static int Check(const void* p) {
    OP_CHECK_IF(p == nullptr, OP_LOGE("Probe", "null %d", 7), return 2);
    return 0;
}
int main() {
    using namespace Ops::Base;
    std::printf("%ld %ld %ld %ld\\n", CeilDiv(7L, 2L), CeilDiv(-7L, 2L), CeilDiv(7L, 0L), CeilDiv(7u, 2u));
    std::printf("%ld %ld ", FloorDiv(7L, 2L), FloorDiv(7L, 0L));
    std::printf("%ld %ld\\n", CeilAlign(33L, 32L), FloorAlign(33L, 32L));
    std::printf("%ld\\n", CeilAlign(5L, 0L));
    gert::Shape scalar, two{3, 4};
    std::printf("%zu %ld %zu\\n", EnsureNotScalar(scalar).GetDimNum(), EnsureNotScalar(scalar).GetDim(0),
                EnsureNotScalar(two).GetDimNum());
    char buf[8] = "abcdefg";
    int r1 = memset_s(buf, sizeof buf, 'x', 3);
    int r2 = memcpy_s(buf, 4, "0123456", 8);  // too long for the destination: cleared, error
    std::printf("%d %d %d\\n", r1, r2 != EOK, buf[0]);
    std::printf("%d %d\\n", Check(nullptr), Check(buf));
    return 0;
}
"""


def test_ops_base_helpers_and_securec(tmp_path: Path) -> None:
    out = _run(tmp_path, HELPERS)
    assert out[:4] == ["4", "-3", "7", "4"]  # ceil toward +inf for same signs; x / 0 gives x
    assert out[4:8] == ["3", "7", "64", "32"]
    assert out[8] == "0"
    assert out[9:12] == ["1", "1", "2"]  # a scalar reads as {1}
    assert out[12:15] == ["0", "1", "0"]
    assert out[15:17] == ["2", "0"]
