"""CP-SSD: change-point based steady-state detection (the baseline of the KB-KSSD paper).

CP-SSD is reference [7] of the seed paper (002): Traini, Cortellessa, Di Pompeo, Tucci, "Towards
effective assessment of steady state performance in Java software: Are we there yet?" (EMSE 2023).
The reference behaviour is the published output of its replication package
(``SEALABQualityGroup/steady-state``), which runs R ``changepoint`` 2.2.2 (PELT, Killick, Fearnhead &
Eckley, JASA 2012; CROPS, Haynes, Eckley & Fearnhead, JCGS 2017) and ``kneed`` 0.7.0. This module
re-implements that pipeline bit for bit (spec ``docs/algorithms/cpssd.md``):

1. outlier filter: windows of 200 iterations after a warm-up ``skip``, median +- 3 (P99 - P1) (§2);
2. Normal mean-and-variance cost on 80-bit prefix sums, changepoint 2.2.2's PELT, minseglen 2 (§3-4);
3. CROPS over ``[4 ln n, 100000 ln n]`` with the package's bookkeeping quirks (§5);
4. penalty = knee of the CROPS curve by kneed 0.7.0's rules, else ``15 ln n`` (§6);
5. final PELT, change points mapped back to raw indices through the kept indices (§7).
   Filtered series longer than ``exact_up_to`` (10,000) points search change points on a grid of
   block boundaries instead, polished at full resolution (§11, ``long_series``; noted in ``notes``);
6. backward walk: the last segment whose ratio-of-means bootstrap CI against the final segment lies
   beyond +-5 % ends the transient (§8); steady iff that index ``s <= N - 501`` (§9).

Index conventions:

* ``change_points`` are segview's: the 0-based raw index of the first sample of each new segment,
  i.e. ``c_j + 1`` for each real change point ``c_j`` of §7. ``stats["pelt_cpts"]`` keeps SEALAB's
  format (raw index of the *last* sample of each segment, including the final one).
* ``steady_start`` with ``onset_convention="published"`` (default) is ``s`` itself, the last index of
  the last segment that differs from the final one (0 when none differs); this is the value published
  as ``cpssd_published``. ``"first_steady"`` reports the first steady sample instead: ``s + 1``, or 0
  when no segment differs. ``None`` means never steady.

The bootstrap is seeded (``seed``; the original was unseeded), so borderline tests (CI bound within
~0.001 of 0.95 / 1.05) can differ from the published run. Opt-in deviations from the original
(``constant_guard``, ``threshold_rule="proportional"``, ``knee_method="kneed_library"``) are
reported in ``notes``.
"""
from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from ..context import RunContext
from ..errors import InputError, ParameterError
from ..lazy import lazy_module, lazy_njit
from ..params import ParamSpec, Params
from ..registry import Cost, DetectorSpec, register
from ..result import DetectionResult, Track
from . import _crops, _knee
from ._cpssd_bootstrap import DEFAULT_SEED, classify_backward

if TYPE_CHECKING:
    from . import _pelt_r
else:
    _pelt_r = lazy_module("._pelt_r", __package__)

log = logging.getLogger(__name__)

OUTLIER_WINDOW = 200
MINSEGLEN = 2
_BLOCK = 20000  # windows per block of the outlier filter
#: Longest filtered series whose change points are searched exactly by default (§11).
EXACT_UP_TO = 10_000
#: Most blocks of the grid search on longer series: a 36 MB cost table, ~0.1 s per PELT run (§11).
GRID_POINTS = 3000

PARAMS = (
    ParamSpec("penalty_min_factor", "float", 4.0, low=1e-6, high=1e9, log=True, stage="prepare",
              help="CROPS searches penalties from this factor times ln n"),
    ParamSpec("penalty_max_factor", "float", 100000.0, low=1e-6, high=1e9, log=True,
              stage="prepare", help="CROPS searches penalties up to this factor times ln n"),
    ParamSpec("fallback_penalty_factor", "float", 15.0, low=1e-6, high=1e9, log=True,
              stage="prepare", help="penalty factor (times ln n) used when no knee is found"),
    ParamSpec("knee_method", "str", "kneed070", choices=("kneed070", "kneed_library"),
              stage="prepare", help="kneed070: kneed 0.7.0's rules (published); kneed_library: "
                                    "the installed kneed package"),
    ParamSpec("constant_guard", "bool", False, stage="prepare",
              help="treat a constant filtered series as having no change points (not in the "
                   "original, which finds spurious ones)"),
    ParamSpec("seed", "int", DEFAULT_SEED, low=0, high=2**32 - 1,
              help="global seed of the bootstrap random streams"),
    ParamSpec("bootstrap_resamples", "int", 10000, low=100, high=100000, step=100,
              help="bootstrap resamples per segment test"),
    ParamSpec("effect_size", "float", 0.05, low=0.0, high=0.99, step=0.01,
              help="segments differ when the CI of the mean ratio lies beyond 1 -/+ this"),
    ParamSpec("alpha", "float", 0.05, low=0.0001, high=0.5, step=0.01,
              help="significance level: the bootstrap CI has coverage 1 - alpha"),
    ParamSpec("min_steady_tail", "int", 500, low=0, high=10**9, unit="samples",
              help="steady only if at least this many final samples follow the onset"),
    ParamSpec("threshold_rule", "str", "absolute", choices=("absolute", "proportional"),
              help="absolute: s <= N - 1 - tail (published for N = 3000); proportional: s <= "
                   "(2999 - tail) * N / 3000"),
    ParamSpec("threads", "int", 1, low=1, high=64,
              help="threads for the independent parts (cost table columns, the penalties of a "
                   "CROPS round, the two resampled segments of a test): less wall time, same "
                   "results"),
    ParamSpec("long_series", "str", "grid", choices=("grid", "exact"), stage="prepare",
              help="grid: above exact_up_to filtered points, change points are searched on a grid "
                   "of grid_points block boundaries, then refined at full resolution, and "
                   "segments longer than exact_up_to get normal bootstrap means (stated "
                   "approximations, linear time); exact: the paper's search and resampling at "
                   "every length (quadratic: minutes past 3e4 points)"),
    ParamSpec("exact_up_to", "int", EXACT_UP_TO, low=16, high=10**9, unit="samples",
              stage="prepare", help="longest filtered series searched exactly (the paper's forks "
                                    "have 3,000 iterations)"),
    ParamSpec("grid_points", "int", GRID_POINTS, low=100, high=GRID_POINTS, stage="prepare",
              help="blocks of the grid search on longer series (more: closer to exact, slower)"),
    ParamSpec("onset_convention", "str", "published", choices=("published", "first_steady"),
              help="published: last index of the last differing segment (cpssd_published); "
                   "first_steady: the next index, the first steady sample"),
)


@dataclass(frozen=True)
class CpssdPrepared:
    """The deterministic change-point stage (filter, CROPS, knee, final PELT) of one series."""

    kept: NDArray[np.int64]
    outlier_mask: NDArray[np.bool_]
    skip: int
    pelt_cpts: NDArray[np.int64]          # SEALAB format: raw last-of-segment indices incl. last
    penalty: float | None
    knee: str
    crops_penalties: NDArray[np.float64]
    crops_ncpts: NDArray[np.int64]
    crops_runs: int
    notes: tuple[str, ...] = field(default=())
    grid_block: int = 0                   # 0: exact search; else the grid's largest block (§11)
    refined_moves: int = 0                # final change points the polish left off the grid


def warmup_skip(y: NDArray[np.float64], window: int = OUTLIER_WINDOW) -> int | None:
    """``ceil(window / ln(1 + ceil(0.1 / mean(y))))`` (cpssd.md §2.1); None when it is undefined."""
    with np.errstate(all="ignore"):
        noops = np.ceil(0.1 / np.mean(y))
        skip = np.ceil(window / np.log1p(noops))
    if not np.isfinite(skip) or skip < 0:
        return None
    return int(skip)


@lazy_njit(nogil=True, cache=True)
def _window_order_stats(y, n_win, window, ranks, out):  # pragma: no cover (compiled)
    """``out[w, j]`` = the ``ranks[j]``-th smallest value of ``y[w : w + window]``, ``w < n_win``.

    One sorted copy of the window slides along ``y``: the value leaving is found by bisection and
    removed, the value entering is inserted in place (O(window) per step instead of a partition of
    every window). Order statistics are values of ``y``, so they are exactly what a partition finds.
    ``y`` must be free of NaN.
    """
    buf = np.sort(y[:window])
    for w in range(n_win):
        if w > 0:
            old = y[w - 1]
            lo = 0
            hi = window - 1
            while lo < hi:                      # leftmost position holding a value >= old
                mid = (lo + hi) // 2
                if buf[mid] < old:
                    lo = mid + 1
                else:
                    hi = mid
            for i in range(lo, window - 1):
                buf[i] = buf[i + 1]
            new = y[w + window - 1]
            i = window - 1
            while i > 0 and buf[i - 1] > new:
                buf[i] = buf[i - 1]
                i -= 1
            buf[i] = new
        for j in range(ranks.size):
            out[w, j] = buf[ranks[j]]


def _quantile_linear(lower: NDArray[np.float64], upper: NDArray[np.float64], n: int, q: float
                     ) -> tuple[int, NDArray[np.float64]]:
    """numpy's default (``"linear"``) quantile ``q`` of samples of size ``n`` from the two order
    statistics around it: returns the lower rank and, given those statistics, the quantile values.

    Mirrors numpy 2.x's ``_quantile``: virtual index ``(n - 1) q``, ``gamma`` its fractional part,
    ``_lerp`` (``a + (b - a) gamma``, or ``b - (b - a)(1 - gamma)`` when ``gamma >= 0.5``).
    """
    virtual = float(n - 1) * q
    prev = math.floor(virtual)
    gamma = virtual - prev
    diff = upper - lower
    if gamma >= 0.5:
        return prev, upper - diff * (1.0 - gamma)
    return prev, lower + diff * gamma


def _lower_rank(n: int, q: float) -> int:
    return min(math.floor(float(n - 1) * q), n - 2)


def outlier_bands(y: NDArray[np.float64], window: int = OUTLIER_WINDOW
                  ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(hi, lo)`` = ``median +- 3 (P99 - P1)`` of every complete window of ``y`` (numpy's
    ``median`` and default ``quantile``, bit for bit), from a sliding sorted window."""
    n_win = y.size - window + 1
    if not np.isfinite(y).all():
        return _outlier_bands_numpy(y, window)
    r1, r99 = _lower_rank(window, 0.01), _lower_rank(window, 0.99)
    mid = window // 2
    ranks = np.array([r1, r1 + 1, r99, r99 + 1, mid - 1 if window % 2 == 0 else mid, mid],
                     dtype=np.int64)
    st = np.empty((n_win, ranks.size))
    _window_order_stats(np.ascontiguousarray(y, dtype=np.float64), n_win, window, ranks, st)
    _, p1 = _quantile_linear(st[:, 0], st[:, 1], window, 0.01)
    _, p99 = _quantile_linear(st[:, 2], st[:, 3], window, 0.99)
    med = (st[:, 4] + st[:, 5]) / 2.0 if window % 2 == 0 else st[:, 5]   # numpy's mean of the middle
    return med + 3 * (p99 - p1), med - 3 * (p99 - p1)


def _outlier_bands_numpy(y: NDArray[np.float64], window: int = OUTLIER_WINDOW
                         ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Reference for :func:`outlier_bands`: numpy's median and quantile per block of windows."""
    n_win = y.size - window + 1
    hi = np.empty(n_win)
    lo = np.empty(n_win)
    for b0 in range(0, n_win, _BLOCK):
        b1 = min(n_win, b0 + _BLOCK)
        win = sliding_window_view(y[b0: b1 + window - 1], window)
        med = np.median(win, axis=1)
        p1, p99 = np.quantile(win, [0.01, 0.99], axis=1)
        hi[b0:b1] = med + 3 * (p99 - p1)
        lo[b0:b1] = med - 3 * (p99 - p1)
    return hi, lo


def outlier_mask(y: NDArray[np.float64], skip: int, window: int = OUTLIER_WINDOW,
                 reference: bool = False) -> NDArray[np.bool_]:
    """Outliers of SEALAB's sliding-window filter (cpssd.md §2), vectorised as a sliding min/max.

    Windows start at ``skip, skip+1, ..., N-window``; a point is an outlier when it lies strictly
    outside ``median +- 3 (P99 - P1)`` of at least one window holding it. ``reference=True`` takes
    the bands from numpy per window (benchmarks; same result).
    """
    n = y.size
    mask = np.zeros(n, dtype=bool)
    n_win = n - window + 1 - skip
    if n_win <= 0:
        return mask
    hi, lo = (_outlier_bands_numpy if reference else outlier_bands)(y[skip:], window)
    pad = window - 1
    hi_min = sliding_window_view(np.concatenate([np.full(pad, np.inf), hi, np.full(pad, np.inf)]),
                                 window).min(axis=1)
    lo_max = sliding_window_view(np.concatenate([np.full(pad, -np.inf), lo, np.full(pad, -np.inf)]),
                                 window).max(axis=1)
    tail = y[skip:]
    mask[skip:] = (tail > hi_min) | (tail < lo_max)
    return mask


PeltRun = tuple[NDArray[np.int64], float]


def pelt_runners(s1: NDArray[np.float64], s2: NDArray[np.float64], threads: int = 1,
                 grid: NDArray[np.int64] | None = None
                 ) -> tuple[Callable[[float], PeltRun], Callable[[list[float]], list[PeltRun]] | None]:
    """The PELT runs CROPS and the final segmentation use: ``pelt(beta)`` and ``pelt_many(betas)``
    (None when the cost table is too large to build), both reading one shared cost table and
    skipping penalties so large that one segment is provably the answer (same results).

    ``grid``: prefix positions from :func:`_pelt_r.grid_positions` (§11): PELT then places change
    points on them only (the table holds the costs between grid positions, a block is the least
    segment); each run's change points are then polished at full resolution
    (:func:`_pelt_r.refine_change_points` with its penalty, within +-1 block) and the run returns
    them as series positions with their full-resolution cost."""
    costs, vmin = None, math.nan
    minseg = MINSEGLEN
    f1, f2 = s1, s2
    block = 0
    if grid is not None:
        costs, vmin = _pelt_r.grid_costs_and_floor(s1, s2, grid, threads)
        s1, s2 = s1[grid], s2[grid]       # only their length is read with a table
        minseg = 1
        block = int(np.diff(grid).max())
    elif _pelt_r.cost_table_fits(s1.size - 1):
        costs, vmin = _pelt_r.segment_costs_and_floor(s1, s2, threads)

    def to_series(run: PeltRun, beta: float) -> PeltRun:
        if grid is None or run[0].size < 2:
            return run if grid is None else (grid[run[0]], run[1])
        ends = _pelt_r.refine_change_points(f1, f2, grid[run[0]], block, MINSEGLEN, beta)
        return ends, _pelt_r.segmentation_cost(f1, f2, ends)

    def known(beta: float) -> PeltRun | None:
        return None if costs is None else _pelt_r.one_segment_if_certain(costs, vmin, beta,
                                                                          minseg, grid)

    nan_free = not math.isnan(vmin)   # the table's floor is NaN iff a cost is

    def pelt(beta: float) -> PeltRun:
        res = known(beta)
        return to_series(res if res is not None else
                         _pelt_r.pelt_r_meanvar(s1, s2, beta, minseg, costs, nan_free), beta)

    if costs is None:
        return pelt, None
    table = costs   # a table from here on, for pelt_many below

    def pelt_many(betas: list[float]) -> list[PeltRun]:
        done = {b: r for b in betas if (r := known(b)) is not None}
        todo = [b for b in betas if b not in done]
        ran = _pelt_r.pelt_r_meanvar_many(s1, s2, todo, minseg, table, threads, nan_free)
        done.update(zip(todo, ran))
        return [to_series(done[b], b) for b in betas]

    return pelt, pelt_many


def _prepare(values: NDArray[np.float64], params: Params, ctx: RunContext) -> CpssdPrepared:
    y = np.asarray(values, dtype=np.float64)
    notes: list[str] = []
    if params["penalty_min_factor"] >= params["penalty_max_factor"]:
        raise ParameterError("penalty_min_factor", "must be below penalty_max_factor", "cpssd")
    skip = warmup_skip(y)
    if skip is None:
        notes.append("warm-up skip undefined (mean <= 0): outlier filter not applied")
        mask = np.zeros(y.size, dtype=bool)
        skip = y.size
    else:
        mask = outlier_mask(y, skip)
    kept = np.flatnonzero(~mask).astype(np.int64)
    x = y[kept]
    n = x.size
    empty_f, empty_i = np.zeros(0), np.zeros(0, dtype=np.int64)
    last = kept[-1:]

    def trivial(knee: str, note: str) -> CpssdPrepared:
        notes.append(note)
        return CpssdPrepared(kept, mask, skip, last, None, knee, empty_f, empty_i, 0, tuple(notes))

    if n < 2 * MINSEGLEN:
        return trivial("too_short", f"filtered series has {n} < {2 * MINSEGLEN} points: no change "
                                    "points (R stops with an error here)")
    if params["constant_guard"] and x.max() == x.min():
        return trivial("constant", "constant_guard: constant filtered series, no change points "
                                   "(deviation from the original)")
    ctx.check()
    s1, s2 = _pelt_r.prefix_sums_r(x)
    ln_n = math.log(n)
    threads = params["threads"]
    grid = None
    if params["long_series"] == "grid" and n > params["exact_up_to"]:
        grid = _pelt_r.grid_positions(n, params["grid_points"], MINSEGLEN)
        block = int(np.diff(grid).max())
        notes.append(f"long series ({n} filtered points > exact_up_to={params['exact_up_to']}): "
                     f"change points searched on a grid of {grid.size - 1} blocks of <= {block} "
                     f"points, then polished at full resolution within +-{block} points (close "
                     "pairs merged, each moved to its best split): an approximation of the "
                     "paper's exact search, which long_series='exact' runs (cpssd.md §11)")
    pelt, pelt_many = pelt_runners(s1, s2, threads, grid)

    try:
        crops = _crops.crops_r(pelt, params["penalty_min_factor"] * ln_n,
                               params["penalty_max_factor"] * ln_n, ctx,
                               pelt_many=pelt_many)
    except _crops.CropsLimitError as err:
        raise InputError("series", f"cpssd: {err}") from None
    try:
        pens, ncpts = _crops.sealab_penalties_ncpts(crops)
    except ValueError as err:  # SEALAB asserts here; never seen on real data
        notes.append(f"{err}: fallback penalty used")
        pens, ncpts = crops.pen_value_full, crops.ncpts
        penalty, knee = params["fallback_penalty_factor"] * ln_n, "length_mismatch"
    else:
        penalty, knee = _knee.choose_penalty(pens, ncpts, n, params["fallback_penalty_factor"],
                                             params["knee_method"])
    if params["knee_method"] != "kneed070":
        notes.append("knee_method=kneed_library: installed kneed, not kneed 0.7.0 (may differ)")
    ctx.check()
    cpts_r, _ = pelt(penalty)
    block = moved = 0
    if grid is not None:
        block = int(np.diff(grid).max())
        moved = int(np.count_nonzero(~np.isin(cpts_r, grid)))
    return CpssdPrepared(kept, mask, skip, kept[cpts_r - 1], float(penalty), knee, pens,
                         ncpts, crops.runs, tuple(notes), block, moved)


def _is_steady(s: int, n_raw: int, params: Params) -> bool:
    tail = params["min_steady_tail"]
    if params["threshold_rule"] == "proportional":
        return s * 3000 <= (2999 - tail) * n_raw
    return s <= n_raw - 1 - tail


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    prep = ctx.prepared
    if not isinstance(prep, CpssdPrepared):
        prep = _prepare(values, params, ctx)
    y = np.asarray(values, dtype=np.float64)
    real = prep.pelt_cpts[:-1]
    ctx.progress(0.95, "bootstrap classification")
    normal_above = params["exact_up_to"] if params["long_series"] == "grid" else None
    s, tests = classify_backward(y, real, params["seed"], params["bootstrap_resamples"],
                                 params["alpha"], params["effect_size"], ctx,
                                 threads=params["threads"], normal_above=normal_above)
    notes = list(prep.notes)
    last_len = y.size - (int(real[-1]) + 1) if real.size else 0
    normal_tests = [t for t in tests if normal_above is not None
                    and max(t.stop - t.start, last_len) > normal_above]
    if normal_tests:
        notes.append(f"long segments (over exact_up_to={params['exact_up_to']} samples): "
                     f"{len(normal_tests)} of {len(tests)} bootstrap tests drew the resampled "
                     "means of those segments from the normal law with the bootstrap's mean and "
                     "variance instead of resampling (cpssd.md §11; long_series=exact resamples)")
    if params["threshold_rule"] != "absolute":
        notes.append("threshold_rule=proportional (the original uses the absolute rule)")
    steady = _is_steady(s, y.size, params)
    onset: int | None = None
    if steady:
        onset = s if params["onset_convention"] == "published" else (s + 1 if tests and
                                                                      tests[-1].different else 0)
    deciding = tests[-1] if tests and tests[-1].different else None
    stats = {
        "penalty": prep.penalty,
        "knee": prep.knee,
        "crops_penalties": prep.crops_penalties,
        "crops_ncpts": prep.crops_ncpts,
        "crops_runs": prep.crops_runs,
        "pelt_cpts": prep.pelt_cpts,
        "last_differing_index": s,
        "deciding_ci": None if deciding is None else (deciding.lo, deciding.hi),
        "tests": tuple((t.start, t.stop, t.lo, t.hi, t.different) for t in tests),
        "n_outliers": int(prep.outlier_mask.sum()),
        "warmup_skip": prep.skip,
        "change_point_search": "grid" if prep.grid_block else "exact",
        "grid_block": prep.grid_block,
        "grid_refined_moves": prep.refined_moves,
    }
    tracks = (
        Track("filtered series", y[prep.kept], x=prep.kept.astype(np.float64)),
        Track("outlier mask", prep.outlier_mask.astype(np.float64), y_range=(0.0, 1.0),
              kind="step"),
    )
    return DetectionResult("cpssd", params, real + 1, onset, tracks, stats, tuple(notes))


def cost(n: int, p: Params) -> tuple[Cost, Cost]:
    """Time and memory of one run (read by segview.core.limits): the bootstrap resamples the
    whole series ``bootstrap_resamples`` times (measured: 100,000 resamples of 3,000 samples in
    1.6 s of CPU); a few arrays of the series' length. The change points come from CROPS, a
    dozen or more PELT runs of R changepoint's Normal mean/variance cost whose pruning keeps most
    candidates on benchmark series: quadratic, about 10 n^2 steps (measured 8-12 s at 1e4 and
    over a minute at 3e4, tests/benchmarks/bench_scaling.py). Past ``exact_up_to`` points the
    grid search (§11) replaces it (``long_series="grid"``, the default): the same runs on at most
    ``grid_points`` blocks, about 10 G^2 steps and a G^2/2 cost table, plus the outlier filter's
    sliding window, about 60 n steps (measured: the whole change-point stage 0.3 s at 1e5 and
    0.7 s at 1e6)."""
    work = float(p["bootstrap_resamples"]) * n
    if p["long_series"] == "grid" and n > p["exact_up_to"]:
        # segments longer than exact_up_to draw normal means: at most two resampled segments of
        # exact_up_to samples per test, a handful of tests
        work = float(p["bootstrap_resamples"]) * min(n, 4 * int(p["exact_up_to"]))
        g = float(min(p["grid_points"], n // MINSEGLEN))
        steps = 10.0 * g * g + 60.0 * n
        search = Cost.of_steps(steps, 64.0 * n + 4.0 * g * g,
                               f"the CROPS penalty search on a grid of {g:.0f} blocks of {n} "
                               f"samples is about {steps / 1e8 / 60:.0f} minutes")
    else:
        crops = 10.0 * float(n) * n
        search = Cost.of_steps(crops, 64.0 * n,
                               f"the CROPS penalty search is quadratic in the length: {n} samples "
                               f"are about {crops / 1e8 / 60:.0f} minutes of PELT runs")
    return (Cost.of_steps(work, 64.0 * n,
                          f"bootstrap_resamples={p['bootstrap_resamples']} on {n} samples is "
                          f"about {work:.0e} resampled values (minutes or more)"),
            search)


SPEC = register(DetectorSpec(
    cost=cost,
    name="cpssd",
    label="CP-SSD (PELT + CROPS)",
    version="1.1",
    produces="onset",
    params=PARAMS,
    run=_run,
    prepare=_prepare,
    min_length=1,
    affine_invariant=False,
    citation="Traini, Cortellessa, Di Pompeo, Tucci: Towards effective assessment of steady state "
             "performance in Java software: Are we there yet? EMSE 28 (2023); R changepoint 2.2.2",
    description="PELT change points (Normal mean/variance cost, CROPS + knee penalty) after an "
                "outlier filter; the last segment differing from the final one by a bootstrap "
                "ratio-of-means test ends the warm-up. Default: the paper's configuration "
                "(published steady/unsteady verdicts 350/350, onsets 348/350 on the JMH data; the "
                "other two sit within 0.0015 of the bootstrap's 0.95 cut). Known limits: a series "
                "whose last segment is shorter than min_steady_tail is never steady; the penalty "
                "range assumes series of JMH's kind (thousands of iterations); past 10,000 "
                "filtered points change points come from a grid search polished at full "
                "resolution (an approximation, said in the notes; long_series=exact for the "
                "quadratic search).",
    slow=True,
))
