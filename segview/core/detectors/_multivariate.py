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

import numpy as np
from numba import njit
from numpy.typing import NDArray

from ..context import RunContext
from ..errors import ParameterError
from ..params import Params
from ..registry import register_multivariate
from ..result import DetectionResult
from . import _costs
from .partition import Partition, _segments, auto_min_size, noise_variance

_INF = np.inf
_LOG_2PI = math.log(2.0 * math.pi)
_FLOOR = _costs.VAR_FLOOR


def prefix_sums(y: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per-dimension cumulative sums ``S`` and ``Q``, shape ``(n + 1, d)``, of the centred values."""
    c = np.asarray(y, dtype=np.float64)
    c = c - c.mean(axis=0)
    S = np.zeros((c.shape[0] + 1, c.shape[1]))
    Q = np.zeros_like(S)
    np.cumsum(c, axis=0, out=S[1:])
    np.cumsum(c * c, axis=0, out=Q[1:])
    return S, Q


@njit(nogil=True, cache=True)
def mv_cost(S: NDArray[np.float64], Q: NDArray[np.float64], a: int, b: int, kind: int,
            var_offset: float, mbic: bool) -> float:
    """Cost of ``y[a:b]`` summed over the dimensions (module docstring)."""
    m = b - a
    c = 0.0
    for k in range(S.shape[1]):
        s = S[b, k] - S[a, k]
        sse = (Q[b, k] - Q[a, k]) - s * s / m
        if kind == 0:
            c += sse
        else:
            var = sse / m
            if var < _FLOOR:
                var = _FLOOR
            c += m * ((_LOG_2PI + math.log(var + var_offset)) + 1.0)
    if mbic:
        c += math.log(m)
    return c


@njit(nogil=True, cache=True)
def mv_partition(S: NDArray[np.float64], Q: NDArray[np.float64], beta: float, min_size: int,
                 kind: int, var_offset: float, mbic: bool, prune: bool, tie_last: bool
                 ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """OP (``prune=False``) or PELT: ``F[0..n]`` (``F[0] = -beta``) and the optimal last change."""
    n = S.shape[0] - 1
    F = np.full(n + 1, _INF)
    last = np.full(n + 1, -1, dtype=np.int64)
    F[0] = -beta
    cand = np.empty(n + 1, dtype=np.int64)
    dom = np.full(n + 1, n + min_size + 1, dtype=np.int64)
    vals = np.empty(n + 1)
    nc = 0
    for t in range(1, n + 1):
        k_new = t - min_size
        if k_new >= 0 and F[k_new] < _INF:
            cand[nc] = k_new
            nc += 1
        best = _INF
        arg = -1
        for i in range(nc):
            k = cand[i]
            v = F[k] + mv_cost(S, Q, k, t, kind, var_offset, mbic)
            vals[i] = v
            v += beta
            if v < best or (tie_last and v == best and arg >= 0):
                best = v
                arg = k
        F[t] = best
        last[t] = arg
        if prune and arg >= 0:
            keep = 0
            for i in range(nc):
                k = cand[i]
                if vals[i] > best and dom[k] > t:
                    dom[k] = t
                if t + 1 < dom[k] + min_size:
                    cand[keep] = k
                    keep += 1
            nc = keep
    return F, last


@njit(nogil=True, cache=True)
def mv_best_split(S: NDArray[np.float64], Q: NDArray[np.float64], a: int, b: int, m: int,
                  kind: int, var_offset: float, mbic: bool) -> tuple[float, int]:
    """Best single split of ``y[a:b]``: ``(gain, q)``, q in ``[a+m, b-m]`` (ties: smallest q)."""
    best = _INF
    arg = -1
    for q in range(a + m, b - m + 1):
        v = (mv_cost(S, Q, a, q, kind, var_offset, mbic)
             + mv_cost(S, Q, q, b, kind, var_offset, mbic))
        if v < best:
            best = v
            arg = q
    if arg < 0:
        return -_INF, -1
    return mv_cost(S, Q, a, b, kind, var_offset, mbic) - best, arg


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
    F, last = mv_partition(S, Q, beta, m, _costs.COSTS[cost], float(var_offset), bool(mbic),
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
    gain0, q0 = mv_best_split(S, Q, 0, n, *args)
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
            gain, split = mv_best_split(S, Q, lo, hi, *args)
            heapq.heappush(heap, (-gain, lo, hi, split))
    cps = np.asarray(sorted(q for q, _ in splits), dtype=np.int64)
    stats = {"penalty": beta, "splits": splits, "min_size": m, "dimensions": int(d)}
    if n_bkps is not None:
        notes += ("n_bkps given: the penalty is ignored",)
    return DetectionResult("binseg", params, cps, stats=stats, notes=notes)


register_multivariate("op", run_op)
register_multivariate("pelt", run_pelt)
register_multivariate("binseg", run_binseg)
