"""A header edit rebuilds only the side that includes it (issue 27): the host and kernel objects are
keyed by the operator files each compile reads (`read_headers`), and by every header when an include
might reach one in a way the walk does not follow."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from ascendopt.evaluation.cpu_twin.build import BuildCache, Builder, read_headers
from ascendopt.evaluation.runner import LocalRunner
from ascendopt.evaluation.sandbox import Limits, RunResult
from ascendopt.operators.candidate import baseline
from ascendopt.operators.discovery import load_operator
from ascendopt.operators.soc import resolve_soc

TEMPLATES = Path(__file__).resolve().parents[3] / "templates" / "operators"
KERNEL = "op_kernel/add_custom.cpp"
HOST = "op_host/add_custom.cpp"


def _files(kernel_knob: int = 1, host_knob: int = 1) -> dict[str, str]:
    op = load_operator(TEMPLATES / "add_custom")
    files = dict(baseline(op).files)
    files[KERNEL] = '#include "kernel_knobs.h"\n' + files[KERNEL]
    files[HOST] = '#include "host_knobs.h"\n' + files[HOST]
    files["op_kernel/kernel_knobs.h"] = f"#define KERNEL_KNOB {kernel_knob}\n"
    files["op_host/host_knobs.h"] = f"#define HOST_KNOB {host_knob}\n"
    return files


def _names(headers: list[str]) -> set[str]:
    return {h.split("\0")[0] for h in headers}


def test_each_side_is_keyed_by_the_headers_it_includes() -> None:
    op = load_operator(TEMPLATES / "add_custom")
    files = _files()
    host_side = {HOST, "op_host/host_knobs.h", "op_host/add_custom_tiling.h"}
    assert _names(read_headers(op, files, [HOST])) == host_side
    assert _names(read_headers(op, files, [KERNEL, "op_host/add_custom_tiling.h"])) == {
        KERNEL,
        "op_kernel/kernel_knobs.h",
        "op_host/add_custom_tiling.h",
    }


@pytest.mark.parametrize(
    "line",
    [
        "#include KNOBS_HEADER\n",  # a computed name
        "#include <kernel_knobs.h>\n",  # brackets naming an operator header
        '#include "knobs/kernel_knobs.h"\n',  # quotes naming one it does not resolve to
    ],
)
def test_an_include_the_walk_does_not_follow_keys_every_header(line: str) -> None:
    op = load_operator(TEMPLATES / "add_custom")
    files = _files()
    files[HOST] = line + files[HOST]
    assert _names(read_headers(op, files, [HOST])) >= {"op_kernel/kernel_knobs.h", "op_host/host_knobs.h"}


def test_a_name_two_folders_could_answer_keys_every_header() -> None:
    op = load_operator(TEMPLATES / "add_custom")
    files = _files()
    files["op_kernel/host_knobs.h"] = "#define OTHER 1\n"  # g++'s folder order would pick one
    assert "op_kernel/kernel_knobs.h" in _names(read_headers(op, files, [HOST]))


class Recording(LocalRunner):
    def __init__(self) -> None:
        super().__init__()
        self.produced: list[str] = []

    async def produce(self, argv: Sequence[str], *, cwd: str, out: str, limits: Limits) -> RunResult:
        self.produced.append(" ".join(argv))
        return await super().produce(argv, cwd=cwd, out=out, limits=limits)


@pytest.mark.slow
async def test_a_header_edit_rebuilds_only_its_side(tmp_path: Path) -> None:
    op = load_operator(TEMPLATES / "add_custom")
    assert op.spec is not None
    runner = Recording()
    builder = Builder(BuildCache(root=tmp_path / "cache"), runner=runner)
    soc = resolve_soc(None, None, op.spec)
    dtypes: dict[str, str] = dict(op.spec.resolve_cases()[0].dtypes)

    async def compiled(files: dict[str, str], name: str) -> list[str]:
        src = tmp_path / name
        for rel, text in files.items():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_text(text, encoding="utf-8")
        runner.produced.clear()
        await builder.build(op, src, files, dtypes, soc)
        return [a for a in runner.produced if " -c " in a and "/runtime/" not in a]

    first = await compiled(_files(), "a")
    assert any(KERNEL in a for a in first) and any(HOST in a for a in first)
    kernel_edit = await compiled(_files(kernel_knob=2), "b")
    assert any(KERNEL in a for a in kernel_edit) and not any(HOST in a for a in kernel_edit)
    host_edit = await compiled(_files(kernel_knob=2, host_knob=2), "c")
    assert any(HOST in a for a in host_edit) and not any(KERNEL in a for a in host_edit)
