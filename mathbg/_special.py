"""Special functions element-wise from the standard library (internal).

scipy's ``scipy.special`` would do, but importing it pulls in much of scipy and numpy's
f2py (about 0.15 s of a command's run); a few thousand values through :func:`math.erfc`
take microseconds.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["erfc"]

_ERFC = np.frompyfunc(math.erfc, 1, 1)


def erfc(x: ArrayLike) -> NDArray[np.float64]:
    """The complementary error function of each element, as float64 (NaN stays NaN)."""
    return np.asarray(_ERFC(x), np.float64)
