"""nRSS segmentation detector: Extra-P's "Segmented" modeler.

Paper: seed 000 (Ilyas, Calotoiu & Wolf, "Off-road performance modeling - how to deal with segmented
data", Euro-Par 2017): sliding subsets of 5 points, a PMNF model per subset, the normalised residual sum of
squares (nRSS) and the relative nRSS, a 0/1 heterogeneity pattern and a change rule. Reference
behaviour: Extra-P 4.2.5 ``SegmentedModeler`` (spec ``shared/spec/nrss.md``), reimplemented here.

Index convention: a change point is the 0-based index of the first sample of the new segment. When
the two segments share a point (pattern with 3 ones), that shared point starts the second segment.
If the series' x values are not sorted, points are sorted by x (stable) first and indices refer to
that order. ``series.x`` gives the parameter values (processes, sizes); without x, x = 1..n.

Modes:

* ``mode="points"`` (default; spec §1-§3, §9.1): one change at most, both segment models reported as
  human-readable formulas in ``stats["models"]``.
* ``mode="scan"`` (spec §9.2; our extension, not in the paper or Extra-P): long time series, windows
  with local x = 1..k, optional binning, every isolated run of 3 or 4 heterogeneous windows becomes a
  change point. Its thresholds are the paper's and untuned on long series.

``compat="extrap"`` (default) follows the Extra-P code; ``compat="paper"`` follows the paper's rule
(in-sample nRSS, relative nRSS only used for ``0.1 <= e <= 0.5``, bit for ``e > 0.1``, no wrap of the
locating subset) with the paper's hypothesis space (one term).
"""
from __future__ import annotations

import logging
import math

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..errors import InputError
from ..model import Series
from ..params import ParamSpec, Params
from ..registry import DetectorSpec, register
from ..result import DetectionResult, Track
from . import _pmnf

log = logging.getLogger(__name__)

PARAMS = (
    ParamSpec("mode", "str", "points", choices=("points", "scan"),
              help="points: one change in a (parameter, metric) experiment (Extra-P); scan: several "
                   "changes in a long time series by sliding windows with local x (our extension)"),
    ParamSpec("compat", "str", "extrap", choices=("extrap", "paper"),
              help="extrap: the Extra-P 4.2.5 code; paper: the paper's in-sample nRSS, restricted "
                   "relative-nRSS rule and one-term hypothesis space"),
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
    ParamSpec("bin", "int", 1, low=1, high=100000, unit="samples",
              help="scan mode: aggregate this many samples per point before the windows"),
    ParamSpec("measure", "str", "mean", choices=("mean", "median"),
              help="how repetitions at the same x (points mode) or samples of a bin (scan) are "
                   "aggregated"),
    ParamSpec("scale", "str", "mean", choices=("mean", "absmean"),
              help="scan mode: divide the RSS by the window mean (Extra-P) or by mean |y| "
                   "(non-Extra-P variant for series near zero)"),
)


def _relative(e: NDArray[np.float64], eta: float) -> NDArray[np.float64]:
    eps = np.full(e.size, -np.inf)
    with np.errstate(all="ignore"):
        eps[1:] = e[1:] / (e[:-1] + eta)
    return eps


def _decide(e: NDArray[np.float64], eps: NDArray[np.float64], p: Params
            ) -> tuple[bool, NDArray[np.int64]]:
    """Segmented flag and 0/1 pattern (spec §3 steps 5-6; paper rule with compat="paper")."""
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
                   ctx: RunContext | None = None) -> dict[str, object]:
    """The §3 detector on sorted, unique points. Returns a dict of plain results (see ``run``)."""
    fit = _pmnf.fit_best_paper if p["compat"] == "paper" else _pmnf.fit_best
    k = p["window"]
    n = x.size
    out: dict[str, object] = {"segmented": False, "model": None, "e": np.empty(0),
                              "eps": np.empty(0), "pattern": np.empty(0, dtype=np.int64),
                              "subset_models": [], "notes": []}
    if n < k:
        out["model"] = fit(x, y)
        out["notes"].append(f"not segmented: {n} points, fewer than the subset size {k}")
        return out
    if n < 2 * k - 1:
        out["notes"].append(f"{n} points: Extra-P warns below {2 * k - 1} (2 subsets per segment)")
    r = n - k + 1
    subs = []
    for s in range(r):
        if ctx is not None:
            ctx.progress(s / (r + 2), "subset fits")
        subs.append(fit(x[s:s + k], y[s:s + k]))
    e = np.abs(np.array([h.nrss for h in subs], dtype=np.float64))
    eps = _relative(e, p["eta"])
    segmented, bits = _decide(e, eps, p)
    out.update(e=e, eps=eps, pattern=bits, subset_models=subs, segmented=segmented)
    if not segmented:
        out["model"] = fit(x, y)
        return out
    ones = np.flatnonzero(bits)
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
    out.update(segments=[seg1, seg2], models=models)
    return out


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
    if res["segmented"] and "cp" in res:
        cps = [int(first[res["cp"]])]
        models = res["models"]
        stats.update(change_x=res["change_x"], shared_point=bool(res["shared"]),
                     models=[m.formula(scale=scale) for m in models],
                     segment_models=[m.as_dict() for m in models],
                     segments=[(float(x[a]), float(x[b - 1])) for a, b in res["segments"]])
    else:
        model = res["model"]
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
    notes: list[str] = ["scan mode: our extension of the method to long series (spec §9.2); "
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
    return _run_points(series, params, ctx)


SPEC = register(DetectorSpec(
    name="nrss",
    label="nRSS segmentation (Extra-P)",
    version="1",
    produces="change_points",
    params=PARAMS,
    run=run,
    min_length=1,
    affine_invariant=False,
    needs_x=True,
    slow=True,  # points mode fits 42 hypotheses per 5-point window: tens of seconds on 3000 points
    citation="Ilyas, Calotoiu & Wolf: Off-road performance modeling - how to deal with segmented "
             "data (Euro-Par 2017, seed 000); reference implementation Extra-P 4.2.5 "
             "SegmentedModeler",
    description="Sliding 5-point PMNF fits; the normalised RSS and its relative jump locate where "
                "the performance behaviour changes with the parameter.",
))
