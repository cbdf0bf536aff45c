"""CPU time per measurement of SteadyStateMonitor.push (issue 16.5: O(1) amortised).

Pushes n = 1e3, 1e4, 1e5 measurements one at a time (a JMH-like series: a decaying warm-up, then
noise with rare spikes) into a monitor that never learns the length, and reports CPU microseconds
per push and the checked samples per push (the docstring's cost model). For contrast, checking
every prefix (``growth=0``) at n = 1e3 and 3e3: its cost per push grows with n.

Usage: ``python tests/benchmarks/bench_stream.py [--repeat 3]``
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from segview.stream import SteadyStateMonitor


def series(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    t = np.arange(n)
    x = 1.0 + 4.0 * np.exp(-t / 80.0) + rng.normal(0, 0.05, n)
    spikes = rng.random(n) < 0.005
    x[spikes] += rng.exponential(1.0, spikes.sum())
    return x


def per_push(n: int, growth: float, repeat: int) -> tuple[float, float]:
    x = series(n)
    best = np.inf
    work = 0.0
    for _ in range(repeat):
        m = SteadyStateMonitor(growth=growth)
        push = m.push
        start = time.process_time()
        for v in x:
            push(v)
        best = min(best, time.process_time() - start)
        work = m.work / n
    return 1e6 * best / n, work


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    SteadyStateMonitor().extend(series(200))  # compile/load the numba kernels outside the timing
    print("| schedule | n | CPU per push | checked samples per push |")
    print("|---|---:|---:|---:|")
    rows = []
    for n in (1_000, 10_000, 100_000):
        us, work = per_push(n, 0.02, args.repeat)
        rows.append(us)
        print(f"| growth 0.02 (default) | {n:,} | {us:.1f} µs | {work:.1f} |", flush=True)
    print(f"\nratio 1e5 / 1e3: {rows[-1] / rows[0]:.2f}\n")
    for n in (1_000, 3_000):
        us, work = per_push(n, 0.0, 1)
        print(f"| every prefix (growth 0) | {n:,} | {us:.1f} µs | {work:.1f} |", flush=True)


if __name__ == "__main__":
    main()
