"""NumPy reference for add_rms_norm_custom, in float64 (outputs in OpDef order: y, x_out).

x_out = x1 + x2;  y = x_out / sqrt(mean(x_out^2, last axis) + epsilon) * gamma.
y is computed from the exact sum, not from x_out rounded to the I/O dtype.
"""

import numpy as np


def add_rms_norm_custom(
    x1: np.ndarray, x2: np.ndarray, gamma: np.ndarray, epsilon: float = 1e-6
) -> tuple[np.ndarray, np.ndarray]:
    x = x1.astype(np.float64) + x2.astype(np.float64)
    ms = np.mean(x * x, axis=-1, keepdims=True)
    y = x / np.sqrt(ms + epsilon) * gamma.astype(np.float64)
    return y, x
