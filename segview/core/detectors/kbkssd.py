"""KB-KSSD: kernel-based Kelly steady-state detection.

Paper: Beseda, Cortellessa, Di Pompeo, Traini, Tucci, "A Kernel-Based Approach for Accurate
Steady-State Detection in Performance Time Series". Reference behaviour: the authors' replication
package (``analysis-v2/steady_state_detection.py``) called the way its ``compare_methods.py`` calls it;
contract: ``docs/algorithms/kbkssd.md``. Pipeline: percentile outlier substitution (blocks), optional
median filter, a downward step found by a whole-series and a 30-tap step kernel plus median rules
(the warm-up end ``w``), Kelly's t-test fraction per non-overlapping block after ``w``, and the onset
as the start of the trailing run of block probabilities at or above the threshold.

Index convention: ``w`` (``stats["warmup_end"]``) is the *last sample before the drop*; the change
point reported is ``w + 1`` (first sample of the new segment). ``steady_start`` is the first steady
sample, ``None`` when the reference returns -1. Track ``large kernel response`` has ``N + 1``
entries, entry ``j`` belonging to candidate step ``j - 1``; ``short kernel response`` entry ``j``
belongs to candidate step ``j + h - 1``.

Faithful mode reproduces the reference bit for bit, but fast (O(N) instead of O(N^2)): the large
kernel response comes from a cumulative sum, and only the candidates within a rigorous rounding
margin of its minimum are re-evaluated the way ``np.convolve`` evaluates them (one BLAS dot product
each), so the argmin is the reference's. The displayed large-kernel track is the cumulative-sum
version (equal up to rounding).

Opt-in improvements (default off, reported in ``notes``): ``direction="both"`` also detects an upward
step (the warm-up ends after the last accepted shift in either direction), ``short_half`` changes
the short kernel's half-length (the paper's untuned 15).
"""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..errors import InputError, ParameterError
from ..lazy import lazy_module
from ..params import ParamSpec, Params
from ..registry import Cost, DetectorSpec, register
from ..result import DetectionResult, Track

if TYPE_CHECKING:
    from . import _kbkssd_kernels as _k
else:
    _k = lazy_module("._kbkssd_kernels", __package__)

log = logging.getLogger(__name__)

NAME = "kbkssd"
SHORT_HALF = 15  # the reference's hard-coded filter_len
BRANCHES = ("A-early-return", "A-choose-a-keep", "A-choose-a-reject", "A-choose-b-keep",
            "A-choose-b-fallback-to-a", "B-keep", "B-reject")
_MAX_EXACT = 64  # above this many near-minimal candidates, evaluate the whole convolution
_U = 2.0 ** -53

PARAMS = (
    ParamSpec("outliers_window_size", "int", 100, low=1, high=2000, step=1, unit="samples",
              stage="prepare", label="Outlier window",
              help="nominal block length of the outlier substitution; the series after sample 0 is "
                   "split into floor((N-1)/W) near-equal blocks of W to 2W-1 samples"),
    ParamSpec("percentile_upper", "float", 98.0, low=50.0, high=100.0, step=0.5, unit="%",
              stage="prepare",
              help="values above this percentile of their block are replaced by the block median "
                   "(paper RQ1: 98; grid and Sobol studies: 85)"),
    ParamSpec("percentile_lower", "float", 2.0, low=0.0, high=50.0, step=0.5, unit="%",
              stage="prepare",
              help="values below this percentile of their block are replaced by the block median"),
    ParamSpec("medfilt_kernel_size", "int", 1, low=1, high=1001, step=2, unit="samples",
              stage="prepare", label="Median filter kernel",
              help="odd kernel of the zero-padded median filter applied before step detection "
                   "only (1 = no filtering)"),
    ParamSpec("step_win_size", "int", 70, low=1, high=1000, step=1, unit="samples",
              stage="prepare", label="Step window",
              help="half-width of the median windows that judge the two step candidates"),
    ParamSpec("prob_win_size", "int", 500, low=3, high=5000, step=1, unit="samples",
              stage="prepare", label="Kelly block",
              help="length of the non-overlapping blocks of Kelly's steadiness test (a remainder "
                   "of 1-2 samples joins the previous block); also the onset resolution"),
    ParamSpec("t_crit", "float", 4.0, low=0.5, high=10.0, step=0.1, stage="prepare",
              label="Kelly t critical",
              help="a sample counts as steady when |x - mu| <= t_crit * sigma in its block"),
    ParamSpec("prob_threshold", "float", 0.95, low=0.0, high=1.0, step=0.01,
              label="Probability threshold",
              help="steady from the first sample after which every block probability reaches this"),
    ParamSpec("min_steady_length", "int", 1, low=0, high=100000, step=1, unit="samples",
              help="reject an onset when fewer than this + 1 samples follow it (reference rule)"),
    ParamSpec("direction", "str", "down", choices=("down", "both"), stage="prepare",
              help="down: only downward steps end the warm-up (paper); both: also upward steps, "
                   "the later accepted one wins (improvement)"),
    ParamSpec("short_half", "int", SHORT_HALF, low=2, high=500, step=1, unit="samples",
              stage="prepare", label="Short kernel half",
              help="half-length of the short step kernel; the paper's 15 puts the earliest "
                   "detectable step at 14 (other values are an improvement)"),
)


@dataclass(frozen=True)
class StepResult:
    """Outcome of step detection (kbkssd.md §5) on one centred series."""

    warmup_end: int
    large: int
    short: int
    branch: str
    r_large: NDArray[np.float64]
    r_short: NDArray[np.float64]


@dataclass(frozen=True)
class Prepared:
    """Steps 1-5: everything except the threshold decision (cached by the GUI)."""

    n: int
    substituted: NDArray[np.float64]
    smoothed: NDArray[np.float64]
    outliers: NDArray[np.int64]
    down: StepResult
    up: StepResult | None
    warmup_end: int
    prob: NDArray[np.float64]
    run_starts: NDArray[np.int64]
    run_values: NDArray[np.float64]
    notes: tuple[str, ...] = field(default=())


def min_length(params: Params) -> int:
    """Shortest accepted series: ``N - 1 >= W_o`` and ``N >= 2h`` (kbkssd.md §2)."""
    return max(int(params["outliers_window_size"]) + 1, 2 * int(params["short_half"]))


def _check(values: NDArray[np.float64], params: Params) -> NDArray[np.float64]:
    x = np.array(values, dtype=np.float64, copy=True)
    if x.ndim != 1:
        raise InputError("series", f"{NAME} needs a one-dimensional series, got shape {x.shape}")
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        raise InputError("series", f"{NAME}: non-finite value {x[bad[0]]!r} at index {bad[0]}")
    need = min_length(params)
    if x.size < need:
        raise InputError("series", f"{NAME} needs at least {need} points (outlier window "
                                   f"{params['outliers_window_size']} + 1 and twice the short kernel "
                                   f"half {params['short_half']}), got {x.size}")
    k = int(params["medfilt_kernel_size"])
    if k % 2 == 0:
        raise ParameterError("medfilt_kernel_size", f"must be odd, got {k}", NAME)
    return x


# --- step 1 and 2 ------------------------------------------------------------------------------

def substitute_outliers(x: NDArray[np.float64], window: int, p_hi: float, p_lo: float
                        ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """kbkssd.md §3: a substituted copy of ``x`` and the global indices replaced (never index 0)."""
    y, pos = _k.substitute_outliers(np.ascontiguousarray(x, dtype=np.float64), int(window),
                                    float(p_hi) / 100.0, float(p_lo) / 100.0, 1)
    return y, np.sort(pos)


def median_filter(y: NDArray[np.float64], kernel: int) -> NDArray[np.float64]:
    """kbkssd.md §4: ``scipy.signal.medfilt`` (zero padding); kernel 1 is the identity.

    ``medfilt`` is the middle-rank filter with zero padding; calling ``ndimage.rank_filter``
    directly gives the same order statistics without medfilt's warning for kernels longer than
    the series.
    """
    if kernel == 1:
        return y
    from scipy.ndimage import rank_filter

    return np.asarray(rank_filter(y, kernel // 2, size=kernel, mode="constant"),
                      dtype=np.float64)


# --- step 3 ------------------------------------------------------------------------------------

def _argmin_exact(approx: NDArray[np.float64], margin: float, evaluate: Callable[[int], float],
                  full: Callable[[], NDArray[np.float64]]) -> int:
    """First argmin of the exactly evaluated response, given an approximation within ``margin / 2``.

    The true minimiser (and every earlier tie) has an approximate value within ``margin`` of the
    approximate minimum, so only those candidates are evaluated with ``evaluate(j)``; when there
    are many (flat responses), ``full()`` computes the whole exact response instead.
    """
    cand = np.flatnonzero(approx <= approx.min() + margin)
    if cand.size == 1:
        return int(cand[0])
    if cand.size > _MAX_EXACT:
        return int(np.argmin(full()))
    vals = np.array([evaluate(int(j)) for j in cand])
    return int(cand[int(np.argmin(vals))])


def _margin(d: NDArray[np.float64]) -> float:
    # Prefix sums of N terms: error <= gamma_N * sum|d| each (about N u sum|d|); a response is at
    # most 4 of them plus 3 roundings, BLAS's dot of +-1 taps within gamma_N sum|d|: a generous
    # 2 * (8 + 2) = 20, rounded up to 32.
    return 32.0 * d.size * _U * float(np.sum(np.abs(d)))


def large_kernel(d: NDArray[np.float64], prefix: NDArray[np.float64] | None = None,
                 margin: float | None = None) -> tuple[int, NDArray[np.float64]]:
    """``argmin(np.convolve(d, [1]*N + [-1]*N, 'valid'))`` in O(N), and the response (rounded).

    ``R_L[j] = sum(d[j:]) - sum(d[:j])`` from prefix sums; the candidates near the minimum are
    re-evaluated exactly as ``np.convolve`` does: the kernel is longer, so it swaps the operands
    and output ``j`` is ``dot(k[j:j+N], d[::-1])`` (one BLAS ddot).
    """
    n = d.size
    if prefix is None:
        prefix = np.concatenate(([0.0], np.cumsum(d)))
    approx = prefix[-1] - 2.0 * prefix
    kernel = np.concatenate((np.ones(n), -np.ones(n)))
    d_rev = np.ascontiguousarray(d[::-1])
    j = _argmin_exact(approx, _margin(d) if margin is None else margin,
                      lambda j: np.dot(kernel[j:j + n], d_rev),
                      lambda: np.convolve(d, kernel, mode="valid"))
    return j, approx


def short_kernel(d: NDArray[np.float64], half: int, prefix: NDArray[np.float64] | None = None,
                 margin: float | None = None) -> tuple[int, NDArray[np.float64]]:
    """``argmin(np.convolve(d, [1]*h + [-1]*h, 'valid'))`` and the response (rounded for h > 8).

    numpy evaluates output ``j`` as ``dot(d[j:j+2h], kernel[::-1])`` (BLAS) for kernels of more
    than 11 taps and with its own loop for shorter ones; short kernels are convolved directly.
    """
    kernel = np.concatenate((np.ones(half), -np.ones(half)))
    if 2 * half <= 16:
        resp = np.convolve(d, kernel, mode="valid")
        return int(np.argmin(resp)), resp
    if prefix is None:
        prefix = np.concatenate(([0.0], np.cumsum(d)))
    n_out = d.size - 2 * half + 1
    mid = prefix[half:half + n_out]
    approx = (prefix[2 * half:] - mid) - (mid - prefix[:n_out])
    k_rev = kernel[::-1].copy()
    j = _argmin_exact(approx, _margin(d) if margin is None else margin,
                      lambda j: np.dot(d[j:j + 2 * half], k_rev),
                      lambda: np.convolve(d, kernel, mode="valid"))
    return j, approx


def detect_step(d: NDArray[np.float64], win: int, half: int) -> StepResult:
    """kbkssd.md §5 on the mean-centred series ``d``: the warm-up end (last pre-drop sample) or -1."""
    prefix = np.concatenate(([0.0], np.cumsum(d)))
    margin = _margin(d)
    j_large, r_large = large_kernel(d, prefix, margin)
    j_short, r_short = short_kernel(d, half, prefix, margin)
    large = j_large - 1
    short = j_short + half - 1
    w, code = _k.step_decision(d, large, short, int(win))
    return StepResult(int(w), large, short, BRANCHES[int(code)], r_large, r_short)


# --- steps 4 and 5 -----------------------------------------------------------------------------

def _kelly_rows(z: NDArray[np.float64], t_crit: float) -> NDArray[np.float64]:
    """Kelly's fraction for each row of ``z`` (all rows of length ``m >= 3``), as the reference."""
    m = z.shape[1]
    t = np.arange(1, m + 1, dtype=np.float64)
    slope = np.diff(z, axis=1).mean(axis=1)[:, None]
    mu = ((z.sum(axis=1) - (t * slope).sum(axis=1)) / m)[:, None]
    sd = np.sqrt(np.sum((z - slope * t - mu) ** 2, axis=1) / (m - 2))[:, None]
    return np.count_nonzero(np.abs(z - mu) <= t_crit * sd, axis=1) / m


def kelly(z: NDArray[np.float64], n: int, t_crit: float) -> NDArray[np.float64]:
    """kbkssd.md §6: per-sample steadiness probability over non-overlapping blocks of ``z``."""
    size = z.size
    width = min(n, size)
    if width < 3:
        return np.full(size, -1.0)
    full, rem = divmod(size, width)
    if 0 < rem < 3:  # glued to the previous block
        full -= 1
        rem += width
    out = np.empty(size)
    if full:
        p = _kelly_rows(z[:full * width].reshape(full, width), t_crit)
        out[:full * width] = np.repeat(p, width)
    if rem:
        out[full * width:] = _kelly_rows(z[full * width:].reshape(1, rem), t_crit)[0]
    return out


def probabilities(y: NDArray[np.float64], w: int, n: int, t_crit: float) -> NDArray[np.float64]:
    """kbkssd.md §7 step 5: ``P`` with ``P[0..w] = 0`` and Kelly blocks aligned at ``w + 1``."""
    if w < 0:
        return kelly(y, n, t_crit)
    prob = np.zeros(y.size)
    right = y[w + 1:]
    if right.size >= 2:
        prob[w + 1:] = kelly(right, n, t_crit)
    return prob


def compact(prob: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """kbkssd.md §7 step 6: starts and values of the maximal runs of equal values."""
    starts = np.concatenate(([0], np.flatnonzero(prob[1:] != prob[:-1]) + 1)).astype(np.int64)
    return starts, prob[starts]


def onset_from_runs(starts: NDArray[np.int64], values: NDArray[np.float64], n: int,
                    threshold: float, min_steady: int) -> int | None:
    """kbkssd.md §7 step 7: start of the trailing runs ``>= threshold``, or None."""
    low = np.flatnonzero(values < threshold)
    if low.size == 0:
        onset = 0
    elif low[-1] == values.size - 1:
        return None
    else:
        onset = int(starts[low[-1] + 1])
    if onset > n - 1 - min_steady:
        return None
    return onset


# --- detector ----------------------------------------------------------------------------------

def prepare(values: NDArray[np.float64], params: Params, ctx: RunContext) -> Prepared:
    """Steps 1-5 (everything that depends on the ``prepare``-stage parameters)."""
    x = _check(values, params)
    y, outliers = substitute_outliers(x, params["outliers_window_size"],
                                      params["percentile_upper"], params["percentile_lower"])
    ctx.check()
    s = median_filter(y, int(params["medfilt_kernel_size"]))
    d = s - np.mean(s)
    half = int(params["short_half"])
    down = detect_step(d, params["step_win_size"], half)
    notes = []
    if half != SHORT_HALF:
        notes.append(f"short kernel half-length {half} instead of the paper's {SHORT_HALF} "
                     "(improvement)")
    up = None
    w = down.warmup_end
    if params["direction"] == "both":
        up = detect_step(-d, params["step_win_size"], half)
        w = max(w, up.warmup_end)
        notes.append("direction=both: upward steps end the warm-up too (improvement); "
                     f"downward step {down.warmup_end}, upward step {up.warmup_end}")
    ctx.check()
    prob = probabilities(y, w, int(params["prob_win_size"]), float(params["t_crit"]))
    starts, vals = compact(prob)
    steps = (down,) if up is None else (down, up)
    for arr in (y, s, outliers, prob, starts, vals, *(a for st in steps
                                                       for a in (st.r_large, st.r_short))):
        arr.flags.writeable = False
    return Prepared(x.size, y, s, outliers, down, up, w, prob, starts, vals, tuple(notes))


def run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    """Steps 6-7 from ``ctx.prepared`` (computed here when absent)."""
    prep = ctx.prepared
    if not isinstance(prep, Prepared) or prep.n != np.asarray(values).size:
        prep = prepare(values, params, ctx)
    onset = onset_from_runs(prep.run_starts, prep.run_values, prep.n,
                            float(params["prob_threshold"]), int(params["min_steady_length"]))
    w = prep.warmup_end
    half = int(params["short_half"])
    low = float(min(0.0, prep.prob.min()))
    tracks = (
        Track("steadiness probability", prep.prob, y_range=(-1.0 if low < 0 else 0.0, 1.0),
              threshold_param="prob_threshold", kind="step"),
        Track("smoothed series", prep.smoothed),
        Track("large kernel response", prep.down.r_large, x0=-1),
        Track("short kernel response", prep.down.r_short, x0=half - 1),
    )
    stats: dict[str, Any] = {
        "warmup_end": w, "large_candidate": prep.down.large, "short_candidate": prep.down.short,
        "branch": prep.down.branch, "down_warmup_end": prep.down.warmup_end,
        "n_outliers": int(prep.outliers.size), "outlier_indices": prep.outliers,
        "n_runs": int(prep.run_starts.size),
    }
    if prep.up is not None:
        stats.update(up_warmup_end=prep.up.warmup_end, up_branch=prep.up.branch,
                     up_large_candidate=prep.up.large, up_short_candidate=prep.up.short)
    cps = np.array([w + 1] if w >= 0 else [], dtype=np.int64)
    return DetectionResult(NAME, params, cps, onset, tracks, stats, prep.notes)


def cost(n: int, p: Params) -> Cost:
    """Time and memory of one run (read by segview.core.limits): sliding windows (outliers,
    step test, probability) over the series, linear in the length times the window sizes."""
    windows = int(p["outliers_window_size"]) + int(p["step_win_size"]) + int(p["prob_win_size"])
    return Cost.of_steps(float(n) * windows, 64.0 * n)


SPEC = register(DetectorSpec(
    cost=cost,
    name=NAME,
    label="KB-KSSD (kernel-based Kelly)",
    version="1",
    produces="onset",
    params=PARAMS,
    run=run,
    prepare=prepare,
    min_length=min_length,
    affine_invariant=False,
    citation="Beseda, Cortellessa, Di Pompeo, Traini, Tucci: A Kernel-Based Approach for Accurate "
             "Steady-State Detection in Performance Time Series; replication package "
             "MartinBeseda/steady-state (analysis-v2)",
    description="Outlier substitution, a downward warm-up step from two step kernels and median "
                "rules, then Kelly's t-test fraction per block after the step; steady from the "
                "trailing blocks at or above the probability threshold. Default: the authors' "
                "code (onsets equal to its reference on 350/350 JMH series). Known limits: only a "
                "downward warm-up step is looked for (direction=both adds upward ones); with "
                "min_steady_length 1 it calls most series steady, including 102 of the 104 JMH "
                "series the judges call never steady.",
))
