"""Precomputed Berry-Hellerstein critical values: a small table shipped with the package (issue 15.4).

The Monte Carlo critical value of ``docs/algorithms/fisher.md`` §5.3 (the (1 - alpha) quantile of T over
stationary Gaussian AR(1) series of length N, min part size 1) is tabulated once, offline, on a grid:

* N: every length 3..32, then 2^(1/4) steps to 4096, then 2^(1/2) steps to 32768;
* phi: 0.05, 0.10, ..., 0.95, 0.97, 0.99 (the estimator is clamped to [0.05, 0.99] anyway);
* alpha: 0.01, 0.025, 0.05, 0.10 (all quantiles of the same simulated T sample);
* 4000 replications per cell up to N = 4096, 2000 above; seed ``[TABLE_SEED, N, round(1000 phi)]``.

What is stored is ``g = log(N (Tc - 1) / W)`` with ``W = (1 + phi) / (1 - phi)``: for long series
``N (T - 1)`` behaves like ``W`` times the maximum of a squared standardised Brownian bridge, so ``g``
varies slowly and smoothly in ``log N`` and ``phi``. Lookups interpolate ``g`` bilinearly in
``(log N, phi)``; above the largest N, ``g`` is extended linearly in ``log log N`` (the growth of the
bridge maximum) from the last two grid lengths. ``tests/core/test_fisher.py`` checks lookups at
off-grid (N, phi) against fresh Monte Carlo values.

Rebuild (about 2-5 CPU minutes): ``python -m segview.core.detectors._fisher_table``.
"""
from __future__ import annotations

import json
import math
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

TABLE_PATH = Path(__file__).with_name("fisher_tc_table.json")
TABLE_SEED = 20261123
ALPHAS = (0.01, 0.025, 0.05, 0.10)
PHIS = tuple(round(0.05 * i, 2) for i in range(1, 20)) + (0.97, 0.99)


def grid_lengths() -> list[int]:
    ns = list(range(3, 33))
    k = 1
    while (n := int(round(32 * 2 ** (k / 4)))) <= 4096:
        ns.append(n)
        k += 1
    k = 1
    while (n := int(round(4096 * 2 ** (k / 2)))) <= 32768:
        ns.append(n)
        k += 1
    return sorted(set(ns))


def _w(phi: float) -> float:
    return (1.0 + phi) / (1.0 - phi)


def build(progress: bool = True) -> dict[str, object]:
    """Simulate every grid cell (fisher.md §5.3 with m = 1) and return the table as a JSON-ready dict."""
    from ._fisher_kernels import simulate_t
    ns = grid_lengths()
    g = np.empty((len(ALPHAS), len(ns), len(PHIS)))
    for a, n in enumerate(ns):
        reps = 4000 if n <= 4096 else 2000
        batch = max(1, 4_000_000 // n)
        for b, phi in enumerate(PHIS):
            rng = np.random.default_rng([TABLE_SEED, n, int(round(1000 * phi))])
            parts, done = [], 0
            while done < reps:
                rows = min(batch, reps - done)
                parts.append(simulate_t(rng.standard_normal((rows, n)), phi, 1))
                done += rows
            t = np.concatenate(parts)
            for c, alpha in enumerate(ALPHAS):
                tc = float(np.quantile(t, 1.0 - alpha))
                g[c, a, b] = math.log(n * max(tc - 1.0, 1e-300) / _w(phi))
        if progress:
            print(f"N = {n} done", flush=True)
    return {"about": "log(N (Tc - 1) / W), W = (1 + phi)/(1 - phi); see _fisher_table.py",
            "seed": TABLE_SEED, "alphas": list(ALPHAS), "phis": list(PHIS), "lengths": ns,
            "g": np.round(g, 5).tolist()}


@lru_cache(maxsize=1)
def _load() -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64],
                     tuple[float, ...]] | None:
    try:
        data = json.loads(TABLE_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return (np.log(np.asarray(data["lengths"], dtype=np.float64)),
            np.asarray(data["phis"], dtype=np.float64), np.asarray(data["g"], dtype=np.float64),
            tuple(float(a) for a in data["alphas"]))


def available(alpha: float, min_size: int) -> bool:
    """Whether :func:`lookup` covers this alpha and min part size (else use Monte Carlo)."""
    table = _load()
    return table is not None and min_size == 1 and any(abs(alpha - a) < 1e-12 for a in table[3])


def _interp_phi(row: NDArray[np.float64], phis: NDArray[np.float64], p: float) -> float:
    return float(np.interp(p, phis, row))


def lookup(n: int, phi: float, alpha: float = 0.05) -> float:
    """Tabulated critical value Tc(N, phi) for ``alpha`` in :data:`ALPHAS` (min part size 1).

    ``phi`` is clamped to [0.05, 0.99] as in the paper. Raises KeyError for an alpha not in the
    table and ValueError for N < 3.
    """
    table = _load()
    if table is None:
        raise KeyError("the critical-value table is missing")
    logn, phis, g, alphas = table
    idx = [i for i, a in enumerate(alphas) if abs(alpha - a) < 1e-12]
    if not idx:
        raise KeyError(f"alpha {alpha} is not tabulated ({', '.join(map(str, alphas))})")
    if n < 3:
        raise ValueError(f"N = {n}: the table starts at N = 3")
    p = min(max(phi, 0.05), 0.99)
    ga = g[idx[0]]
    ln = math.log(n)
    if ln <= logn[-1]:
        j = int(np.searchsorted(logn, ln))
        if logn[j] == ln:
            val = _interp_phi(ga[j], phis, p)
        else:
            f = (ln - logn[j - 1]) / (logn[j] - logn[j - 1])
            val = (1 - f) * _interp_phi(ga[j - 1], phis, p) + f * _interp_phi(ga[j], phis, p)
    else:  # linear in log log N beyond the grid
        l1, l2 = math.log(logn[-2]), math.log(logn[-1])
        v1, v2 = _interp_phi(ga[-2], phis, p), _interp_phi(ga[-1], phis, p)
        val = v2 + (v2 - v1) * (math.log(ln) - l2) / (l2 - l1)
    return 1.0 + math.exp(val) * _w(p) / n


if __name__ == "__main__":
    from ..atomic import write_text

    write_text(TABLE_PATH, json.dumps(build(), separators=(",", ":")) + "\n")
    print(f"wrote {TABLE_PATH}")
