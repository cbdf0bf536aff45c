"""Benchmarks of PELT and OP (issue #3): pytest-benchmark tests, or a script printing a table.

    python -m pytest tests/benchmarks/bench_partition.py --benchmark-enable
    python tests/benchmarks/bench_partition.py          # table of timings and ratios

Ratios are measured against a reference run in the same process (ruptures ``Pelt`` for PELT, the
blocked kernel on one thread for parallel OP, so the speed-up is the parallel one alone; the plain
serial kernel is listed separately); wall-clock here, as a parallel speed-up is about elapsed time,
so run it on an otherwise idle machine. Absolute times depend on the machine and its load.
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
    """(seconds on 1 thread, on 2 threads): the same blocked kernel both times, so the ratio is
    the true parallel speed-up (issue 16.4: threads=1 used to run the slower plain kernel)."""
    y = series(n)
    op(y[:600], 1)
    op(y[:600], 2, schedule)
    return _best_of(lambda: op(y, 1), 3), _best_of(lambda: op(y, 2, schedule), 3)


def plain_serial(n: int = 10_000) -> float:
    """Seconds of the plain serial kernel ``op_advance`` (what threads=1 ran before)."""
    from segview.core.detectors import _costs
    from segview.core.detectors._partition_kernels import op_advance
    y = series(n)
    S, Q = _costs.prefix_sums(y)

    def run(size: int) -> None:
        F = np.empty(size + 1)
        last = np.full(size + 1, -1, dtype=np.int64)
        F[0] = -2 * math.log(n)
        op_advance(S, Q, F, last, 1, size + 1, 2 * math.log(n), 1, _costs.L2, 0.0, False, False)

    run(600)
    return _best_of(lambda: run(n), 3)


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
    plain = plain_serial()
    rows.append(("OP n=10,000 plain serial kernel (old threads=1)", plain))
    for schedule in ("static", "dynamic"):
        one, two = op_speedup(schedule=schedule)
        rows.append((f"OP n=10,000 blocked kernel, 1 thread ({schedule} run)", one))
        rows.append((f"OP n=10,000 blocked kernel, 2 threads {schedule}", two))
        rows.append((f"  true speed-up 2 threads {schedule} (ratio)", one / two))
        rows.append(("  blocked 1 thread vs plain kernel (ratio)", plain / one))
    for name, value in rows:
        print(f"{name:52s} {value:10.4f}")
    print(f"{'PELT speed-up over ruptures n=3,000 (ratio)':52s} {theirs / ours:10.1f}"
          f"  same change points: {same}")


if __name__ == "__main__":
    main()
