from __future__ import annotations

import logging

import pytest

from ascendopt.evaluation.timing import calibration


def test_soc_parameters_come_from_msopmodeling() -> None:
    b4 = calibration.soc_calibration("Ascend910B4")
    b1 = calibration.soc_calibration("Ascend910B1")
    assert (b4.vector_cores, b4.cube_cores, b4.clock_mhz) == (40, 20, 1650.0)
    assert (b1.vector_cores, b1.cube_cores, b1.clock_mhz) == (48, 24, 1850.0)
    assert b4.ub_bytes == 192 * 1024
    assert b4.vec_repeat_bytes == 256
    # Aggregate GM bandwidth is more than one core alone gets, less than 48 x that.
    one, _ = calibration.bandwidth("Ascend910B4", "GM_UB", 1)
    assert one < b4.gm_peak_bytes_per_us < 48 * one


def test_bandwidth_per_core_falls_with_active_cores() -> None:
    one, small = calibration.bandwidth("Ascend910B4", "GM_UB", 1)
    forty, _ = calibration.bandwidth("Ascend910B4", "GM_UB", 40)
    assert not small
    assert 60e3 < one < 80e3  # ~69 GB/s = 69e3 B/us
    assert forty < one / 2
    # Beyond the table: its last row, not an error.
    assert calibration.bandwidth("Ascend910B4", "GM_UB", 400)[0] == forty


def test_small_packets_use_the_fitted_curve() -> None:
    big, big_small = calibration.bandwidth("Ascend910B4", "GM_UB", 1, 4096)
    tiny, tiny_small = calibration.bandwidth("Ascend910B4", "GM_UB", 1, 32)
    assert tiny_small and not big_small
    assert tiny < big / 5


def test_vector_cycles_and_fallbacks_are_explained() -> None:
    add = calibration.vec_cycles("Ascend910B4", "VADD", "float16")
    assert (add.head, add.computing, add.fallback) == (13, 2, None)
    bf16 = calibration.vec_cycles("Ascend910B4", "VADD", "bfloat16")
    assert bf16.fallback and "FP32 row" in bf16.fallback
    unknown = calibration.vec_cycles("Ascend910B4", "NOT_AN_INTRINSIC", "float32")
    assert unknown.fallback and "NOT_AN_INTRINSIC" in unknown.fallback
    assert unknown.head > 0


def test_unknown_soc_is_a_clear_error_and_b2_b3_are_stand_ins() -> None:
    with pytest.raises(calibration.CalibrationError, match="supported"):
        calibration.soc_calibration("Ascend310P3")
    b3 = calibration.soc_calibration("Ascend910B3")
    assert b3.model_soc == "Ascend910B4"
    assert "stand-in for Ascend910B3" in b3.label
    assert calibration.soc_calibration("910B1").model_soc == "Ascend910B1"


def test_import_leaves_root_logging_alone() -> None:
    calibration.soc_calibration("Ascend910B4")
    files = [h.baseFilename for h in logging.getLogger().handlers if isinstance(h, logging.FileHandler)]
    assert not any(f.endswith("run.log") for f in files)
    assert not (calibration.tilesim_dir() / "run.log").exists()
