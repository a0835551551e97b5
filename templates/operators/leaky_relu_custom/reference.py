"""NumPy reference for leaky_relu_custom: y = x if x >= 0 else negative_slope * x."""

import numpy as np


def leaky_relu_custom(x: np.ndarray, negative_slope: float = 0.01) -> np.ndarray:
    x64 = x.astype(np.float64)
    return np.where(x64 >= 0.0, x64, x64 * float(negative_slope))
