"""The operator layouts discovery reads, one file each behind one small interface.

A layout recognises the folder that holds its operators (`matches`) and reads them from it
(`describe`, which ends in `assemble.assemble`). `LAYOUTS` lists them in the order discovery asks;
at most one claims a folder. A new layout (a benchmark's task folder, a torch-extension launch) is
one more file here and one more entry in `LAYOUTS`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from ascendopt.operators.layouts.cann_open import CannOpen
from ascendopt.operators.layouts.kernel_launch import KernelLaunch
from ascendopt.operators.layouts.msopgen import MsOpGen
from ascendopt.operators.layouts.torch_extension import TorchExtension
from ascendopt.operators.model import Layout, OperatorProject

if TYPE_CHECKING:
    from ascendopt.operators.discovery import Discovery


class OperatorLayout(Protocol):
    name: str  # the layout's own name
    carries: Layout  # the layout its operators carry (model.Layout): how the rest of the product runs them
    owns: tuple[str, ...]  # subfolders of a claimed folder that hold no operator of their own

    def matches(self, folder: Path) -> bool:
        """Whether `folder` holds operators of this layout (read from the folder alone)."""
        ...

    def describe(self, folder: Path, found: Discovery) -> list[OperatorProject]:
        """The operators in `folder`. Problems not tied to one of them go to `found.issues`; kernel
        entries read but not made operators to `found.unclaimed` / `found.variants`."""
        ...


LAYOUTS: tuple[OperatorLayout, ...] = (CannOpen(), MsOpGen(), KernelLaunch(), TorchExtension())


def layout_of(folder: Path) -> OperatorLayout | None:
    """The layout that claims `folder`, if one does."""
    return next((layout for layout in LAYOUTS if layout.matches(folder)), None)
