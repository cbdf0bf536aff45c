"""Berry-Hellerstein change-point detection, detector ``fisher``.

Berry & Hellerstein (1991), "An Approach to Detecting Changes in the Factors Affecting the Performance
of Computer Systems" (seed 001); spec ``shared/spec/fisher.md``. Each subseries is split at Fisher's
optimal least-squares 2-partition; the split is kept when ``T = D_P / D_Q`` exceeds a critical value
``Tc(N, phi)`` for optimally partitioned AR(1) series (the paper's fitted Eq. 8 at alpha = 0.05 inside
its fitted range, seeded Monte Carlo elsewhere), and both halves are searched again (left first).

Index convention: a change point is the 0-based index of the first sample of the new segment
(the paper's 1-based index minus one).
"""
from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from threading import Lock

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..diskmemo import DiskMemo
from ..params import ParamSpec, Params
from ..registry import DetectorSpec, register
from ..result import DetectionResult, Track
from ._fisher_kernels import simulate_t, two_partition

log = logging.getLogger(__name__)
MC_VERSION = 1
_MC_CACHE: dict[tuple[float, ...], float] = {}
_MC_LOCK = Lock()
_MC_DISK = DiskMemo("fisher-critical-values")  # shared by worker processes and later sessions
_CELLS_PER_BATCH = 4_000_000


def eq8(n: float, phi: float) -> float:
    """The paper's fitted alpha = 0.05 critical value (Eq. 8, signs reconstructed in spec §5.1)."""
    p = min(max(phi, 0.05), 0.99)
    y = (-5.2942 + 573.0 / n - 30745.0 / n**2 + 5.8427 * p - 12.372 * p**2 + 11.102 * p**3)
    return math.exp(y) + 1.0


def lag1_autocorrelation(x: NDArray[np.float64]) -> float:
    """Box-Jenkins lag-1 sample autocorrelation (0 for a constant series)."""
    c = x - x.mean()
    den = float(np.dot(c, c))
    return float(np.dot(c[:-1], c[1:])) / den if den > 0 else 0.0


def monte_carlo_tc(n: int, phi: float, alpha: float = 0.05, replications: int = 4000,
                   min_size: int = 1, seed: int = 0, ctx: RunContext = NULL_CONTEXT) -> float:
    """``(1 - alpha)`` quantile of T over simulated stationary AR(1) series (spec §5.3), cached.

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
    """The recursive FindChangePoints of spec §6 over prefix sums built once."""

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

    def critical(self, n: int, phi: float) -> tuple[float, str]:
        alpha, policy = self.p["alpha"], self.p["critical"]
        in_range = 100 <= n <= 1000
        if alpha == 0.05 and policy != "simulate" and (in_range or policy == "formula"):
            if not in_range:
                self.notes.add("critical=formula: Eq. 8 evaluated with N clamped to [100, 1000]")
                return eq8(min(max(n, 100), 1000), phi), "formula-clamped"
            return eq8(n, phi), "formula"
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
            d_p, d_q, q = two_partition(self.S, self.Q, a, b, self.m)
            if d_p == 0.0:
                continue
            t = math.inf if d_q == 0.0 else d_p / d_q
            phi = lag1_autocorrelation(self.x[a:b])
            tc, source = self.critical(n, phi)
            sig = t > tc
            self.nodes.append(Node(a, b, int(q), d_p, d_q, t, phi, tc, source, sig, depth))
            if sig:  # right pushed first so the left half is searched first (paper's order)
                stack.append((q, b, depth + 1))
                stack.append((a, q, depth + 1))


def find_change_points(x: NDArray[np.float64], params: Params,
                       ctx: RunContext = NULL_CONTEXT) -> tuple[list[int], list[Node], set[str]]:
    """Run FindChangePoints on ``x``; returns sorted change points, the node log and notes."""
    search = _Search(np.asarray(x, dtype=np.float64), params, ctx)
    search.run(0, x.size, 0)
    cps = sorted(nd.q for nd in search.nodes if nd.significant)
    return cps, search.nodes, search.notes


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    cps, nodes, notes = find_change_points(values, params, ctx)
    acc = sorted((nd for nd in nodes if nd.significant), key=lambda nd: nd.q)
    xs = np.array([nd.q for nd in acc], dtype=np.float64)
    tracks = (Track("T", np.array([nd.T for nd in acc]), x=xs),
              Track("Tc", np.array([nd.Tc for nd in acc]), x=xs))
    stats = {"nodes": [nd.__dict__.copy() for nd in nodes], "n_nodes": len(nodes)}
    return DetectionResult("fisher", params, np.asarray(cps, dtype=np.int64), tracks=tracks,
                           stats=stats, notes=tuple(sorted(notes)))


register(DetectorSpec(
    name="fisher", label="Berry-Hellerstein (Fisher)", version="1", produces="change_points",
    params=(
        ParamSpec("alpha", "float", 0.05, low=0.001, high=0.5, step=0.005,
                  help="Significance level of each split test; values other than 0.05 use "
                       "simulated critical values."),
        ParamSpec("critical", "str", "auto", choices=("auto", "formula", "simulate"),
                  help="Critical values: the paper's Eq. 8 for 100 <= N <= 1000 and simulation "
                       "elsewhere, Eq. 8 always (N clamped), or simulation always."),
        ParamSpec("min_size", "int", 1, low=1, high=10_000, step=1, unit="samples",
                  help="Minimum number of points on each side of a split."),
        ParamSpec("min_test_n", "int", None, low=2, high=100_000, step=1, unit="samples",
                  optional=True,
                  help="Shorter subseries are not tested; automatic means 2 * min_size + 1."),
        ParamSpec("replications", "int", 4000, low=100, high=20_000, step=100,
                  help="Simulated AR(1) series per Monte Carlo critical value."),
        ParamSpec("seed", "int", 0, low=0, high=2**31 - 1, step=1,
                  help="Seed of the Monte Carlo critical values."),
    ),
    run=_run, min_length=1, affine_invariant=False,
    citation="Berry & Hellerstein (1991), Fisher (1958) optimal partition",
    description="Recursive optimal 2-partition with an AR(1)-calibrated significance test.",
))
