"""NumPy reference for gelu_custom: tanh-approximated GELU,
y = 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), in float64."""

import numpy as np


def gelu_custom(x: np.ndarray) -> np.ndarray:
    x64 = x.astype(np.float64)
    inner = np.sqrt(2.0 / np.pi) * (x64 + 0.044715 * x64**3)
    return 0.5 * x64 * (1.0 + np.tanh(inner))
