"""The evidence of a run is out of the candidate's reach (issue 23): forged from a static destructor
or an atexit handler (registered in the kernel, the host program or inside TilingFunc), written into
the evidence descriptor ahead of the twin, or left as links in the case folder. Each look-alike is
run through the real evaluator (g++, the twin, bubblewrap) with a kernel that computes nothing, and
must not pass; the parser is tried on every malformed stream."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.evidence import EvidenceError, parse_evidence
from ascendopt.evaluation.records import Evaluation
from ascendopt.evaluation.sandbox import local_sandbox
from ascendopt.operators.candidate import Candidate, baseline
from ascendopt.operators.discovery import load_operator

KERNEL = "op_kernel/add_custom.cpp"
HOST = "op_host/add_custom.cpp"
SPEC = """\
schema_version = 1
name = "add_custom"
soc = "Ascend910B4"
reference = "reference.py:add_custom"
inputs = [{ name = "x", dtypes = ["float32"] }, { name = "y", dtypes = ["float32"] }]
outputs = [{ name = "z", dtypes = ["float32"] }]

[[cases]]
name = "f32"
dtype = "float32"
shapes = { x = [3, 1000], y = [3, 1000] }
"""
# The kernel's loop with every tile written as zeros: the outputs are right only if something forges them.
LOOP = """            CopyIn(i, count);
            Compute(count);
            CopyOut(i, count);"""
ZEROS = """            AscendC::LocalTensor<T> zLocal = outQueueZ.AllocTensor<T>();
            AscendC::Duplicate(zLocal, static_cast<T>(0), count);
            outQueueZ.EnQue<T>(zLocal);
            CopyOut(i, count);"""
# z = x + y computed from the case folder's input files into the output file the old runner wrote.
FORGE = """
#include <cstdio>
#include <cstdlib>
#include <vector>
static void ascendoptForge()
{
    std::FILE *fx = std::fopen("in_x.bin", "rb"), *fy = std::fopen("in_y.bin", "rb");
    if (!fx || !fy) return;
    std::vector<float> x(3000), y(3000);
    size_t n = std::fread(x.data(), 4, 3000, fx);
    n += std::fread(y.data(), 4, 3000, fy);
    for (size_t i = 0; i < 3000; ++i) x[i] += y[i];
    std::FILE *fz = std::fopen("out_z.bin", "wb");
    if (fz) { std::fwrite(x.data(), 4, 3000, fz); std::fclose(fz); }
    std::FILE *ff = std::fopen("findings.jsonl", "wb");
    if (ff) std::fclose(ff);
    (void)n;
}
"""
DESTRUCTOR = FORGE + (
    "struct AscendoptForger { ~AscendoptForger() { ascendoptForge(); } };\nstatic AscendoptForger forger;\n"
)
ATEXIT = FORGE + "static int registered = std::atexit(ascendoptForge);\n"
INCLUDE = '#include "kernel_operator.h"\n'
TILING = "static ge::graphStatus TilingFunc(gert::TilingContext *context)\n{\n"
# (file, text to find, its replacement): each forges z after the kernel wrote zeros
FORGERS = {
    "destructor in the kernel": (KERNEL, INCLUDE, INCLUDE + DESTRUCTOR),
    "atexit from the kernel": (KERNEL, INCLUDE, INCLUDE + ATEXIT),
    "destructor in the host program": (HOST, "namespace optiling {", DESTRUCTOR + "namespace optiling {"),
    "atexit inside TilingFunc": (
        HOST,
        "namespace optiling {",
        FORGE + "namespace optiling {",
    ),
}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(local_sandbox() is None, reason="bubblewrap (bwrap) is not usable here"),
]


@pytest.fixture
def op(add_op: Path) -> Path:
    (add_op / "ascendopt.toml").write_text(SPEC)
    return add_op


async def _evaluate(op: Path, edits: list[tuple[str, str, str]]) -> Evaluation:
    project = load_operator(op)
    files = dict(baseline(project).files)
    for path, old, new in edits:
        assert old in files[path], (path, old)
        files[path] = files[path].replace(old, new, 1)
    candidate = Candidate(operator=project.name, files=files, origin="kernel_rewrite", llm_written=True)
    assert project.spec is not None
    return await CpuTwinEvaluator(parallel=1).evaluate(project, candidate, project.spec.resolve_cases())


async def test_the_baseline_passes_and_zeros_do_not(op: Path) -> None:
    assert (await _evaluate(op, [])).correct
    assert _wrong(await _evaluate(op, [(KERNEL, LOOP, ZEROS)]))


def _wrong(ev: Evaluation) -> bool:
    return not ev.correct and all(c.message == "wrong output(s): z" for c in ev.cases)


@pytest.mark.parametrize("how", sorted(FORGERS))
async def test_outputs_forged_after_the_run_are_never_believed(op: Path, how: str) -> None:
    edits = [(KERNEL, LOOP, ZEROS), FORGERS[how]]
    if how == "atexit inside TilingFunc":
        edits.append((HOST, TILING, TILING + "    std::atexit(ascendoptForge);\n"))
    ev = await _evaluate(op, edits)
    assert _wrong(ev), f"{how}: {ev.status} {ev.message} {[c.message for c in ev.cases]}"


async def test_bytes_written_to_the_evidence_descriptor_ahead_of_the_twin_refuse_the_run(op: Path) -> None:
    payload = (
        "    if (AscendC::GetBlockIdx() == 0) {\n"
        '        const char *fd = std::getenv("ASCENDOPT_EVIDENCE_FD");\n'
        '        if (fd) { (void)!::write(std::atoi(fd), "ascendopt-evidence 1\\nend 0\\n", 26); }\n'
        "    }\n"
    )
    entry = "    GET_TILING_DATA(tilingData, tiling);\n"
    headers = "#include <cstdlib>\n#include <unistd.h>\n"
    ev = await _evaluate(op, [(KERNEL, INCLUDE, headers + INCLUDE), (KERNEL, entry, entry + payload)])
    assert not ev.correct
    assert "its evidence" in ev.message or any("its evidence" in c.message for c in ev.cases), ev.message


async def test_links_left_in_the_case_folder_are_never_read(op: Path, tmp_path: Path) -> None:
    secret = tmp_path / "host-secret.txt"
    secret.write_text("HOST-SECRET-LINE\n")
    payload = (
        "    if (AscendC::GetBlockIdx() == 0) {\n"
        + "".join(
            f'        (void)!::symlink("{target}", "{name}");\n'
            for name, target in (
                ("findings.jsonl", secret),
                ("result.json", secret),
                ("trace.jsonl", "/proc/self/environ"),
                ("out_z.bin", secret),
            )
        )
        + "    }\n"
    )
    entry = "    GET_TILING_DATA(tilingData, tiling);\n"
    headers = "#include <unistd.h>\n"
    ev = await _evaluate(op, [(KERNEL, INCLUDE, headers + INCLUDE), (KERNEL, entry, entry + payload)])
    assert ev.correct, ev.message  # the run's own evidence, whatever the folder holds
    assert "HOST-SECRET" not in ev.model_dump_json()


@pytest.mark.parametrize(
    "data, why",
    [
        (None, "no evidence"),
        (b"", "no evidence"),
        (b"forged\nascendopt-evidence 1\nend 0\n", "header"),
        (b"ascendopt-evidence 1\nresult.json 2\n{}", "malformed"),
        (b"ascendopt-evidence 1\nresult.json 5\n{}\nend 1\n", "cut short"),
        (b"ascendopt-evidence 1\nresult.json 2\n{}end 2\n", "claiming 2"),
        (b"ascendopt-evidence 1\nresult.json 2\n{}result.json 2\n{}end 2\n", "twice"),
        (b"ascendopt-evidence 1\nend 0\nresult.json 2\n{}end 1\n", "malformed"),
        (b"ascendopt-evidence 1\nend 0\nend 0\n", "malformed"),
        (b"ascendopt-evidence 1\n../x 1\nA\nend 1\n", "malformed"),
        (b"ascendopt-evidence 1\nend 0\n ", "malformed"),
    ],
)
def test_malformed_evidence_is_refused(data: bytes | None, why: str) -> None:
    with pytest.raises(EvidenceError, match=why):
        parse_evidence(data)


def test_evidence_sections_and_trace_chunks() -> None:
    data = (
        b"ascendopt-evidence 1\ntrace.jsonl 3\nab\ntrace.jsonl 2\nc\nout_z.bin 4\n\x00\x01\n\xffend 3\n"
    )
    assert parse_evidence(data) == {"trace.jsonl": b"ab\nc\n", "out_z.bin": b"\x00\x01\n\xff"}
