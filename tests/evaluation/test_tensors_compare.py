from __future__ import annotations

import numpy as np

from ascendopt.evaluation.compare import compare
from ascendopt.evaluation.tensors import bf16_bits, bf16_values, make_input, round_to
from ascendopt.operators.spec import ResolvedCase, TensorSpec, Tolerance


def test_bf16_round_to_nearest_even() -> None:
    # 1 + 2^-8 lies exactly between two bf16 values (1 and 1 + 2^-7): ties go to even (1.0)
    vals = np.array([1.0, 1 + 2**-8, 1 + 3 * 2**-8, -2.5, np.inf], dtype=np.float32)
    bits = bf16_bits(vals)
    assert list(bits) == [0x3F80, 0x3F80, 0x3F82, 0xC020, 0x7F80]
    assert list(bf16_values(bits)) == [1.0, 1.0, 1 + 2**-6, -2.5, np.inf]
    assert bf16_bits(np.array([np.nan], dtype=np.float32))[0] == 0x7FC0


def test_a_0d_bf16_value_keeps_its_shape() -> None:
    # a scalar output (ForeachNorm's per-tensor norm) is compared as shape [], not [1]: a [1] expected
    # value against the kernel's [] result was a shape mismatch, an infinite error
    assert bf16_bits(np.array(1.5, dtype=np.float32)).shape == ()
    assert bf16_bits(np.array(np.nan, dtype=np.float32)) == 0x7FC0
    assert round_to(np.array(1.5), "bfloat16").shape == ()
    check = compare("y", "bfloat16", np.array(1.5), np.array(1.5), Tolerance(rtol=1e-2, atol=1e-2))
    assert check.passed and check.shape == []


def test_inputs_are_seeded_in_range_and_representable() -> None:
    spec = TensorSpec(name="x", dtypes=["bfloat16"], range=(-3.0, 2.0))
    case = ResolvedCase(index=0, name="c", input_shapes={"x": [7, 33]}, dtypes={"x": "bfloat16"}, attrs={})
    a, b, c = make_input(spec, case, 1), make_input(spec, case, 1), make_input(spec, case, 2)
    assert a.shape == (7, 33) and np.array_equal(a, b) and not np.array_equal(a, c)
    assert a.min() >= -3.0 and a.max() <= 2.0
    assert np.array_equal(round_to(a, "bfloat16"), a.astype(np.float64))


def test_compare_reports_first_bad_index_and_fraction() -> None:
    expected = np.arange(12, dtype=np.float64).reshape(3, 4)
    actual = expected.copy()
    actual[2, 1] += 0.5
    check = compare("z", "float32", actual, expected, Tolerance(rtol=1e-4, atol=1e-4))
    assert not check.passed
    assert check.first_bad_index == [2, 1] and check.mismatches == 1
    assert abs(check.mismatch_fraction - 1 / 12) < 1e-12
    assert check.actual_at_first_bad == 9.5 and check.expected_at_first_bad == 9.0
    # which number is the kernel's and which the reference's (`9.5 vs 9` said neither)
    assert check.first_bad_text() == "first at [2, 1]: kernel 9.5 vs reference 9"
    assert check.mismatch_text() == "z: 1 of 12 wrong (8.33%), first at [2, 1]: kernel 9.5 vs reference 9"
    lenient = compare(
        "z", "float32", actual, expected, Tolerance(rtol=1e-4, atol=1e-4, mismatch_fraction=0.1)
    )
    assert lenient.passed


def test_compare_rounds_expected_to_output_dtype_once() -> None:
    expected = np.array([0.1, 1 / 3], dtype=np.float64)
    actual = expected.astype(np.float16).astype(np.float64)
    assert compare("y", "float16", actual, expected, Tolerance(rtol=0, atol=0)).passed


def test_compare_nan_and_shape_mismatch_fail() -> None:
    expected = np.ones(4)
    actual = np.array([1.0, np.nan, 1.0, 1.0])
    assert not compare("y", "float32", actual, expected, Tolerance(rtol=1, atol=1)).passed
    assert not compare("y", "float32", np.ones(5), expected, Tolerance(rtol=1, atol=1)).passed
