"""NumPy reference for layer_norm_custom: y = (x - mean) / sqrt(var + epsilon) * gamma + beta over the last
axis (biased variance, like torch.nn.LayerNorm), in float64."""

import numpy as np


def layer_norm_custom(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, epsilon: float = 1e-5) -> np.ndarray:
    x = x.astype(np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    var = np.mean((x - mean) ** 2, axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + epsilon) * gamma.astype(np.float64) + beta.astype(np.float64)
