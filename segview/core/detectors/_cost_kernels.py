"""The jitted segment cost of :mod:`._costs` (kept apart so that ``_costs`` imports no numba).

Note for developers: numba's on-disk cache does not track calls into other modules, and
:func:`segment_cost` is inlined into the kernels. After editing it, delete the kernels' cache files
(``__pycache__/*.nbi``/``*.nbc`` of the importing modules) or their results stay stale.
"""
from __future__ import annotations

import math

import numpy as np
from ._jit import njit
from numpy.typing import NDArray

from ._costs import L2, NORMAL, VAR_FLOOR, _LOG_2PI


@njit(nogil=True, cache=True, inline="always")
def segment_cost(S: NDArray[np.float64], Q: NDArray[np.float64], a: int, b: int, kind: int,
                 var_offset: float, mbic: bool) -> float:
    """Cost of ``y[a:b]`` (``b > a``) from prefix sums; ``kind`` as in :mod:`._costs`."""
    m = b - a
    s = S[b] - S[a]
    sse = (Q[b] - Q[a]) - s * s / m
    if kind == L2:
        c = sse
    elif kind == NORMAL:
        var = sse / m
        if var < VAR_FLOOR:
            var = VAR_FLOOR
        c = m * ((_LOG_2PI + math.log(var + var_offset)) + 1.0)
    else:
        var = sse / m
        if var <= 0.0:
            var = VAR_FLOOR
        c = m * ((_LOG_2PI + math.log(var)) + 1.0)
    if mbic:
        c += math.log(m)
    return c
