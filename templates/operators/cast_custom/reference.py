"""NumPy reference for cast_custom: y = x converted to the output dtype.

The value is returned unchanged in float64; the harness rounds it once to the
output dtype (round to nearest, ties to even), which is exactly the conversion.
"""

import numpy as np


def cast_custom(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64)
