"""APIs and idioms that NPUKernelBench answers need of the twin (issue 28): the reduction registers
(GetReduceMaxMinCount after a counter-mode WholeReduceMax, vcadd's accumulate mode read with
get_acc_val, GetAccVal after ReduceSum), PairReduceSum, PopStackBuffer, LocalTensor's whole-tensor
operators, AddDeqRelu, MulCast, InitOutput, GetC0Count, the global GetTPipePtr, block_idx/block_num
and an ASSERT written without its `;`. Values a wrong implementation would not give."""

import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import CXX, HERE, N, _link, _run, runtime_objs  # noqa: F401
from tests.evaluation.cpu_twin_cpp.test_fused_vector import X, Y, _run_key

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def gaps_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("gaps")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "twin_gaps.cpp"), "-o", str(k)])
    return _link(d, runtime_objs, [k], "twin_gaps")


def _errors(findings):
    return [f for f in findings if f["severity"] == "error"]


def test_max_register_holds_the_whole_instructions_first_max_and_its_index(gaps_runner, tmp_path):
    z, findings, _ = _run_key(gaps_runner, tmp_path, 1)
    assert _errors(findings) == []
    # X = i % 17 - 8: the max 8 first at i = 16 (again at 33, …, 1006; the last repeat's first is 965)
    assert z[:2] == [8.0, 16.0]


def test_vcadd_accumulates_every_repeat_into_acc_val(gaps_runner, tmp_path):
    z, findings, trace = _run_key(gaps_runner, tmp_path, 2)
    assert _errors(findings) == []
    assert z[0] == sum(X) and sum(X) != sum(X[-64:])  # all 16 repeats, not the last one
    assert z[1] == sum(X[:128])  # ReduceSum's count form, read back with GetAccVal<float>
    assert [r["op"] for r in trace if r["op"] in ("WholeReduceSum", "GetAccVal")] == [
        "WholeReduceSum",
        "GetAccVal",
        "GetAccVal",
    ]


def test_pair_reduce_sum_adds_neighbours(gaps_runner, tmp_path):
    z, findings, trace = _run_key(gaps_runner, tmp_path, 3)
    assert _errors(findings) == []
    assert z[: N // 2] == [X[2 * p] + X[2 * p + 1] for p in range(N // 2)]
    assert z[N // 2 :] == [0.0] * (N // 2)
    assert any(r["op"] == "PairReduceSum" and r["pipe"] == "V" for r in trace)


def test_pop_stack_buffer_is_the_rest_of_the_ub(gaps_runner, tmp_path):
    z, findings, _ = _run_key(gaps_runner, tmp_path, 4)
    assert _errors(findings) == []
    assert z[0] == (196608 - 64 - 4 * N * 4) / 4


@pytest.mark.parametrize(("key", "fn"), [(5, lambda x, y: x * y), (6, lambda x, y: x - y)])
def test_whole_tensor_operators(gaps_runner, tmp_path, key, fn):
    z, findings, trace = _run_key(gaps_runner, tmp_path, key)
    assert _errors(findings) == []
    assert z == [fn(x, y) for x, y in zip(X, Y, strict=True)]
    [rec] = [r for r in trace if r["op"] in ("Mul", "Sub")]
    assert rec["n"] == N and rec["line"] == (65 if key == 5 else 68)  # where the expression is written


def test_add_deq_relu_scales_the_int32_sum(gaps_runner, tmp_path):
    z, findings, trace = _run_key(gaps_runner, tmp_path, 7)
    assert _errors(findings) == []
    h = N // 2
    assert z[:h] == [max((X[i] + X[h + i]) * 0.5, 0.0) for i in range(h)]
    assert any(r["op"] == "AddDeqRelu" for r in trace)


def test_mul_cast_rounds_the_product_to_int8(gaps_runner, tmp_path):
    z, findings, _ = _run_key(gaps_runner, tmp_path, 8)
    assert _errors(findings) == []
    assert z == [float(max(-128, min(127, round(x * y)))) for x, y in zip(X, Y, strict=True)]


def test_init_output_c0_count_and_global_tpipe_ptr(gaps_runner, tmp_path):
    z, findings, _ = _run_key(gaps_runner, tmp_path, 9)
    assert _errors(findings) == []
    assert z[:3] == [3.0, 16.0, 1.0] and z[3:] == [3.0] * (N - 3)


def test_block_idx_block_num_and_an_assert_without_its_semicolon(gaps_runner, tmp_path):
    z, findings, _ = _run_key(gaps_runner, tmp_path, 10)
    assert _errors(findings) == []  # ASSERT(false && …) is dropped, as in CANN's NPU build
    assert z[:3] == [0.0, 1.0, 3.0]


# An op_host tiling header as some answers write it: END_TILING_DATA_DEF with no `;` after it, a
# standard container unqualified in namespace optiling, a helper taking a gert context. The kernel
# build reads it for the struct (and nothing else brings gert there); a host program includes it after
# CANN's registry headers.
TILING_HEADER = """\
#include "register/tilingdata_base.h"
namespace optiling {
template <typename T> inline T *CompileInfoOf(gert::TilingParseContext *context)
{
    return context->GetCompiledInfo<T>();
}
BEGIN_TILING_DATA_DEF(LookAlikeTilingData)
    TILING_DATA_FIELD_DEF(uint32_t, n);
END_TILING_DATA_DEF

REGISTER_TILING_DATA_CLASS(LookAlike, LookAlikeTilingData)
static const map<int, int> BUFFERS = {{1, 2}};
}  // namespace optiling
"""


@pytest.mark.parametrize(
    ("mode", "first"),
    [([], '#include "register/op_def_registry.h"\n'), (["-DASCENDOPT_TWIN_KERNEL"], "")],
    ids=["host", "kernel"],
)
def test_a_tiling_header_as_answers_write_it_compiles(tmp_path, mode, first):
    (tmp_path / "look_alike_tiling.h").write_text(TILING_HEADER, encoding="utf-8")
    (tmp_path / "use.cpp").write_text(
        first + '#include "look_alike_tiling.h"\nint main() { return optiling::BUFFERS.at(1) - 2; }\n',
        encoding="utf-8",
    )
    _run([*CXX, *mode, "-fsyntax-only", str(tmp_path / "use.cpp")])
