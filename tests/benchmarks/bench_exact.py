"""Exact L2 change-point engines side by side (issue 14): segview FPOP and PELT, fastcpd (C++ PELT),
skchange's FPOP (numba) and ruptures' PELT, in one process, interleaved, CPU time.

    pip install -e '.[bench]'
    python tests/benchmarks/bench_exact.py            # n = 1e4, 1e5, 1e6
    python tests/benchmarks/bench_exact.py --quick    # n = 1e4, 1e5

Series: piecewise-constant means (N(0, 3^2) levels) plus unit Gaussian noise, either one change every
200 points ("dense", n/200 changes) or 5 changes. Penalty 2 ln n (BIC of the l2 cost, unit noise
variance); fastcpd's mean cost is half the squared error, so it gets beta = ln n with
``cost_adjustment=None`` and identity variance. Every engine must return the same change points as
segview's PELT (checked; a mismatch is printed and makes the exit code 1). Each cell is the best CPU
time (``time.process_time``) of ``--rounds`` rounds, the engines interleaved within a round so that
load changes hit all of them alike. ruptures runs only where it finishes in reasonable time (n = 1e4,
dense, one round), the PELTs not at 1e6 with 5 changes (quadratic there: minutes); the reference for
the change points is then segview FPOP. Also printed: one ``np.cumsum`` pass over the same array (the floor of any O(n) method),
the ratios to segview FPOP, and the scaling exponents ``log(t2/t1) / log(n2/n1)`` between sizes.

Headline ratios (issue 31, "figures that hold") are the median and range over the rounds of the
per-round ratio (both engines timed in the same round, so a load change hits both), with the
machine's load average at the start and end of the run; use ``--rounds 5`` or more for them.
"""
from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from segview.core.detectors.partition import optimal_partition


def series(n: int, kind: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "dense":
        return np.repeat(rng.normal(0, 3, n // 200 + 1), 200)[:n] + rng.standard_normal(n)
    return np.repeat(rng.normal(0, 3, 6), -(-n // 6))[:n] + rng.standard_normal(n)


def engines(n: int, kind: str) -> dict:
    beta = 2 * math.log(n)
    out = {
        "segview fpop": lambda y: optimal_partition(y, "l2", beta, 1, search="fpop").change_points,
        "segview pelt": lambda y: optimal_partition(y, "l2", beta, 1, pruning=True).change_points,
    }
    quadratic = kind != "dense" and n > 100_000  # PELT is O(n^2) with few changes: minutes
    if quadratic:
        del out["segview pelt"]
    try:
        if quadratic:
            raise ImportError
        import fastcpd

        out["fastcpd pelt"] = lambda y: np.asarray(fastcpd.detect_mean(
            y, beta=beta / 2, cost_adjustment=None, variance_estimation=np.eye(1),
            cp_only=True).cp_set).astype(np.int64)
    except ImportError:
        pass
    try:
        from skchange.detectors import FPOP

        def sk(y: np.ndarray) -> np.ndarray:
            X = y.reshape(-1, 1)
            return np.asarray(FPOP(penalty=beta).fit(X).predict(X), dtype=np.int64)

        out["skchange fpop"] = sk
    except ImportError:
        pass
    if n <= 10_000 and kind == "dense":
        try:
            import ruptures

            out["ruptures pelt"] = lambda y: np.asarray(ruptures.Pelt(
                model="l2", min_size=1, jump=1).fit(y).predict(pen=beta)[:-1], dtype=np.int64)
        except ImportError:
            pass
    out["np.cumsum"] = lambda y: np.cumsum(y)
    return out


#: per-round ratio other engine / segview FPOP, by (kind, n, engine); filled by measure()
RATIOS: dict = {}


def ratio_summary() -> str:
    """Median [min-max] of the per-round ratios to segview FPOP (> 1: segview FPOP faster)."""
    lines = ["Per-round ratios to segview FPOP, median [range] over rounds:"]
    for (kind, n, name), values in RATIOS.items():
        v = sorted(values)
        med = float(np.median(v))
        lines.append(f"  {kind} n={n:.0e} {name}: {med:.2f} [{v[0]:.2f}-{v[-1]:.2f}] "
                     f"({len(v)} rounds)")
    return "\n".join(lines)


def measure(sizes: list[int], rounds: int) -> tuple[dict, bool]:
    times: dict = {}
    ok = True
    warm = series(2000, "dense")
    for fn in engines(2000, "dense").values():
        fn(warm)  # compile / load outside the timing
    for kind in ("dense", "5 changes"):
        for n in sizes:
            y = series(n, kind)
            fns = engines(n, kind)
            best = {name: math.inf for name in fns}
            per_round: dict = {name: [] for name in fns}
            results = {}
            for r in range(rounds):
                for name, fn in fns.items():
                    if r and name == "ruptures pelt":
                        continue  # tens of seconds a run: one round is enough
                    t = time.process_time()
                    results[name] = fn(y)
                    spent = time.process_time() - t
                    best[name] = min(best[name], spent)
                    per_round[name].append(spent)
            ref = results.get("segview pelt", results["segview fpop"])
            for name, cps in results.items():
                if name != "np.cumsum" and not np.array_equal(cps, ref):
                    ok = False
                    print(f"MISMATCH {name} n={n} {kind}: {len(cps)} vs {len(ref)} change points",
                          file=sys.stderr)
            for name, value in best.items():
                times[(kind, n, name)] = value
            ours = per_round["segview fpop"]
            for name, spent in per_round.items():
                if name != "segview fpop" and len(spent) == len(ours):
                    RATIOS[(kind, n, name)] = [a / b for a, b in zip(spent, ours)]
            print(f"  done {kind} n={n:.0e} ({len(ref)} change points)", file=sys.stderr)
    return times, ok


def table(times: dict, sizes: list[int]) -> str:
    names = []
    for key in times:
        if key[2] not in names:
            names.append(key[2])
    lines = ["| series | n | " + " | ".join(names) + " |",
             "| --- | --- | " + " | ".join("---" for _ in names) + " |"]
    for kind in ("dense", "5 changes"):
        for n in sizes:
            cells = []
            for name in names:
                v = times.get((kind, n, name))
                cells.append("" if v is None else f"{v * 1e3:.1f} ms")
            lines.append(f"| {kind} | {n:.0e} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("Ratios to segview FPOP (> 1: segview FPOP faster):")
    for kind in ("dense", "5 changes"):
        for n in sizes:
            ours = times[(kind, n, "segview fpop")]
            parts = [f"{name} {times[(kind, n, name)] / ours:.2f}" for name in names
                     if name != "segview fpop" and (kind, n, name) in times]
            lines.append(f"  {kind} n={n:.0e}: " + ", ".join(parts))
    pelt_vs = [(kind, n) for kind in ("dense",) for n in sizes
               if (kind, n, "fastcpd pelt") in times]
    if pelt_vs:
        lines.append("segview PELT vs fastcpd (fastcpd time / segview time): " + ", ".join(
            f"n={n:.0e} {times[(k, n, 'fastcpd pelt')] / times[(k, n, 'segview pelt')]:.2f}"
            for k, n in pelt_vs))
    lines.append("Scaling exponents log(t2/t1)/log(n2/n1):")
    for kind in ("dense", "5 changes"):
        for name in names:
            exps = []
            for n1, n2 in zip(sizes[:-1], sizes[1:]):
                a, b = times.get((kind, n1, name)), times.get((kind, n2, name))
                if a and b and a > 0:
                    exps.append(f"{math.log(b / a) / math.log(n2 / n1):.2f}")
            if exps:
                lines.append(f"  {kind} {name}: " + ", ".join(exps))
    return "\n".join(lines)


_MEMORY_CHILD = """
import math, resource, sys, time
import numpy as np
from segview.core.detectors.partition import optimal_partition
engine, n = sys.argv[1], int(float(sys.argv[2]))
rng = np.random.default_rng(0)
y = np.empty(n)
for i in range(0, n, 10**6):  # in pieces: no n-sized temporaries before the measurement
    m = min(10**6, n - i)
    y[i:i + m] = np.repeat(rng.normal(0, 3, m // 200 + 1), 200)[:m] + rng.standard_normal(m)
optimal_partition(y[:1000], "l2", 1.0, 1, search=engine, pruning=engine == "dp")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.process_time()
part = optimal_partition(y, "l2", 2 * math.log(n), 1, search=engine, pruning=engine == "dp")
cpu = time.process_time() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(before * 1024, peak * 1024, cpu, part.change_points.size)
"""


def memory(sizes: list[float]) -> None:
    """Peak RSS in a fresh process per run: bytes a sample above the process with y loaded."""
    import subprocess
    print("| engine | n | peak RSS | bytes/sample incl. y | bytes/sample beyond y | CPU |")
    print("| --- | --- | --- | --- | --- | --- |")
    for engine, label in (("fpop", "segview FPOP"), ("dp", "segview PELT")):
        for n in sizes:
            if engine == "dp" and n > 1e7:
                continue
            out = subprocess.run([sys.executable, "-c", _MEMORY_CHILD, engine, str(n)],
                                 capture_output=True, text=True, check=True).stdout.split()
            before, peak, cpu = int(out[0]), int(out[1]), float(out[2])
            extra = max(peak - before, 0)
            print(f"| {label} | {n:.0e} | {peak / 2**20:.0f} MiB | {(extra + 8 * n) / n:.1f} | "
                  f"{extra / n:.1f} | {cpu:.1f} s |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="n = 1e4 and 1e5 only")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--memory", action="store_true",
                    help="peak memory of FPOP and PELT at 1e7 (and FPOP at 1e8) instead")
    args = ap.parse_args()
    if args.memory:
        memory([1e7, 1e8])
        return 0
    sizes = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    import os
    load0 = os.getloadavg()[0]
    times, ok = measure(sizes, args.rounds)
    print(table(times, sizes))
    print(ratio_summary())
    print(f"load average: {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
          f"{args.rounds} rounds")
    print("change points identical across engines:", ok)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
