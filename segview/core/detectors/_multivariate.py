"""Joint segmentation of multivariate series by ``op``, ``pelt`` and ``binseg``.

A multivariate series has ``values`` of shape ``(n, d)``. A segment ``y[a:b]`` costs the sum over the
dimensions of the univariate cost (:mod:`._costs`), i.e. the dimensions share their change points and
are modelled as independent given the segmentation:

* ``l2``: the squared error around each dimension's segment mean (change in mean, unit variances);
* ``normal``: twice the negative maximised Gaussian log-likelihood with a mean and a variance per
  dimension (diagonal covariance), each variance floored at 1e-11 plus ``var_offset``.

``mbic`` adds ``ln(m)`` once per segment. Penalty names count ``d`` times the univariate parameters per
change (:func:`._costs.resolve_penalty` with ``dims=d``). OP evaluates every admissible last change
(exact); PELT prunes a candidate ``k`` at time ``t`` when ``F(k) + C(k, t) > F(t)`` and drops it from
``t + min_size`` on, which keeps the optimum exact for every ``min_size`` (the summed costs are
superadditive); with MBIC PELT does not prune (the ln(m) term breaks the pruning bound). ``binseg`` is
binary segmentation with the same cost (``n_bkps``, ``max_bkps`` as univariate). ``scale`` transforms
each dimension on its own; ``noise_scale`` divides each dimension by its robust noise sd (so that
dimensions in different units weigh alike). Univariate series never come here.
"""
from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..errors import ParameterError
from ..lazy import lazy_module
from ..params import Params
from ..registry import register_multivariate
from ..result import DetectionResult
from . import _costs
from .partition import Partition, _segments, auto_min_size, min_size_note, noise_variance

if TYPE_CHECKING:
    from . import _multivariate_kernels as _mk
else:
    _mk = lazy_module("._multivariate_kernels", __package__)



def prefix_sums(y: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-dimension cumulative sums ``S`` and ``Q``, shape ``(n + 1, d)``, of the centred values."""
    c = np.asarray(y, dtype=np.float64)
    c = c - c.mean(axis=0)
    S = np.zeros((c.shape[0] + 1, c.shape[1]))
    Q = np.zeros_like(S)
    np.cumsum(c, axis=0, out=S[1:])
    np.cumsum(c * c, axis=0, out=Q[1:])
    return S, Q


def _prepare(values: NDArray[np.float64], params: Params
             ) -> tuple[NDArray[np.float64], tuple[str, ...]]:
    y = np.asarray(values, dtype=np.float64)
    if params.get("search") == "fpop":
        raise ParameterError("search", "fpop segments one dimension; a multivariate series is "
                                       "segmented by the dynamic programme (search=dp or auto)")
    notes: tuple[str, ...] = (f"joint segmentation of {y.shape[1]} dimensions",)
    mode = params.get("scale", "none")
    if mode != "none":
        from ._scale import scale_values

        y = np.column_stack([scale_values(y[:, k], mode)[0] for k in range(y.shape[1])])
        notes += (f"scale={mode}: each dimension transformed on its own",)
    if params.get("noise_scale"):
        sds = np.array([math.sqrt(noise_variance(y[:, k])) for k in range(y.shape[1])])
        y = y / sds
        notes += ("noise_scale: each dimension divided by its noise sd ("
                  + ", ".join(f"{v:.6g}" for v in sds) + ")",)
    return y, notes


def multivariate_partition(y: NDArray[np.float64], cost: str = "l2", penalty: float | str = "bic",
                           min_size: int | None = None, *, pruning: bool = False,
                           tie: str = "first", var_offset: float = 0.0,
                           method: str = "op") -> Partition:
    """Exact penalised segmentation of an ``(n, d)`` series (OP, or PELT with ``pruning``)."""
    m = auto_min_size(cost, min_size)
    _costs.check_cost(cost, m, method)
    y = np.asarray(y, dtype=np.float64)
    n, d = y.shape
    beta, mbic = _costs.resolve_penalty(penalty, n, cost, dims=d)
    S, Q = prefix_sums(y)
    F, last = _mk.mv_partition(S, Q, beta, m, _costs.COSTS[cost], float(var_offset), bool(mbic),
                               bool(pruning and not mbic), tie == "last")
    cps = []
    t = n
    while last[t] > 0:
        t = int(last[t])
        cps.append(t)
    return Partition(np.asarray(cps[::-1], dtype=np.int64), F, last, beta, mbic)


def _partition_result(name: str, values: NDArray[np.float64], params: Params, pruning: bool
                      ) -> DetectionResult:
    y, notes = _prepare(values, params)
    part = multivariate_partition(y, params["cost"], params["penalty"], params["min_size"],
                                  pruning=pruning, tie=params.get("tie", "first"),
                                  var_offset=params.get("var_offset", 0.0), method=name)
    n = y.shape[0]
    if part.mbic:
        notes += ("MBIC: ln(segment length) added to each segment's cost",)
    notes += min_size_note(name, params)
    stats = {"optimal_cost_std": part.F[1:].copy(), "penalized_cost": float(part.F[n]),
             "penalty": part.beta, "min_size": auto_min_size(params["cost"], params["min_size"]),
             "segments": _segments(part.change_points, n), "dimensions": int(y.shape[1])}
    return DetectionResult(name, params, part.change_points, stats=stats, notes=notes)


def run_op(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    ctx.check()
    return _partition_result("op", values, params, pruning=False)


def run_pelt(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    ctx.check()
    return _partition_result("pelt", values, params, pruning=True)


def run_binseg(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    y, notes = _prepare(values, params)
    cost = params["cost"]
    m = auto_min_size(cost, params["min_size"])
    _costs.check_cost(cost, m, "binseg")
    n, d = y.shape
    beta, mbic = _costs.resolve_penalty(params["penalty"], n, cost, dims=d)
    S, Q = prefix_sums(y)
    args = (m, _costs.COSTS[cost], float(params.get("var_offset", 0.0)), bool(mbic))
    n_bkps = params.get("n_bkps")
    max_bkps = params.get("max_bkps")
    splits: list[tuple[int, float]] = []
    gain0, q0 = _mk.mv_best_split(S, Q, 0, n, *args)
    heap = [(-gain0, 0, n, q0)]
    while heap:
        ctx.check()
        neg_gain, a, b, q = heapq.heappop(heap)
        if q < 0:
            continue
        if n_bkps is not None:
            if len(splits) >= n_bkps:
                break
        elif not -neg_gain > beta:
            continue
        elif max_bkps is not None and len(splits) >= max_bkps:
            break
        splits.append((q, -neg_gain))
        for lo, hi in ((a, q), (q, b)):
            gain, split = _mk.mv_best_split(S, Q, lo, hi, *args)
            heapq.heappush(heap, (-gain, lo, hi, split))
    cps = np.asarray(sorted(q for q, _ in splits), dtype=np.int64)
    stats = {"penalty": beta, "splits": splits, "min_size": m, "dimensions": int(d)}
    if n_bkps is not None:
        notes += ("n_bkps given: the penalty is ignored",)
    return DetectionResult("binseg", params, cps, stats=stats, notes=notes)


register_multivariate("op", run_op)
register_multivariate("pelt", run_pelt)
register_multivariate("binseg", run_binseg)
