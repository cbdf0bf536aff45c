"""Benchmarks of PELT and OP (issue #3): pytest-benchmark tests, or a script printing a table.

    python -m pytest tests/benchmarks/bench_partition.py --benchmark-enable
    python tests/benchmarks/bench_partition.py          # table of timings and ratios

Ratios are measured against a reference run in the same process (ruptures ``Pelt`` for PELT, the
serial kernel for parallel OP); absolute times depend on the machine and its load.
"""
from __future__ import annotations

import math
import time

import numpy as np
import pytest

from segview.core.detectors.partition import optimal_partition


def series(n: int, seed: int = 0) -> np.ndarray:
    """One mean change per 100 points (spec partition.md §4 reference setting), unit noise."""
    rng = np.random.default_rng(seed)
    return np.repeat(rng.normal(0, 3, n // 100 + 1), 100)[:n] + rng.standard_normal(n)


def _best_of(fn, rounds: int) -> float:
    best = math.inf
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def pelt(y: np.ndarray):
    return optimal_partition(y, "l2", 2 * math.log(y.size), 1, pruning=True)


def op(y: np.ndarray, threads: int, schedule: str = "static"):
    return optimal_partition(y, "l2", 2 * math.log(y.size), 1, threads=threads, schedule=schedule)


def ruptures_ratio(n: int = 3000) -> tuple[float, float, bool]:
    """(ruptures seconds, ours seconds, same change points) for PELT L2, jump=1, min_size=1."""
    import ruptures
    y = series(n)
    pelt(y[:200])  # compile outside the timing
    t = time.perf_counter()
    ref = ruptures.Pelt(model="l2", min_size=1, jump=1).fit(y).predict(pen=2 * math.log(n))
    theirs = time.perf_counter() - t
    ours = _best_of(lambda: pelt(y), 5)
    return theirs, ours, ref[:-1] == list(pelt(y).change_points)


def op_speedup(n: int = 10_000, schedule: str = "static") -> tuple[float, float]:
    y = series(n)
    op(y[:600], 1)
    op(y[:600], 2, schedule)
    return _best_of(lambda: op(y, 1), 3), _best_of(lambda: op(y, 2, schedule), 3)


@pytest.mark.parametrize("n", [3_000, 100_000, 1_000_000])
def test_pelt_l2(benchmark, n):
    y = series(n)
    pelt(y[:200])
    part = benchmark.pedantic(pelt, args=(y,), rounds=3 if n < 10**6 else 1, warmup_rounds=0)
    assert part.change_points.size > n // 200


def test_pelt_vs_ruptures_ratio(benchmark):
    theirs, ours, same = benchmark.pedantic(ruptures_ratio, rounds=1, iterations=1)
    benchmark.extra_info.update(ruptures_s=theirs, ours_s=ours, ratio=theirs / ours)
    assert same


@pytest.mark.parametrize("threads", [1, 2])
def test_op_10000(benchmark, threads):
    y = series(10_000)
    op(y[:600], threads)
    part = benchmark.pedantic(op, args=(y, threads), rounds=3)
    assert np.array_equal(part.F, op(y, 1).F)


def main() -> None:
    rows = []
    for n in (3_000, 100_000, 1_000_000):
        y = series(n)
        pelt(y[:200])
        rows.append((f"PELT L2 n={n:,}", _best_of(lambda: pelt(y), 3 if n < 10**6 else 2)))
    theirs, ours, same = ruptures_ratio()
    rows.append(("ruptures Pelt n=3,000", theirs))
    for schedule in ("static", "dynamic"):
        one, two = op_speedup(schedule=schedule)
        rows.append((f"OP n=10,000 1 thread ({schedule} run)", one))
        rows.append((f"OP n=10,000 2 threads {schedule}", two))
        rows.append((f"  speed-up 2 threads {schedule} (ratio)", one / two))
    for name, value in rows:
        print(f"{name:42s} {value:10.4f}")
    print(f"{'PELT speed-up over ruptures n=3,000 (ratio)':42s} {theirs / ours:10.1f}"
          f"  same change points: {same}")


if __name__ == "__main__":
    main()
