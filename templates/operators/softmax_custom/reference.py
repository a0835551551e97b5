"""NumPy reference for softmax_custom: y = softmax(x) over the last axis, in float64."""

import numpy as np


def softmax_custom(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
