"""Outliers the way warmup_stats marks them (``bin/mark_outliers_in_json``, ``warmup/outliers.py``).

Followed commit: softdevteam/warmup_stats ``41212e0c6f8c81d3660095ea1d3324f77819cf1b`` (2023-06-14,
the latest). ``bin/warmup_stats`` calls ``mark_outliers_in_json -w W`` with ``W = int(iterations *
0.1)`` (``DEFAULT_WINDOW_RATIO``), ``iterations`` being the length of the first non-crashed process
execution. For every iteration ``i`` the window is ``data[max(0, i - W//2) : min(n, i + W//2)]``
(Python 2 integer division; the right end is exclusive, so a full window holds ``2 (W//2)``
values); windows that start at 0 and hold fewer than ``W`` values are skipped (the incomplete first
windows: those iterations are never outliers), the shrinking windows at the end are not. ``i`` is an
outlier when ``data[i] > median + 3 (p90 - p10)`` or ``data[i] < median - 3 (p90 - p10)`` of its
window, with warmup_stats' own median and linearly interpolated percentile (``d[f] (c - k) + d[c]
(k - f)`` at ``k = (size - 1) pc / 100``).

A window of fewer than 2 iterations (``W // 2 == 0``, executions shorter than 20 iterations) makes
warmup_stats fail on an empty window; here no iteration is marked and :func:`mark_outliers` says so
through ``degenerate``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..errors import InputError
from ..lazy import lazy_module

if TYPE_CHECKING:
    from . import _kernels
else:
    _kernels = lazy_module("._kernels", __package__)

#: warmup_stats' ``DEFAULT_WINDOW_RATIO``: the outlier window is this fraction of the iterations.
WINDOW_RATIO = 0.1


def outlier_window(n_iterations: int, ratio: float = WINDOW_RATIO) -> int:
    """``int(n_iterations * ratio)``: the window ``bin/warmup_stats`` passes to the outlier marker."""
    return int(n_iterations * ratio)


def mark_outliers(values: ArrayLike, window: int | None = None) -> NDArray[np.int64]:
    """Ascending 0-based indices of warmup_stats' outliers in ``values`` (see the module doc).

    Args:
        values: one execution's iteration values, all finite (drop NaN iterations first).
        window: the window size ``W``; default :func:`outlier_window` of ``len(values)``.

    Raises:
        InputError: a non-finite value, or a negative window.
    """
    y = np.ascontiguousarray(values, dtype=np.float64)
    if y.ndim != 1:
        raise InputError("outliers", f"expected one execution (1-D values), got shape {y.shape}")
    if not np.isfinite(y).all():
        raise InputError("outliers", "values must be finite (drop NaN iterations first)")
    w = outlier_window(y.size) if window is None else int(window)
    if w < 0:
        raise InputError("outliers", f"window must be >= 0, got {w}")
    mask = np.zeros(y.size, dtype=np.bool_)
    if w // 2 >= 1 and y.size:
        _kernels.ws_outlier_mask(y, w, mask)
    return np.flatnonzero(mask).astype(np.int64)


def degenerate(window: int) -> bool:
    """True when ``window // 2 == 0``: warmup_stats' marker fails there, segview marks nothing."""
    return int(window) // 2 == 0
