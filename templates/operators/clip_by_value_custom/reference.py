"""NumPy reference for clip_by_value_custom: y = min(max(x, clip_min), clip_max).

If clip_min > clip_max every element becomes clip_max, as the max-then-min order implies.
"""

import numpy as np


def clip_by_value_custom(x: np.ndarray, clip_min: float = -1.0, clip_max: float = 1.0) -> np.ndarray:
    x64 = x.astype(np.float64)
    return np.minimum(np.maximum(x64, float(clip_min)), float(clip_max))
