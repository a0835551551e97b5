"""One SoC table (operators/soc.py) and one rule for an evaluation's SoC."""

from __future__ import annotations

from ascendopt.operators.soc import resolve_soc, soc
from ascendopt.operators.spec import OperatorSpec


def test_resolve_soc_takes_the_option_then_the_host_then_the_spec() -> None:
    spec = OperatorSpec.model_construct(soc="Ascend910B3")
    assert resolve_soc("Ascend910B1", "Ascend910B2", spec).name == "Ascend910B1"
    assert resolve_soc(None, "Ascend910B2", spec).name == "Ascend910B2"
    assert resolve_soc(None, None, spec).name == "Ascend910B3"
    assert resolve_soc(None, None, None).name == "Ascend910B4"
    assert resolve_soc("910B1", None, None).name == "Ascend910B1"  # npu-smi's short name


def test_one_row_holds_cores_ub_arch_and_calibration() -> None:
    b2 = soc("Ascend910B2")
    assert (b2.core_num_aiv, b2.ub_size, b2.calibration, b2.chip) == (48, 196608, "Ascend910B1", "910B1")
    assert b2.arch_defines == ["-D__CCE_AICORE__=220", "-D__NPU_ARCH__=2201"]
    p3 = soc("Ascend310P3")  # named by no row: its family's macros, no calibration
    assert p3.arch == {"__CCE_AICORE__": 200, "__NPU_ARCH__": 2002} and p3.calibration is None
    assert soc("SomethingElse").arch == {}
