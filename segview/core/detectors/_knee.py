"""Knee selection of CP-SSD: the Kneedle rules of ``kneed`` 0.7.0, re-implemented (cpssd.md §6).

SEALAB passes the CROPS penalties *reversed* (descending) as ``x`` and the change-point counts as
``y`` with ``S=1``, ``curve="convex"``, ``direction="decreasing"``; kneed 0.7.0 does not expect a
descending ``x`` and its scan then follows the rules of :func:`knee_kneed070`, which later kneed
releases changed (0.9 disagrees on 2 of the 586 published series). The installed ``kneed`` library
can be used instead through :func:`knee_kneed_library` (not the faithful path).
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

KneeOutcome = Literal["knee", "no_knee", "index_error", "single_penalty", "falsy_knee"]


def _local_extrema(d: np.ndarray, maxima: bool) -> np.ndarray:
    """``scipy.signal.argrelextrema(d, greater_equal / less_equal, mode="clip")`` with order 1."""
    left = np.concatenate([d[:1], d[:-1]])
    right = np.concatenate([d[1:], d[-1:]])
    if maxima:
        ok = (d >= left) & (d >= right)
    else:
        ok = (d <= left) & (d <= right)
    return np.flatnonzero(ok)


def _normalise(a: np.ndarray) -> np.ndarray:
    return (a - a.min()) / (a.max() - a.min())


def knee_kneed070(x: ArrayLike, y: ArrayLike, s: float = 1.0) -> float | None:
    """Knee of a convex decreasing curve, as ``KneeLocator(x, y, S=s, curve="convex",
    direction="decreasing").knee`` computes it in kneed 0.7.0.

    Returns:
        the ``x`` value of the knee, or None when kneed finds none.

    Raises:
        IndexError: the scan runs past the end of the curve (kneed 0.7.0 raises there too).
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(all="ignore"):
        xn = _normalise(x)
        yn = _normalise(y)  # kneed's interp1d(x, y)(x) is y itself (§6.1)
        yn = yn.max() - yn
        d = yn - xn
        maxima = _local_extrema(d, True)
        minima = _local_extrema(d, False)
        if maxima.size == 0:
            return None
        tmx = d[maxima] - s * abs(np.diff(xn).mean())
    max_set = {int(i): k for k, i in enumerate(maxima)}
    min_set = set(int(i) for i in minima)
    threshold = 0.0
    threshold_index = int(maxima[0])
    for i in range(int(maxima[0]), xn.size):
        if xn[i] == 1.0:
            break
        if i in max_set:
            threshold = float(tmx[max_set[i]])
            threshold_index = i
        if i in min_set:
            threshold = 0.0
        if d[i + 1] < threshold:  # raises IndexError past the end, like kneed 0.7.0
            return float(x[threshold_index])
    return None


def knee_kneed_library(x: ArrayLike, y: ArrayLike, s: float = 1.0) -> float | None:
    """The installed ``kneed`` package's answer (not kneed 0.7.0; an option, not the faithful path)."""
    from kneed import KneeLocator
    kl = KneeLocator(list(np.asarray(x, dtype=float)), list(np.asarray(y, dtype=float)), S=s,
                     curve="convex", direction="decreasing")
    return None if kl.elbow is None else float(kl.elbow)


def choose_penalty(penalties: ArrayLike, ncpts: ArrayLike, n: int, fallback_factor: float = 15.0,
                   method: Literal["kneed070", "kneed_library"] = "kneed070"
                   ) -> tuple[float, KneeOutcome]:
    """SEALAB's ``find_penalty`` (cpssd.md §6): knee of the reversed CROPS curve, else ``f * ln n``.

    Args:
        penalties: ``pen.value.full`` (ascending).
        ncpts: change-point counts, same length.
        n: length of the filtered series.
        fallback_factor: the fallback penalty is ``fallback_factor * ln n``.
        method: kneed 0.7.0 rules (faithful) or the installed kneed library.

    Returns:
        ``(penalty, outcome)``.
    """
    pens = np.asarray(penalties, dtype=np.float64)
    counts = np.asarray(ncpts, dtype=np.float64)
    fallback = float(fallback_factor * math.log(n))
    if pens.size < 2 or counts.size < 2:
        return float(pens[0]), "single_penalty"
    find = knee_kneed070 if method == "kneed070" else knee_kneed_library
    try:
        knee = find(pens[::-1], counts[::-1], 1.0)
    except IndexError:
        return fallback, "index_error"
    if knee is None:
        return fallback, "no_knee"
    if not knee:
        return fallback, "falsy_knee"
    return float(knee), "knee"
