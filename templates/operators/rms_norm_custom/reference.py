"""NumPy reference for rms_norm_custom: y = x / sqrt(mean(x^2, last axis) + epsilon) * gamma, in float64."""

import numpy as np


def rms_norm_custom(x: np.ndarray, gamma: np.ndarray, epsilon: float = 1e-6) -> np.ndarray:
    x = x.astype(np.float64)
    ms = np.mean(x * x, axis=-1, keepdims=True)
    return x / np.sqrt(ms + epsilon) * gamma.astype(np.float64)
