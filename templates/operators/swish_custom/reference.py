"""NumPy reference for swish_custom (SiLU): y = x * sigmoid(x) = x / (1 + exp(-x)), in float64."""

import numpy as np


def swish_custom(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    return x64 / (1.0 + np.exp(-x64))
