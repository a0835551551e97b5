"""The runner's own float <-> half conversions and half equality (runtime/fp16_convert.cpp: F16C when
the CPU has it) give libgcc's bits and results, which the twin used before."""

import subprocess

import pytest
from tests.evaluation.cpu_twin_cpp.test_cpu_twin_cpp import CXX, HERE, TWIN, _run

pytestmark = pytest.mark.slow


def test_conversions_and_comparisons_give_libgccs_results(tmp_path):
    exe = tmp_path / "fp16_check"
    _run([*CXX, str(HERE / "fp16_check.cpp"), str(TWIN / "runtime" / "fp16_convert.cpp"), "-o", str(exe)])
    # its conversions must be the runtime's, not libgcc's (else the check compares libgcc with itself)
    symbols = subprocess.run(["nm", str(exe)], capture_output=True, text=True, check=True).stdout
    for name in ("__truncsfhf2", "__extendhfsf2", "__eqhf2", "__nehf2"):
        assert f" i {name}\n" in symbols, name  # defined here, as an ifunc
    p = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "differ 0" in p.stdout, p.stdout + p.stderr
    assert "checked 3211264" in p.stdout and "compared 1572864" in p.stdout
