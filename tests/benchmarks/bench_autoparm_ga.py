"""Auto-PARM's genetic algorithm on a CE-A-shaped series (issue 16.3; docs/autoparm-ga.md).

    python tests/benchmarks/bench_autoparm_ga.py [--seeds 0 1 2] [--restarts 5]

Series: ``segview.core.workload.ce_a_like(seed)`` (1895 points, 20 breaks; the generator is specified
in its docstring). For each series: the exact optimum (default mode), then the GA at the paper's
settings (seed 004: 100 islands x 50, 2 migrants every 5 offspring, stop after 10 migrations
without a better chromosome; operators pi_B = 10/n, pi_C = 1 - 10/n, pi_P = pi_N = 0.3), best of
``restarts`` seeded runs, and variants that change one thing: Davis et al.'s 40 x 40 islands, a
10x longer stopping rule, and a gentler mutation (pi_P = 0.8, pi_N = 0.1). Reported: code length,
gap to the exact optimum in percent, breaks, migrations per run, CPU seconds.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import segview
from segview.core.detectors import _autoparm_kernels as K
from segview.core.detectors import autoparm
from segview.core.workload import ce_a_like

PAPER = {"islands": 100, "population": 50, "migrants": 2, "migration_interval": 5,
         "stable_migrations": 10, "max_migrations": 1000, "pi_p": 0.3, "pi_n": 0.3}
VARIANTS = {
    "paper (seed 004)": {},
    "40 x 40 islands [D06]": {"islands": 40, "population": 40},
    "stop after 100 stable": {"stable_migrations": 100, "max_migrations": 5000},
    "gentle mutation 0.8/0.1": {"pi_p": 0.8, "pi_n": 0.1},
}


def ga(y: np.ndarray, restarts: int, seed: int, **kw) -> tuple[float, int, list[int], float]:
    """Best CL of ``restarts`` runs, its break count, migrations per run, CPU seconds."""
    s = {**PAPER, **kw}
    p0 = 20
    spans = autoparm.spans_for(p0)
    floor = autoparm._floor(y, 1e-10)
    x = np.ascontiguousarray(y - y.mean())
    pi_b = float(spans.min()) / y.size
    best, best_m, migs = np.inf, 0, []
    c = time.process_time()
    for rs in autoparm._ga_restart_seeds(seed, restarts):
        chrom, cl, m = K.ga_run(x, p0, spans, floor, rs, s["islands"], s["population"],
                                s["migrants"], s["migration_interval"], s["stable_migrations"],
                                s["max_migrations"], pi_b, 1.0 - pi_b, s["pi_p"], s["pi_n"])
        migs.append(int(m))
        if cl < best:
            best, best_m = float(cl), int(np.sum(chrom[1:] >= 0))
    return best, best_m, migs, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--restarts", type=int, default=5)
    args = ap.parse_args()
    ga(ce_a_like(0)[0][:200], 1, 0, islands=2, population=4)  # compile
    for seed in args.seeds:
        y, starts, orders = ce_a_like(seed)
        c = time.process_time()
        ex = segview.detect(y, "autoparm")
        t_ex = time.process_time() - c
        cl_ex = ex.stats["code_length"]
        cl_true = autoparm.code_length(y, starts, orders)[0]
        print(f"series ce_a_like({seed}): exact CL {cl_ex:.1f} with {ex.stats['n_breaks']} breaks "
              f"({t_ex:.1f} s); true segmentation CL {cl_true:.1f} with {len(starts)} breaks",
              flush=True)
        for name, kw in VARIANTS.items():
            cl, m, migs, t = ga(y, args.restarts, seed + 1, **kw)
            gap = (f"+{100 * (cl - cl_ex) / cl_ex:.1f} %" if cl_ex > 0
                   else f"+{cl - cl_ex:.1f} nats")  # a negative code length: no percentage
            print(f"  {name:<26} best of {args.restarts}: CL {cl:.1f} ({gap})"
                  f", {m} breaks, migrations {min(migs)}-{max(migs)} (mean {np.mean(migs):.0f}), "
                  f"{t:.1f} s", flush=True)


if __name__ == "__main__":
    main()
