"""Auto-PARM stability report: residual bootstrap, breakpoint clustering, AR-order voting.

Spec ``docs/algorithms/autoparm.md`` §8-§10 (seed 004 §6.1, §6.3). Breakpoints are 0-based indices of
the first sample of a new piece, as everywhere in segview.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..params import Params

Segmentation = tuple[list[int], list[int]]  # (starts, orders)


def simulate_pieces(y: NDArray[np.float64], starts: Sequence[int], orders: Sequence[int],
                    burn: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """One bootstrap series: each piece an independent AR realisation driven by its resampled,
    centred residuals (§8 steps 1-2)."""
    from .autoparm import piece_fits
    out = []
    for pc in piece_fits(y, list(starts), list(orders)):
        r = pc["residuals"] - pc["residuals"].mean()
        n_j = pc["end"] - pc["start"]
        draws = rng.choice(r, size=n_j + burn, replace=True)
        phi = np.asarray(pc["phi"], dtype=np.float64)
        z = np.zeros(n_j + burn)
        for t in range(n_j + burn):
            acc = draws[t]
            for i in range(1, phi.size + 1):
                if t - i >= 0:
                    acc += phi[i - 1] * z[t - i]
            z[t] = acc
        out.append(z[burn:] + pc["mean"])
    return np.concatenate(out)


def residual_bootstrap(y: NDArray[np.float64], starts: Sequence[int], orders: Sequence[int],
                       segment_fn: Callable[[NDArray[np.float64]], Segmentation], n_samples: int,
                       burn: int, rng: np.random.Generator, ctx: RunContext = NULL_CONTEXT
                       ) -> list[Segmentation]:
    """Segment ``n_samples`` bootstrap series with ``segment_fn`` (§8 steps 3-4)."""
    samples = []
    for b in range(n_samples):
        ctx.progress(b / max(n_samples, 1), f"bootstrap sample {b + 1} of {n_samples}")
        series = simulate_pieces(np.asarray(y, dtype=np.float64), starts, orders, burn, rng)
        samples.append(segment_fn(series))
    return samples


def cluster_breakpoints(samples: Sequence[Segmentation], cutoff: float | None = None
                        ) -> dict[str, Any]:
    """Centroid-linkage clustering of the pooled breakpoints (§9).

    Returns a dict with ``clusters`` (sorted by position; each ``breakpoint`` = median rounded half
    up, ``frequency`` = share of samples with a member, ``min``/``max``, ``members`` as
    ``(sample, index)`` pairs), the ``cutoff`` used and the ``target`` number of breakpoints.
    """
    from scipy.cluster.hierarchy import fcluster, linkage
    owners = [(b, j) for b, (st, _) in enumerate(samples) for j in range(len(st))]
    pts = np.array([samples[b][0][j] for b, j in owners], dtype=float)
    target = float(np.mean([len(st) for st, _ in samples])) if samples else 0.0
    if pts.size == 0:
        return {"clusters": [], "cutoff": 0.0, "target": target}
    if pts.size < 2:
        labels = np.arange(1, pts.size + 1)
        used = 0.0
    else:
        z = linkage(pts.reshape(-1, 1), method="centroid")
        if cutoff is None:
            best = None
            for c in np.concatenate(([0.0], np.sort(z[:, 2]))):
                lab = fcluster(z, t=c, criterion="distance")
                score = abs(len(np.unique(lab)) - target)
                if best is None or score < best[0]:
                    best = (score, float(c), lab)
            assert best is not None
            _, used, labels = best
        else:
            used = float(cutoff)
            labels = fcluster(z, t=used, criterion="distance")
    clusters: list[dict[str, Any]] = []
    for lab in np.unique(labels):
        idx = np.flatnonzero(labels == lab)
        vals = pts[idx]
        med = float(np.median(vals))
        clusters.append({"breakpoint": int(math.floor(med + 0.5)), "min": int(vals.min()),
                         "max": int(vals.max()), "size": int(idx.size),
                         "frequency": len({owners[i][0] for i in idx}) / len(samples),
                         "members": [owners[i] for i in idx]})
    clusters.sort(key=lambda c: c["breakpoint"])
    return {"clusters": clusters, "cutoff": used, "target": target}


def vote_orders(samples: Sequence[Segmentation], clusters: Sequence[dict[str, Any]],
                rng: np.random.Generator) -> dict[str, Any]:
    """Majority vote of each final piece's AR order over the samples (§10)."""
    votes: list[list[int]] = [[orders[0] for _, orders in samples]]
    for cl in clusters:
        by_sample: dict[int, tuple[float, int]] = {}
        for b, j in cl["members"]:
            dist = abs(samples[b][0][j] - cl["breakpoint"])
            if b not in by_sample or dist < by_sample[b][0]:
                by_sample[b] = (dist, samples[b][1][j + 1])
        votes.append([order for _, order in by_sample.values()])
    final, means, sds = [], [], []
    for v in votes:
        if not v:
            final.append(-1)
            means.append(math.nan)
            sds.append(math.nan)
            continue
        vals, counts = np.unique(v, return_counts=True)
        top = vals[counts == counts.max()]
        final.append(int(top[0] if top.size == 1 else rng.choice(top)))
        means.append(float(np.mean(v)))
        sds.append(float(np.std(v)))
    return {"orders": final, "vote_mean": means, "vote_sd": sds, "votes": votes}


def _nn_distances(samples: Sequence[Segmentation]) -> NDArray[np.float64]:
    out: list[float] = []
    for b, (st, _) in enumerate(samples):
        others = np.array([c for bb, (s2, _) in enumerate(samples) if bb != b for c in s2])
        if others.size:
            out.extend(float(np.min(np.abs(others - c))) for c in st)
    return np.asarray(out)


def stability_report(y: NDArray[np.float64], starts: Sequence[int], orders: Sequence[int],
                     params: Params, ctx: RunContext = NULL_CONTEXT,
                     cutoff: float | None = None) -> dict[str, Any]:
    """Bootstrap ``params["bootstrap"]`` samples, segment each like the fit, cluster and vote."""
    from .autoparm import segment
    sample_params = params.replace(bootstrap=0, n_breaks=None)
    rng = np.random.default_rng(params["seed"])

    def seg(series: NDArray[np.float64]) -> Segmentation:
        quiet = RunContext(ctx.cancel_event)  # cancellable, progress comes from the sample loop
        st, od, _ = segment(series, sample_params, quiet)
        return list(st), list(od)

    samples = residual_bootstrap(y, starts, orders, seg, params["bootstrap"], params["burn"], rng,
                                 ctx)
    clus = cluster_breakpoints(samples, cutoff)
    vote = vote_orders(samples, clus["clusters"], rng)
    m = np.array([len(st) for st, _ in samples], dtype=float)
    nn = _nn_distances(samples)
    return {
        "samples": samples, "m_mean": float(m.mean()), "m_sd": float(m.std()),
        "breakpoints": [c["breakpoint"] for c in clus["clusters"]],
        "frequency": [c["frequency"] for c in clus["clusters"]],
        "spread": [(c["min"], c["max"]) for c in clus["clusters"]],
        "cutoff": clus["cutoff"], "target": clus["target"], "voted_orders": vote["orders"],
        "vote_mean": vote["vote_mean"], "vote_sd": vote["vote_sd"],
        "nn_distance_median": float(np.median(nn)) if nn.size else math.nan,
    }
