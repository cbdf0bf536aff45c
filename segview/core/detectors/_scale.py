"""Unit-free change-point detection: a robust noise level and the ``scale`` parameter's transforms.

Penalised change-point costs (squared error, the Normal likelihood with a variance floor) measure the
data in its own units: a penalty such as BIC assumes unit noise variance, so the same detector finds
nothing on timings around 1e-5 s and a change at every point on values around 1000. Dividing the data
by a scale estimate first makes every result invariant under ``a*y + b`` (``a > 0``).

Modes of :func:`scale_values` (the ``scale`` parameter of ``op``, ``pelt`` and ``binseg``):

* ``none`` -- the raw values (what R ``changepoint`` and ruptures do); the array is returned as is.
* ``zscore`` -- R's ``scale()``: subtract the mean and divide by the sample standard deviation
  (n - 1 in the denominator). The sums are accumulated in sequence in extended precision, as R does
  (``colMeans`` and ``sum`` use a long double accumulator; the divisions are in double), so that the
  standardised values are bitwise R's on platforms where numpy's ``longdouble`` is R's ``LDOUBLE``
  (x86-64 Linux: 80-bit). The sd includes the level shifts themselves, so a series with large shifts
  is compressed and the penalty becomes relatively stricter: TCPDBench's choice, not the best one.
* ``robust`` -- subtract the median and divide by :func:`noise_sd`, the standard deviation of the
  noise *around* the levels: shifts, spikes and trends do not inflate it.

What :func:`noise_sd` estimates: the standard deviation sigma of the noise of a series that is piecewise
constant plus independent noise. First differences remove the levels: within a segment
``d_i = y_{i+1} - y_i = e_{i+1} - e_i`` has standard deviation ``sigma * sqrt(2)``; each level shift
contributes one outlying difference and each isolated spike two. The median absolute deviation of the
differences around their median, times 1.4826 (the Gaussian consistency factor 1/Phi^-1(3/4)), is a
consistent estimate of ``sigma * sqrt(2)`` that ignores up to half of the differences being outliers;
dividing by ``sqrt(2)`` gives sigma. (The same estimator as Fryzlewicz's wild binary segmentation
and the ``mad(diff(y))/sqrt(2)`` of R's changepoint literature.) Under positive autocorrelation it
underestimates the marginal sd (differences cancel part of the correlated noise), which makes the
scaled penalty relatively weaker; the defaults were chosen by measurement with that in mind
(``docs/defaults.md``).

Guard for quantised data: timers with a coarse resolution and series with long runs of repeated values
can have more than half of their differences equal to the median difference, so the MAD is 0 although
the series is noisy. Then the smallest upper quantile ``p`` in 3/4, 7/8, 15/16, ... of the absolute
deviations that is positive is used, with its own Gaussian factor ``1/Phi^-1((1+p)/2)`` (the MAD is the
case p = 1/2). When every difference is identical (a straight line, no noise at all) the sample sd of
the values is returned, and 1.0 for a constant series (or fewer than two points): there is nothing
to scale, and every cost is 0 anyway.

Every estimate is equivariant: ``noise_sd(a*y + b) == |a| * noise_sd(y)`` up to rounding, which is
what makes the scaled results invariant.
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

from ..errors import ParameterError

#: Values of the ``scale`` parameter.
SCALE_MODES: tuple[str, ...] = ("none", "zscore", "robust")
#: 1 / Phi^-1(3/4): makes the MAD a consistent estimate of a Gaussian standard deviation.
MAD_FACTOR = 1.4826
_SQRT2 = math.sqrt(2.0)
_NORMAL = NormalDist()


def noise_sd(y: NDArray[np.float64]) -> float:
    """Robust standard deviation of the noise of ``y`` (> 0; 1.0 for a constant series).

    ``1.4826 * MAD(diff y) / sqrt(2)``, with the quantile guard for quantised data described in the
    module docstring.
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    if y.size < 2:
        return 1.0
    d = np.diff(y)
    dev = np.abs(d - np.median(d))
    mad = float(np.median(dev))
    if mad > 0.0:
        return MAD_FACTOR * mad / _SQRT2
    p = 0.5
    while True:
        p = (1.0 + p) / 2.0  # 3/4, 7/8, 15/16, ...
        if (1.0 - p) * dev.size < 1.0:
            break
        q = float(np.quantile(dev, p))
        if q > 0.0:
            return q / (_NORMAL.inv_cdf((1.0 + p) / 2.0) * _SQRT2)
    top = float(dev.max())
    if top > 0.0:  # a handful of non-repeated differences among many equal ones
        return top / (_NORMAL.inv_cdf(1.0 - 0.25 / dev.size) * _SQRT2)
    sd = float(np.std(y, ddof=1))
    return sd if sd > 0.0 else 1.0


def r_scale(y: NDArray[np.float64]) -> tuple[NDArray[np.float64], float, float]:
    """R ``scale(y)`` for one column: ``((y - mean) / sd, sd, mean)`` with R's arithmetic.

    R ``colMeans``: sequential long double sum divided by n, rounded to double. Then ``x - mean`` in
    double, ``sum(v^2)`` sequential in long double rounded to double, ``sqrt(sum / (n - 1))`` and the
    division in double. A constant series (sd 0) gets sd 1 (R would produce NaN).
    """
    y = np.asarray(y, dtype=np.float64)
    n = y.size
    mean = float(np.cumsum(y.astype(np.longdouble))[-1] / n)
    c = y - mean
    with np.errstate(over="ignore"):
        ss = float(np.cumsum((c * c).astype(np.longdouble))[-1])
    sd = math.sqrt(ss / max(1, n - 1))
    if not math.isfinite(sd) or not math.isfinite(mean):
        # |y| near the float64 limit (R gives Inf/NaN here): standardise y / max|y| instead
        top = float(np.max(np.abs(y)))
        z, sd_small, mean_small = r_scale(y / top)
        return z, sd_small * top, mean_small * top
    if not sd > 0.0:
        return c, 1.0, mean
    return c / sd, sd, mean


def scale_values(y: NDArray[np.float64], mode: str
                 ) -> tuple[NDArray[np.float64], float, float]:
    """``(scaled, a, b)`` with ``y = a * scaled + b`` for ``mode`` in :data:`SCALE_MODES`.

    ``none`` returns ``y`` itself (``a = 1``, ``b = 0``), so results stay bitwise those of the raw
    data. ``a`` is always > 0.

    Raises:
        ParameterError: unknown mode.
    """
    if mode == "none":
        return y, 1.0, 0.0
    y = np.asarray(y, dtype=np.float64)
    if y.size == 0:
        return y.copy(), 1.0, 0.0
    if mode == "zscore":
        return r_scale(y)
    if mode == "robust":
        b = float(np.median(y))
        a = noise_sd(y)
        return (y - b) / a, a, b
    raise ParameterError("scale", f"{mode!r} is not one of {', '.join(SCALE_MODES)}")
