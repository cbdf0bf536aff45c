"""Wild binary segmentation, detector ``wbs`` (docs/algorithms/wbs.md).

Fryzlewicz (2014): binary segmentation that does not only test the whole current segment but also
``M`` random sub-intervals, so that a short segment between two nearby changes is seen from an
interval that contains only its two ends. In the "integrated" form of R ``wbs`` 1.4.1 (Baranowski &
Fryzlewicz), which TCPDBench runs, every segment's split is the larger of its own CUSUM maximum and
the best random interval lying inside it, recursively down to single points; this orders every
possible split point by a threshold ``min.th`` (the smallest CUSUM on its path from the root). The
``Kmax`` = 50 splits with the largest thresholds are candidates, taken in decreasing ``|CUSUM|``;
the number kept minimises an information criterion
``n/2 ln(RSS_k / n) + penalty(k)`` (``ssic``: ``k (ln n)^1.01``, the paper's strengthened Schwarz
criterion; ``bic``: ``k ln n``; ``mbic``: Zhang & Siegmund's), against ``n/2 ln var(x)`` for no change.

TCPDBench's default experiment: R ``scale()``, ``wbs(x, M = 5000, rand.intervals = TRUE,
integrated = TRUE)``, ``changepoints(w, Kmax = 50)``, the SSIC set. The random intervals come from R's
generator; :mod:`._wbs_kernels` reproduces ``set.seed(seed)`` and its Mersenne-Twister stream bit for
bit, so with the same seed the change points are R's (``tests/core/test_wbs.py`` checks R's output on
the TCPD development data). TCPDBench itself sets no seed: R seeded each of its runs from the clock,
so its published locations are one draw among R's possible outcomes (docs/algorithms/wbs.md states
how far they vary).

Strength of a change point: its ``|CUSUM|`` (the standardised difference of means that chose it, in
units of the scaled data's noise), the statistic WBS thresholds.

Version 2's default considers ``Kmax = 4`` candidates (measured on the TCPD development sets among
50 down to 3): with 50 the SSIC, which assumes independent noise, keeps all 50 on most autocorrelated
benchmark series (issue 28's JMH rule: 303 of 350 series above 1 % of n; docs/defaults.md). Kmax 50
(version 1's default) is the preset ``tcpdbench``, bit for bit.

Index convention: 0-based index of the first sample of each new segment, the same number as R's
change point (1-based last point of the left segment).
"""
from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..errors import InputError
from ..kernels import fast_or_plain
from ..lazy import lazy_module
from ..params import ParamSpec, Params, Preset
from ..registry import Cost, DetectorSpec, register
from ..result import DetectionResult, Track
from ._scale import SCALE_MODES
from .partition import prepare_values

if TYPE_CHECKING:
    from . import _wbs_kernels as _wk
else:
    _wk = lazy_module("._wbs_kernels", __package__)  # listing detectors imports no numba

CRITERIA = ("ssic", "bic", "mbic")
SSIC_ALPHA = 1.01  # the package's default exponent of ln n


def _r_sum(v: NDArray[np.float64]) -> float:
    """R's ``sum`` of doubles: accumulated in order in long double, rounded once."""
    if v.size == 0:
        return 0.0
    return float(np.cumsum(v.astype(np.longdouble))[-1])


def _r_mean_ld(v: NDArray[np.float64]) -> np.longdouble:
    """R's mean of doubles before the final rounding: long double sum / n, plus one correction."""
    n = v.size
    vl = v.astype(np.longdouble)
    s = np.cumsum(vl)[-1] / np.longdouble(n)
    if np.isfinite(s):
        s = s + np.cumsum(vl - s)[-1] / np.longdouble(n)
    return s


def _r_var(x: NDArray[np.float64]) -> float:
    """R's ``var(x)``: the mean as above (rounded to double), then the sum of squared deviations
    over ``n - 1``, all in long double."""
    m = np.longdouble(float(_r_mean_ld(x)))
    d = x.astype(np.longdouble) - m
    return float(np.cumsum(d * d)[-1] / np.longdouble(x.size - 1))


def _rss_path(x: NDArray[np.float64], cand: NDArray[np.int64]) -> NDArray[np.float64]:
    """``sum((x - means.between.cpt(x, cand[:k]))^2)`` for ``k = 1..len(cand)`` as R computes each
    (segment means by R's ``mean``, the sum by R's ``sum``); cand 1-based. The fits are nested:
    the ``k``-th candidate splits one segment of the previous fit, so only its two new means are
    computed."""
    n = x.size
    fitted = np.full(n, float(_r_mean_ld(x)))
    bounds = [0, n]
    out = np.zeros(cand.size)
    for k, c in enumerate(cand.tolist()):
        j = bisect.bisect_left(bounds, c)
        a, b = bounds[j - 1], bounds[j]
        bounds.insert(j, c)
        fitted[a:c] = float(_r_mean_ld(x[a:c]))
        fitted[c:b] = float(_r_mean_ld(x[c:b]))
        d = x - fitted
        with np.errstate(over="ignore"):  # values near 1e154 square to Inf, as in R
            out[k] = _r_sum(d * d)
    return out


def candidates(res: NDArray[np.float64], kmax: int) -> NDArray[np.int64]:
    """The package's ``changepoints.sbs(w, Kmax)`` candidates: the splits whose ``min.th`` is among
    the ``kmax`` largest (above a threshold half a gap below the ``kmax``-th), in decreasing
    ``|CUSUM|`` (stable: ties keep change-point order, as R's ``order``); 1-based change points.
    Ties at the threshold can make them more than ``kmax``: :func:`wbs` keeps the first
    ``min(kmax, n - 2)``, as ``changepoints.wbs`` does."""
    rows = res.shape[0]
    k = min(rows, int(kmax))
    minth = res[:, 4]
    if k < rows:
        tmp = np.sort(minth)[::-1]
        gaps = np.diff(np.unique(minth))
        th = tmp[k - 1] - (np.min(gaps) / 2.0 if gaps.size else math.inf)
    else:
        th = 0.0
    order = np.argsort(-np.abs(res[:, 3]), kind="stable")
    keep = order[minth[order] > th]
    if keep.size == 0:
        raise InputError("wbs", "no change-point candidates (choose a larger kmax)")
    return res[keep, 2].astype(np.int64)


def ic_curve(x: NDArray[np.float64], cand: NDArray[np.int64], criterion: str) -> NDArray[np.float64]:
    """The information criterion for ``k = 0..len(cand)`` change points (the first ``k``
    candidates), as the package's ``changepoints.wbs`` evaluates it."""
    n = x.size
    half = n / 2
    lnn = math.log(n)
    ic = np.zeros(cand.size + 1)
    rss_path = _rss_path(x, cand)
    for i in range(cand.size, 0, -1):
        cp = cand[:i]
        rss = rss_path[i - 1] / n
        loglik = half * math.log(rss) if rss > 0.0 else -math.inf  # R: log(0) = -Inf, kept
        if criterion == "ssic":
            pen = i * math.pow(lnn, SSIC_ALPHA)
        elif criterion == "bic":
            pen = i * lnn
        else:
            seg = np.diff(np.concatenate(([0], np.sort(cp), [n]))) / n
            pen = 1.5 * i * lnn + 0.5 * _r_sum(np.log(seg))
        ic[i] = loglik + pen
    ic[0] = half * math.log(_r_var(x))
    return ic


def wbs(y: NDArray[np.float64], intervals: int = 5000, seed: int = 1, kmax: int = 50,
        criterion: str = "ssic", compiled: bool = True
        ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64], NDArray[np.int64],
                   str | None]:
    """``(change points, res, ic, candidates, note)`` of integrated WBS on ``y`` as R wbs 1.4.1 after
    ``set.seed(seed)``: change points sorted, 1-based R numbers (= segview's 0-based first sample of
    the new segment); ``res`` is the package's ``(n - 1) x 6`` matrix; ``note`` says when the
    compiled kernels failed and the plain twins ran (``compiled=False`` runs them directly)."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = y.size
    if n < 4:
        raise InputError("wbs", f"needs at least 4 observations, got {n}")
    if not np.all(np.isfinite(y)):
        raise InputError("wbs", "the series has missing or infinite values")
    if criterion not in CRITERIA:
        raise InputError("wbs", f"criterion {criterion!r} is not one of {', '.join(CRITERIA)}")
    if compiled:
        (_starts, _ends, res), note = fast_or_plain(
            lambda: _tree(y, intervals, seed, True), lambda: _tree(y, intervals, seed, False),
            "wbs's kernels")
    else:
        (_starts, _ends, res), note = _tree(y, intervals, seed, False), None
    cps, ic, cand = choose(y, res, kmax, criterion)
    return cps, res, ic, cand, note


def choose(y: NDArray[np.float64], res: NDArray[np.float64], kmax: int, criterion: str
           ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
    """``(change points, ic, candidates)`` from the tree ``res``: the decide stage (``kmax`` and
    ``criterion`` change nothing before it)."""
    cand = candidates(res, kmax)[:min(int(kmax), y.size - 2)]
    ic = ic_curve(y, cand, criterion)
    k = int(np.argmin(ic))
    return np.sort(cand[:k]), ic, cand


def _tree(y: NDArray[np.float64], intervals: int, seed: int, compiled: bool
          ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    starts, ends = _wk.random_intervals(y.size, int(intervals), int(seed), compiled)
    return starts, ends, _wk.wbs_tree(y, starts, ends, compiled)


@dataclass(frozen=True)
class Tree:
    """The prepare stage (``scale``, ``intervals``, ``seed``): the scaled series and the WBS tree
    ``res`` of its random intervals (read-only), with the notes so far."""

    n: int
    y: NDArray[np.float64]
    res: NDArray[np.float64]
    notes: tuple[str, ...]


def prepare(values: NDArray[np.float64], params: Params, ctx: RunContext) -> Tree:
    """Scale the series and build the tree of its random intervals (the expensive part)."""
    raw = np.asarray(values, dtype=np.float64)
    if raw.size and np.all(raw == raw[0]):
        raise InputError("wbs", "the series is constant (R wbs refuses it: nothing to segment)")
    y, _, notes = prepare_values(raw, {**params, "noise_scale": False})
    ctx.check()
    y = np.ascontiguousarray(y, dtype=np.float64)
    if y.size < 4:
        raise InputError("wbs", f"needs at least 4 observations, got {y.size}")
    if not np.all(np.isfinite(y)):
        raise InputError("wbs", "the series has missing or infinite values")
    intervals, seed = params["intervals"], params["seed"]
    (_starts, _ends, res), note = fast_or_plain(
        lambda: _tree(y, intervals, seed, True), lambda: _tree(y, intervals, seed, False),
        "wbs's kernels")
    if note:
        notes += (note,)
    y, res = y.view(), res.view()  # read-only views: the caller's array keeps its flags
    y.flags.writeable = False
    res.flags.writeable = False
    return Tree(raw.size, y, res, tuple(notes))


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    prep = ctx.prepared
    if not isinstance(prep, Tree) or prep.n != np.asarray(values).size:
        prep = prepare(values, params, ctx)
    ctx.check()
    res, notes = prep.res, prep.notes
    cps, ic, cand = choose(prep.y, res, params["kmax"], params["criterion"])
    strengths = np.abs(res[cps - 1, 3]) if cps.size else np.zeros(0)
    track = Track("|CUSUM| of each split", np.abs(res[:, 3]), x=res[:, 2].astype(np.float64))
    stats = {"criterion": params["criterion"], "ic": ic.tolist(), "candidates": cand.tolist(),
             "seed": params["seed"], "intervals": params["intervals"]}
    if params["kmax"] == DEFAULT_KMAX:
        notes = (*notes, f"at most {DEFAULT_KMAX} change points: wbs version 2's default "
                         "(docs/defaults.md); version 1 considered 50 (the preset tcpdbench, bit "
                         "for bit)")
    return DetectionResult("wbs", params, cps.astype(np.int64), tracks=(track,), stats=stats,
                           notes=notes, strengths=strengths, strength_label="|CUSUM|")


#: version 2's default Kmax (measured on the 350 JMH and 12 TCPD series, docs/defaults.md)
DEFAULT_KMAX = 4

WBS_PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec("scale", "str", "zscore", choices=SCALE_MODES, stage="prepare",
              help="Units the CUSUMs see: zscore (R's scale(), as TCPDBench), robust (median 0, "
                   "white-noise sd 1) or none (the raw values, as R wbs on its own). The "
                   "criteria assume nothing about units, so this changes little."),
    ParamSpec("intervals", "int", 5000, low=0, high=100_000, step=500, log=True, stage="prepare",
              help="Number M of random intervals (R wbs: 5000). More find short segments more "
                   "surely and cost time linearly; 0 is plain binary segmentation."),
    ParamSpec("seed", "int", 1, low=-2**31 + 1, high=2**31 - 1, step=1, stage="prepare",
              help="R's set.seed() value for the random intervals: the same seed gives R's own "
                   "change points."),
    ParamSpec("criterion", "str", "ssic", choices=CRITERIA,
              help="Information criterion choosing the number of changes: ssic (k (ln n)^1.01, "
                   "the paper's and TCPDBench's), bic (k ln n) or mbic (Zhang & Siegmund)."),
    ParamSpec("kmax", "int", DEFAULT_KMAX, low=1, high=100_000, step=1,
              help="Most change points considered (the candidates with the largest thresholds; "
                   "default 4, chosen by measurement, docs/defaults.md; TCPDBench: 50)."),
)


def _min_length(p: Params) -> int:
    return 4


def cost(n: int, p: Params) -> Cost:
    """Time and memory of a run (read by segview.core.limits): a CUSUM scan of every random interval
    (a third of the series long on average), the recursion (about ``n log n``) and the criterion
    (one pass over the series per candidate)."""
    m = int(p.get("intervals", 5000))
    k = int(p.get("kmax", 50))
    steps = 12.0 * m * n / 3.0 + 30.0 * n * max(math.log2(max(n, 2)), 1.0) + 40.0 * k * n
    return Cost.of_steps(steps, 48.0 * n + 40.0 * m,
                         f"wild binary segmentation scans {m} random intervals of a {n}-sample "
                         f"series: about {steps:.0e} steps")


register(DetectorSpec(
    cost=cost,
    name="wbs", label="Wild binary segmentation (WBS)", version="2", produces="change_points",
    params=WBS_PARAMS, run=_run, prepare=prepare, min_length=_min_length, affine_invariant=True,
    presets=(Preset("tcpdbench", {"scale": "zscore", "intervals": 5000, "criterion": "ssic",
                                  "kmax": 50},
                    help="TCPDBench default experiment: R scale(), wbs 1.4.1 integrated, M = 5000 "
                         "random intervals, Kmax 50, SSIC (TCPDBench sets no seed)"),),
    citation="Fryzlewicz (2014), Annals of Statistics 42(6):2243-2281; R wbs 1.4.1 (Baranowski & "
             "Fryzlewicz)",
    description="Changes in mean found by binary segmentation over the whole segment and M random "
                "sub-intervals (integrated WBS), the number chosen by the strengthened Schwarz "
                "criterion, on z-scored values, at most 4 (version 2; TCPDBench's 50 is the preset "
                "tcpdbench). Strength: each change's |CUSUM|. Known limits: random (the seed "
                "fixes it); assumes independent Gaussian noise, so autocorrelated or trending "
                "series get as many changes as Kmax allows.",
    enabled_by_default=False,
))
