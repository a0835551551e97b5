"""Links by gold first (issue 27, point 3: a third of bfd's CPU), bfd redoing what gold refuses: the
runner evaluates exactly as a bfd-linked one; a candidate that defines a runtime symbol (to forge the
trace, or to make every half compare equal) is still refused, in bfd's words; a runner machine without
gold falls back to bfd once and stops trying gold."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin import build
from ascendopt.evaluation.cpu_twin.build import FAST_LINKER, BuildCache, Builder
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.operators.candidate import baseline
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.issues import CompileError
from ascendopt.operators.soc import resolve_soc
from tests.evaluation.cpu_twin.test_pch import TEMPLATES, Recording
from tests.evaluation.test_prepared_once import _same

pytestmark = pytest.mark.slow

# Host-side definitions of runtime symbols: the twin's trace writer under its assembler name (a host
# program is not sealed, and an asm label needs no C++ name), and libgcc's half equality, which the
# runtime defines (runtime/fp16_convert.cpp).
TRACE = "_ZN14ascendopt_twin2rt5TraceERKNS0_8TraceRecE"  # ascendopt_twin::rt::Trace(TraceRec const &)
FORGERS = {
    "trace writer": f'extern "C" void forgedTrace(const void *) __asm__("{TRACE}");\n'
    'extern "C" void forgedTrace(const void *) {}\n',
    "half equality": 'extern "C" long __eqhf2(_Float16, _Float16) { return 0; }\n',
}
SYMBOLS = {"trace writer": "ascendopt_twin::rt::Trace", "half equality": "__eqhf2"}


def _links(runner: Recording) -> list[list[str]]:
    return [argv for argv, _, out in runner.produced if out.endswith(".bin")]


async def _build(builder: Builder, tmp_path: Path, host_prefix: str = "") -> Path:
    op = load_operator(TEMPLATES / "add_custom")
    assert op.spec is not None and op.files.host is not None
    files = dict(baseline(op).files)
    files[op.files.host] = host_prefix + files[op.files.host]
    src = tmp_path / "src"
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    case = op.spec.resolve_cases()[0]
    return await builder.build(op, src, files, dict(case.dtypes), resolve_soc(None, None, op.spec))


def _builder(tmp_path: Path) -> tuple[Builder, Recording]:
    runner = Recording()
    return Builder(BuildCache(root=tmp_path / "cache"), runner=runner), runner


async def test_the_runner_is_linked_by_gold_and_evaluates_as_a_bfd_linked_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builder, runner = _builder(tmp_path)
    exe = await _build(builder, tmp_path)
    assert [argv[1] for argv in _links(runner)] == [FAST_LINKER]
    sections = subprocess.run(["readelf", "-S", str(exe)], capture_output=True, text=True, check=True).stdout
    assert ".note.gnu.go" in sections  # gold's version note: gold made it
    assert builder._fast_link

    op = load_operator(TEMPLATES / "add_custom")
    assert op.spec is not None
    cases = op.spec.resolve_cases()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "gold"))
    gold = await CpuTwinEvaluator(parallel=1).evaluate(op, baseline(op), cases, seed=3, profile=True)
    monkeypatch.setattr(build, "FAST_LINKER", "-fuse-ld=bfd")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "bfd"))
    bfd = await CpuTwinEvaluator(parallel=1).evaluate(op, baseline(op), cases, seed=3, profile=True)
    assert gold.correct and all(c.profile is not None for c in gold.cases)
    _same(gold, bfd)


@pytest.mark.parametrize("what", sorted(FORGERS))
async def test_a_candidate_defining_a_runtime_symbol_is_refused_in_bfds_words(
    tmp_path: Path, what: str
) -> None:
    builder, runner = _builder(tmp_path)
    with pytest.raises(CompileError) as caught:
        await _build(builder, tmp_path, FORGERS[what])
    text = " ".join(i.message for i in caught.value.issues)
    assert "multiple definition of" in text and SYMBOLS[what] in text, text
    # gold refused it, then bfd (whose words these are) refused it too; gold stays in use
    assert [argv[1] == FAST_LINKER for argv in _links(runner)] == [True, False]
    assert builder._fast_link


async def test_without_gold_a_builder_falls_back_to_bfd_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(build, "FAST_LINKER", "-fuse-ld=ascendopt-no-such-linker")
    builder, runner = _builder(tmp_path)
    exe = await _build(builder, tmp_path)
    assert exe.exists() and not builder._fast_link
    op = load_operator(TEMPLATES / "add_custom")
    assert op.spec is not None
    await builder.build_tiling_runner(
        op, tmp_path / "src", dict(baseline(op).files), resolve_soc(None, None, op.spec)
    )
    tried = [argv[1] == "-fuse-ld=ascendopt-no-such-linker" for argv in _links(runner)]
    assert tried == [True, False, False]  # gold once (failed), then bfd for this link and the next
