"""The layout registry (operators/layouts/): each layout claims the folder of its look-alike, no
other layout claims it, and what it describes there carries its name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from ascendopt.operators.discovery import Discovery, operator_root_of
from ascendopt.operators.layouts import LAYOUTS, layout_of
from tests.operators import official_style, synthetic, torch_ext_style
from tests.operators.cann_open_style import write_repo

TEMPLATES = Path(__file__).resolve().parents[2] / "templates" / "operators"

LOOKALIKES: list[tuple[str, Callable[[Path], Path]]] = [
    ("cann_open", write_repo),
    ("cann_open", synthetic.write_cann_open),
    ("msopgen", lambda _root: TEMPLATES / "add_custom"),
    ("msopgen", official_style.write_msopgen_sample),
    ("kernel_launch", official_style.write_launch_sample),
    ("kernel_launch", synthetic.write_kernel_launch),
    ("torch_extension", torch_ext_style.write_aclrt_extension),
    ("torch_extension", torch_ext_style.write_do_extension),
]


def test_the_registry_lists_each_layout_once() -> None:
    assert [layout.name for layout in LAYOUTS] == ["cann_open", "msopgen", "kernel_launch", "torch_extension"]


@pytest.mark.parametrize(("name", "write"), LOOKALIKES)
def test_each_layout_claims_its_lookalike_and_no_other_does(
    tmp_path: Path, name: str, write: Callable[[Path], Path]
) -> None:
    folder = write(tmp_path)
    assert [layout.name for layout in LAYOUTS if layout.matches(folder)] == [name]
    layout = layout_of(folder)
    assert layout is not None
    ops = layout.describe(folder, Discovery())
    assert ops and {op.layout for op in ops} == {layout.carries}
    assert all(op.root == folder for op in ops)
    assert operator_root_of(folder / "op_kernel" / "x.cpp") == folder
    # Folders around and inside it are no layout's.
    for other in (folder.parent, *(folder / sub for sub in layout.owns)):
        assert layout_of(other) is None
