"""Benchmarks of the Berry-Hellerstein detector (issue #3) at n = 1,000 and 10,000.

    python -m pytest tests/benchmarks/bench_fisher.py --benchmark-enable
    python tests/benchmarks/bench_fisher.py
    python tests/benchmarks/bench_fisher.py --first-run   # table vs simulation, n = 1e4 and 1e5

"cold" clears the Monte Carlo critical-value cache before each run (n = 10,000 needs simulated
critical values, spec fisher.md §5.2); "warm" reuses it. The reference in the same process is binary
segmentation with the same L2 split search and a fixed penalty (ratio = fisher / binseg).
"""
from __future__ import annotations

import math
import time

import numpy as np
import pytest

import segview
from segview.core.detectors import fisher


def series(n: int, seed: int = 0) -> np.ndarray:
    """AR(1) noise (phi = 0.5) with a 2.5-sigma mean shift every n/4 points."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n)
    x = np.empty(n)
    x[0] = a[0] / math.sqrt(0.75)
    for i in range(1, n):
        x[i] = 0.5 * x[i - 1] + a[i]
    for k in range(1, 4):
        x[k * n // 4:] += (2.5 if k % 2 else -2.5) / math.sqrt(0.75)
    return x


def run(y: np.ndarray, cold: bool):
    if cold:
        fisher.clear_mc_cache()
    return segview.detect(y, "fisher")


def _best_of(fn, rounds: int) -> float:
    best = math.inf
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


@pytest.mark.parametrize("cold", [True, False], ids=["cold", "warm"])
@pytest.mark.parametrize("n", [1_000, 10_000])
def test_fisher(benchmark, n, cold):
    y = series(n)
    run(y[:300], False)
    res = benchmark.pedantic(run, args=(y, cold), rounds=2)
    assert res.change_points.size >= 3


def main() -> None:
    for n in (1_000, 10_000):
        y = series(n)
        run(y[:300], False)
        segview.detect(y, "binseg", penalty=50)
        cold = _best_of(lambda: run(y, True), 2)
        warm = _best_of(lambda: run(y, False), 3)
        ref = _best_of(lambda: segview.detect(y, "binseg", penalty=50), 3)
        cps = list(run(y, False).change_points)
        print(f"fisher n={n:,}: cold {cold:.4f} s, warm {warm:.4f} s, binseg {ref:.4f} s, "
              f"warm/binseg {warm / ref:.1f}, change points {cps}")


def first_run(sizes: tuple[int, ...] = (10_000, 100_000)) -> None:
    """Issue 15.4: CPU time of the first run at a new length, shipped table vs simulating every
    critical value outside Eq. 8's range (the code before the table), interleaved in one process
    with an empty temporary cache folder (the user's cache is left alone)."""
    import os
    import tempfile
    from segview.core.detectors import _fisher_table

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SEGVIEW_CACHE_DIR"] = tmp
        run(series(500), True)  # compile
        for n in sizes:
            y = series(n)
            fisher.clear_mc_cache()
            t = time.process_time()
            new = segview.detect(y, "fisher")
            t_new = time.process_time() - t
            saved = _fisher_table.available
            _fisher_table.available = lambda alpha, m: False
            try:
                fisher.clear_mc_cache()
                t = time.process_time()
                old = segview.detect(y, "fisher")
                t_old = time.process_time() - t
            finally:
                _fisher_table.available = saved
            print(f"first run n={n:,}: simulated {t_old:.2f} s CPU, table {t_new:.4f} s CPU, "
                  f"ratio {t_old / t_new:.0f}; change points equal: "
                  f"{list(old.change_points) == list(new.change_points)} "
                  f"({len(new.change_points)} vs {len(old.change_points)})", flush=True)


if __name__ == "__main__":
    import sys
    if "--first-run" in sys.argv:
        first_run()
    else:
        main()
