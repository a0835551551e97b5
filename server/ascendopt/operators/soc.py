"""The SoCs we know, in one table, and the one rule that picks an evaluation's SoC.

One row per SoC (or per family, for the architecture macros of SoCs not named): the vector cores
and Unified Buffer the tiling program is told about, the macros CANN's compiler defines when it
builds a kernel for it, and the SoC whose msopmodeling calibration times it on the CPU twin.
An evaluation resolves its SoC once (`resolve_soc`) and hands the `Soc` down to the build, the
case manifest and the timing model, so one evaluation is compiled and timed for the same SoC.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from ascendopt.operators.spec import OperatorSpec

DEFAULT_SOC = "Ascend910B4"
# The SoC NPUKernelBench's answers are written for (48 vector cores: Sscal's per-core arrays, Ccopy's
# and ComplexMatDot's 48-entry tiling structs) and the paper measured on: specs derived from its tasks.
BENCHMARK_SOC = "Ascend910B2"
UB_BYTES = 196608  # 192 KB: what GetCoreMemSize(UB) returns and a kernel may fill (CANN's own kernels do)


class Soc(BaseModel):
    """One SoC as the build, the tiling program and the timing model see it."""

    model_config = ConfigDict(frozen=True)

    name: str = DEFAULT_SOC
    core_num_aiv: int = 40
    # The platform reserves part of the UB only when the tiling program asks (ReserveLocalMemory).
    ub_size: int = UB_BYTES
    # What CANN's compiler defines for a kernel of this SoC (AscendC guide, "C++ language extensions":
    # __NPU_ARCH__ per product; __CCE_AICORE__ is its first three digits / 10).
    arch: dict[str, int] = Field(default_factory=dict)
    # The SoC whose msopmodeling data times this one on the twin (itself, a sibling with the same
    # core counts for a SoC msopmodeling has no data of, or None: the twin cannot time it).
    calibration: str | None = None
    family: bool = False  # a row for every SoC whose name starts with `name` (architecture macros only)

    @property
    def arch_defines(self) -> list[str]:
        """The `-D` flags of a kernel build for this SoC."""
        return [f"-D{name}={value}" for name, value in self.arch.items()]

    @property
    def chip(self) -> str | None:
        """The msopmodeling arc_config folder of its calibration ("910B4"), None without one."""
        return self.calibration.removeprefix("Ascend") if self.calibration else None


_A2 = {"__CCE_AICORE__": 220, "__NPU_ARCH__": 2201}  # Atlas A2 training / inference, A3

# Cores and UB of the rows past the 910B are the twin's defaults (40 vector cores, 192 KB), as before
# this table: the twin cannot time those SoCs, only compile for them.
SOCS: tuple[Soc, ...] = (
    Soc(name="Ascend910B1", core_num_aiv=48, arch=_A2, calibration="Ascend910B1"),
    Soc(name="Ascend910B2", core_num_aiv=48, arch=_A2, calibration="Ascend910B1"),  # no data of its own
    Soc(name="Ascend910B3", core_num_aiv=40, arch=_A2, calibration="Ascend910B4"),  # no data of its own
    Soc(name="Ascend910B4", core_num_aiv=40, arch=_A2, calibration="Ascend910B4"),
    # The platform msopmodeling's Add/Mul profiling records were taken on (same clocks and core counts
    # as 910B4, twice its bandwidth table).
    Soc(name="Ascend910B4-1", core_num_aiv=40, arch=_A2, calibration="Ascend910B4-1"),
    Soc(name="Ascend910B", arch=_A2, family=True),
    Soc(name="Ascend910_93", arch=_A2, family=True),  # Atlas A3
    Soc(name="Ascend310P", arch={"__CCE_AICORE__": 200, "__NPU_ARCH__": 2002}, family=True),  # inference
    Soc(name="Ascend310B", arch={"__CCE_AICORE__": 300, "__NPU_ARCH__": 3002}, family=True),  # 200I/500 A2
    # The open repos' arch35 kernels; __CCE_AICORE__ is not documented for it.
    Soc(name="Ascend950", arch={"__NPU_ARCH__": 3510}, family=True),
    Soc(name="Ascend910", arch={"__CCE_AICORE__": 100, "__NPU_ARCH__": 1001}, family=True),  # Atlas A1
)
_BY_NAME = {s.name: s for s in SOCS if not s.family}
_FAMILIES = sorted((s for s in SOCS if s.family), key=lambda s: -len(s.name))  # longest prefix first


def full_name(name: str) -> str:
    """ "910B4" → "Ascend910B4" (npu-smi and users drop the prefix)."""
    return name if name.startswith("Ascend") else f"Ascend{name}"


def soc(name: str) -> Soc:
    """The table's row for `name`; a SoC it does not name gets its family's architecture macros
    (none for an unknown family), the twin's default cores and UB, and no calibration."""
    name = full_name(name)
    if (row := _BY_NAME.get(name)) is not None:
        return row
    family = next((f for f in _FAMILIES if name.startswith(f.name)), None)
    return Soc(name=name, arch=dict(family.arch) if family else {})


def arch_macros(name: str) -> dict[str, int]:
    """The architecture macros a kernel build for SoC `name` defines."""
    return dict(soc(name).arch)


def resolve_soc(override: str | None, host: str | None, spec: OperatorSpec | None) -> Soc:
    """The SoC of one evaluation: the one asked for (`--soc`, the editor's setting), else the
    machine's own (an NPU host's SoC in its settings), else the spec's, else DEFAULT_SOC."""
    return soc(override or host or (spec.soc if spec is not None else DEFAULT_SOC))


def calibration_note(name: str) -> str:
    """What times `name` on the twin, said where a spec names it: its own data, a sibling's, or none."""
    row = soc(name)
    if row.calibration is None:
        return f"{row.name}: no calibration, the twin cannot time it"
    if row.calibration == row.name:
        return f"{row.name}: timed with its own calibration"
    return (
        f"{row.name}: {row.core_num_aiv} vector cores, timed with {row.calibration}'s calibration "
        "(no data of its own)"
    )


def calibrated() -> list[str]:
    """The SoCs the twin's timing model can time."""
    return [s.name for s in SOCS if s.calibration is not None]
