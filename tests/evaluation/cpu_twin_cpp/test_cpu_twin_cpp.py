"""C++ tests of the AscendOptimizer CPU twin: builds the runtime with g++, runs test kernels, checks semantics
(expected values from the AscendC docs' precision-conversion and API examples) and sanitizer findings.

Uses only pytest + subprocess + g++ (and struct/array from the stdlib for binary files)."""

import array
import json
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
TWIN = REPO / "server" / "ascendopt" / "evaluation" / "cpu_twin"
INC = TWIN / "include"
ADD = REPO / "templates" / "operators" / "add_custom"
N = 1024
CXX = ["g++", "-std=c++17", "-O1", "-I", str(INC)]

LAUNCHER = """#include "ascendopt_twin/runner.h"
extern "C" void {fn}(uint8_t*, uint8_t*, uint8_t*, uint8_t*, uint8_t*);
static void ascendopt_launch(uint8_t** a) {{ {fn}(a[0], a[1], a[2], a[3], a[4]); }}
int main(int argc, char** argv) {{ return ascendopt_twin::RunnerMain(argc, argv, &ascendopt_launch); }}
"""


def _run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert p.returncode == 0, f"{' '.join(map(str, cmd))}\n{p.stdout}\n{p.stderr}"
    return p


@pytest.fixture(scope="session")
def runtime_objs(tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("g++ not available")
    d = tmp_path_factory.mktemp("twin_rt")
    objs = []
    for src in sorted((TWIN / "runtime").glob("*.cpp")):  # a runner's objects (cpu_debug_main: main.cpp only)
        if src.name == "cpu_debug_main.cpp":
            continue
        o = d / (src.stem + ".o")
        _run([*CXX, "-c", str(src), "-o", str(o)])
        objs.append(o)
    return objs


def _link(d, runtime_objs, objs, fn):
    (d / "launch.cpp").write_text(LAUNCHER.format(fn=fn))
    _run([*CXX, "-c", str(d / "launch.cpp"), "-o", str(d / "launch.o")])
    exe = d / "runner"
    _run(["g++", "-o", str(exe)] + [str(o) for o in runtime_objs + objs] + [str(d / "launch.o"), "-pthread"])
    return exe


@pytest.fixture(scope="session")
def cases_runner(runtime_objs, tmp_path_factory):
    d = tmp_path_factory.mktemp("twin_cases")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "twin_cases.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "twin_cases")


def _line_of(tag):
    for i, line in enumerate((HERE / "twin_cases.cpp").read_text().splitlines(), 1):
        if tag in line:
            return i
    raise AssertionError(tag)


class TwinRun:
    """One run of a test kernel on the twin's runner: output bytes, findings, result (trace on demand)."""

    def __init__(self, folder):
        self.folder = folder
        self.z = (folder / "z.bin").read_bytes()
        self.findings = [
            json.loads(line) for line in (folder / "findings.jsonl").read_text().splitlines() if line.strip()
        ]
        self.result = json.loads((folder / "result.json").read_text())

    def trace(self):
        # The first line is the trace's header, not an instruction.
        lines = (self.folder / "trace.jsonl").read_text().splitlines()[1:]
        return [json.loads(line) for line in lines if line.strip()]


def run_kernel(runner, tmp_path, key, inputs, out=("float32", N), block_dim=1, extra=""):
    """Write each input (name -> (dtype, element count, bytes)) and a manifest with output `z` of `out`
    (dtype, element count), run tiling key `key` on `block_dim` blocks, return what the runner wrote."""
    lines = ["soc Ascend910B4", "core_num_aiv 40", "ub_size 196608"]
    for name, (dtype, count, data) in inputs.items():
        (tmp_path / f"{name}.bin").write_bytes(data)
        lines.append(f"input {name} {dtype} 1 {count} {tmp_path}/{name}.bin")
    lines += [
        f"output z {out[0]} 1 {out[1]} {tmp_path}/z.bin",
        f"block_dim {block_dim}",
        f"tiling_key {key}",
    ]
    man = "\n".join(lines) + "\n" + extra + (
        f"trace {tmp_path}/trace.jsonl\nfindings {tmp_path}/findings.jsonl\nresult {tmp_path}/result.json\n"
        f"source_root {HERE}\n"
    )
    (tmp_path / "manifest.txt").write_text(man)
    # A wait nobody satisfies must end as a finding, not hang: the timeout bounds the whole run.
    p = subprocess.run(
        [str(runner), str(tmp_path / "manifest.txt")], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0, p.stderr
    return TwinRun(tmp_path)


def f32_inputs(**arrays):
    """float32 inputs for run_kernel from sequences of numbers."""
    return {name: ("float32", len(v), struct.pack(f"<{len(v)}f", *v)) for name, v in arrays.items()}


def run_case(runner, tmp_path, key, x, y=None, block_dim=1, extra=""):
    y = y if y is not None else [0.0] * N
    x = list(x) + [0.0] * (N - len(x))
    y = list(y) + [0.0] * (N - len(y))
    run = run_kernel(runner, tmp_path, key, f32_inputs(x=x, y=y), block_dim=block_dim, extra=extra)
    return run.z, run.findings, run.result


def f16(b, i):
    return struct.unpack_from("<e", b, 2 * i)[0]


def bf16(b, i):
    (u,) = struct.unpack_from("<H", b, 2 * i)
    return struct.unpack("<f", struct.pack("<I", u << 16))[0]


def errors(findings):
    # Test kernels write only part of z, so output_not_written is expected there.
    return [f for f in findings if f["severity"] == "error" and f["kind"] != "output_not_written"]


def relevant(findings):
    return [f for f in findings if f["kind"] != "output_not_written"]


# ---------------------------------------------------------------- semantics (values from the docs)
def test_cast_float_to_half_round_modes(cases_runner, tmp_path):
    # precision_conversion.md, float -> half: 0.5 + 2^-12 gives RINT 0.5, FLOOR 0.5, CEIL 0.5+2^-11,
    # ROUND 0.5+2^-11, TRUNC 0.5, ODD 0.5+2^-11.
    v = 0.5 + 2**-12
    x = [v, -v, 1.0, 70000.0, 1.75]
    z, findings, res = run_case(cases_runner, tmp_path, 1, x)
    assert res["status"] == "ok"
    up, dn = 0.5 + 2**-11, 0.5
    expect = {0: (dn, -dn), 1: (dn, -up), 2: (up, -dn), 3: (up, -up), 4: (dn, -dn), 5: (up, -up)}
    for m, (pos, neg) in expect.items():
        assert f16(z, m * 64 + 0) == pos, m
        assert f16(z, m * 64 + 1) == neg, m
        assert f16(z, m * 64 + 2) == 1.0
        assert f16(z, m * 64 + 3) == 65504.0  # saturation (docs: overflow saturates by default)
    assert [f16(z, m * 64 + 4) for m in range(5)] == [1.75] * 5
    assert any(f["kind"] == "cast_overflow" and f["severity"] == "warning" for f in findings)


def test_cast_float_to_int32_round_modes(cases_runner, tmp_path):
    # float -> int32: 2^22 + 0.5 -> RINT 2^22, FLOOR 2^22, CEIL 2^22+1, ROUND 2^22+1, TRUNC 2^22;
    # half -> int32 example -1.5 -> RINT -2, FLOOR -2, CEIL -1, ROUND -2, TRUNC -1 (same rule for float).
    x = [2**22 + 0.5, -1.5, 2.5, -2.5, 3e10]
    z, _findings, _ = run_case(cases_runner, tmp_path, 2, x)
    got = [struct.unpack_from("<5i", z, 4 * m * 64) for m in range(5)]
    p = 2**22
    assert got[0] == (p, -2, 2, -2, 2**31 - 1)  # RINT (ties to even)
    assert got[1] == (p, -2, 2, -3, 2**31 - 1)  # FLOOR
    assert got[2] == (p + 1, -1, 3, -2, 2**31 - 1)  # CEIL
    assert got[3] == (p + 1, -2, 3, -3, 2**31 - 1)  # ROUND (half away from zero)
    assert got[4] == (p, -1, 2, -2, 2**31 - 1)  # TRUNC


def test_cast_float_to_bf16_and_float_round_modes(cases_runner, tmp_path):
    # float -> bf16: 0.5 + 2^-9 + 2^-11 -> RINT 0.5+2^-8, FLOOR 0.5, CEIL 0.5+2^-8, ROUND 0.5+2^-8, TRUNC 0.5.
    # float -> float: 0.5 -> RINT 0, FLOOR 0, CEIL 1, ROUND 1, TRUNC 0.
    v = 0.5 + 2**-9 + 2**-11
    z, _, _ = run_case(cases_runner, tmp_path, 3, [v, 0.5, -0.5])
    hi = 0.5 + 2**-8
    assert [bf16(z, m * 64) for m in range(5)] == [hi, 0.5, hi, hi, 0.5]
    ff = [struct.unpack_from("<3f", z, 4 * (256 + m * 64)) for m in range(5)]
    assert [t[1] for t in ff] == [0.0, 0.0, 1.0, 1.0, 0.0]
    assert [t[2] for t in ff] == [-0.0, -1.0, -0.0, -1.0, -0.0]


def test_reductions(cases_runner, tmp_path):
    x = [float(i % 7) - 3.0 for i in range(256)]
    x[77] = 100.0
    x[200] = 100.0  # ties: the smallest index wins
    z, findings, _ = run_case(cases_runner, tmp_path, 4, x)
    out = struct.unpack_from("<12f", z, 0)
    assert out[0] == pytest.approx(sum(x))
    assert out[1] == 100.0 and out[2] == 77.0
    for r in range(4):
        assert out[8 + r] == pytest.approx(sum(x[r * 64 : (r + 1) * 64]))
    assert not errors(findings), findings


def test_compare_select_leakyrelu_duplicate(cases_runner, tmp_path):
    x = [((i * 37) % 101) / 10.0 - 5.0 for i in range(256)]
    y = [((i * 53) % 97) / 10.0 - 4.0 for i in range(256)]
    z, findings, _ = run_case(cases_runner, tmp_path, 5, x, y)
    out = struct.unpack_from("<576f", z, 0)

    assert list(out[:256]) == [f32(min(a, b)) for a, b in zip(x, y, strict=False)]
    assert list(out[256:512]) == [f32(a) if f32(a) >= 0 else f32(f32(a) * f32(0.1)) for a in x]
    assert list(out[512:576]) == [3.5] * 64
    assert not relevant(findings), findings


def test_datacopypad_padding(cases_runner, tmp_path):
    x = [float(i + 1) for i in range(16)]
    z, findings, _ = run_case(cases_runner, tmp_path, 6, x)
    out = struct.unpack_from("<32f", z, 0)
    # Rows are 5 data + 3 padding (isPad, value 7) and the dummy fill up to 32 B also uses the padding value.
    assert out[0:8] == (1, 2, 3, 4, 5, 7, 7, 7)
    assert out[8:16] == (6, 7, 8, 9, 10, 7, 7, 7)
    # No padding requested: the dummy up to 32 B repeats the first element of each block.
    assert out[16:24] == (1, 2, 3, 4, 5, 1, 1, 1)
    assert out[24:32] == (6, 7, 8, 9, 10, 6, 6, 6)
    assert not errors(findings), findings


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def u32_of(z, i):
    return struct.unpack_from("<I", z, 4 * i)[0]


def test_mask_register_counter_and_normal_modes(cases_runner, tmp_path):
    # SetMaskCount docs: in counter mode the mask is the element count and repeatTime is ignored;
    # SetVectorMask docs: Normal mode bit-wise (maskHigh, maskLow) or the first len lanes.
    x = [float(i) for i in range(256)]
    y = [1000.0 + i for i in range(256)]
    z, findings, _ = run_case(cases_runner, tmp_path, 16, x, y)
    o = struct.unpack_from("<384f", z, 0)
    assert list(o[:100]) == [x[i] + y[i] for i in range(100)]
    assert list(o[100:128]) == [-1.0] * 28
    expect = [-1.0] * 128
    for k in range(4):
        expect[k] = x[k] + y[k]
        expect[64 + k] = x[64 + k] + y[64 + k]
    assert list(o[128:256]) == expect
    assert list(o[256:320]) == [2 * x[i] for i in range(10)] + [-1.0] * 54
    # The count form of Adds leaves Normal mode with a full mask, so the isSetMask=false Adds covers 64 lanes.
    assert list(o[320:384]) == [x[i] + 3 for i in range(64)]
    assert not errors(findings), findings
    recs = [json.loads(r) for r in (tmp_path / "trace.jsonl").read_text().splitlines()[1:]]
    counted = [r for r in recs if r["op"] == "Add" and r.get("mask") == "counter"]
    assert counted and counted[0]["n"] == 100 and counted[0]["repeat"] == 2
    assert {"SetMaskCount", "SetMaskNorm", "SetVectorMask", "ResetMask"} <= {r["op"] for r in recs}


def test_reductions_counter_block_and_mask_forms(cases_runner, tmp_path):
    x = [float((i * 37) % 101 - 50) for i in range(256)]
    z, findings, _ = run_case(cases_runner, tmp_path, 17, x)
    o = struct.unpack_from("<128f", z, 0)
    # WholeReduceSum, counter mode: one sum per 64-element repeat, the last one partial.
    assert o[0:4] == (sum(x[0:64]), sum(x[64:128]), sum(x[128:150]), -1.0)
    # BlockReduceSum, counter mode: one sum per 32 B block; blocks without active lanes untouched.
    assert o[8:16] == (sum(x[0:8]), sum(x[8:16]), sum(x[16:20]), -1.0, -1.0, -1.0, -1.0, -1.0)
    assert list(o[16:32]) == [max(x[8 * k : 8 * k + 8]) for k in range(16)]
    assert list(o[32:40]) == [min(x[8 * k : 8 * k + 4]) for k in range(8)]
    # RepeatReduceSum: one sum per repeat, dstRepStride in reduced elements.
    assert o[40:43] == (sum(x[0:64]), sum(x[64:128]), -1.0)
    # The raw vcadd on GetPhyAddr() pointers, as older CANN kernels call it, with the mask as set.
    assert o[44:46] == (sum(x[128:192]), -1.0)
    assert o[48] == min(x[0:8]) and u32_of(z, 49) == x[0:8].index(min(x[0:8]))
    assert o[50] == min(x[0:128])
    # WholeReduceMax ORDER_VALUE_INDEX: (value, index) per repeat;
    # WholeReduceMin ORDER_INDEX_VALUE: (index, value).
    for r in range(2):
        part = x[64 * r : 64 * r + 64]
        assert o[56 + 2 * r] == max(part) and u32_of(z, 57 + 2 * r) == part.index(max(part))
        assert u32_of(z, 64 + 2 * r) == part.index(min(part)) and o[65 + 2 * r] == min(part)
    assert not errors(findings), findings


def test_new_vector_and_advanced_apis(cases_runner, tmp_path):
    import math

    x = [f32((i - 32) / 10.0) for i in range(64)]
    y = [0.5 + i / 8.0 for i in range(64)]
    z, findings, _ = run_case(cases_runner, tmp_path, 18, x, y)
    o = struct.unpack_from("<960f", z, 0)

    def sig(v):
        return 1.0 / (1.0 + math.exp(-v))

    def near(got, want):
        assert list(got) == pytest.approx(want, rel=2e-6, abs=2e-7)

    near(o[0:64], [sig(v) for v in x])  # Sigmoid
    near(o[64:128], [v * sig(v) for v in x])  # Silu
    near(o[128:192], [v * sig(1.5 * v) for v in x])  # Swish, beta 1.5
    # Gelu (the docs' tanh-approximation formula)
    near(o[192:256], [v / (1 + math.exp(-1.5957691216 * (v + 0.044715 * v**3))) for v in x])
    near(o[256:320], [v / (1 + math.exp(-1.702 * v)) for v in x])  # FasterGelu
    near(o[320:384], [math.tanh(v) for v in x])
    near(o[384:448], [math.log(v) for v in y])
    assert list(o[448:512]) == [min(v, 0.5) for v in x]  # ClampMax
    assert list(o[512:576]) == [max(v, f32(-0.5)) for v in x]  # ClampMin
    assert list(o[576:640]) == [f32(v - 2.0) for v in x]  # Subs
    assert list(o[640:704]) == [v / 4.0 for v in x]  # Divs
    near(o[704:768], [y[i] + 2 * x[i] for i in range(64)])  # Axpy
    bits = z[768 * 4 : 768 * 4 + 8]
    assert [(bits[i // 8] >> (i % 8)) & 1 for i in range(64)] == [int(v > 0) for v in x]  # CompareScalar GT
    assert list(o[832:896]) == x  # Copy
    assert list(o[896:960]) == [x[i] for i in range(8) for _ in range(8)]  # Brcb
    assert not errors(findings), findings


def test_gather_mask(cases_runner, tmp_path):
    x = [float(i + 1) for i in range(128)]
    z, findings, _ = run_case(cases_runner, tmp_path, 23, x)
    o = struct.unpack_from("<200f", z, 0)
    assert list(o[0:4]) == [x[1], x[3], x[40], x[63]] and o[4] == -1.0  # user pattern, packed, rest untouched
    assert list(o[64:128]) == [x[i] for i in range(0, 128, 2)]  # built-in 1: even indices, both repeats
    assert list(o[128:136]) == x[2:10] and o[136] == -1.0  # counter mode: first 10 elements, bits 2..9
    assert list(o[192:195]) == [4.0, 64.0, 8.0]  # rsvdCnt
    assert not errors(findings), findings


def test_gather_count_mask_and_in_place_forms(cases_runner, tmp_path):
    x = [float(i + 1) for i in range(64)]
    z, findings, _ = run_case(cases_runner, tmp_path, 26, x)
    o = struct.unpack_from("<320f", z, 0)
    assert list(o[0:64]) == x[::-1]  # count form: offsets 252, 248, .. 0 bytes
    assert list(o[64:72]) == x[4:12]  # srcBaseAddr 16 B shifts every offset
    for r in range(2):  # mask 8: lanes 8.. of each repeat untouched; repeats 32 floats apart
        assert list(o[128 + 32 * r : 136 + 32 * r]) == [x[55 - k] for k in range(8)]
        assert set(o[136 + 32 * r : 160 + 32 * r]) == {-1.0}
    assert list(o[256:320]) == [x[8 * (i // 8)] for i in range(64)]  # every source read before any write
    inplace = [f for f in findings if f["kind"] == "gather_in_place"]
    assert [(f["line"], f["severity"]) for f in inplace] == [(_line_of("LINE_GATHER_INPLACE"), "warning")]
    assert not errors(findings), findings


def test_set_deq_scale_and_the_int32_to_half_cast(cases_runner, tmp_path):
    x = [float(i - 32) for i in range(64)]
    z, findings, _ = run_case(cases_runner, tmp_path, 27, x)
    assert [f16(z, i) for i in range(64)] == [2.0 * v for v in x]  # SetDeqScale(2.0): dst = src * 2
    assert [f16(z, 64 + i) for i in range(64)] == [v / 2 for v in x]  # 0.5, and CAST_TRUNC changes nothing
    assert not errors(findings), findings
    _, findings, _ = run_case(cases_runner, tmp_path, 28, [])
    unset = [f for f in findings if f["kind"] == "deq_scale_unset"]
    assert [(f["line"], f["severity"]) for f in unset] == [(_line_of("LINE_DEQ_UNSET"), "error")]


def test_the_buffer_handle_deque_waits_for_the_producer(cases_runner, tmp_path):
    x = [float(i) for i in range(64)]
    z, findings, _ = run_case(cases_runner, tmp_path, 29, x)
    assert list(struct.unpack_from("<64f", z, 0)) == [v + 1 for v in x]
    assert not [f for f in relevant(findings) if f["kind"] == "pipe_hazard"], findings
    assert not errors(findings), findings


def test_gm_hazards_need_shared_bytes_not_a_shared_granule(cases_runner, tmp_path):
    z, findings, _ = run_case(cases_runner, tmp_path, 24, [])
    hazards = [f for f in findings if f["kind"] == "pipe_hazard"]
    assert [f["line"] for f in hazards] == [_line_of("LINE_GRANULE_OVERLAP")], hazards
    assert hazards[0]["severity"] == "error" and "PipeBarrier<PIPE_MTE3>()" in hazards[0]["message"]
    assert struct.unpack_from("<20f", z, 0)[4:] == (3.0,) * 16


def test_broadcast_both_axes_and_the_1d_form(cases_runner, tmp_path):
    x = [float(i + 1) for i in range(64)]
    z, findings, _ = run_case(cases_runner, tmp_path, 25, x)
    o = struct.unpack_from("<128f", z, 0)
    assert list(o[0:32]) == [x[0]] * 16 + [x[1]] * 16  # the docs' [[1], [2]] -> (2, 16)
    assert list(o[32:56]) == x[0:8] * 3  # [1, 8] -> [3, 8]
    assert list(o[64:69]) == [x[0]] * 5 and o[69] == -1.0  # {1} -> {5}, nothing past it
    tmp = [f for f in findings if f["kind"] == "bad_tmp_buffer"]
    assert [(f["line"], f["severity"]) for f in tmp] == [(_line_of("LINE_BRC_TMP"), "error")]
    assert "512 B" in tmp[0]["message"]


def test_pad_and_unpad(cases_runner, tmp_path):
    # Pad (docs): width 32 B aligned with redundant columns -> those refilled with padValue; an unaligned
    # width -> padded to 32 B with leftPad/rightPad columns. UnPad: an aligned width loses leftPad/rightPad.
    x = [float(i + 1) for i in range(64)]
    z, findings, _ = run_case(cases_runner, tmp_path, 30, x)
    o = struct.unpack_from("<128f", z, 0)
    assert list(o[0:16]) == x[0:5] + [7.0] * 3 + x[8:13] + [7.0] * 3
    assert list(o[16:32]) == [7.0, *x[0:6], 7.0, 7.0, *x[6:12], 7.0]
    assert list(o[32:42]) == x[1:6] + x[9:14] and o[42] == -1.0
    assert list(o[64:72]) == [-1.0] * 8  # the refused call wrote nothing
    bad = [f for f in errors(findings) if f["kind"] == "bad_pad_params"]
    assert [f["line"] for f in bad] == [_line_of("LINE_PAD_BAD")], findings
    assert "7 columns" in bad[0]["message"]
    assert [f for f in errors(findings) if f["kind"] != "bad_pad_params"] == []


PAD_HOST_PROBE = r"""
#include <cstdio>
#include "graph/tensor.h"
#include "kernel_tiling/kernel_tiling.h"
#include "tiling/tiling_api.h"
int main()
{
    ge::Shape src(std::vector<int64_t>{16, 16}), ori(std::vector<int64_t>{16, 7});
    uint32_t mx = 0, mn = 0;
    AscendC::GetPadMaxMinTmpSize(src, sizeof(int16_t), mx, mn);
    optiling::PadTiling pad;
    AscendC::PadTilingFunc(src, ori, mx, sizeof(int16_t), pad);
    PadTiling k1{};
    pad.SaveToBuffer(&k1, pad.GetDataSize());
    std::printf("%u %u %zu %u %u %u %u\n", mn, mx, pad.GetDataSize(), k1.srcHeight, k1.srcWidth,
                k1.srcOriWidth, k1.typeSize);
    fe::PlatFormInfos info;
    platform_ascendc::PlatformAscendC plat(&info);
    AscendC::GetUnPadMaxMinTmpSize(plat, src, sizeof(int16_t), mx, mn);
    optiling::UnPadTiling unpad;
    AscendC::UnPadTilingFunc(src, mn, sizeof(int16_t), unpad);
    UnPadTiling k2{};
    unpad.SaveToBuffer(&k2, unpad.GetDataSize());
    std::printf("%zu %u %u %u\n", unpad.GetDataSize(), k2.srcHeight, k2.srcWidth, k2.tmpBufferSize);
    return 0;
}
"""


def test_host_pad_tiling_round_trips_to_the_kernel_struct(runtime_objs, tmp_path):
    # AbsPad's host code: GetPadMaxMinTmpSize, PadTilingFunc, GetDataSize + SaveToBuffer into the bytes the
    # kernel's PadTiling reads (CopyTiling copies sizeof(PadTiling) / 4 words). Temporary sizes are the twin's
    # estimate: one 16-row block of 32 B rows at least, all 16 rows at most.
    (tmp_path / "pad.cpp").write_text(PAD_HOST_PROBE)
    _run([*CXX, "-c", str(tmp_path / "pad.cpp"), "-o", str(tmp_path / "pad.o")])
    exe = tmp_path / "pad"
    _run(["g++", "-o", str(exe), str(tmp_path / "pad.o"), *map(str, runtime_objs), "-pthread"])
    out = _run([str(exe)]).stdout.split("\n")
    assert out[:2] == ["512 512 20 16 16 7 2", "16 16 16 512"]


HOST_PROBE = r"""
#include <cstdio>
#include "tiling/tiling_api.h"
int main()
{
    fe::PlatFormInfos info;
    platform_ascendc::PlatformAscendC plat(&info);
    const std::vector<std::vector<int64_t>> shapes[] = {
        {{1024, 1}, {1024, 16}}, {{16, 1}, {16, 3}}, {{1, 8}, {4, 8}},
        {{1, 3}, {4, 3}}, {{1}, {5}}, {{1}, {16}}};
    for (const auto &sd : shapes) {
        uint32_t mx = 7, mn = 7;
        AscendC::GetBroadCastMaxMinTmpSize(plat, ge::Shape(sd[0]), ge::Shape(sd[1]), 2, false, mx, mn);
        std::printf("%u %u\n", mn, mx);
    }
    gert::RuntimeAttrs attrs;
    attrs.v_.resize(1);
    attrs.v_[0].kind = 1;
    attrs.v_[0].i = 3;
    std::printf("%u\n", *attrs.GetAttrPointer<uint32_t>(0));
    return 0;
}
"""


def test_host_broadcast_tmp_size_and_narrow_int_attrs(runtime_objs, tmp_path):
    # Sizes from the algorithm the docs describe (Brcb each source element into a 32 B block, copy,
    # GatherMask an unaligned row), half data: [1024, 1] -> [1024, 16] needs 1024 blocks and its rows
    # are aligned (32 KB, no more); [16, 1] -> [16, 3] 16 blocks (512 B) plus a 32 B row per row for
    # the GatherMask cut (1024 B); [1, 8] -> [4, 8] has unaligned 16 B rows: 4 rows of 32 B;
    # [1, 3] -> [4, 3] likewise;
    # {1} -> {5} one 32 B block; {1} -> {16} none.
    (tmp_path / "probe.cpp").write_text(HOST_PROBE)
    _run([*CXX, "-c", str(tmp_path / "probe.cpp"), "-o", str(tmp_path / "probe.o")])
    exe = tmp_path / "probe"
    _run(["g++", "-o", str(exe), str(tmp_path / "probe.o"), *map(str, runtime_objs), "-pthread"])
    out = _run([str(exe)]).stdout.split("\n")
    assert out[:7] == ["32768 32768", "512 1024", "128 128", "128 128", "32 32", "0 0", "3"]


def test_transpose_16x16(cases_runner, tmp_path):
    x = [float(i) for i in range(256)]
    z, findings, _ = run_case(cases_runner, tmp_path, 19, x)
    o = struct.unpack_from("<256f", z, 0)
    assert [o[j * 16 + i] for i in range(16) for j in range(16)] == x
    assert not errors(findings), findings


def test_fill_and_get_system_cycle(cases_runner, tmp_path):
    z, findings, _ = run_case(cases_runner, tmp_path, 20, [])
    o = struct.unpack_from("<129f", z, 0)
    assert o[:64] == (2.5,) * 64 and o[64:128] == (7.0,) * 64
    assert o[128] > 0  # monotonic: calls in between
    assert not errors(findings), findings


def test_gm_tail_read_inside_padding_is_a_warning_and_moves_the_bytes(cases_runner, tmp_path):
    x = [float(i) for i in range(N)]
    z, findings, res = run_case(cases_runner, tmp_path, 21, x)
    o = struct.unpack_from("<16f", z, 0)
    assert o[:8] == tuple(x[1016:1024])  # the in-bounds elements arrive (no NaN)
    oob = [f for f in findings if f["kind"] == "gm_out_of_bounds"]
    assert [(f["line"], f["severity"]) for f in oob] == [(_line_of("LINE_TAILREAD"), "warning")]
    assert "padding" in oob[0]["message"] and "32 B past the end" in oob[0]["message"]
    assert not errors(findings), findings
    assert res["status"] == "ok"


def test_gm_write_out_of_bounds_is_an_error(cases_runner, tmp_path):
    z, findings, _ = run_case(cases_runner, tmp_path, 22, [])
    oob = {f["line"]: f for f in findings if f["kind"] == "gm_out_of_bounds"}
    assert oob[_line_of("LINE_TAILWRITE")]["severity"] == "error"
    # It says what to change: z[1016..1024) is 32 B, the copy moves 64 B.
    assert "write only the 32 B left (DataCopyPad" in oob[_line_of("LINE_TAILWRITE")]["message"]
    assert oob[_line_of("LINE_FARWRITE")]["severity"] == "error"
    assert "beyond the allocation padding" in oob[_line_of("LINE_FARWRITE")]["message"]
    # The in-bounds part of both writes lands.
    assert struct.unpack_from("<24f", z, 4 * 1000) == (5.0,) * 24


# ---------------------------------------------------------------- sanitizer
def test_vector_then_getvalue_without_sync(cases_runner, tmp_path):
    _, findings, _ = run_case(cases_runner, tmp_path, 7, [1.0] * 64, [2.0] * 64)
    hz = [f for f in findings if f["kind"] == "pipe_hazard"]
    assert hz and hz[0]["line"] == _line_of("LINE_VTOS") and hz[0]["file"] == "twin_cases.cpp"
    assert hz[0]["severity"] == "warning"  # covered by --cce-auto-sync, which is on by default
    assert "V" in hz[0]["message"] and "S" in hz[0]["message"]
    _, findings, _ = run_case(cases_runner, tmp_path, 7, [1.0] * 64, [2.0] * 64, extra="auto_sync off\n")
    hz = [f for f in findings if f["kind"] == "pipe_hazard" and f["line"] == _line_of("LINE_VTOS")]
    assert hz and hz[0]["severity"] == "error"


def test_missing_mte2_to_v_sync(cases_runner, tmp_path):
    _, findings, _ = run_case(cases_runner, tmp_path, 8, [1.0] * 64)
    hz = [f for f in findings if f["kind"] == "pipe_hazard"]
    assert hz and hz[0]["line"] == _line_of("LINE_MTE2V") and hz[0]["severity"] == "error"
    assert "MTE2" in hz[0]["message"]


def test_deque_empty_is_fatal(cases_runner, tmp_path):
    _, findings, res = run_case(cases_runner, tmp_path, 9, [])
    assert res["status"] == "kernel_error" and res["blocks_aborted"] == 1
    assert [f["line"] for f in findings if f["kind"] == "deque_empty"] == [_line_of("LINE_DEQUE")]


def test_ub_overflow_untouched_is_a_warning(cases_runner, tmp_path):
    # CANN's InitBuffer checks the UB's size only in its CPU-debug build: on the NPU a buffer placed past the
    # UB's end is an address nobody uses, and the kernel's real work runs.
    z, findings, res = run_case(cases_runner, tmp_path, 10, [])
    f = [f for f in findings if f["kind"] == "ub_overflow"]
    assert f and f[0]["line"] == _line_of("LINE_UBOVF") and "196608" in f[0]["message"]
    assert f[0]["severity"] == "warning" and res["blocks_aborted"] == 0
    assert not [f for f in findings if f["severity"] == "error"]
    assert struct.unpack(f"<{N}f", z) == (2.0,) * N


def test_ub_overflow_touched_stops_the_block(cases_runner, tmp_path):
    _, findings, res = run_case(cases_runner, tmp_path, 34, [])
    [f] = [f for f in findings if f["kind"] == "ub_overflow"]
    assert f["severity"] == "error" and f["line"] == _line_of("LINE_UBOVF2")
    assert f"twin_cases.cpp:{_line_of('LINE_UBTOUCH')} writes" in f["message"]
    assert res["status"] == "kernel_error" and res["blocks_aborted"] == 1


def test_ub_overflow_straddling_buffer_is_checked_at_the_uBs_end(cases_runner, tmp_path):
    z, findings, res = run_case(cases_runner, tmp_path, 35, [])
    [f] = [f for f in findings if f["kind"] == "ub_overflow"]
    assert f["severity"] == "error" and f["line"] == _line_of("LINE_UBSTRADDLE")
    assert f"twin_cases.cpp:{_line_of('LINE_UBCROSS')} writes 256 B at UB offset 196608" in f["message"]
    assert res["blocks_aborted"] == 1
    assert struct.unpack("<64f", z[:256]) == (3.0,) * 64  # the part inside the UB worked


def test_a_rewrite_of_the_bytes_a_copy_reads_is_no_hazard(cases_runner, tmp_path):
    # The copy reads the same bytes whichever side of the write it lands on (ForeachZeroInplace's zeros;
    # AddRmsNorm's in-place Gather whose first element per block, all MTE3 copies out, is itself).
    z, findings, _ = run_case(cases_runner, tmp_path, 36, [])
    assert not [f for f in findings if f["kind"] == "pipe_hazard"], findings
    assert struct.unpack("<72f", z[:288]) == (0.0,) * 64 + (5.0,) * 8


@pytest.mark.parametrize(("key", "tag"), [(37, "LINE_DIFFVAL"), (38, "LINE_ONEBYTE"), (41, "LINE_THENDIFF")])
def test_a_rewrite_that_changes_a_byte_a_copy_reads_is_a_war(cases_runner, tmp_path, key, tag):
    _, findings, _ = run_case(cases_runner, tmp_path, key, [])
    [hz] = [f for f in findings if f["kind"] == "pipe_hazard"]
    assert hz["line"] == _line_of(tag) and hz["severity"] == "error" and "WAR hazard" in hz["message"]


def test_an_init_buffer_length_is_rounded_up_to_32_bytes(cases_runner, tmp_path):
    # CANN's InitBuffer rounds len up to 32 B and the slot's dataLen is that (Arange asks sizeof(T) and
    # copies 32 B in); the docs say so of both the TQue and the TBuf form.
    z, findings, _ = run_case(cases_runner, tmp_path, 39, [float(i) for i in range(8)])
    assert not [f for f in findings if f["kind"] == "local_out_of_bounds"], findings
    assert struct.unpack("<2f", z[:8]) == (8.0, 8.0)


def test_a_copy_past_the_rounded_slot_is_out_of_bounds(cases_runner, tmp_path):
    _, findings, _ = run_case(cases_runner, tmp_path, 40, [])
    [f] = [f for f in findings if f["kind"] == "local_out_of_bounds"]
    assert f["line"] == _line_of("LINE_OVERRUN") and f["severity"] == "error"
    assert "[16384, 16416): 32 B outside it" in f["message"]


def test_misaligned_copy_and_gm_oob(cases_runner, tmp_path):
    _, findings, _ = run_case(cases_runner, tmp_path, 11, [])
    mis = [f for f in findings if f["kind"] == "misaligned_copy"]
    assert mis and mis[0]["line"] == _line_of("LINE_MISALIGN") and "400 B" in mis[0]["message"]
    oob = [f for f in findings if f["kind"] == "gm_out_of_bounds"]
    assert oob and oob[0]["line"] == _line_of("LINE_GMOOB")


def test_cross_block_write_race(cases_runner, tmp_path):
    _, findings, res = run_case(cases_runner, tmp_path, 12, [], block_dim=3)
    race = [f for f in findings if f["kind"] == "cross_block_write_race"]
    assert race and race[0]["block"] == 1 and race[0]["count"] == 2
    assert res["block_dim"] == 3


def test_queue_misuse_and_uninitialized(cases_runner, tmp_path):
    _, findings, res = run_case(cases_runner, tmp_path, 13, [])
    kinds = {f["kind"]: f["line"] for f in findings}
    assert kinds["uninitialized_ub_read"] == _line_of("LINE_UNINIT")
    assert kinds["double_free"] == _line_of("LINE_DFREE")
    assert kinds["alloc_beyond_depth"] == _line_of("LINE_ALLOC2")
    assert res["status"] == "kernel_error"


def test_syncall_orders_blocks(cases_runner, tmp_path):
    z, findings, _res = run_case(cases_runner, tmp_path, 14, [], block_dim=4)
    out = struct.unpack_from(f"<{4 * 32}f", z, 0)
    for b in range(4):
        assert out[b * 32 : b * 32 + 16] == (b + 1.0,) * 16
        assert out[b * 32 + 16 : b * 32 + 32] == (((b + 1) % 4) + 1.0,) * 16
    assert not [f for f in findings if "race" in f["kind"]], findings


def test_correct_queue_pipeline_has_no_findings(cases_runner, tmp_path):
    x = [float(i) for i in range(N)]
    y = [2.0 * i for i in range(N)]
    z, findings, _res = run_case(cases_runner, tmp_path, 15, x, y)
    assert struct.unpack(f"<{N}f", z) == tuple(3.0 * i for i in range(N))
    assert findings == []
    trace = (tmp_path / "trace.jsonl").read_text().splitlines()
    assert json.loads(trace[0]) == {"format": "ascendopt-trace", "version": 1}
    ops = [json.loads(rec)["op"] for rec in trace[1:]]
    for op in ("AllocTensor", "EnQue", "DeQue", "FreeTensor", "DataCopy", "Add"):
        assert op in ops


# ---------------------------------------------------------------- add_custom end to end
@pytest.mark.parametrize(
    "dtype,macro,fmt,shape",
    [
        ("float16", "half", "e", (3, 1000)),
        ("float32", "float", "f", (64, 4096)),
        ("bfloat16", "bfloat16_t", "H", (8, 2048)),
    ],
)
def test_add_custom_template(runtime_objs, tmp_path, dtype, macro, fmt, shape):
    host = tmp_path / "host.o"
    kern = tmp_path / "kernel.o"
    _run([*CXX, "-I", str(ADD / "op_host"), "-c", str(ADD / "op_host" / "add_custom.cpp"), "-o", str(host)])
    _run(
        [
            *CXX,
            "-DASCENDOPT_TWIN_KERNEL",
            *(f"-DDTYPE_{n}={macro}" for n in "XYZ"),
            "-include",
            str(ADD / "op_host" / "add_custom_tiling.h"),
            "-c",
            str(ADD / "op_kernel" / "add_custom.cpp"),
            "-o",
            str(kern),
        ]
    )
    exe = _link(tmp_path, runtime_objs, [host, kern], "add_custom")
    n = shape[0] * shape[1]
    if fmt == "H":  # bf16 values exactly representable: small integers / 8
        xs = [((i * 7) % 64 - 32) / 8.0 for i in range(n)]
        ys = [((i * 5) % 64 - 32) / 8.0 for i in range(n)]

        def enc(v):
            return struct.unpack("<I", struct.pack("<f", v))[0] >> 16

        xb = array.array("H", [enc(v) for v in xs]).tobytes()
        yb = array.array("H", [enc(v) for v in ys]).tobytes()
    else:
        xs = [((i * 7) % 64 - 32) / 8.0 for i in range(n)]
        ys = [((i * 5) % 64 - 32) / 8.0 for i in range(n)]
        xb = struct.pack(f"<{n}{fmt}", *xs)
        yb = struct.pack(f"<{n}{fmt}", *ys)
    (tmp_path / "x.bin").write_bytes(xb)
    (tmp_path / "y.bin").write_bytes(yb)
    dims = f"2 {shape[0]} {shape[1]}"
    (tmp_path / "m.txt").write_text(
        f"op_type AddCustom\nsoc Ascend910B4\ncore_num_aiv 40\nub_size 196608\n"
        f"input x {dtype} {dims} {tmp_path}/x.bin\ninput y {dtype} {dims} {tmp_path}/y.bin\n"
        f"output z {dtype} {dims} {tmp_path}/z.bin\ntrace {tmp_path}/t.jsonl\nfindings {tmp_path}/f.jsonl\n"
        f"result {tmp_path}/r.json\nsource_root {ADD}\n"
    )
    _run([str(exe), str(tmp_path / "m.txt")])
    res = json.loads((tmp_path / "r.json").read_text())
    assert res["status"] == "ok", res
    assert (tmp_path / "f.jsonl").read_text() == ""
    zb = (tmp_path / "z.bin").read_bytes()
    if fmt == "H":
        got = [struct.unpack("<f", struct.pack("<I", u << 16))[0] for u in array.array("H", zb)]
    else:
        got = list(struct.unpack(f"<{n}{fmt}", zb))
    assert got == [a + b for a, b in zip(xs, ys, strict=False)]
    rec = [json.loads(r) for r in (tmp_path / "t.jsonl").read_text().splitlines()[1:]]
    assert all(r["file"] == "op_kernel/add_custom.cpp" for r in rec if "file" in r)


# ---------------------------------------------------------------- CPU-debug host program (tikicpulib drop-in)
def test_cpu_debug_main_runs_the_kernel_on_the_twin(runtime_objs, tmp_path):
    # The look-alike sample's own main.cpp (ASCENDC_CPU_DEBUG path: GmAlloc, SetKernelMode, ICPU_RUN_KF) and
    # its kernel, built the way CANN's CPU-debug build compiles them, linked with the twin runtime.
    sample = HERE / "cpu_debug_sample"
    flags = [*CXX, "-DASCENDC_CPU_DEBUG=1", "-D__CCE_KT_TEST__=1", "-I", str(sample)]
    objs = []
    for src, own in (("main.cpp", ["-Dmain=ascendopt_twin_user_main"]), ("scale_abs.cpp", [])):
        o = tmp_path / (src + ".o")
        _run([*flags, *own, "-c", str(sample / src), "-o", str(o)])
        objs.append(o)
    objs.append(tmp_path / "cpu_debug_main.o")
    _run([*CXX, "-c", str(TWIN / "runtime" / "cpu_debug_main.cpp"), "-o", str(objs[-1])])
    exe = tmp_path / "app"
    _run(["g++", "-o", str(exe), *map(str, objs + runtime_objs), "-pthread"])
    (tmp_path / "input").mkdir()
    (tmp_path / "output").mkdir()
    x = [((i % 50) - 25) / 4.0 for i in range(1600)]
    (tmp_path / "input" / "input_x.bin").write_bytes(struct.pack("<1600e", *x))
    env = {
        "ASCENDOPT_TWIN_FINDINGS": str(tmp_path / "f.jsonl"),
        "ASCENDOPT_TWIN_RESULT": str(tmp_path / "r.json"),
        "ASCENDOPT_TWIN_TRACE": str(tmp_path / "t.jsonl"),
        "ASCENDOPT_TWIN_SOURCE_ROOT": str(sample),
    }
    p = subprocess.run([str(exe)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    y = struct.unpack("<1600e", (tmp_path / "output" / "output_y.bin").read_bytes())
    assert list(y) == [abs(v) * 2 for v in x]
    res = json.loads((tmp_path / "r.json").read_text())
    assert res["status"] == "ok" and res["launches"] == 1 and res["block_dim"] == 8, res
    assert (tmp_path / "f.jsonl").read_text() == ""
    recs = [json.loads(r) for r in (tmp_path / "t.jsonl").read_text().splitlines()[1:]]
    assert {r["b"] for r in recs} == set(range(8))
    assert any(r["op"] == "Abs" and r.get("mask") == "counter" and r["n"] == 200 for r in recs)
    assert all(r["file"] == "scale_abs.cpp" for r in recs if "file" in r)


def test_a_copy_length_that_wrapped_its_16_bits_is_an_error_on_the_copys_line(cases_runner, tmp_path):
    x = [float(i + 1) for i in range(16)]
    z, findings, _ = run_case(cases_runner, tmp_path, 31, x)
    wrapped = {f["line"]: f for f in findings if f["kind"] == "copy_param_wrapped"}
    assert sorted(wrapped) == [_line_of("LINE_WRAPLEN"), _line_of("LINE_WRAPCOUNT")]
    msg = wrapped[_line_of("LINE_WRAPLEN")]["message"]
    assert "DataCopyParams.blockLen was set to 65536 B" in msg and "it holds 0" in msg
    assert "blockCount was set to 70000" in wrapped[_line_of("LINE_WRAPCOUNT")]["message"]
    assert all(f["severity"] == "error" for f in wrapped.values())
    assert struct.unpack_from("<8f", z, 0) == tuple(x[:8])  # the copy whose length fits still moves


def test_shifts_are_logical_for_unsigned_and_arithmetic_for_signed_and_not_flips_bits(cases_runner, tmp_path):
    z, findings, _ = run_case(cases_runner, tmp_path, 32, [0.0])
    got = struct.unpack_from("<128H", z, 0)
    row = [got[i * 16] for i in range(8)]
    assert all(got[i * 16 : i * 16 + 16] == (row[i],) * 16 for i in range(8))
    # The docs' examples: 1010101010101010 (int16) << 1 = 1101010101010100, << 3 = 1101010101010000,
    # >> 1 = 1101010101010101, >> 3 = 1111010101010101; uint16 shifts fill with zeros.
    assert row == [0x5556, 0x5555, 0xD554, 0xD550, 0xD555, 0xF555, 0x5556, 0x5554]
    errors = {f["kind"] for f in findings if f["severity"] == "error"}
    assert errors <= {"output_not_written"}  # z is written only where shown


def test_sys_workspace_is_what_was_set_and_bf16_scalars_round_to_nearest(cases_runner, tmp_path):
    """A kernel that checks `GetSysWorkSpacePtr()` after `SetSysWorkspace(workspace)` (16 benchmark
    answers return early when it is null) gets the workspace back; before the call it is unset."""
    z, _, _ = run_case(cases_runner, tmp_path, 33, [0.0])
    assert struct.unpack_from("<3f", z, 0) == (1.0, 1.0, 1.0 + 1.0 / 128)
