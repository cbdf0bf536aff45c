"""Berry-Hellerstein change-point detection, detector ``fisher``.

Berry & Hellerstein (1991), "An Approach to Detecting Changes in the Factors Affecting the Performance
of Computer Systems" (seed 001); spec ``docs/algorithms/fisher.md``. Each subseries is split at Fisher's
optimal least-squares 2-partition; the split is kept when ``T = D_P / D_Q`` exceeds a critical value
``Tc(N, phi)`` for optimally partitioned AR(1) series (the paper's fitted Eq. 8 at alpha = 0.05 inside
its fitted range, seeded Monte Carlo elsewhere), and both halves are searched again (left first).

Index convention: a change point is the 0-based index of the first sample of the new segment
(the paper's 1-based index minus one).
"""
from __future__ import annotations

import logging
import math
import zlib
from dataclasses import dataclass
from threading import Lock
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..diskmemo import DiskMemo
from ..lazy import lazy_module
from ..params import ParamSpec, Params
from ..registry import Cost, DetectorSpec, register
from ..result import DetectionResult, Track
from . import _fisher_table

if TYPE_CHECKING:
    from . import _fisher_kernels as _fk
else:
    _fk = lazy_module("._fisher_kernels", __package__)

log = logging.getLogger(__name__)
MC_VERSION = 1
_MC_CACHE: dict[tuple[float, ...], float] = {}
_MC_LOCK = Lock()
_MC_DISK = DiskMemo("fisher-critical-values")  # shared by worker processes and later sessions
_CELLS_PER_BATCH = 4_000_000


def eq8(n: float, phi: float) -> float:
    """The paper's fitted alpha = 0.05 critical value (Eq. 8, signs reconstructed in fisher.md §5.1)."""
    p = min(max(phi, 0.05), 0.99)
    y = (-5.2942 + 573.0 / n - 30745.0 / n**2 + 5.8427 * p - 12.372 * p**2 + 11.102 * p**3)
    return math.exp(y) + 1.0


def lag1_autocorrelation(x: NDArray[np.float64]) -> float:
    """Box-Jenkins lag-1 sample autocorrelation (0 for a constant series)."""
    c = x - x.mean()
    den = float(np.dot(c, c))
    return float(np.dot(c[:-1], c[1:])) / den if den > 0 else 0.0


def simulate_t(innov: NDArray[np.float64], phi: float, m: int) -> NDArray[np.float64]:
    """:func:`._fisher_kernels.simulate_t`, looked up here at each call (tests replace it)."""
    return _fk.simulate_t(innov, phi, m)


def monte_carlo_tc(n: int, phi: float, alpha: float = 0.05, replications: int = 4000,
                   min_size: int = 1, seed: int = 0, ctx: RunContext = NULL_CONTEXT) -> float:
    """``(1 - alpha)`` quantile of T over simulated stationary AR(1) series (fisher.md §5.3), cached.

    ``phi`` is clamped to [0.05, 0.99] and rounded to 0.01; the RNG is seeded from
    ``(seed, N, 100 phi, 10000 alpha, min_size)`` so a value never depends on call order, and
    can be kept: in memory and in the user cache folder (:mod:`segview.core.diskmemo`), where
    other processes and later sessions find it. Replications are simulated in batches; ``ctx``
    is checked between batches.
    """
    pc = round(min(max(phi, 0.05), 0.99), 2)
    ip = int(round(100 * pc))
    key = (int(n), ip, float(alpha), int(replications), int(min_size), int(seed), MC_VERSION)
    with _MC_LOCK:
        if key in _MC_CACHE:
            return _MC_CACHE[key]
    disk_key = repr(key)
    stored = _MC_DISK.get(disk_key)
    if stored is not None:
        with _MC_LOCK:
            _MC_CACHE[key] = stored
        return stored
    rng = np.random.default_rng([seed, int(n), ip, int(round(10000 * alpha)), int(min_size)])
    batch = max(1, _CELLS_PER_BATCH // int(n))
    parts = []
    done = 0
    while done < replications:
        ctx.check()
        rows = min(batch, replications - done)
        parts.append(simulate_t(rng.standard_normal((rows, int(n))), ip / 100.0, int(min_size)))
        done += rows
    tc = float(np.quantile(np.concatenate(parts), 1.0 - alpha))
    with _MC_LOCK:
        _MC_CACHE[key] = tc
    _MC_DISK.put(disk_key, tc)
    log.debug("Monte Carlo Tc(N=%d, phi=%.2f, alpha=%g) = %.6f", n, pc, alpha, tc)
    return tc


def clear_mc_cache() -> None:
    """Forget every stored Monte Carlo critical value (memory and disk)."""
    with _MC_LOCK:
        _MC_CACHE.clear()
    _MC_DISK.clear()


def ar_sieve(x: NDArray[np.float64], max_order: int | None = None
             ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """AR(p) fit for the sieve bootstrap: Yule-Walker (Levinson-Durbin), p by AIC.

    ``max_order`` defaults to ``min(20, N // 10)``. Returns ``(coef, residuals)``; residuals are
    centred (``x_t - mean - sum_j coef_j (x_{t-j} - mean)`` for ``t >= p``).
    """
    n = x.size
    c = x - x.mean()
    pmax = max(0, min(20 if max_order is None else max_order, n // 10))
    g0 = float(np.dot(c, c)) / n
    if g0 == 0.0:
        return np.zeros(0), c
    acov = np.array([float(np.dot(c[: n - k], c[k:])) / n for k in range(pmax + 1)])
    best_aic, best = n * math.log(g0), np.zeros(0)
    a = np.zeros(0)
    v = g0
    for k in range(1, pmax + 1):  # Levinson-Durbin
        refl = (acov[k] - float(np.dot(a, acov[1:k][::-1]))) / v
        a = np.concatenate((a - refl * a[::-1], [refl]))
        v *= 1.0 - refl * refl
        if v <= 0:
            break
        aic = n * math.log(v) + 2 * k
        if aic < best_aic:
            best_aic, best = aic, a.copy()
    p = best.size
    resid = c[p:].copy()
    for j in range(p):
        resid -= best[j] * c[p - 1 - j: n - 1 - j]
    return best, resid - resid.mean()


def sieve_tc(x: NDArray[np.float64], q: int | None = None, alpha: float = 0.05, reps: int = 199,
             min_size: int = 1, seed: int = 0) -> float:
    """Critical value from a sieve bootstrap of ``x`` (opt-in calibration ``calibrate="sieve"``).

    The AR(p) (AIC order) of ``x`` with the candidate split's two means removed (``q``: split
    index inside ``x``; a real shift would otherwise be read as persistence) is driven by its
    resampled residuals, so the bootstrap series keep the autocorrelation and the skewness of the
    innovations; T is computed on each and the (1 - alpha) quantile returned. Seeded by
    ``(seed, N)``, so repeatable.
    """
    n = x.size
    z = np.asarray(x, dtype=np.float64).copy()
    if q is not None and 0 < q < n:
        z[:q] -= z[:q].mean()
        z[q:] -= z[q:].mean()
    coef, resid = ar_sieve(z)
    burn = max(200, min(n, 2000))
    rng = np.random.default_rng([seed, n, 1601])
    batch = max(1, 4_000_000 // (n + burn))
    parts = []
    done = 0
    while done < reps:
        rows = min(batch, reps - done)
        idx = rng.integers(0, resid.size, (rows, n + burn))
        parts.append(_fk.sieve_t(coef, resid, idx, n, min_size))
        done += rows
    return float(np.quantile(np.concatenate(parts), 1.0 - alpha))


def normal_scores(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """``Phi^-1((rank - 1/2) / N)`` with average ranks for ties: the data's order, Gaussian margins."""
    from scipy.special import ndtri
    x = np.asarray(x, dtype=np.float64)
    _, inv, cnt = np.unique(x, return_inverse=True, return_counts=True)
    end = np.cumsum(cnt)
    ranks = ((end - cnt + 1 + end) / 2.0)[inv]
    return ndtri((ranks - 0.5) / x.size)


def block_tc(z: NDArray[np.float64], alpha: float = 0.05, reps: int = 199, min_size: int = 1,
             seed: int = 0, key: tuple[int, ...] = ()) -> float:
    """Critical value from a circular moving-block bootstrap of ``z`` (``calibrate="block"``).

    Blocks of ``max(1, N // 10)`` consecutive values, started at uniform positions, are joined
    into ``reps`` series of length N and T is computed on each. The blocks keep the data's
    dependence up to the block length and its margins. Returned: the ``k``-th largest bootstrap T
    with ``k = max(1, floor(alpha (reps + 1)))``, so ``T > Tc`` is the Monte Carlo test's rule
    ``(1 + #{T* >= T}) / (reps + 1) <= alpha``. Seeded by ``(seed, N, *key)`` and a checksum of
    ``z``: repeatable for a series, independent between series (one shared draw would make the
    decisions on different series err together).
    """
    n = z.size
    block = max(1, n // 10)
    z = np.ascontiguousarray(z, dtype=np.float64)
    rng = np.random.default_rng([seed, n, *key, 1602, zlib.crc32(z.tobytes())])
    starts = rng.integers(0, n, (reps, -(-n // block)))
    t = np.sort(_fk.block_t(z, starts, block, min_size))
    k = max(1, int(math.floor(alpha * (reps + 1) + 1e-9)))
    return float(t[reps - k])


@dataclass(frozen=True)
class Node:
    """One tested subseries ``x[a:b]`` of the recursion (pre-order = the paper's discovery order)."""

    a: int
    b: int
    q: int
    d_p: float
    d_q: float
    T: float
    phi: float
    Tc: float
    source: str
    significant: bool
    depth: int


class _Search:
    """The recursive FindChangePoints of fisher.md §6 over prefix sums built once."""

    def __init__(self, x: NDArray[np.float64], params: Params, ctx: RunContext) -> None:
        self.x = x
        c = x - x.mean()
        self.S = np.concatenate(([0.0], np.cumsum(c)))
        self.Q = np.concatenate(([0.0], np.cumsum(c * c)))
        self.m = int(params["min_size"])
        self.min_test = params["min_test_n"] or 2 * self.m + 1
        self.p = params
        self.ctx = ctx
        self.nodes: list[Node] = []
        self.notes: set[str] = set()

    def critical(self, n: int, phi: float, a: int = 0, b: int = 0, q: int = 0
                 ) -> tuple[float, str]:
        alpha = self.p["alpha"]
        if self.p["calibrate"] == "block":
            # never below the paper's Gaussian AR(1) value for the same (normal-score) subseries:
            # short, strongly dependent subseries have too few blocks for the bootstrap alone
            tc = block_tc(self.x[a:b], alpha, self.p["boot_reps"], self.m, self.p["seed"], (a, b))
            floor, _ = self.faithful(n, phi)
            return max(tc, floor), ("block bootstrap" if tc >= floor else "block (paper floor)")
        if self.p["calibrate"] == "sieve":
            tc = sieve_tc(self.x[a:b], q - a, alpha, self.p["boot_reps"], self.m, self.p["seed"])
            return tc, "sieve"
        return self.faithful(n, phi)

    def faithful(self, n: int, phi: float) -> tuple[float, str]:
        """The paper's critical value under the ``critical`` policy (Eq. 8, table, simulation)."""
        alpha, policy = self.p["alpha"], self.p["critical"]
        in_range = 100 <= n <= 1000
        if alpha == 0.05 and policy in ("auto", "formula") and (in_range or policy == "formula"):
            if not in_range:
                self.notes.add("critical=formula: Eq. 8 evaluated with N clamped to [100, 1000]")
                return eq8(min(max(n, 100), 1000), phi), "formula-clamped"
            return eq8(n, phi), "formula"
        if policy in ("auto", "table") and _fisher_table.available(alpha, self.m) and n >= 3:
            return _fisher_table.lookup(n, phi, alpha), "table"
        tc = monte_carlo_tc(n, phi, alpha, self.p["replications"], self.m, self.p["seed"],
                            self.ctx)
        return tc, "simulation"

    def run(self, a: int, b: int, depth: int) -> None:
        stack = [(a, b, depth)]
        while stack:
            a, b, depth = stack.pop()
            self.ctx.check()
            n = b - a
            if n < max(2 * self.m, self.min_test):
                continue
            d_p, d_q, q = _fk.two_partition(self.S, self.Q, a, b, self.m)
            if d_p == 0.0:
                continue
            t = math.inf if d_q == 0.0 else d_p / d_q
            phi = lag1_autocorrelation(self.x[a:b])
            tc, source = self.critical(n, phi, a, b, int(q))
            sig = t > tc
            self.nodes.append(Node(a, b, int(q), d_p, d_q, t, phi, tc, source, sig, depth))
            if sig:  # right pushed first so the left half is searched first (paper's order)
                stack.append((q, b, depth + 1))
                stack.append((a, q, depth + 1))


def prewhiten(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
    """AR(1) residuals ``r_i = x_{i+1} - phi x_i`` with ``phi`` the series' lag-1 autocorrelation.

    Residual ``i`` belongs to sample ``i + 1``: a change found at residual index q starts at
    sample ``q + 1``.
    """
    phi = lag1_autocorrelation(x)
    return x[1:] - phi * x[:-1], phi


def find_change_points(x: NDArray[np.float64], params: Params,
                       ctx: RunContext = NULL_CONTEXT) -> tuple[list[int], list[Node], set[str]]:
    """Run FindChangePoints on ``x``; returns sorted change points, the node log and notes."""
    x = np.asarray(x, dtype=np.float64)
    shift = 0
    notes: set[str] = set()
    if params.get("prewhiten") and x.size >= 3:
        x, phi = prewhiten(x)
        shift = 1
        notes.add(f"prewhiten: tested the AR(1) residuals x[i+1] - {phi:.3f} x[i] (not in the "
                  "faithful procedure)")
    if params.get("calibrate") == "block" and x.size >= 2:
        x = normal_scores(x)
        notes.add("calibrate=block: T on the normal scores of the data, critical values from a "
                  "block bootstrap of each subseries (not in the paper)")
    search = _Search(x, params, ctx)
    search.run(0, x.size, 0)
    if shift:
        search.nodes = [Node(nd.a + 1, nd.b + 1, nd.q + 1, nd.d_p, nd.d_q, nd.T, nd.phi, nd.Tc,
                             nd.source, nd.significant, nd.depth) for nd in search.nodes]
    if params.get("calibrate") == "sieve":
        notes.add("calibrate=sieve: critical values from a sieve bootstrap of each subseries "
                  "(not in the paper)")
    cps = sorted(nd.q for nd in search.nodes if nd.significant)
    return cps, search.nodes, search.notes | notes


def candidate_tree(x: NDArray[np.float64], depth: int, min_size: int = 1
                   ) -> list[dict[str, float]]:
    """The paper's Fig. 4: every candidate split with zero critical values, to ``depth`` levels.

    With Tc = 0 every subseries with ``D_Q < D_P`` is split at its optimal 2-partition. Returns
    the nodes in pre-order: ``a, b, q, T, depth``.
    """
    x = np.asarray(x, dtype=np.float64)
    c = x - x.mean()
    S = np.concatenate(([0.0], np.cumsum(c)))
    Q = np.concatenate(([0.0], np.cumsum(c * c)))
    out: list[dict[str, float]] = []
    stack = [(0, x.size, 0)]
    while stack:
        a, b, d = stack.pop()
        if d >= depth or b - a < max(2 * min_size, 2):
            continue
        d_p, d_q, q = _fk.two_partition(S, Q, a, b, min_size)
        if not d_q < d_p:
            continue
        out.append({"a": a, "b": b, "q": int(q), "T": math.inf if d_q == 0 else d_p / d_q,
                    "depth": d})
        stack.append((int(q), b, d + 1))
        stack.append((a, int(q), d + 1))
    return out


def _tree_track(nodes: list[dict[str, float]]) -> Track:
    """Draw the candidate tree as NaN-separated vertical ticks, x ascending (the plots clip and
    downsample assuming sorted x): the candidate of a depth-d subseries spans heights -d to -d-0.8,
    so the root's candidate is on top and each level's candidates sit one row lower."""
    xs: list[float] = []
    ys: list[float] = []
    for nd in sorted(nodes, key=lambda nd: (nd["q"], nd["depth"])):
        d = -float(nd["depth"])
        xs += [nd["q"], nd["q"], nd["q"]]
        ys += [d, d - 0.8, math.nan]
    low = -1.0 - max((float(nd["depth"]) for nd in nodes), default=0.0)
    return Track("candidate tree (Tc = 0)", np.asarray(ys), x=np.asarray(xs, dtype=np.float64),
                 y_range=(low, 0.0))


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    cps, nodes, notes = find_change_points(values, params, ctx)
    acc = sorted((nd for nd in nodes if nd.significant), key=lambda nd: nd.q)
    xs = np.array([nd.q for nd in acc], dtype=np.float64)
    tracks: tuple[Track, ...] = (Track("T", np.array([nd.T for nd in acc]), x=xs),
                                 Track("Tc", np.array([nd.Tc for nd in acc]), x=xs))
    stats = {"nodes": [nd.__dict__.copy() for nd in nodes], "n_nodes": len(nodes)}
    if params["tree_depth"] > 0:
        tree = candidate_tree(values, params["tree_depth"], params["min_size"])
        stats["candidate_tree"] = tree
        tracks = (*tracks, _tree_track(tree))
    return DetectionResult("fisher", params, np.asarray(cps, dtype=np.int64), tracks=tracks,
                           stats=stats, notes=tuple(sorted(notes)))

def cost(n: int, p: Params) -> list[Cost]:
    """Time and memory of one run (read by segview.core.limits): binary segmentation with a
    test per split, about n log n; ``critical=simulate`` and ``calibrate`` repeat it per
    replication or resample."""
    depth = max(1, n.bit_length())
    out = []
    if p.get("critical") == "simulate":
        work = float(p["replications"]) * n * depth
        out.append(Cost.of_steps(work, 16.0 * n,
                                 f"critical=simulate: {p['replications']} replications of {n} "
                                 f"samples are about {work:.0e} steps (minutes or more); "
                                 "critical=table is instant"))
    if p.get("calibrate") in ("block", "sieve"):
        work = float(p["boot_reps"]) * n * depth
        out.append(Cost.of_steps(work, 16.0 * n,
                                 f"calibrate={p['calibrate']}: {p['boot_reps']} resamples of {n} "
                                 f"samples are about {work:.0e} steps (minutes or more)"))
    out.append(Cost.of_steps(10.0 * n * depth, 32.0 * n))
    return out



register(DetectorSpec(
    cost=cost,
    # version 2: critical values outside Eq. 8's range come from the shipped table (issue 15.4)
    name="fisher", label="Berry-Hellerstein (Fisher)", version="2", produces="change_points",
    params=(
        ParamSpec("alpha", "float", 0.05, low=0.001, high=0.5, step=0.005,
                  help="Significance level of each split test; values other than 0.05 use "
                       "simulated critical values."),
        ParamSpec("critical", "str", "auto", choices=("auto", "formula", "table", "simulate"),
                  help="Critical values. auto (default): the paper's Eq. 8 for 100 <= N <= 1000 "
                       "at alpha 0.05, else the shipped table of simulated values (alpha 0.01, "
                       "0.025, 0.05, 0.1 with min size 1), else a seeded simulation; formula: "
                       "Eq. 8 always (N clamped); table: the table wherever it applies; "
                       "simulate: simulation always."),
        ParamSpec("min_size", "int", 1, low=1, high=10_000, step=1, unit="samples",
                  help="Minimum number of points on each side of a split."),
        ParamSpec("min_test_n", "int", None, low=2, high=100_000, step=1, unit="samples",
                  optional=True,
                  help="Shorter subseries are not tested; automatic means 2 * min_size + 1."),
        ParamSpec("replications", "int", 4000, low=100, high=20_000, step=100,
                  help="Simulated AR(1) series per Monte Carlo critical value."),
        ParamSpec("seed", "int", 0, low=0, high=2**31 - 1, step=1,
                  help="Seed of the Monte Carlo critical values and of the bootstrap."),
        ParamSpec("calibrate", "str", "none", choices=("none", "block", "sieve"),
                  help="none (default, the paper): critical values for Gaussian AR(1) data; "
                       "block: T on the data's normal scores with each subseries' critical value "
                       "from a block bootstrap of them (never below the paper's value), which holds "
                       "the size on skewed, "
                       "autocorrelated data such as queue response times; sieve: an AR(p) sieve "
                       "bootstrap of the raw data (linear processes only: too liberal on queues; "
                       "docs/berry-hellerstein.md)"),
        ParamSpec("boot_reps", "int", 399, low=49, high=5000, step=50,
                  help="Bootstrap series per critical value with calibrate=block or sieve."),
        ParamSpec("prewhiten", "bool", False,
                  help="Test the AR(1) residuals x[i+1] - phi x[i] instead of the series (the "
                       "paper's suggestion for removing autocorrelation; off by default)."),
        ParamSpec("tree_depth", "int", 0, low=0, high=30, step=1,
                  help="Also compute the paper's Fig. 4 candidate tree (every split with zero "
                       "critical values) to this depth, as a track and stats['candidate_tree']; "
                       "0 = off."),
    ),
    run=_run, min_length=1, affine_invariant=False,
    citation="Berry & Hellerstein (1991, seed 001), Fisher (1958) optimal partition",
    description="Recursive optimal 2-partition with an AR(1)-calibrated significance test. "
                "Default: the paper's procedure (Eq. 8 critical values at alpha 0.05, tabulated "
                "simulated values outside 100 <= N <= 1000). Known to fail on queue-like data "
                "(skewed, slowly decorrelating response times): on M/M/1 series without change it "
                "reports a change in 12-18 % of runs at utilisation .2-.5 instead of 5 %; "
                "calibrate=block holds the size there at a cost in power "
                "(docs/berry-hellerstein.md).",
))
