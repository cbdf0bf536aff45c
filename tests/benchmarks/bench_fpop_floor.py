"""What FPOP costs per step when the candidates sit in the vector lanes, against one ``np.cumsum`` pass.

    python tests/benchmarks/bench_fpop_floor.py [--n 1000000] [--rounds 5]

Issue 14 asks for FPOP within 10x of one ``np.cumsum`` pass at n = 1e6. This script measures what an
FPOP that keeps its candidates in the lanes of a vector and updates them every step (segview's
kernel until session 8) must at least do per step, on the same series as ``bench_exact.py``, and
segview's current kernel, which puts 8 *steps* in the lanes instead (see ``_fpop_kernels``):

* ``recursion only``: op's formula ``F[tau] + ((Q[t] - Q[tau]) - s*s/m)`` over a fixed set of k
  candidates, the first minimum, and a newborn replacing the oldest candidate; no pruning
  bookkeeping at all. k = 5 and 8 are FPOP's average live candidates on these series (n/200 and 5
  changes). ``scalar`` loops over the 5 candidates (too few for the vectoriser), ``8 lanes`` over a
  padded vector of 8 (the older layout). Each step waits for the previous one: the newborn's value
  is ``F[t-1]`` plus a cost, so the minimum is a loop-carried chain through memory.
* ``div`` / ``sqrt``, 8 lanes: throughput of independent divisions and square roots, one 8-wide
  vector instruction per step.
  FPOP's pruning needs, per candidate and step, one division (the segment mean) and one square
  root (the radius of the interval where the candidate beats the newborn); the block kernel does
  them 8 steps to an instruction.
* segview FPOP itself, and the ratios of everything to ``np.cumsum``.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(__file__))
from bench_exact import series  # noqa: E402

from segview.core.detectors.partition import optimal_partition  # noqa: E402


@njit(nogil=True, cache=True, error_model="numpy")
def _recursion_only(y: np.ndarray, k: int, lanes: int, beta: float, F: np.ndarray,
                    last: np.ndarray) -> None:
    TAU = np.zeros(8)
    CF = np.zeros(8)
    CS = np.zeros(8)
    CQ = np.zeros(8)
    V = np.zeros(8)
    CF[0] = F[0]
    St = 0.0
    Qt = 0.0
    for t in range(1, y.size + 1):
        c = y[t - 1]
        St += c
        Qt += c * c
        tf = float(t)
        for i in range(lanes):
            s = St - CS[i]
            V[i] = CF[i] + ((Qt - CQ[i]) - s * s / (tf - TAU[i]))
        best = V[0]
        arg = 0
        for i in range(1, k):
            if V[i] < best:
                best = V[i]
                arg = i
        ft = best + beta
        F[t] = ft
        last[t] = int(TAU[arg])
        j = t % k
        TAU[j] = tf
        CF[j] = ft
        CS[j] = St
        CQ[j] = Qt


@njit(nogil=True, cache=True, error_model="numpy")
def _div8(a: np.ndarray, b: np.ndarray, n: int) -> float:
    lanes = a.size  # a run-time count, so that the loop vectoriser (not SLP) takes the loop
    for t in range(n):
        d = t + 1.0
        for i in range(lanes):
            b[i] += a[i] / d
    return b.sum()


@njit(nogil=True, cache=True, error_model="numpy")
def _sqrt8(a: np.ndarray, b: np.ndarray, n: int) -> float:
    lanes = a.size
    for t in range(n):
        d = t + 1.0
        for i in range(lanes):
            b[i] += math.sqrt(a[i] + d)
    return b.sum()


def best_cpu(fn, rounds: int) -> float:
    out = math.inf
    for _ in range(rounds):
        t = time.process_time()
        fn()
        out = min(out, time.process_time() - t)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    n = args.n
    a = np.arange(1.0, 9.0)
    b = np.zeros(8)
    _div8(a, b, 10)
    _sqrt8(a, b, 10)
    print(f"n = {n:.0e}, best of {args.rounds}, CPU time")
    print("| series | what | ns per step | x np.cumsum |")
    print("| --- | --- | --- | --- |")
    for kind in ("dense", "5 changes"):
        y = series(n, kind)
        beta = 2 * math.log(n)
        F = np.empty(n + 1)
        last = np.empty(n + 1, dtype=np.int64)
        F[0] = -beta
        _recursion_only(y[:100], 5, 5, beta, F, last)
        cs = best_cpu(lambda: np.cumsum(y), 2 * args.rounds)
        rows = [("np.cumsum", cs)]
        rows.append(("recursion only, k=5, scalar",
                     best_cpu(lambda: _recursion_only(y, 5, 5, beta, F, last), args.rounds)))
        for k in (5, 8):
            rows.append((f"recursion only, k={k}, 8 lanes",
                         best_cpu(lambda: _recursion_only(y, k, 8, beta, F, last), args.rounds)))
        rows.append(("div, 8 lanes", best_cpu(lambda: _div8(a, b, n), args.rounds)))
        rows.append(("sqrt, 8 lanes", best_cpu(lambda: _sqrt8(a, b, n), args.rounds)))
        optimal_partition(y[:2000], "l2", beta, 1, search="fpop")
        rows.append(("segview FPOP", best_cpu(
            lambda: optimal_partition(y, "l2", beta, 1, search="fpop"), args.rounds)))
        for what, sec in rows:
            print(f"| {kind} | {what} | {sec / n * 1e9:.1f} | {sec / cs:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
