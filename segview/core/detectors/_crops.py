"""CROPS (Haynes, Eckley & Fearnhead, JCGS 2017) as R ``changepoint`` 2.2.2 runs it.

Emulates ``range_of_penalties`` and the bookkeeping of ``class_input`` (``docs/algorithms/cpssd.md`` §5.2),
including the quirks that matter when the underlying PELT is not exact: the tested penalties, the
segment counts and the costs are sorted independently (no pairing is kept), candidate penalties within
``all.equal`` tolerance of a tested one are dropped, the pruning of equal counts only looks at the
first ``len(penalties)`` entries, and ``rbind`` recycles the breakpoint vector up to the length of the
segmentation list. It also emulates what SEALAB's ``crops()`` reads from the R object (§5.3).
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext

#: R's ``all.equal`` default tolerance, ``sqrt(.Machine$double.eps)``.
ALL_EQUAL_TOL: float = math.sqrt(2.0 ** -52)

PeltFn = Callable[[float], tuple[NDArray[np.int64], float]]
PeltManyFn = Callable[[list[float]], list[tuple[NDArray[np.int64], float]]]


#: Most penalties given to one ``pelt_many`` call.
_MANY_CHUNK: int = 16


class CropsLimitError(RuntimeError):
    """CROPS needed more PELT runs than the safety cap allows."""


@dataclass(frozen=True)
class CropsResult:
    """What CROPS produced.

    Attributes:
        pen_value_full: R's ``pen.value.full`` (breakpoints, recycled to the segmentation count).
        nsegments: the sorted ``c`` list (number of segments, most first) after pruning.
        costs: the sorted unpenalised costs after pruning.
        penalties: tested penalties (ascending, unique) after pruning.
        ncpts: change-point counts per ``cpts.full`` row as SEALAB reads them (§5.3).
        runs: number of PELT runs made (duplicates included, as R makes them).
    """

    pen_value_full: NDArray[np.float64]
    nsegments: NDArray[np.int64]
    costs: NDArray[np.float64]
    penalties: NDArray[np.float64]
    ncpts: NDArray[np.int64]
    runs: int


def all_equal(target: float, current: float, tol: float = ALL_EQUAL_TOL) -> bool:
    """R's ``isTRUE(all.equal(target, current))`` for two finite doubles."""
    diff = abs(target - current)
    scale = abs(target)
    if math.isfinite(scale) and scale > tol:
        diff = diff / scale
    return not (math.isnan(diff) or diff > tol)


def crops_r(pelt: PeltFn, beta_min: float, beta_max: float, ctx: RunContext = NULL_CONTEXT,
            max_runs: int = 20000, pelt_many: PeltManyFn | None = None) -> CropsResult:
    """Run changepoint 2.2.2's CROPS loop over ``[beta_min, beta_max]``.

    Args:
        pelt: ``beta -> (R cpts list incl. n, unpenalised cost)``; deterministic (results are cached
            per penalty value, R re-runs duplicates but gets the same answer).
        beta_min, beta_max: the penalty range (``beta_min < beta_max``).
        ctx: cancellation and progress.
        max_runs: safety cap on PELT runs.
        pelt_many: optional ``[beta, ...] -> [pelt(beta), ...]`` (same results); the penalties of
            one CROPS iteration are known together, so they are run in one call.

    Raises:
        CropsLimitError: more than ``max_runs`` runs were needed.
    """
    cache: dict[float, tuple[int, float]] = {}
    tested: list[float] = []     # test_penalties: ascending, unique
    counts: list[int] = []       # numberofchangepoints: descending
    costs: list[float] = []      # penal: ascending
    batch = [float(beta_min), float(beta_max)]
    runs = 0
    while batch:
        new_counts, new_costs = [], []
        todo = list(dict.fromkeys(b for b in batch if b not in cache))
        if pelt_many is not None and len(todo) > 1 and runs + len(batch) <= max_runs:
            for k in range(0, len(todo), _MANY_CHUNK):   # chunks: cancel stays responsive
                ctx.check()
                part = todo[k:k + _MANY_CHUNK]
                for beta, (cpts, q) in zip(part, pelt_many(part)):
                    cache[beta] = (int(cpts.size), float(q))
        for beta in batch:
            ctx.check()
            if beta not in cache:
                cpts, q = pelt(beta)
                cache[beta] = (int(cpts.size), float(q))
            c, q = cache[beta]
            new_counts.append(c)
            new_costs.append(q)
            runs += 1
            if runs > max_runs:
                raise CropsLimitError(f"CROPS needed more than {max_runs} PELT runs")
        ctx.progress(min(0.9, runs / 200.0), f"CROPS: {runs} PELT runs")
        tested = sorted(set(tested) | set(batch))
        counts = sorted(counts + new_counts, reverse=True)
        costs = sorted(costs + new_costs)
        batch = []
        for i in range(len(tested) - 1):
            if abs(counts[i] - counts[i + 1]) > 1:
                batch.append((costs[i + 1] - costs[i]) * (1.0 / float(counts[i] - counts[i + 1])))
        tested_arr = np.asarray(tested)
        for k in range(len(batch) - 1, -1, -1):
            idx = int(np.argmin(np.abs(batch[k] - tested_arr)))
            if all_equal(batch[k], tested[idx]):
                del batch[k]
    # prune equal counts, only over the first len(tested) positions
    for j in range(len(tested) - 1, 0, -1):
        if counts[j] == counts[j - 1]:
            del counts[j], tested[j], costs[j]
    nb = len(tested)
    start = [tested[0]]
    for k in range(1, nb):
        start.append((costs[k - 1] - costs[k]) / float(counts[k] - counts[k - 1]))
    full_len = max(nb, len(counts), len(costs))
    pen_full = np.resize(np.asarray(start, dtype=np.float64), full_len)  # R recycling
    counts_arr = np.asarray(counts, dtype=np.int64)
    if counts_arr.max() - 1 <= 1:
        # cpts.full collapses to one row holding the first change point of every segmentation
        ncpts = [int(np.count_nonzero(counts_arr == 2))]
    else:
        ncpts = [int(c) - 1 for c in counts]
    return CropsResult(pen_value_full=pen_full, nsegments=counts_arr,
                       costs=np.asarray(costs, dtype=np.float64),
                       penalties=np.asarray(tested, dtype=np.float64),
                       ncpts=np.asarray(ncpts, dtype=np.int64), runs=runs)


def sealab_penalties_ncpts(res: CropsResult) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """The ``(penalties, ncpts)`` pair SEALAB's ``crops()`` returns (appends a 0 when one short).

    Raises:
        ValueError: the lengths still differ (SEALAB asserts there; never seen on real data).
    """
    pens = res.pen_value_full
    ncpts = res.ncpts
    if pens.size == ncpts.size + 1:
        ncpts = np.append(ncpts, 0)
    if pens.size != ncpts.size:
        raise ValueError(f"CROPS gave {pens.size} penalties but {ncpts.size} change-point counts")
    return pens, ncpts
