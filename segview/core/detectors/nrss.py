"""nRSS segmentation detector: Extra-P's "Segmented" modeler.

Paper: seed 000 (Ilyas, Calotoiu & Wolf, "Off-road performance modeling - how to deal with segmented
data", Euro-Par 2017): sliding subsets of 5 points, a PMNF model per subset, the normalised residual sum of
squares (nRSS) and the relative nRSS, a 0/1 heterogeneity pattern and a change rule. Reference
behaviour: Extra-P 4.2.5 ``SegmentedModeler`` (spec ``docs/algorithms/nrss.md``), reimplemented here.

Index convention: a change point is the 0-based index of the first sample of the new segment. When
the two segments share a point (pattern with 3 ones), that shared point starts the second segment.
If the series' x values are not sorted, points are sorted by x (stable) first and indices refer to
that order. ``series.x`` gives the parameter values (processes, sizes); without x, x = 1..n.

Modes:

* ``mode="points"`` (default; nrss.md §1-§3, §9.1): one change at most, both segment models reported as
  human-readable formulas in ``stats["models"]``.
* ``mode="scan"`` (nrss.md §9.2; our extension, not in the paper or Extra-P): long time series, windows
  with local x = 1..k, optional binning, every isolated run of 3 or 4 heterogeneous windows becomes a
  change point. Its thresholds are the paper's and untuned on long series.

``compat="paper"`` (default since version 2, preset ``faithful``) follows the paper's rule (in-sample
nRSS, relative nRSS only used for ``0.1 <= e <= 0.5``, bit for ``e > 0.1``, no wrap of the locating
subset) with the paper's hypothesis space (one term). ``compat="extrap"`` (preset ``extrap``; the
default of version 1) follows the Extra-P 4.2.5 code, whose unrestricted relative-nRSS rule flags
4.7-10.7 % of unsegmented sets at 2-5 % noise (issue 16) where the paper reports under 1 %.
"""
from __future__ import annotations

import logging
import math
from typing import TypedDict

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..errors import InputError, ParameterError
from ..model import Series
from ..params import ParamSpec, Params, Preset
from ..registry import Cost, DetectorSpec, gib, register
from ..result import DetectionResult, Track
from . import _pmnf

log = logging.getLogger(__name__)

PARAMS = (
    ParamSpec("mode", "str", "points", choices=("points", "scan"),
              help="points: one change in a (parameter, metric) experiment (Extra-P); scan: several "
                   "changes in a long time series by sliding windows with local x (our extension)"),
    ParamSpec("compat", "str", "paper", choices=("paper", "extrap"),
              help="paper (default, the faithful preset): the paper's in-sample nRSS, relative nRSS "
                   "only for subsets with t_nrss <= nRSS <= theta, bit for nRSS > t_nrss, one-term "
                   "hypothesis space; extrap: Extra-P 4.2.5's code (LOO nRSS, relative nRSS "
                   "everywhere: flags 5-28 % of unsegmented sets in the paper's synthetic study, "
                   "docs/nrss.md)"),
    ParamSpec("window", "int", 5, low=3, high=50, label="Subset size",
              help="points per sliding subset (Extra-P min_measurement_points)"),
    ParamSpec("theta", "float", 0.5, low=0.0, high=100.0, step=0.01,
              help="a subset nRSS above this marks the data as segmented"),
    ParamSpec("t_nrss", "float", 0.1, low=0.0, high=100.0, step=0.01, label="nRSS threshold",
              help="a subset nRSS at or above this sets its heterogeneity bit"),
    ParamSpec("t_eps", "float", 4.0, low=0.0, high=1e6, step=0.1, label="Relative nRSS threshold",
              help="a relative nRSS above this marks a heterogeneous subset (and segmented data)"),
    ParamSpec("eta", "float", 1e-16, low=0.0, high=1.0, log=True,
              help="added to the previous nRSS before dividing (relative nRSS)"),
    ParamSpec("max_changes", "int", 1, low=1, high=100, label="Max changes",
              help="points mode: 1 = one change (paper and Extra-P); more = the paper's recursive "
                   "extension, each segment of at least 2*window-1 points searched again"),
    ParamSpec("parameter", "int", 0, low=0, high=3,
              help="experiments with several parameters: the parameter (0-based) along which each "
                   "line of points (the others fixed) is analysed; Extra-P's Segmented modeler "
                   "takes one parameter only"),
    ParamSpec("bin", "int", 1, low=1, high=100000, unit="samples",
              help="scan mode: aggregate this many samples per point before the windows"),
    ParamSpec("measure", "str", "mean", choices=("mean", "median"),
              help="how repetitions at the same x (points mode) or samples of a bin (scan) are "
                   "aggregated"),
    ParamSpec("scale", "str", "mean", choices=("mean", "absmean"),
              help="scan mode: divide the RSS by the window mean (Extra-P) or by mean |y| "
                   "(non-Extra-P variant for series near zero)"),
)


class _Fit(TypedDict):
    segmented: bool
    model: _pmnf.Hypothesis | None
    e: NDArray[np.float64]
    eps: NDArray[np.float64]
    pattern: NDArray[np.int64]
    subset_models: list[_pmnf.Hypothesis]
    notes: list[str]


class SegmentFit(_Fit, total=False):
    """:func:`segment_points`' plain results: the subsets' nRSS ``e``, relative nRSS ``eps``, 0/1
    ``pattern`` and models; ``model`` (one model for all points) when not segmented; when
    segmented, the change (``cp``, ``change_x``, ``shared``), ``segments`` (index ranges) and
    their ``models``."""

    shared: bool
    cp: int
    change_x: list[float]
    segments: list[tuple[int, int]]
    models: list[_pmnf.Hypothesis]


class Change(TypedDict):
    """One change of :func:`segment_recursive` (indices into the sorted points)."""

    cp: int
    change_x: list[float]
    shared: bool


def _relative(e: NDArray[np.float64], eta: float) -> NDArray[np.float64]:
    eps = np.full(e.size, -np.inf)
    with np.errstate(all="ignore"):
        eps[1:] = e[1:] / (e[:-1] + eta)
    return eps


def _decide(e: NDArray[np.float64], eps: NDArray[np.float64], p: Params
            ) -> tuple[bool, NDArray[np.int64]]:
    """Segmented flag and 0/1 pattern (nrss.md §3 steps 5-6; paper rule with compat="paper")."""
    theta, t_nrss, t_eps = p["theta"], p["t_nrss"], p["t_eps"]
    with np.errstate(invalid="ignore"):
        if p["compat"] == "paper":
            in_band = (e >= t_nrss) & (e <= theta)
            rel = in_band & (eps > t_eps)
            segmented = bool(np.any(e > theta) or np.any(rel))
            bits = (e > t_nrss) | rel
        else:
            emax = float(np.max(e)) if e.size else math.nan
            finite = eps[~np.isnan(eps)]
            epsmax = float(np.max(finite)) if finite.size else math.nan
            segmented = bool(emax > theta or epsmax > t_eps)
            bits = (e >= t_nrss) | (eps > t_eps)
    return segmented, bits.astype(np.int64)


def _aggregate_x(x: NDArray[np.float64], y: NDArray[np.float64], measure: str
                 ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.intp]]:
    """Sort by x (stable), merge repetitions at equal x; returns x, y and each point's first index."""
    order = np.argsort(x, kind="stable")
    xs, ys = x[order], y[order]
    ux, first = np.unique(xs, return_index=True)
    if ux.size == xs.size:
        return xs, ys, first
    agg = np.median if measure == "median" else np.mean
    bounds = list(first) + [xs.size]
    vals = np.array([agg(ys[bounds[i]:bounds[i + 1]]) for i in range(ux.size)])
    return ux, vals, first


def segment_points(x: NDArray[np.float64], y: NDArray[np.float64], p: Params,
                   ctx: RunContext | None = None) -> SegmentFit:
    """The §3 detector on sorted, unique points. Returns a dict of plain results (see ``run``)."""
    fit = _pmnf.fit_best_paper if p["compat"] == "paper" else _pmnf.fit_best
    k = p["window"]
    n = x.size
    out: SegmentFit = {"segmented": False, "model": None, "e": np.empty(0), "eps": np.empty(0),
                       "pattern": np.empty(0, dtype=np.int64), "subset_models": [], "notes": []}
    if n < k:
        out["model"] = fit(x, y)
        out["notes"].append(f"not segmented: {n} points, fewer than the subset size {k}")
        return out
    if n < 2 * k - 1:
        out["notes"].append(f"{n} points: Extra-P warns below {2 * k - 1} (2 subsets per segment)")
    if ctx is not None:
        ctx.progress(0.0, "subset fits")
    subs = _pmnf.fit_sets_windows(x, y, k, paper=p["compat"] == "paper")
    r = len(subs)
    e = np.abs(np.array([h.nrss for h in subs], dtype=np.float64))
    eps = _relative(e, p["eta"])
    segmented, bits = _decide(e, eps, p)
    out["e"], out["eps"], out["pattern"] = e, eps, bits
    out["subset_models"], out["segmented"] = subs, segmented
    if not segmented:
        out["model"] = fit(x, y)
        return out
    ones = np.flatnonzero(bits)
    if p["max_changes"] > 1 and ones.size:  # recursive use: locate by the first run of ones only
        breaks = np.flatnonzero(np.diff(ones) > 1)
        if breaks.size:
            ones = ones[: breaks[0] + 1]
            out["notes"].append("several runs of heterogeneous subsets: the first run locates "
                                "this change, the rest is left to the recursion")
    q = ones.size
    if q == 0:  # only possible with the paper rule's segmented-by-theta and no bit
        out["segmented"] = False
        out["model"] = fit(x, y)
        out["notes"].append("segmented by theta but no heterogeneous subset; treated as one model")
        return out
    idx = int(ones[q // 2])
    h = k // 2
    if q == k - 2:
        g = idx + h
        seg1, seg2 = (0, g + 1), (g, n)
        out["shared"] = True
        out["cp"] = g
        out["change_x"] = [float(x[g])]
    else:
        s = idx - 1
        if s < 0:
            if p["compat"] == "paper":
                s = 0
            else:
                s = r - 1  # Extra-P: Python index -1 is the last subset
                out["notes"].append("pattern starts at subset 0: Extra-P's index wrap locates the "
                                    "change at the last subset")
        g1, g2 = s + h, s + h + 1
        seg1, seg2 = (0, g1 + 1), (g2, n)
        out["shared"] = False
        out["cp"] = g2
        out["change_x"] = [float(x[g1]), float(x[g2])]
    models = [fit(x[a:b], y[a:b]) for a, b in (seg1, seg2)]
    short = [i + 1 for i, (a, b) in enumerate((seg1, seg2)) if b - a < k]
    if short:
        out["notes"].append(f"segment(s) {short} have fewer than {k} points; models are uncertain")
    out["segments"], out["models"] = [seg1, seg2], models
    return out


def segment_recursive(x: NDArray[np.float64], y: NDArray[np.float64], p: Params,
                      top: SegmentFit) -> list[Change]:
    """The paper's recursive extension: split segments again until ``max_changes`` changes.

    ``top`` is :func:`segment_points` on all points (segmented). Segments are searched breadth-first,
    left first; a segment is searched when it has at least ``2 * window - 1`` points (room for two
    behaviours of ``window`` points sharing one). Returns the changes sorted by position, each
    ``{"cp", "change_x", "shared"}`` (indices into the sorted points), and stores the final segments
    and their models under ``top["segments"]``/``top["models"]``.
    """
    k, limit = p["window"], p["max_changes"]
    changes: list[Change] = [{"cp": int(top["cp"]), "change_x": list(top["change_x"]),
                              "shared": bool(top["shared"])}]
    segs = list(zip(top["segments"], top["models"]))  # ((a, b), model) in order
    queue = [0, 1]
    while queue and len(changes) < limit:
        i = queue.pop(0)
        (a, b), _ = segs[i]
        if b - a < 2 * k - 1:
            continue
        sub = segment_points(x[a:b], y[a:b], p)
        if not sub["segmented"] or "cp" not in sub:
            continue
        changes.append({"cp": a + int(sub["cp"]), "change_x": list(sub["change_x"]),
                        "shared": bool(sub["shared"])})
        (a1, b1), (a2, b2) = sub["segments"]
        segs[i:i + 1] = [((a + a1, a + b1), sub["models"][0]), ((a + a2, a + b2), sub["models"][1])]
        queue = [j + 1 if j > i else j for j in queue] + [i, i + 1]
    top["segments"] = [ab for ab, _ in segs]
    top["models"] = [m for _, m in segs]
    return sorted(changes, key=lambda c: c["cp"])


def _run_lines(series: Series, p: Params, ctx: RunContext) -> DetectionResult:
    """Several parameters: the detector on each line of points along ``parameter``."""
    names = tuple(series.metadata["parameters"])
    coords = np.asarray(series.metadata["coordinates"], dtype=np.float64)
    dim = p["parameter"]
    if dim >= len(names):
        raise ParameterError("parameter", f"{dim} is out of range: the series has parameters "
                                          f"{', '.join(names)} (0-based)", "nrss")
    others = [d for d in range(len(names)) if d != dim]
    keys = [tuple(row) for row in coords[:, others]]
    lines: dict[tuple[float, ...], list[int]] = {}
    for i, key in enumerate(keys):
        lines.setdefault(key, []).append(i)
    cps: set[int] = set()
    out = []
    notes = [f"{len(names)} parameters: each line along {names[dim]} analysed on its own "
             "(Extra-P's Segmented modeler takes one parameter)"]
    for key, idx in lines.items():
        ctx.check()
        idx_arr = np.asarray(idx)[np.argsort(coords[idx, dim], kind="stable")]
        sub = Series(series.values[idx_arr], x=coords[idx_arr, dim])
        r = _run_points(sub, p, NULL_CONTEXT)
        fixed = {names[d]: float(v) for d, v in zip(others, key)}
        out.append({"fixed": fixed, "n_points": int(idx_arr.size),
                    "segmented": bool(r.stats["segmented"]),
                    "change_x": r.stats.get("change_x", []), "models": r.stats["models"]})
        cps.update(int(idx_arr[c]) for c in r.change_points)
    stats = {"segmented": bool(cps), "lines": out, "parameter": names[dim]}
    ctx.progress(1.0, "done")
    return DetectionResult("nrss", p, np.asarray(sorted(cps), dtype=np.int64), None, (), stats,
                           tuple(notes))


def _run_points(series: Series, p: Params, ctx: RunContext) -> DetectionResult:
    y_raw = series.values
    meta_median = series.metadata.get("median") if series.metadata.get("format") == "extrap" else None
    if p["measure"] == "median" and meta_median is not None and len(meta_median) == y_raw.size:
        y_raw = np.asarray(meta_median, dtype=np.float64)  # Extra-P --median on loaded files
    x_raw = series.x if series.x is not None else np.arange(1, y_raw.size + 1, dtype=np.float64)
    if np.any(np.asarray(x_raw) < 0):
        bad = int(np.flatnonzero(np.asarray(x_raw) < 0)[0])
        raise InputError(series.id, f"nrss models y over powers and logarithms of x, so x must not "
                                    f"be negative; "
                                    f"x[{bad}] is {float(x_raw[bad])!r}")
    x, y, first = _aggregate_x(np.asarray(x_raw, dtype=np.float64), y_raw, p["measure"])
    res = segment_points(x, y, p, ctx)
    notes = list(res["notes"])
    if series.x is not None and np.any(np.diff(series.x) < 0):
        notes.append("x values were not sorted: indices refer to the x-sorted order")
    if series.x is None:
        notes.append("no x values: x = 1..n")
    if p["compat"] == "paper":
        notes.append("compat=paper: the paper's rules, not Extra-P's (no reference values beyond "
                     "the paper's Table 1)")
    scale = float(np.max(np.abs(y))) if y.size else 1.0
    stats: dict[str, object] = {"segmented": bool(res["segmented"]), "n_points": int(x.size)}
    e, eps, bits = res["e"], res["eps"], res["pattern"]
    stats.update(nrss=e.copy(), eps=eps.copy(), pattern="".join(str(int(b)) for b in bits),
                 subset_models=[h.formula(scale=scale) for h in res["subset_models"]])
    cps: list[int] = []
    if res["segmented"] and "cp" in res and p["max_changes"] > 1:
        changes = segment_recursive(x, y, p, res)
        cps = [int(first[c["cp"]]) for c in changes]
        models = res["models"]
        stats.update(change_x=[c["change_x"] for c in changes],
                     shared_point=[c["shared"] for c in changes],
                     models=[m.formula(scale=scale) for m in models],
                     segment_models=[m.as_dict() for m in models],
                     segments=[(float(x[a]), float(x[b - 1])) for a, b in res["segments"]])
    elif res["segmented"] and "cp" in res:
        cps = [int(first[res["cp"]])]
        models = res["models"]
        stats.update(change_x=res["change_x"], shared_point=bool(res["shared"]),
                     models=[m.formula(scale=scale) for m in models],
                     segment_models=[m.as_dict() for m in models],
                     segments=[(float(x[a]), float(x[b - 1])) for a, b in res["segments"]])
    else:
        model = res["model"]
        assert model is not None   # segment_points fits one model whenever it does not split
        stats.update(models=[model.formula(scale=scale)], segment_models=[model.as_dict()])
    k = p["window"]
    tracks = []
    if e.size:
        xc = first[np.arange(e.size) + k // 2].astype(np.float64)
        eps_plot = np.where(np.isfinite(eps), eps, np.nan)
        tracks = [Track("nRSS", e, x=xc, threshold_param="t_nrss"),
                  Track("relative nRSS", eps_plot, x=xc, threshold_param="t_eps"),
                  Track("pattern", bits.astype(np.float64), x=xc, y_range=(0.0, 1.0), kind="step")]
    ctx.progress(1.0, "done")
    return DetectionResult("nrss", p, np.asarray(cps, dtype=np.int64), None, tuple(tracks), stats,
                           tuple(notes))


def _bins(y: NDArray[np.float64], size: int, measure: str) -> NDArray[np.float64]:
    if size == 1:
        return np.asarray(y, dtype=np.float64)
    nb = y.size // size
    blocks = y[: nb * size].reshape(nb, size)
    return np.median(blocks, axis=1) if measure == "median" else blocks.mean(axis=1)


def _run_scan(series: Series, p: Params, ctx: RunContext) -> DetectionResult:
    k, size = p["window"], p["bin"]
    z = _bins(series.values, size, p["measure"])
    notes: list[str] = ["scan mode: our extension of the method to long series (nrss.md §9.2); "
                        "thresholds are the paper's and untuned here"]
    empty = DetectionResult("nrss", p, np.empty(0, dtype=np.int64), None, (), {"segmented": False},
                            tuple(notes))
    if z.size < k + 1:
        return DetectionResult("nrss", p, np.empty(0, dtype=np.int64), None, (),
                               {"segmented": False}, (*notes, f"fewer than {k + 1} points"))
    if p["scale"] == "absmean":
        notes.append("scale=absmean: nRSS divided by mean |y| (not Extra-P)")
    elif float(np.mean(z)) <= 0.05 * float(np.mean(np.abs(z))):
        return DetectionResult("nrss", p, empty.change_points, None, (), {"segmented": False},
                               (*notes, "nRSS divides by the mean: series with values <= 0 give "
                                        "meaningless nRSS; try scale=absmean"))
    ctx.progress(0.05, "window fits")
    e, _ = _pmnf.window_nrss(z, k)
    if p["scale"] == "absmean":
        win = np.lib.stride_tricks.sliding_window_view(z, k)
        with np.errstate(all="ignore"):
            e = e * np.abs(win.mean(axis=1)) / np.abs(win).mean(axis=1)
    e = np.abs(e)
    ctx.check()
    eps = _relative(e, p["eta"])
    _, bits = _decide(e, eps, p)
    h = k // 2
    cands: list[tuple[int, float]] = []
    irregular = 0
    padded = np.concatenate(([0], bits, [0]))
    starts = np.flatnonzero(np.diff(padded) == 1)
    ends = np.flatnonzero(np.diff(padded) == -1)
    for a, b in zip(starts, ends):
        length = b - a
        if length not in (3, 4):
            irregular += 1
            continue
        with np.errstate(invalid="ignore"):
            emax = float(np.nanmax(e[a:b])) if np.any(~np.isnan(e[a:b])) else math.nan
            eps_run = eps[a:b][~np.isnan(eps[a:b])]
            keep = emax > p["theta"] or (eps_run.size and float(np.max(eps_run)) > p["t_eps"])
        if not keep:
            continue
        cp = a + 1 + h if length == 3 else a + 2 + h
        cands.append((int(cp), emax if emax == emax else -math.inf))
    chosen: list[tuple[int, float]] = []
    for cp, emax in cands:  # changes closer than k samples: keep the larger max e
        if chosen and cp - chosen[-1][0] < k:
            if emax > chosen[-1][1]:
                chosen[-1] = (cp, emax)
            continue
        chosen.append((cp, emax))
    if irregular:
        notes.append(f"{irregular} irregular span(s) of heterogeneous windows (length 1-2 or >= 5) "
                     "reported without a change point")
    cps = np.array([c * size for c, _ in chosen if 0 < c * size < series.values.size],
                   dtype=np.int64)
    x0 = (h + 0.5) * size - 0.5 if size > 1 else float(h)
    eps_plot = np.where(np.isfinite(eps), eps, np.nan)
    tracks = (Track("nRSS", e, x0=x0, stride=size, threshold_param="t_nrss"),
              Track("relative nRSS", eps_plot, x0=x0, stride=size, threshold_param="t_eps"),
              Track("pattern", bits.astype(np.float64), x0=x0, stride=size, y_range=(0.0, 1.0),
                    kind="step"))
    stats = {"segmented": bool(cps.size), "nrss": e, "eps": eps, "n_irregular": irregular,
             "pattern": "".join(str(int(b)) for b in bits) if bits.size <= 10000 else ""}
    ctx.progress(1.0, "done")
    return DetectionResult("nrss", p, cps, None, tracks, stats, tuple(notes))


def run(series: Series | NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    """Detect a segmented behaviour (points mode) or changes along a long series (scan mode)."""
    if not isinstance(series, Series):
        series = Series(series)
    if params["mode"] == "scan":
        return _run_scan(series, params, ctx)
    if series.x is None and len(series.metadata.get("parameters", ())) > 1 \
            and len(series.metadata.get("coordinates", ())) == series.values.size:
        return _run_lines(series, params, ctx)
    return _run_points(series, params, ctx)


PRESETS = (
    Preset("faithful", {"compat": "paper"},
           help="the paper's rule (seed 000): in-sample nRSS, relative nRSS only in [t_nrss, theta]"),
    Preset("extrap", {"compat": "extrap"},
           help="Extra-P 4.2.5's SegmentedModeler, for results side by side with the extrap package"),
)

def cost(n: int, p: Params) -> Cost:
    """Time and memory of one run (read by segview.core.limits). Every window of ``window``
    points gets its own PMNF model fit, and points mode keeps them all for the report: measured
    2.2e-5 s of CPU and ~690 bytes per sample at 200,000 samples (points mode; scan mode, per
    window of the binned series, ~500 bytes). At 1e7 samples that is ~6.5 GB: the run that was
    never warned about."""
    if p.get("mode") == "scan":
        m = n // max(1, int(p.get("bin", 1)))
        seconds, nbytes = 1e-5 * m, 500.0 * m
        return Cost(seconds, nbytes, f"scan mode fits a model per window: {m} windows need about "
                                     f"{gib(nbytes)} and {seconds / 60:.0f} minutes; a larger "
                                     "bin (e.g. bin=100) divides both")
    seconds, nbytes = 1e-5 * n, 700.0 * n
    return Cost(seconds, nbytes, f"points mode fits and keeps a model per window of "
                                 f"{p.get('window', 5)} points: {n} samples need about "
                                 f"{gib(nbytes)} and {seconds / 60:.0f} minutes; mode=scan with "
                                 "bin=100 needs a hundredth")


SPEC = register(DetectorSpec(
    cost=cost,
    name="nrss",
    label="nRSS segmentation (Extra-P)",
    # 2: the default is the paper's rule (compat="paper"); Extra-P 4.2.5 is the "extrap" preset
    version="2",
    presets=PRESETS,
    produces="change_points",
    params=PARAMS,
    run=run,
    min_length=1,
    affine_invariant=False,
    needs_x=True,
    slow=False,  # numba kernels: ~0.1 s for 3000 points in points mode (bench_nrss.py)
    citation="Ilyas, Calotoiu & Wolf: Off-road performance modeling - how to deal with segmented "
             "data (Euro-Par 2017, seed 000); reference implementation Extra-P 4.2.5 "
             "SegmentedModeler",
    description="Sliding 5-point PMNF fits; the normalised RSS and its relative jump locate where "
                "the performance behaviour changes with the parameter. Default: the paper's rule "
                "(preset faithful); preset extrap = Extra-P 4.2.5. Made for 6-15 low-noise points "
                "with one change (max_changes for more); known to fail with fewer than 5 points per "
                "behaviour, on series with mean near 0 (nRSS divides by the mean) and on long noisy "
                "series in points mode, where outliers decide the pattern (use mode=scan with bin).",
))
