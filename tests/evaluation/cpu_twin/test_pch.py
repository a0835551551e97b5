"""The kernel's precompiled header (issue 27, point 1): built once per twin and SoC macros, shared by
operators, used by g++ (not silently rejected), and the same object and evaluation as without it."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.build import HOST_PCH_HEADER, NO_PCH_ENV, PCH_SUFFIX, BuildCache, Builder
from ascendopt.evaluation.cpu_twin.local_evaluator import CpuTwinEvaluator
from ascendopt.evaluation.runner import LocalRunner
from ascendopt.evaluation.sandbox import Limits, RunResult
from ascendopt.operators.candidate import baseline
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.soc import resolve_soc
from tests.evaluation.test_prepared_once import _same

pytestmark = pytest.mark.slow

TEMPLATES = Path(__file__).resolve().parents[3] / "templates" / "operators"


class Recording(LocalRunner):
    def __init__(self) -> None:
        super().__init__()
        self.produced: list[tuple[list[str], str, str]] = []  # argv, cwd, out

    async def produce(self, argv: Sequence[str], *, cwd: str, out: str, limits: Limits) -> RunResult:
        self.produced.append((list(argv), cwd, out))
        return await super().produce(argv, cwd=cwd, out=out, limits=limits)


async def _kernel_build(
    op_name: str, cache: Path, src: Path, prefix: str = ""
) -> tuple[Recording, list[str], str, str]:
    op = load_operator(TEMPLATES / op_name)
    assert op.spec is not None
    files = dict(baseline(op).files)
    files[op.files.kernel] = prefix + files[op.files.kernel]
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    runner = Recording()
    case = op.spec.resolve_cases()[0]
    await Builder(BuildCache(root=cache), runner=runner).build(
        op, src, files, dict(case.dtypes), resolve_soc(None, None, op.spec)
    )
    argv, cwd, out = next(p for p in runner.produced if "ascendopt_twin/seal.h" in p[0] and "-c" in p[0])
    return runner, argv, cwd, out


async def test_the_kernel_object_is_the_same_with_the_pch_and_g_plus_plus_uses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pchs = set()
    for name in ("add_custom", "softmax_custom"):
        runner, argv, cwd, out = await _kernel_build(name, tmp_path / "with", tmp_path / name / "a")
        built = [p for p in runner.produced if p[2].endswith(PCH_SUFFIX)]
        pchs |= {p[2] for p in built}
        dirs = {p.removesuffix(PCH_SUFFIX) for p in pchs}
        assert dirs & set(argv), argv
        probe = [a.replace("{out}", str(tmp_path / "probe.o")) for a in argv] + ["-H"]
        shown = subprocess.run(probe, cwd=cwd, capture_output=True, text=True, check=True).stderr
        first = shown.splitlines()[0]
        assert first.startswith("! ") and first.endswith(PCH_SUFFIX), shown[:300]  # "!": the PCH was used
        with monkeypatch.context() as m:
            m.setenv(NO_PCH_ENV, "1")
            _, plain_argv, _, plain_out = await _kernel_build(
                name, tmp_path / "without", tmp_path / name / "b"
            )
        assert not dirs & set(plain_argv)
        assert Path(out).read_bytes() == Path(plain_out).read_bytes(), name
    assert len(pchs) == 1  # one PCH, shared by both operators


async def test_a_kernel_that_includes_the_seal_again_builds_as_without_the_pch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    again = '#include "ascendopt_twin/seal.h"\n#include "kernel_operator.h"\n'
    _, _, _, out = await _kernel_build("add_custom", tmp_path / "with", tmp_path / "a", again)
    monkeypatch.setenv(NO_PCH_ENV, "1")
    _, _, _, plain = await _kernel_build("add_custom", tmp_path / "without", tmp_path / "b", again)
    assert Path(out).read_bytes() == Path(plain).read_bytes()


async def test_an_evaluation_is_the_same_with_the_pch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    op = load_operator(TEMPLATES / "softmax_custom")
    assert op.spec is not None
    cases = op.spec.resolve_cases()
    base = baseline(op)
    with_pch = await CpuTwinEvaluator(Builder(BuildCache(root=tmp_path / "a"))).evaluate(
        op, base, cases, seed=3, profile=True
    )
    monkeypatch.setenv(NO_PCH_ENV, "1")
    without = await CpuTwinEvaluator(Builder(BuildCache(root=tmp_path / "b"))).evaluate(
        op, base, cases, seed=3, profile=True
    )
    assert with_pch.status == "ok" and with_pch.correct, with_pch.message
    _same(with_pch, without)


async def test_a_sample_s_own_program_uses_its_pch_too(tmp_path: Path) -> None:
    """A kernel-launch sample's CPU-debug build (`build_main`: no ASCENDOPT_TWIN_KERNEL, SOC_VERSION set)
    has its own precompiled seal, made with those flags, and g++ uses it."""
    from tests.operators import official_style as style

    root = style.write_host_tiling_sample(tmp_path / "op")
    op = load_operator(root)
    runner = Recording()
    files = baseline(op).files
    await Builder(BuildCache(root=tmp_path / "cache"), runner=runner).build_main(
        op, root, files, resolve_soc(None, None, op.spec)
    )
    argv, cwd, _ = next(p for p in runner.produced if "ascendopt_twin/seal.h" in p[0] and "-c" in p[0])
    [pch] = [p for p in runner.produced if p[2].endswith(PCH_SUFFIX)]
    assert "-DASCENDOPT_TWIN_KERNEL" not in pch[0] and any(a.startswith("-DSOC_VERSION=") for a in pch[0])
    probe = [a.replace("{out}", str(tmp_path / "probe.o")) for a in argv] + ["-H"]
    shown = subprocess.run(probe, cwd=cwd, capture_output=True, text=True, check=True).stderr
    assert shown.splitlines()[0] == f"! {pch[2]}", shown[:300]


async def _host_build(
    op_name: str, cache: Path, src: Path, prefix: str = ""
) -> tuple[Recording, str, str, str]:
    op = load_operator(TEMPLATES / op_name)
    assert op.spec is not None and op.files.host is not None
    files = dict(baseline(op).files)
    files[op.files.host] = prefix + files[op.files.host]
    for rel, text in files.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_text(text, encoding="utf-8")
    runner = Recording()
    [obj], _ = await Builder(BuildCache(root=cache), runner=runner).host_objects(
        op, src, files, resolve_soc(None, None, op.spec)
    )
    argv, cwd, _ = next(p for p in runner.produced if p[2] == obj)
    return runner, obj, " ".join(argv), cwd


async def test_the_host_object_is_the_same_with_the_host_pch_and_g_plus_plus_uses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("add_custom", "layer_norm_custom"):
        runner, out, argv, cwd = await _host_build(name, tmp_path / "with", tmp_path / name / "a")
        [pch] = [p[2] for p in runner.produced if p[2].endswith(f"/{HOST_PCH_HEADER}.gch")]
        assert f"-include {HOST_PCH_HEADER}" in argv
        probe = [a.replace("{out}", str(tmp_path / "probe.o")) for a in argv.split()] + ["-H"]
        shown = subprocess.run(probe, cwd=cwd, capture_output=True, text=True, check=True).stderr
        assert shown.splitlines()[0] == f"! {pch}", shown[:300]  # "!": the PCH was used
        with monkeypatch.context() as m:
            m.setenv(NO_PCH_ENV, "1")
            _, plain, plain_argv, _ = await _host_build(name, tmp_path / "without", tmp_path / name / "b")
        assert HOST_PCH_HEADER not in plain_argv
        assert Path(out).read_bytes() == Path(plain).read_bytes(), name


async def test_a_host_source_that_defines_a_macro_first_builds_without_the_host_pch(tmp_path: Path) -> None:
    """A macro defined ahead of the twin's host API could change it: no PCH read ahead of that."""
    _, _, argv, _ = await _host_build("add_custom", tmp_path / "c", tmp_path / "a", "#define TWIN_KNOB 1\n")
    assert HOST_PCH_HEADER not in argv


async def test_a_host_source_the_host_pch_breaks_builds_as_without_it(tmp_path: Path) -> None:
    """A tiling program that cannot follow the host API (it declares a `ge` of its own, which it never
    includes): the PCH attempt fails, the plain compile decides."""
    own_ge = "namespace ge { int graphStatus; }\n"
    runner = Recording()
    op = load_operator(TEMPLATES / "add_custom")
    assert op.files.host is not None and op.spec is not None
    files = {op.files.host: own_ge + "int f() { return ge::graphStatus; }\n"}
    src = tmp_path / "src"
    (src / op.files.host).parent.mkdir(parents=True)
    (src / op.files.host).write_text(files[op.files.host], encoding="utf-8")
    [obj], _ = await Builder(BuildCache(root=tmp_path / "c"), runner=runner).host_objects(
        op, src, files, resolve_soc(None, None, op.spec)
    )
    tries = [" ".join(p[0]) for p in runner.produced if p[2] == obj]
    assert len(tries) == 2 and HOST_PCH_HEADER in tries[0] and HOST_PCH_HEADER not in tries[1]
