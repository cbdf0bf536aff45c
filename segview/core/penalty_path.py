"""Choosing the penalty: the CROPS path of a penalised method (issue 28 point 3, ``docs/penalty-path.md``).

CROPS (Haynes, Eckley & Fearnhead, "Computationally efficient changepoint detection for a range of
penalties", JCGS 2017) finds every segmentation that is optimal for some penalty in
``[beta_min, beta_max]`` with at most ``2 m + 1`` runs of the solver for ``m`` segmentations (in
practice about one run per segmentation found plus the two ends): it solves at both ends and, while
two neighbouring solutions differ by more than one change point, at the penalty where their penalised
costs are equal. The search loop is CP-SSD's (:func:`segview.core.detectors._crops.crops_r`, R
``changepoint`` 2.2.2's ``range_of_penalties``); this module keeps each run's segmentation, reads the
penalty interval where each one is optimal from the lower convex hull of (changes, cost), and
marks the elbow of the cost-versus-changes curve (``kneed``, convex, decreasing).

Methods: ``op`` and ``pelt`` (with their ``search``, so FPOP runs where it applies). The path uses a
constant penalty per change point (the ``penalty`` parameter as a number; ``mbic``'s ``ln(segment
length)`` term is not a constant and is left out), on the values the method segments (its ``scale``
and ``noise_scale``), with every other parameter as given. PELT is exact for constant penalties, so
both methods give the same path. Penalties are in the units of the method's ``penalty`` parameter:
setting ``penalty`` to :meth:`PenaltyPath.penalty_for` ``(i)`` reproduces segmentation ``i``.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from . import registry
from .context import NULL_CONTEXT, RunContext
from .errors import InputError, ParameterError
from .params import Params

#: Detectors whose penalty path :func:`penalty_path` computes.
PATH_METHODS: tuple[str, ...] = ("op", "pelt")
#: Solver runs allowed before the search gives up (the range is then too wide for the series).
MAX_RUNS: int = 4000


@dataclass(frozen=True)
class PenaltyPath:
    """Every optimal segmentation over a penalty range, fewest penalties first.

    Attributes:
        method: the detector (``op`` or ``pelt``).
        params: its coerced parameters (``penalty`` is what the path varies).
        beta_min, beta_max: the range searched.
        penalty_low, penalty_high: segmentation ``i`` is optimal for penalties in
            ``[penalty_low[i], penalty_high[i]]`` (ascending; neighbours share an end).
        n_changes: its number of change points (descending).
        costs: its unpenalised cost (ascending), in the units where the penalised cost is
            ``cost + penalty * n_changes``.
        segmentations: its change points.
        elbow: index of the elbow of cost against number of changes, or None (fewer than three
            segmentations, or no elbow).
        runs: solver runs made.
    """

    method: str
    params: Params
    beta_min: float
    beta_max: float
    penalty_low: NDArray[np.float64]
    penalty_high: NDArray[np.float64]
    n_changes: NDArray[np.int64]
    costs: NDArray[np.float64]
    segmentations: tuple[NDArray[np.int64], ...]
    elbow: int | None
    runs: int
    notes: tuple[str, ...] = field(default=())

    def __len__(self) -> int:
        return len(self.segmentations)

    def penalty_for(self, i: int) -> float:
        """A penalty inside segmentation ``i``'s interval (its geometric middle when both ends are
        positive), away from the ends where two segmentations tie."""
        lo, hi = float(self.penalty_low[i]), float(self.penalty_high[i])
        if lo > 0.0 and hi > lo:
            return math.sqrt(lo * hi)
        return 0.5 * (lo + hi)

    def index_of(self, penalty: float) -> int:
        """The segmentation whose interval holds ``penalty`` (the nearest end outside the range)."""
        k = int(np.searchsorted(self.penalty_high, float(penalty), side="left"))
        return min(k, len(self) - 1)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per segmentation (the CSV/JSON rows of ``segview detect --penalty-path``)."""
        return [{"index": i, "penalty_low": float(self.penalty_low[i]),
                 "penalty_high": float(self.penalty_high[i]),
                 "penalty": self.penalty_for(i), "n_changes": int(self.n_changes[i]),
                 "cost": float(self.costs[i]), "elbow": i == self.elbow,
                 "change_points": [int(c) for c in self.segmentations[i]]}
                for i in range(len(self))]


def _check_range(beta_min: float, beta_max: float, method: str) -> tuple[float, float]:
    lo, hi = float(beta_min), float(beta_max)
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo < 0.0:
        raise ParameterError("penalty range", f"needs finite penalties >= 0, got [{beta_min}, "
                                              f"{beta_max}]", method)
    if not lo < hi:
        raise ParameterError("penalty range", f"the lower end {beta_min} must be below the upper "
                                              f"end {beta_max}", method)
    return lo, hi


def default_range(n: int) -> tuple[float, float]:
    """``[ln n, n]``: from below the BIC's ``2 ln n`` of the default change in mean to a penalty no
    change in a z-scored series (total squared error ``n - 1``) can pay for."""
    return math.log(max(n, 3)), float(max(n, 3))


def elbow_index(n_changes: ArrayLike, costs: ArrayLike) -> int | None:
    """Index of the elbow of the convex, decreasing cost-against-changes curve (``kneed``)."""
    k = np.asarray(n_changes, dtype=float)
    q = np.asarray(costs, dtype=float)
    if k.size < 3 or np.ptp(q) == 0.0:
        return None
    from kneed import KneeLocator

    order = np.argsort(k)
    kl = KneeLocator(list(k[order]), list(q[order]), curve="convex", direction="decreasing")
    if kl.elbow is None:
        return None
    return int(np.flatnonzero(k == float(kl.elbow))[0])


def _solver(y: NDArray[np.float64], method: str, params: Params, factor: float, ctx: RunContext):
    from .detectors.partition import optimal_partition

    seen: dict[float, tuple[NDArray[np.int64], float]] = {}

    def solve(beta: float) -> tuple[NDArray[np.int64], float]:
        part = optimal_partition(y, params["cost"], beta, params["min_size"],
                                 pruning=method == "pelt", tie=params["tie"],
                                 var_offset=params["var_offset"], penalty_scale=factor,
                                 ctx=ctx, method=method, search=params["search"])
        cps = np.asarray(part.change_points, dtype=np.int64)
        q = (float(part.F[y.shape[0]]) - part.beta * cps.size) / factor
        seen[beta] = (cps, q)
        return np.append(cps, y.shape[0]), q  # R's cpts list ends with n

    return solve, seen


def _hull(found: dict[int, tuple[NDArray[np.int64], float]], lo: float, hi: float
          ) -> list[tuple[int, float, float]]:
    """``(changes, low, high)`` of each segmentation optimal somewhere in ``[lo, hi]``, by penalty."""
    ks = sorted(found, reverse=True)
    out = []
    for k in ks:
        q = found[k][1]
        low, high = lo, hi
        for k2 in ks:
            q2 = found[k2][1]
            if k2 > k:   # beats a segmentation with more changes from (q - q2) / (k2 - k) on
                low = max(low, (q - q2) / (k2 - k))
            elif k2 < k:  # and one with fewer up to (q2 - q) / (k - k2)
                high = min(high, (q2 - q) / (k - k2))
        if low <= high * (1.0 + 1e-12) + 1e-12:
            out.append((k, low, max(low, high)))
    return out


def penalty_path(y: Any, method: str = "pelt", beta_min: float | None = None,
                 beta_max: float | None = None, params: Mapping[str, Any] | None = None,
                 preset: str | None = None, ctx: RunContext = NULL_CONTEXT) -> PenaltyPath:
    """The CROPS path of ``method`` on ``y`` over ``[beta_min, beta_max]`` (module docstring).

    Args:
        y: a :class:`~segview.core.model.Series` or a 1-D sequence of finite numbers.
        method: ``op`` or ``pelt``.
        beta_min, beta_max: the penalty range, in the units of the method's ``penalty``; None
            takes :func:`default_range`.
        params: other parameters of the method (``penalty`` is ignored).
        preset: a named parameter set of the method, under ``params``.
        ctx: cancellation and progress.

    Raises:
        ParameterError: not a path method, a bad range or parameter, or a range needing more
            than :data:`MAX_RUNS` solver runs.
        InputError: the series is multivariate, too short, or has non-finite values.
    """
    from .api import _values_of, check_length
    from .detectors._crops import CropsLimitError, crops_r
    from .detectors.partition import prepare_values

    spec = registry.get(method)
    if spec.name not in PATH_METHODS:
        raise ParameterError("method", f"the penalty path needs a penalised method with an exact "
                                       f"solver ({', '.join(PATH_METHODS)}), not {spec.name}")
    if getattr(y, "dims", None):
        raise InputError(getattr(y, "id", "series"), "the penalty path is univariate; choose one "
                                                     "dimension")
    raw = {k: v for k, v in (params or {}).items() if k != "penalty"}
    coerced = spec.coerce({**raw, "penalty": 0.0}, preset=preset)
    values, _, what = _values_of(y)
    check_length(spec, values, coerced, what)
    if beta_min is None or beta_max is None:
        dlo, dhi = default_range(values.size)
        beta_min = dlo if beta_min is None else beta_min
        beta_max = dhi if beta_max is None else beta_max
    lo, hi = _check_range(beta_min, beta_max, spec.name)
    ys, factor, notes = prepare_values(values, coerced)
    solve, seen = _solver(np.asarray(ys, dtype=np.float64), spec.name, coerced, factor, ctx)
    try:
        res = crops_r(solve, lo, hi, ctx, max_runs=MAX_RUNS)
    except CropsLimitError:
        raise ParameterError("penalty range", f"[{lo:g}, {hi:g}] needs more than {MAX_RUNS} runs "
                                              "on this series; raise the lower end",
                             spec.name) from None
    found: dict[int, tuple[NDArray[np.int64], float]] = {}
    for cps, q in seen.values():
        if cps.size not in found or q < found[cps.size][1]:
            found[cps.size] = (cps, q)
    hull = _hull(found, lo, hi)
    n_changes = np.array([k for k, _, _ in hull], dtype=np.int64)
    costs = np.array([found[k][1] for k, _, _ in hull])
    for seg in (found[k][0] for k, _, _ in hull):
        seg.flags.writeable = False
    return PenaltyPath(spec.name, coerced, lo, hi,
                       np.array([a for _, a, _ in hull]), np.array([b for _, _, b in hull]),
                       n_changes, costs, tuple(found[k][0] for k, _, _ in hull),
                       elbow_index(n_changes, costs), res.runs, tuple(notes))
