"""Binary segmentation, detector ``binseg`` (spec ``partition.md`` §6).

Scott & Knott (1974), "A cluster analysis method for grouping means in the analysis of variance",
Biometrics 30(3):507-512, in change-point form: split a segment at the point that lowers the total cost
most and recurse while the gain exceeds the penalty (or, with ``n_bkps``, greedily split the segment
with the largest gain until that many change points exist). ``max_bkps`` caps the penalised form at
that many change points, taken greedily by largest gain: R ``changepoint``'s ``BinSeg`` with ``Q``
(TCPDBench runs ``Q = 5``). Approximate; see ``op`` for the exact optimum.

Index convention: change points are 0-based indices of the first sample of each new segment,
the same numbers as ruptures ``Binseg.predict()[:-1]``.
"""
from __future__ import annotations

import heapq

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..params import ParamSpec, Params
from ..registry import DetectorSpec, register
from ..result import DetectionResult, Track
from . import _costs
from ._partition_kernels import best_split
from .partition import COMMON_PARAMS, auto_min_size, partition_presets, prepare_values


def binary_segmentation(y: NDArray[np.float64], cost: str = "l2", penalty: float | str = "bic",
                        n_bkps: int | None = None, min_size: int | None = None,
                        var_offset: float = 0.0, penalty_scale: float = 1.0,
                        ctx: RunContext = NULL_CONTEXT, max_bkps: int | None = None
                        ) -> tuple[list[int], list[tuple[int, float]], float]:
    """Binary segmentation of ``y``.

    Args:
        y: the series.
        cost: ``"l2"`` or ``"normal"``.
        penalty: gain threshold beta (number or name, see :func:`._costs.resolve_penalty`); ignored
            when ``n_bkps`` is given.
        n_bkps: number of change points (greedy by largest gain); None uses the penalty.
        min_size: minimum segment length (None: the cost's smallest).
        var_offset: see the normal cost.
        penalty_scale: multiplies the resolved penalty.
        ctx: cancellation.
        max_bkps: with the penalty rule, stop after this many change points (R's ``Q``); the
            splits are made in order of decreasing gain, so the kept ones are the first greedy
            splits whose gain exceeds the penalty. Ignored when ``n_bkps`` is given.

    Returns:
        ``(change_points, splits, beta)``: sorted change points, the accepted ``(q, gain)`` in the
        order they were made, and the penalty used.
    """
    m = auto_min_size(cost, min_size)
    _costs.check_cost(cost, m, "binseg")
    y = np.asarray(y, dtype=np.float64)
    n = y.size
    beta, mbic = _costs.resolve_penalty(penalty, n, cost)
    beta *= penalty_scale
    S, Q = _costs.prefix_sums(y)
    args = (m, _costs.COSTS[cost], float(var_offset), bool(mbic))

    def node(a: int, b: int) -> tuple[float, int, int, int]:
        gain, q = best_split(S, Q, a, b, *args)
        return -gain, a, b, q

    splits: list[tuple[int, float]] = []
    heap = [node(0, n)]
    while heap:
        ctx.check()
        neg_gain, a, b, q = heapq.heappop(heap)
        gain = -neg_gain
        if q < 0:
            continue  # too short to split
        if n_bkps is not None:
            if len(splits) >= n_bkps:
                break
        elif not gain > beta:
            continue
        elif max_bkps is not None and len(splits) >= max_bkps:
            break
        splits.append((q, gain))
        heapq.heappush(heap, node(a, q))
        heapq.heappush(heap, node(q, b))
    return sorted(q for q, _ in splits), splits, beta


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    y, scale, scale_notes = prepare_values(values, params)
    cps, splits, beta = binary_segmentation(y, params["cost"], params["penalty"],
                                            params["n_bkps"], params["min_size"],
                                            params["var_offset"], scale, ctx,
                                            max_bkps=params["max_bkps"])
    order = sorted(splits)
    track = Track("gain", np.array([g for _, g in order]),
                  x=np.array([q for q, _ in order], dtype=np.float64),
                  threshold_param="penalty" if params["n_bkps"] is None else None)
    stats = {"penalty": beta, "splits": splits,
             "min_size": auto_min_size(params["cost"], params["min_size"])}
    notes = scale_notes
    if params["n_bkps"] is not None:
        notes += ("n_bkps given: the penalty is ignored",)
    elif params["max_bkps"] is not None and len(cps) >= params["max_bkps"]:
        notes += (f"stopped at max_bkps={params['max_bkps']} change points; more splits may "
                  "pass the penalty",)
    return DetectionResult("binseg", params, np.asarray(cps, dtype=np.int64), tracks=(track,),
                           stats=stats, notes=notes)


BINSEG_PARAMS: tuple[ParamSpec, ...] = tuple(p for p in COMMON_PARAMS if p.name != "tie") + (
    ParamSpec("n_bkps", "int", None, low=0, high=100_000, step=1, optional=True,
              help="Number of change points to place greedily; automatic means stop when no "
                   "split gains more than the penalty."),
    ParamSpec("max_bkps", "int", None, low=0, high=100_000, step=1, optional=True,
              help="At most this many change points with the penalty rule (R changepoint's Q), "
                   "taken in order of decreasing gain; automatic means no cap."),
)

def _min_length(p: Params) -> int:
    # a module-level function, not a lambda: the batch engine pickles specs to worker processes
    return auto_min_size(p["cost"], p["min_size"])


register(DetectorSpec(
    name="binseg", label="Binary segmentation", version="2", produces="change_points",
    params=BINSEG_PARAMS,
    presets=partition_presets(BINSEG_PARAMS, {"n_bkps": None, "max_bkps": None},
                              {"n_bkps": None, "max_bkps": 5}),
    run=_run, min_length=_min_length, affine_invariant=True,
    citation="Scott & Knott (1974), Biometrics 30(3):507-512",
    description="Greedy recursive splitting by the largest cost reduction.",
))
