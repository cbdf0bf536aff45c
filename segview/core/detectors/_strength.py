"""Strength of each change point of a penalised segmentation: the cost decrease given its neighbours.

For change points ``c_1 < ... < c_K`` of a series of length n (``c_0 = 0``, ``c_{K+1} = n``), the
strength of ``c_i`` is::

    C(y[c_{i-1}:c_{i+1}]) - C(y[c_{i-1}:c_i]) - C(y[c_i:c_{i+1}])

with the segment cost ``C`` the method used (:mod:`._costs`, without MBIC's ``ln(length)`` term and
without the penalty): how much worse the segmentation fits when only this change point is removed and
its two segments are merged. With the ``normal`` cost (twice the negative maximised Gaussian
log-likelihood) this is the likelihood-ratio statistic ``2 ln LR`` of "one change at ``c_i``" against
"no change" on the merged segment; with ``l2`` (squared error, unit noise variance, on the scaled
values the method segmented) it is the same statistic for a change in mean with known unit variance.
It is never negative, and the penalised methods keep a change point only where removing it would cost
about the penalty or more (``docs/strengths.md``). Multivariate values ``(n, d)`` sum the cost over
the dimensions, as :mod:`._multivariate` does.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ._costs import VAR_FLOOR

_LOG_2PI = math.log(2.0 * math.pi)

#: ``DetectionResult.strength_label`` of the penalised methods.
LABEL = "cost decrease (2 ln LR) if this change point is removed"


def _costs(S: NDArray[np.float64], Q: NDArray[np.float64], a: NDArray[np.int64],
           b: NDArray[np.int64], cost: str, var_offset: float) -> NDArray[np.float64]:
    m = (b - a).astype(np.float64)
    if S.ndim == 2:
        m = m[:, None]
    s = S[b] - S[a]
    sse = np.maximum((Q[b] - Q[a]) - s * s / m, 0.0)
    if cost == "l2":
        c = sse
    else:
        var = np.maximum(sse / m, VAR_FLOOR)
        c = m * ((_LOG_2PI + np.log(var + var_offset)) + 1.0)
    return c.sum(axis=1) if c.ndim == 2 else c


def cost_decrease(y: NDArray[np.float64], change_points: NDArray[np.int64] | list[int],
                  cost: str = "l2", var_offset: float = 0.0) -> NDArray[np.float64]:
    """The strength of each change point (module docstring), aligned with sorted ``change_points``.

    Args:
        y: the values the method segmented (after its scaling), shape ``(n,)`` or ``(n, d)``.
        change_points: sorted change points, ``0 < c < n``.
        cost: ``"l2"`` or ``"normal"`` (``"normal_r"`` is treated as ``"normal"``).
        var_offset: added to the variance inside the log of the normal cost.
    """
    y = np.asarray(y, dtype=np.float64)
    cps = np.asarray(change_points, dtype=np.int64).ravel()
    if cps.size == 0:
        return np.zeros(0)
    n = y.shape[0]
    c = y - y.mean(axis=0)
    zero = np.zeros((1,) + c.shape[1:])
    S = np.concatenate([zero, np.cumsum(c, axis=0)])
    Q = np.concatenate([zero, np.cumsum(c * c, axis=0)])
    bounds = np.concatenate([[0], cps, [n]])
    left, mid, right = bounds[:-2], bounds[1:-1], bounds[2:]
    kind = "l2" if cost == "l2" else "normal"
    merged = _costs(S, Q, left, right, kind, var_offset)
    split = _costs(S, Q, left, mid, kind, var_offset) + _costs(S, Q, mid, right, kind, var_offset)
    return np.maximum(merged - split, 0.0)
