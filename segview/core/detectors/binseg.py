"""Binary segmentation, detector ``binseg`` (``docs/algorithms/partition.md`` §6).

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

import bisect
import heapq
import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..errors import ParameterError
from ..lazy import lazy_module
from ..params import ParamSpec, Params
from ..registry import Cost, DetectorSpec, register
from ..result import DetectionResult, Track
from . import _costs
from .partition import COMMON_PARAMS, auto_min_size, partition_presets, prepare_values
from ._strength import LABEL as STRENGTH_LABEL, cost_decrease

if TYPE_CHECKING:
    from . import _partition_kernels as _pk
else:
    _pk = lazy_module("._partition_kernels", __package__)


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
        gain, q = _pk.best_split(S, Q, a, b, *args)
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


def changepoint_binseg(y: NDArray[np.float64], penalty: float | str = "mbic",
                       max_bkps: int | None = 5, min_size: int = 1, penalty_scale: float = 1.0,
                       ctx: RunContext = NULL_CONTEXT
                       ) -> tuple[list[int], list[tuple[int, float]], float]:
    """Binary segmentation as R ``changepoint`` 2.2.2 runs it (``cpt.mean``, ``method="BinSeg"``).

    The same greedy splitting as :func:`binary_segmentation` with the l2 (``mean.norm``) cost, plus
    the package's particulars, which change results near the ends of a series:

    * prefix sums of the raw values accumulated like R's ``cumsum`` (80-bit), not centred;
    * candidate change points ``2 <= cp <= n - 3`` only, and inside a segment ``[a, b)`` the first
      part must be at least ``min_size + 1`` long (R tests ``j - st >= minseglen`` with
      ``st = a + 1``), the second at least ``min_size``;
    * ``Q = max_bkps`` greedy splits (largest gain over all segments, the first on ties; all of
      them when None) with the recorded gain a running minimum, kept while ``gain >= penalty``.

    Returns the same triple as :func:`binary_segmentation`.
    """
    from ._pelt_r import prefix_sums_r

    y = np.asarray(y, dtype=np.float64)
    n = y.size
    beta, mbic = _costs.resolve_penalty(penalty, n, "l2")
    beta *= penalty_scale
    S, Q = prefix_sums_r(y)
    logs = _log_lengths(n) if mbic else None

    ks = np.arange(n + 1, dtype=np.float64)  # segment lengths as doubles, exact

    def gains(a: int, b: int) -> tuple[slice, NDArray[np.float64]]:
        """Gains of the candidates ``lo..hi`` of ``[a, b)`` (a slice of ``lam``), computed with
        the same IEEE operations, in the same order, as the scalar loop of R's C code; the
        candidates are consecutive, so every array below is a slice, in place where it can be."""
        lo, hi = max(2, a + 1 + min_size), min(n - 3, b - min_size) + 1
        if hi <= lo:
            return slice(0, 0), np.empty(0)
        rev = slice(b - lo, b - hi, -1)  # b - j for j = lo..hi-1 (b - hi >= min_size - 1 >= 0)
        t1 = S[lo:hi] - S[a]
        t1 *= t1
        t1 /= ks[lo - a:hi - a]
        c1 = Q[lo:hi] - Q[a]
        c1 -= t1  # (Q[j] - Q[a]) - s1 * s1 / m1
        t2 = S[b] - S[lo:hi]
        t2 *= t2
        t2 /= ks[rev]
        c2 = Q[b] - Q[lo:hi]
        c2 -= t2
        sab = S[b] - S[a]
        cab = (Q[b] - Q[a]) - (sab * sab) / ks[b - a]
        if logs is not None:
            c1 += logs[lo - a:hi - a]
            c2 += logs[rev]
            cab += logs[b - a]
        c1 *= -0.5
        c2 *= -0.5
        c1 += c2
        c1 -= -0.5 * float(cab)
        return slice(lo, hi), c1

    rounds = n if max_bkps is None else int(max_bkps)
    tau = [0, n]
    found: list[tuple[int, float]] = []
    oldmax = math.inf
    # lam[j] is the gain of splitting the segment that holds j at j (0 where j is no candidate);
    # a split changes only its own segment, so only the two new parts are computed again
    lam = np.zeros(n)
    js, g = gains(0, n)
    lam[js] = g
    for done in range(rounds):
        ctx.check()
        j = int(np.argmax(lam))
        oldmax = min(oldmax, float(lam[j]))
        found.append((j, 2.0 * oldmax))
        if j == 0:  # no gain is positive: R "splits" at 0, which changes nothing, every round left
            found.extend([found[-1]] * (rounds - done - 1))
            break
        i = bisect.bisect_right(tau, j)
        a, b = tau[i - 1], tau[i]
        tau.insert(i, j)
        lam[a + 1:b] = 0.0
        for lo, hi in ((a, j), (j, b)):
            js, g = gains(lo, hi)
            lam[js] = g
    kept: list[tuple[int, float]] = []
    for q, gain in found:
        if not gain >= beta:
            break
        kept.append((q, gain))
    return sorted(q for q, _ in kept), kept, beta


def _log_lengths(n: int) -> NDArray[np.float64]:
    """``log(k)`` for ``k = 0..n`` (``-inf`` at 0, never read), the values R's C ``log`` gives.

    numpy's ``log`` calls the C library's ``log`` element by element unless this CPU has a SIMD
    implementation (AVX-512), which may differ in the last bit; a probe over ``1..65536`` (where
    such an implementation differs on many arguments) chooses numpy's, else the C ``log`` one by
    one through :func:`math.log`.
    """
    global _NUMPY_LOG_IS_LIBM
    if _NUMPY_LOG_IS_LIBM is None:
        probe = np.arange(1, 65537, dtype=np.float64)
        _NUMPY_LOG_IS_LIBM = bool(np.array_equal(np.log(probe),
                                                 np.fromiter(map(math.log, probe.tolist()),
                                                             np.float64, probe.size)))
    k = np.arange(n + 1, dtype=np.float64)
    with np.errstate(divide="ignore"):
        if _NUMPY_LOG_IS_LIBM:
            return np.log(k)
        return np.fromiter(map(math.log, k.tolist()), np.float64, k.size)  # log(0.0) raises


_NUMPY_LOG_IS_LIBM: bool | None = None


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    y, scale, scale_notes = prepare_values(values, params)
    if params["rule"] == "changepoint":
        if params["cost"] != "l2" or params["n_bkps"] is not None:
            raise ParameterError("rule", "rule=changepoint emulates R's cpt.mean BinSeg: it needs "
                                         "cost=l2 and the penalty rule (n_bkps automatic)",
                                 "binseg")
        cps, splits, beta = changepoint_binseg(y, params["penalty"], params["max_bkps"],
                                               auto_min_size("l2", params["min_size"]), scale,
                                               ctx)
    else:
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
        if len(cps) < params["n_bkps"]:
            notes += (f"n_bkps={params['n_bkps']} asked for, but only {len(cps)} change points fit "
                      f"this series with min_size {stats['min_size']}",)
    elif params["max_bkps"] is not None and len(cps) >= params["max_bkps"]:
        notes += (f"stopped at max_bkps={params['max_bkps']} change points; more splits may "
                  "pass the penalty",)
    cps_arr = np.asarray(cps, dtype=np.int64)
    strengths = cost_decrease(y, cps_arr, params["cost"], params["var_offset"])
    return DetectionResult("binseg", params, cps_arr, tracks=(track,), stats=stats, notes=notes,
                           strengths=strengths, strength_label=STRENGTH_LABEL)


BINSEG_PARAMS: tuple[ParamSpec, ...] = tuple(p for p in COMMON_PARAMS if p.name != "tie") + (
    ParamSpec("n_bkps", "int", None, low=0, high=100_000, step=1, optional=True,
              help="Number of change points to place greedily; automatic means stop when no "
                   "split gains more than the penalty."),
    ParamSpec("max_bkps", "int", None, low=0, high=100_000, step=1, optional=True,
              help="At most this many change points with the penalty rule (R changepoint's Q), "
                   "taken in order of decreasing gain; automatic means no cap."),
    ParamSpec("rule", "str", "segview", choices=("segview", "changepoint"),
              help="segview: splits anywhere min_size allows; changepoint: R changepoint 2.2.2's "
                   "BinSeg (l2 only): R's sums, no split at 1, n-2 or n-1 and a first part one "
                   "longer than min_size (the tcpdbench preset)."),
)

def _min_length(p: Params) -> int:
    # a module-level function, not a lambda: the batch engine pickles specs to worker processes
    return auto_min_size(p["cost"], p["min_size"])

def cost(n: int, p: Params) -> Cost:
    """Time and memory of one run (read by segview.core.limits): each split scans its segment
    with prefix sums, about n log n steps; a few arrays of the series' length."""
    return Cost.of_steps(10.0 * n * max(1, n.bit_length()), 48.0 * n)



register(DetectorSpec(
    cost=cost,
    name="binseg", label="Binary segmentation", version="2", produces="change_points",
    params=BINSEG_PARAMS,
    presets=partition_presets(BINSEG_PARAMS, {"n_bkps": None, "max_bkps": None, "rule": "segview"},
                              {"n_bkps": None, "max_bkps": 5, "rule": "changepoint"}),
    run=_run, min_length=_min_length, affine_invariant=True,
    citation="Scott & Knott (1974), Biometrics 30(3):507-512",
    description="Greedy recursive splitting by the largest cost reduction. Default: z-scored "
                "values, L2 cost, MBIC penalty (docs/defaults.md); preset faithful = raw values and "
                "BIC, preset tcpdbench = R changepoint's BinSeg with at most 5 change points. Known "
                "limits: greedy, so not the optimum (op is); a short segment between two changes "
                "of opposite sign can be missed; L2 cuts isolated spikes out as segments.",
))
