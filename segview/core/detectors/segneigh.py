"""Segment neighbourhood, detector ``segneigh`` (docs/algorithms/segneigh.md).

Auger & Lawrence (1989): the exact least-squares segmentation into ``q`` segments for every
``q = 1..Q`` by dynamic programming, then the ``q`` that minimises ``cost(q) + (q - 1) * penalty``.
The cost is that of a change in mean with unit noise variance (the residual sum of squares), as
R ``changepoint`` 2.2.2's ``cpt.mean(method="SegNeigh")`` computes it in its R-level function
``segneigh.mean.norm``:

* segment costs ``-0.5 * (sum x^2 - (sum x)^2 / m)`` from running double sums started at each segment
  start (no prefix-sum differences), and the recursion
  ``L(q, j) = max_v L(q-1, v) + seg(v+1, j)`` keeping the first maximiser;
* the criterion ``-2 L(q, n) + (q - 1) * penalty``, the first minimum;
* ``rule="changepoint"``: the package hands the data to that function by printing them with 15
  significant digits and parsing the text back (its ``SEGNEIGH`` builds a call with ``paste``), so
  the values segmented are the data rounded to 15 significant digits. segview does the same.

The package refuses MBIC for SegNeigh and needs ``Q <= n / 2 + 1``; so does this detector. Time
``O(Q n^2)``, memory ``O(Q n)`` (the cost matrix is built one column at a time).

Index convention: 0-based index of the first sample of each new segment, R's ``cpts()`` without the
final ``n``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..errors import InputError, ParameterError
from ..kernels import fast_or_plain
from ..lazy import lazy_module
from ..params import ParamSpec, Params, Preset
from ..registry import Cost, DetectorSpec, register
from ..result import DetectionResult, Track
from . import _costs
from ._prepared import GrowingState
from ._scale import SCALE_MODES
from .partition import prepare_values

if TYPE_CHECKING:
    from . import _segneigh_kernels as _sk
else:  # listing detectors imports no numba
    _sk = lazy_module("._segneigh_kernels", __package__)


def r_text_round_trip(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x`` printed with 15 significant digits and read back, as R's ``paste`` then ``parse``."""
    return np.array([float(f"{v:.15g}") for v in np.asarray(x, dtype=np.float64).tolist()])


def segment_neighbourhood(x: NDArray[np.float64], max_segments: int,
                          ctx: RunContext = NULL_CONTEXT
                          ) -> tuple[NDArray[np.float64], list[list[int]]]:
    """Best cost for each number of segments ``1..max_segments`` and its change points.

    Returns ``(costs, cps)``: ``costs[q-1]`` is the smallest residual sum of squares with ``q``
    segments (R's ``-2 like.Q[q, n]``), ``cps[q-1]`` its sorted change points (0-based first sample
    of each new segment).
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    Q = int(max_segments)
    like = np.zeros((Q, n))
    back = np.full((Q, n), -1, dtype=np.int64)
    acc_s = np.zeros(n)
    acc_q = np.zeros(n)
    for j in range(n):
        if j % 256 == 0:
            ctx.check()
        xj = x[j]
        acc_s[: j + 1] += xj
        acc_q[: j + 1] += xj * xj
        s = acc_s[: j + 1]
        length = np.arange(j + 1, 0, -1, dtype=np.float64)
        col = -0.5 * (acc_q[: j + 1] - (s * s) / length)  # cost of x[i..j] for i = 0..j
        like[0, j] = col[0]
        for q in range(2, min(Q, j + 1) + 1):
            cand = like[q - 2, q - 2: j] + col[q - 1: j + 1]
            k = int(np.argmax(cand))
            like[q - 1, j] = cand[k]
            back[q - 1, j] = k + q - 1  # R's cp[q, j]: 1-based end of the previous segment
    return _costs_and_cps(like, back, Q)


def _costs_and_cps(like: NDArray[np.float64], back: NDArray[np.int64], Q: int
                   ) -> tuple[NDArray[np.float64], list[list[int]]]:
    """The optimal cost of 1..Q segments and each optimum's change points (R's 1-based ends),
    walked back through ``back`` from the last sample."""
    n = like.shape[1]
    costs = -2.0 * like[:Q, n - 1]
    cps: list[list[int]] = [[]]
    for q in range(2, Q + 1):
        found, j = [], n - 1
        for row in range(q - 1, 0, -1):
            v = int(back[row, j])
            found.append(v)
            j = v - 1
        cps.append(sorted(found))
    return costs, cps


class Layers(GrowingState):
    """The prepare stage (``scale``, ``rule``): the values segmented and the DP's layers so far.

    ``max_segments`` only decides how many layers are needed: :meth:`ensure` computes the missing
    ones from the last (a larger value), a smaller one reads a prefix, and the penalty only
    re-decides, so a slider move costs at most the new layers. Rows are computed exactly as one
    fresh pass would compute them (:mod:`._segneigh_kernels`), so a decision on a cached state is
    bitwise a fresh run. Grown in place under a lock (the explorer runs one job per lane, but a
    state may be shared); ``nbytes`` tells a cache its size (16 bytes per sample and layer).
    """

    def __init__(self, y: NDArray[np.float64], notes: tuple[str, ...]) -> None:
        y = np.array(y, dtype=np.float64)
        y.flags.writeable = False
        self.y, self.n, self.notes = y, y.size, tuple(notes)
        self.like = np.zeros((0, self.n))
        self.back = np.full((0, self.n), -1, dtype=np.int64)
        self.kernel_note: str | None = None
        super().__init__()

    @property
    def layers(self) -> int:
        return self.like.shape[0]

    @property
    def nbytes(self) -> int:
        return int(self.y.nbytes + self.like.nbytes + self.back.nbytes)

    def frozen_arrays(self) -> tuple[NDArray, ...]:
        return (self.y, self.like, self.back)

    def ensure(self, Q: int, ctx: RunContext = NULL_CONTEXT) -> None:
        """Make at least ``Q`` layers available (a cancel leaves the table as it was)."""
        with self._lock:
            have = self.layers
            if Q <= have:
                return
            like = np.zeros((Q, self.n))
            back = np.full((Q, self.n), -1, dtype=np.int64)
            like[:have], back[:have] = self.like, self.back
            y = self.y

            def run(compiled: bool):
                def go():
                    _sk.extend(y, like, back, have, Q, ctx.check, compiled)
                return go

            _, note = fast_or_plain(run(True), run(False), "segneigh's kernel")
            if note:
                self.kernel_note = note
            like.flags.writeable = False
            back.flags.writeable = False
            self.like, self.back = like, back

    def costs_cps(self, Q: int) -> tuple[NDArray[np.float64], list[list[int]]]:
        """:func:`segment_neighbourhood`'s answer for ``max_segments=Q`` (needs ``Q`` layers)."""
        return _costs_and_cps(self.like, self.back, Q)


def prepare(values: NDArray[np.float64], params: Params, ctx: RunContext) -> Layers:
    """The values as the DP sees them (scaled, and rounded as R does under ``rule=changepoint``),
    with no layer yet; :func:`_run` computes the layers it needs."""
    y, _, notes = prepare_values(values, {**params, "noise_scale": False})
    if params["rule"] == "changepoint":
        y = r_text_round_trip(y)
    return Layers(y, notes)


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    prep = ctx.prepared
    if not isinstance(prep, Layers) or prep.n != np.asarray(values).size:
        prep = prepare(values, params, ctx)
    notes = prep.notes
    n = prep.n
    Q = int(params["max_segments"])
    if Q > n / 2 + 1:
        raise InputError("segneigh", f"max_segments={Q} is larger than the maximum number of "
                                     f"segments {n / 2 + 1:g} for {n} observations (R "
                                     "changepoint's rule)")
    beta, mbic = _costs.resolve_penalty(params["penalty"], n, "l2")
    if mbic:
        raise ParameterError("penalty", "MBIC is not defined for segment neighbourhood (R "
                                        "changepoint refuses it too); use bic or a number",
                             "segneigh")
    prep.ensure(Q, ctx)
    costs, cps = prep.costs_cps(Q)
    if prep.kernel_note:
        notes += (prep.kernel_note,)
    k = np.arange(Q)
    criterion = costs + k * beta
    best = int(np.argmin(criterion))
    if best == Q - 1:
        notes += (f"the best segmentation has max_segments={Q} segments: more may fit",)
    stats = {"penalty": beta, "costs": costs, "criterion": criterion, "n_segments": best + 1,
             "segmentations": cps}
    # one point per number of segments 1..Q, not per sample: an x axis of its own
    track = Track("criterion", criterion, x=(k + 1).astype(np.float64), x_label="segments",
                  mark_x=float(best + 1))
    return DetectionResult("segneigh", params, np.asarray(cps[best], dtype=np.int64),
                           tracks=(track,), stats=stats, notes=notes)


SEGNEIGH_PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec("scale", "str", "zscore", choices=SCALE_MODES, stage="prepare",
              help="Units the costs see: zscore (R's scale(), as TCPDBench), robust (median 0, "
                   "white-noise sd 1) or none (the raw values)."),
    ParamSpec("penalty", "float", "bic", low=0.0, high=1e6, step=0.5, log=True,
              aliases=_costs.PENALTY_NAMES,
              help="Cost of one extra change point, or a criterion name resolved with the series "
                   "length (bic: 2 ln n, TCPDBench's choice; mbic is refused, as in R)."),
    ParamSpec("max_segments", "int", 5, low=1, high=1000, step=1,
              help="Largest number of segments tried (R's Q; TCPDBench's default 5 allows at most "
                   "4 change points). At most n/2 + 1."),
    ParamSpec("rule", "str", "segview", choices=("segview", "changepoint"), stage="prepare",
              help="segview: segment the values as they are; changepoint: first round them to "
                   "15 significant digits, as R changepoint 2.2.2 does by passing them as text "
                   "(the tcpdbench preset)."),
)


def _min_length(p: Params) -> int:
    return max(2, 2 * int(p["max_segments"]) - 2)


def cost(n: int, p: Params) -> Cost:
    """Time and memory of a run (read by segview.core.limits): the segment-neighbourhood dynamic
    programme is ``O(Q n^2)`` in time and keeps two ``Q x n`` tables."""
    q = int(p.get("max_segments", 5))
    return Cost.of_steps(2.0 * q * float(n) * n, 16.0 * q * n + 32.0 * n,
                         f"segment neighbourhood is quadratic in the length: {n} samples with "
                         f"max_segments={q} are about {q * float(n) * n:.0e} segment costs "
                         "(minutes to hours)")


register(DetectorSpec(
    cost=cost,
    name="segneigh", label="Segment neighbourhood", version="1", produces="change_points",
    params=SEGNEIGH_PARAMS, run=_run, prepare=prepare, min_length=_min_length, affine_invariant=True,
    presets=(Preset("tcpdbench", {"scale": "zscore", "penalty": "bic", "max_segments": 5,
                                  "rule": "changepoint"},
                    help="TCPDBench default experiment: R scale(), cpt.mean SegNeigh, Normal, "
                         "BIC, Q = 5"),),
    citation="Auger & Lawrence (1989), Bull. Math. Biol. 51(1):39-54; R changepoint 2.2.2",
    description="Exact least-squares segmentation into 1..max_segments segments by dynamic "
                "programming, choosing the number by cost + penalty (BIC by default) on z-scored "
                "values. Known limits: O(Q n^2) time, so long series with many segments are slow; "
                "at most max_segments - 1 change points.",
    enabled_by_default=False,
))
