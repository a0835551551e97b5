"""Writes past an output's end (issue 28): inside the output's 32 B alignment padding a DataCopy write is a
warning (harmless on the NPU, whose allocations are 32-byte aligned); past the 32 B-rounded end it stays an
error. The padding is never delivered, so it cannot reach a comparison, and it does not outlive a run, so a
kernel cannot keep state there between cases."""

import math
import struct

import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import (  # noqa: F401
    CXX,
    HERE,
    _link,
    _run,
    f32_inputs,
    run_kernel,
    runtime_objs,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pad_runner(runtime_objs, tmp_path_factory):  # noqa: F811
    d = tmp_path_factory.mktemp("align_pad")
    k = d / "k.o"
    _run([*CXX, "-DASCENDOPT_TWIN_KERNEL", "-c", str(HERE / "alignment_padding.cpp"), "-o", str(k)])
    launcher = d / "launch.cpp"
    launcher.write_text(
        '#include "ascendopt_twin/runner.h"\n'
        'extern "C" void alignment_padding(uint8_t*, uint8_t*, uint8_t*, uint8_t*);\n'
        "static void go(uint8_t** a) { alignment_padding(a[0], a[1], a[2], a[3]); }\n"
        "int main(int argc, char** argv) { return ascendopt_twin::RunnerMain(argc, argv, &go); }\n"
    )
    _run([*CXX, "-c", str(launcher), "-o", str(d / "launch.o")])
    exe = d / "runner"
    _run(["g++", "-o", str(exe), *map(str, runtime_objs), str(k), str(d / "launch.o"), "-pthread"])
    return exe


def _line(tag):
    for i, line in enumerate((HERE / "alignment_padding.cpp").read_text().splitlines(), 1):
        if tag in line:
            return i
    raise AssertionError(tag)


def _run_key(runner, tmp_path, key):
    run = run_kernel(runner, tmp_path, key, f32_inputs(x=[1.0, 2.0, 3.0]), out=("float32", 3))
    return run.z, run.findings, run.result


def test_a_write_into_the_alignment_padding_is_a_warning_at_its_line(pad_runner, tmp_path):
    z, findings, res = _run_key(pad_runner, tmp_path, 1)
    assert struct.unpack("<3f", z) == (2.0, 4.0, 6.0)  # only the tensor's 12 B are delivered
    # The 32 B read of x's 12 B is the read warning it always was; the write is now one too.
    assert [(f["kind"], f["severity"], f["line"]) for f in findings] == [
        ("gm_out_of_bounds", "warning", _line("LINE_ALIGNIN")),
        ("gm_out_of_bounds", "warning", _line("LINE_ALIGNWRITE")),
    ], findings
    msg = findings[1]["message"]
    assert "20 B past the end" in msg and "harmless on the NPU, whose allocations are 32-byte aligned" in msg
    assert "would corrupt a neighbour in a packed buffer" in msg
    assert res["status"] == "ok" and res["findings_errors"] == 0


def test_a_write_past_the_32_byte_rounded_end_stays_an_error(pad_runner, tmp_path):
    z, findings, _ = _run_key(pad_runner, tmp_path, 3)
    assert struct.unpack("<3f", z) == (5.0, 5.0, 5.0)
    oob = [f for f in findings if f["kind"] == "gm_out_of_bounds"]
    assert [(f["severity"], f["line"]) for f in oob] == [("error", _line("LINE_PASTALIGN"))], findings
    assert "harmless" not in oob[0]["message"]


def test_state_kept_in_the_padding_does_not_reach_the_next_run(pad_runner, tmp_path):
    # The hostile kernel returns what z's padding held and leaves 42.0 there: a second run (the next case, or
    # the re-check) starts from the fill again, never from the first run's stash.
    for _ in range(2):
        z, findings, _ = _run_key(pad_runner, tmp_path, 2)
        assert len(z) == 12
        assert all(math.isnan(v) for v in struct.unpack("<3f", z)), z.hex()  # the 0xFF fill, never 42.0
        kinds = {(f["line"], f["severity"]) for f in findings if f["kind"] == "gm_out_of_bounds"}
        assert kinds == {(_line("LINE_PADREAD"), "warning"), (_line("LINE_STASH"), "warning")}, findings
