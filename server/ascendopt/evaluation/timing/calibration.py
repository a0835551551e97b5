"""Adapter over msopmodeling's shipped 910B calibration data (read at run time, never copied here).

msopmodeling (PyPI, MulanPSL-2.0) installs a top-level ``tilesim`` folder whose
modules import each other as top-level packages (``from core.common ...``), so
that folder is appended to ``sys.path`` before importing
``core.config.arc_spec``. Its logging module calls ``logging.basicConfig`` with a
file handler inside site-packages at import time; a temporary handler on the root
logger makes that call a no-op, so importing it leaves our logging untouched.

Everything is cached: one ``load_arc_config`` per chip, one lookup per key.
"""

from __future__ import annotations

import importlib.util
import logging
import sys
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ascendopt.operators.soc import calibrated, full_name
from ascendopt.operators.soc import soc as soc_row

Direction = Literal["GM_UB", "UB_GM"]


# msopmodeling's own fallback when an intrinsic is not in its table
# (core/backend/engineering_costmodel/op_model/pto/cce/config/configs.py).
FALLBACK_VEC = (14, 1, 18)  # head, computing, interval cycles


class CalibrationError(RuntimeError):
    """msopmodeling is missing or has no data for what was asked."""


class SocCalibration(BaseModel):
    """SoC parameters read from msopmodeling's per-chip YAML and bandwidth table."""

    model_config = ConfigDict(frozen=True)

    soc: str  # name asked for, e.g. "Ascend910B4"
    model_soc: str  # SoC whose data is used (differs for stand-ins)
    chip: str  # msopmodeling arc_config folder, e.g. "910B4"
    clock_mhz: float
    ub_bytes: int
    vector_cores: int
    cube_cores: int
    vec_repeat_bytes: int
    gm_peak_bytes_per_us: float  # aggregate GM bandwidth: max over n of n x per-core bandwidth
    source: str  # YAML path

    @property
    def label(self) -> str:
        if self.soc != self.model_soc:
            return f"{self.model_soc} model (stand-in for {self.soc})"
        return f"{self.model_soc} model"


class VecCycles(BaseModel):
    model_config = ConfigDict(frozen=True)

    intrinsic: str
    dtype: str
    head: int
    computing: int
    interval: int
    fallback: str | None = None  # why the figures are not the table's own row


def tilesim_dir() -> Path:
    """The installed msopmodeling ``tilesim`` folder."""
    spec = importlib.util.find_spec("tilesim")
    locations = list(spec.submodule_search_locations or []) if spec else []
    for loc in locations:
        if (Path(loc) / "core" / "config" / "arc_spec.py").is_file():
            return Path(loc)
    raise CalibrationError(
        "msopmodeling is not installed (no tilesim/core/config/arc_spec.py found); "
        "install it with `pip install msopmodeling` to get 910B calibration data"
    )


@lru_cache(maxsize=1)
def _msop() -> tuple[ModuleType, ModuleType]:
    root_dir = str(tilesim_dir())
    if root_dir not in sys.path:
        sys.path.append(root_dir)  # appended: its top-level `tests`/`core` must not shadow ours
    root = logging.getLogger()
    guard = logging.NullHandler()
    root.addHandler(guard)  # basicConfig() is a no-op while root has a handler
    level = root.level
    try:
        arc_spec = importlib.import_module("core.config.arc_spec")
        entity = importlib.import_module("core.common.entity")
    except Exception as exc:
        raise CalibrationError(f"cannot import msopmodeling's arc_spec from {root_dir}: {exc}") from exc
    finally:
        root.removeHandler(guard)
        root.setLevel(level)
    # Its lookups log a warning on every default; we report fallbacks ourselves.
    quiet = logging.getLogger(arc_spec.__name__)
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    return arc_spec, entity


def calibration_chip(soc: str) -> tuple[str, str]:
    """(model SoC name, msopmodeling chip folder) for a SoC name such as "Ascend910B4" or "910B4", from
    operators/soc.py's table: B2/B3 have no data of their own in msopmodeling; they are modelled by
    the sibling with the same core counts and the label says so."""
    row = soc_row(soc)
    if row.calibration is None or row.chip is None:
        supported = ", ".join(sorted(calibrated()))
        raise CalibrationError(f"no msopmodeling calibration for SoC {soc!r}; supported: {supported}")
    return row.calibration, row.chip


@lru_cache(maxsize=8)
def _arc(chip: str) -> Any:
    arc_spec, _ = _msop()
    path = tilesim_dir() / "core" / "config" / "arc_config" / chip / f"{chip}.yaml"
    if not path.is_file():
        raise CalibrationError(f"msopmodeling has no arc_config for {chip} ({path} missing)")
    return arc_spec.load_arc_config(str(path))


def _mem(name: str) -> Any:
    _, entity = _msop()
    return entity.MemLoc(name)


@lru_cache(maxsize=16)
def soc_calibration(soc: str) -> SocCalibration:
    model, chip = calibration_chip(soc)
    arc = _arc(chip)
    gm, ub = _mem("GM"), _mem("UB")
    peak = 0.0
    for (src, dst, cores, pkt, _mode), row in arc.bandwidth_dict.items():
        if pkt == -1 and cores > 0 and {src, dst} == {gm, ub}:
            peak = max(peak, cores * row.bw)
    if peak <= 0:
        raise CalibrationError(f"msopmodeling's bandwidth table for {chip} has no GM<->UB rows")
    repeat = arc.vec_config.vec_size_single_repeat
    return SocCalibration(
        soc=full_name(soc),
        model_soc=model,
        chip=chip,
        clock_mhz=float(arc.clock_freq),
        ub_bytes=int(arc.local_mem[_mem("UB")]),
        vector_cores=int(arc.core_config.vec_core_num),
        cube_cores=int(arc.core_config.cube_core_num),
        vec_repeat_bytes=int(next(iter(repeat.values()))) if repeat else 256,
        gm_peak_bytes_per_us=peak,
        source=str(tilesim_dir() / "core" / "config" / "arc_config" / chip / f"{chip}.yaml"),
    )


@lru_cache(maxsize=4096)
def bandwidth(
    soc: str, direction: Direction, active_cores: int, packet_bytes: int = -1
) -> tuple[float, bool]:
    """Per-core bandwidth in bytes/µs with ``active_cores`` moving at once, and whether the
    small-packet curve (packets under 256 B) was used. Core counts beyond the table use its
    last row; packet_bytes=-1 means a large transfer."""
    _, chip = calibration_chip(soc)
    arc = _arc(chip)
    src, dst = (_mem("GM"), _mem("UB")) if direction == "GM_UB" else (_mem("UB"), _mem("GM"))
    known = sorted(c for (s, d, c, p, _m) in arc.bandwidth_dict if s == src and d == dst and c > 0)
    if not known:
        raise CalibrationError(f"msopmodeling has no {direction} bandwidth for {chip}")
    cores = min(max(1, active_cores), known[-1])
    while cores not in known:  # holes in the table: nearest smaller count
        cores -= 1
    bw, small = arc.lookup_bw(src, dst, cores, packet_bytes if packet_bytes > 0 else -1)
    return float(bw), bool(small)


_DTYPES = {
    "float16": "FP16",
    "half": "FP16",
    "fp16": "FP16",
    "float32": "FP32",
    "float": "FP32",
    "fp32": "FP32",
    "bfloat16": "BF16",
    "bf16": "BF16",
    "int32": "INT32",
    "int16": "INT16",
    "int8": "INT8",
    "uint8": "UINT8",
    "int64": "INT64",
    "uint64": "UINT64",
    "bool": "BOOL",
}


@lru_cache(maxsize=4096)
def vec_cycles(soc: str, intrinsic: str, dtype: str) -> VecCycles:
    """Head / computing / interval cycles of one vector intrinsic (msopmodeling names: VADD,
    VEXP, CONV_F322F16 …). Missing rows fall back, with the reason in ``fallback``: first
    to the intrinsic's FP32 row (msopmodeling's own rule), then to its generic default."""
    _, chip = calibration_chip(soc)
    arc = _arc(chip)
    _, entity = _msop()
    dname = _DTYPES.get(dtype.lower(), dtype.upper())
    try:
        op = entity.VecOpType(intrinsic)
    except ValueError:
        head, comp, interval = FALLBACK_VEC
        return VecCycles(
            intrinsic=intrinsic,
            dtype=dname,
            head=head,
            computing=comp,
            interval=interval,
            fallback=f"{intrinsic} is not a msopmodeling intrinsic; default {head}/{comp} cycles",
        )
    try:
        dt = entity.DType.from_str(dname)
    except ValueError:
        dt = entity.DType.FP32
    table = arc.vec_intrinsics_dict or {}
    note = None
    if (op, dt) not in table:
        if (op, entity.DType.FP32) not in table:
            head, comp, interval = FALLBACK_VEC
            return VecCycles(
                intrinsic=intrinsic,
                dtype=dname,
                head=head,
                computing=comp,
                interval=interval,
                fallback=f"{intrinsic} has no row in msopmodeling's {chip} vector table; "
                f"default {head}/{comp} cycles",
            )
        note = f"{intrinsic} has no {dname} row in msopmodeling's {chip} vector table; FP32 row used"
    ct = arc_cycle_types()
    return VecCycles(
        intrinsic=intrinsic,
        dtype=dname,
        head=int(arc.lookup_vec_cycle(op, dt, ct["head"])),
        computing=int(arc.lookup_vec_cycle(op, dt, ct["computing"])),
        interval=int(arc.lookup_vec_cycle(op, dt, ct["interval"])),
        fallback=note,
    )


@lru_cache(maxsize=1)
def arc_cycle_types() -> dict[str, Any]:
    _, entity = _msop()
    c = entity.CycleType
    return {"head": c.HEAD_CYCLES, "computing": c.COMPUTING_CYCLES, "interval": c.INTERVAL_CYCLES}


def profiling_dir() -> Path:
    """msopmodeling's real-910B profiling records of CANN operators (eng_ops_classic)."""
    return tilesim_dir() / "tests" / "st" / "ops_accuracy" / "eng_ops_classic"
