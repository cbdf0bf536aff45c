"""The faithful warmup_stats pipeline on one execution: outliers, change points, class.

softdevteam/warmup_stats ``41212e0c6f8c81d3660095ea1d3324f77819cf1b`` as ``bin/warmup_stats`` runs
it: ``mark_outliers_in_json -w int(0.1 n)`` (:mod:`.outliers`), ``mark_changepoints_in_json -s
int(0.25 n)`` with ``cpt.meanvar(PELT, 15 ln m)`` on the values without outliers (:mod:`.segments`,
R changepoint e3959de = 2.2.2, emulated bit for bit) and its classification (:mod:`.classify`).
warmup_stats expects seconds: give ``values`` in seconds (``delta`` is in the values' unit, and the
segment variances are compared with means, so the unit matters).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from .classify import DELTA, STEADY_RATIO, ExecutionClass, classify_segmentation
from .outliers import WINDOW_RATIO, degenerate, mark_outliers, outlier_window
from .segments import PENALTY_FACTOR, Segmentation, meanvar_changepoints


def barrett(values: ArrayLike, *, window: int | None = None, window_ratio: float = WINDOW_RATIO,
            penalty_factor: float = PENALTY_FACTOR, exact: bool = False, delta: float = DELTA,
            delta_mode: str = "absolute", steady_ratio: float = STEADY_RATIO,
            steady_iterations: int | None = None, direction: str | None = "lower",
            spread: str = "variance", mark: bool = True) -> ExecutionClass:
    """warmup_stats' analysis of one execution (all defaults = warmup_stats').

    Args:
        values: the iterations (finite; seconds for warmup_stats' ``delta``).
        window: outlier window; default ``int(len(values) * window_ratio)``.
        window_ratio: warmup_stats' ``DEFAULT_WINDOW_RATIO`` 0.1.
        penalty_factor: penalty ``factor * ln(m)`` of ``cpt.meanvar`` (15).
        exact: the exact optimum of the same cost instead of R's pruned PELT.
        delta, delta_mode, steady_ratio, steady_iterations, direction, spread: see
            :func:`~segview.core.warmup.classify.classify_segmentation`.
        mark: mark outliers (warmup_stats runs without them when ``mark_outliers_in_json`` was not
            run; False reproduces that).

    Raises:
        InputError: non-finite values or an empty execution.
    """
    y = np.ascontiguousarray(values, dtype=np.float64)
    if y.ndim != 1 or y.size == 0:
        raise InputError("barrett", "expected one non-empty execution")
    if not np.isfinite(y).all():
        raise InputError("barrett", "values must be finite (drop NaN iterations first)")
    w = outlier_window(y.size, window_ratio) if window is None else int(window)
    notes = []
    if mark:
        out = mark_outliers(y, w)
        if degenerate(w):
            notes.append(f"outlier window {w} < 2 iterations: no outlier marked (warmup_stats "
                         "fails on such short executions)")
    else:
        out = np.zeros(0, dtype=np.int64)
        notes.append("outliers not marked")
    if exact:
        notes.append("exact optimum of the cpt.meanvar cost (warmup_stats: R's pruned PELT)")
    seg = meanvar_changepoints(y, out, penalty_factor=penalty_factor, exact=exact)
    ec = classify_segmentation(y, seg, delta=delta, delta_mode=delta_mode,
                               steady_ratio=steady_ratio, steady_iterations=steady_iterations,
                               direction=direction, spread=spread)
    extra = tuple(notes) + seg.notes
    if extra:
        ec = replace(ec, notes=extra + ec.notes)
    return ec


__all__ = ["barrett", "Segmentation"]
