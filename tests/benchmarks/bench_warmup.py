"""Benchmark: warmup_stats' classification (``barrett``) of 1,000 executions x 2,000 iterations.

Issue 27's target: under 10 s of CPU on this 2-core machine. Synthetic executions (seeded): a
warm-up of random length (0-600 iterations, 2-5x slower), Gaussian noise of 1-5 %, 1 % spikes;
a tenth of them slow down late instead, a tenth are flat. Reported, in CPU seconds
(``time.process_time``, one thread): the three steps (outliers, change points, classification)
over all executions, the same with the plain R-PELT emulation (``--plain``: no vector kernel),
and the benchmark-level summary (verdict, spreads, Kalibera-Jones and warmup_stats bootstraps) of
the 1,000 executions as one benchmark. Peak Python memory (tracemalloc) of the classification
loop (100 executions) shows it does not grow with the number of executions beyond the results.

Run: ``python tests/benchmarks/bench_warmup.py [--executions 1000] [--iterations 2000] [--plain]
[--resamples 2000]``. Run once before measuring so numba's on-disk cache is warm.
"""
from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from segview.core.benchmark import execution, group  # noqa: E402
from segview.core.detectors import _pelt_r  # noqa: E402
from segview.core.warmup import analyse_benchmark, classify_segmentation, mark_outliers  # noqa: E402
from segview.core.warmup import segments as seg_mod  # noqa: E402


def make(k: int, n: int, seed: int = 27) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(k):
        base = 0.01 * rng.uniform(0.5, 2.0)
        t = np.arange(n)
        kind = i % 10
        if kind == 0:
            level = np.full(n, base)
        elif kind == 1:
            level = np.where(t < int(n * rng.uniform(0.5, 0.9)), base, base * 1.5)
        else:
            level = np.where(t < rng.integers(0, 600), base * rng.uniform(2, 5), base)
        x = level * (1 + rng.uniform(0.01, 0.05) * rng.normal(size=n))
        spikes = rng.random(n) < 0.01
        x[spikes] *= rng.uniform(2, 10, spikes.sum())
        out.append(x)
    return out


def classify_all(xs, plain: bool):
    t_out = t_cpt = t_cls = 0.0
    classes = Counter()
    orig = seg_mod.pelt_r_meanvar_fast
    if plain:
        seg_mod.pelt_r_meanvar_fast = (lambda s1, s2, b, m=2, notes=None:
                                       _pelt_r.pelt_r_meanvar(s1, s2, b, m))
    try:
        for x in xs:
            t0 = time.process_time()
            o = mark_outliers(x)
            t1 = time.process_time()
            seg = seg_mod.meanvar_changepoints(x, o)
            t2 = time.process_time()
            ec = classify_segmentation(x, seg)
            t3 = time.process_time()
            t_out += t1 - t0
            t_cpt += t2 - t1
            t_cls += t3 - t2
            classes[ec.classification] += 1
    finally:
        seg_mod.pelt_r_meanvar_fast = orig
    return t_out, t_cpt, t_cls, classes


def bootstraps(k: int) -> None:
    from segview.core.warmup import hierarchical_bootstrap, warmup_stats_bootstrap
    rng = np.random.default_rng(1)
    groups = [0.01 * (1 + 0.02 * rng.normal(size=1800)) for _ in range(k)]
    for level in ("normal", "auto"):
        t0 = time.process_time()
        ci = hierarchical_bootstrap(groups, resamples=10000, iteration_level=level)
        print(f"Kalibera-Jones bootstrap, {k} executions x 1800 steady iterations, 10,000 "
              f"resamples, iteration level {ci.iteration_level}: "
              f"{time.process_time() - t0:.2f} s CPU")
    for b in (10000, 100000):
        t0 = time.process_time()
        warmup_stats_bootstrap([[g] for g in groups], resamples=b)
        print(f"warmup_stats bootstrap, B = {b}: {time.process_time() - t0:.2f} s CPU")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--executions", type=int, default=1000)
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--plain", action="store_true", help="also time the plain R-PELT emulation")
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--only-bootstrap", action="store_true",
                    help="time only the two bootstraps on 1,000 x 1,800 steady iterations")
    a = ap.parse_args()
    bootstraps(a.executions)
    if a.only_bootstrap:
        return
    xs = make(a.executions, a.iterations)
    classify_all(xs[:2], False)                      # compile / load the kernels
    t_out, t_cpt, t_cls, classes = classify_all(xs, False)
    tracemalloc.start()                              # (slows Python down: timed apart)
    classify_all(xs[:100], False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    total = t_out + t_cpt + t_cls
    print(f"{a.executions} executions x {a.iterations} iterations, barrett (vector PELT kernel):")
    print(f"  outliers {t_out:.2f} s, change points {t_cpt:.2f} s, classes {t_cls:.2f} s; "
          f"total {total:.2f} s CPU ({1000 * total / a.executions:.1f} ms per execution)")
    print(f"  classes: {dict(classes)}; peak traced memory over 100 executions "
          f"{peak / 2**20:.1f} MiB")
    if a.plain:
        p_out, p_cpt, p_cls, p_classes = classify_all(xs, True)
        assert p_classes == classes
        print(f"  plain R-PELT emulation: change points {p_cpt:.2f} s "
              f"(total {p_out + p_cpt + p_cls:.2f} s CPU)")
    b = group([execution(x, benchmark="bench", index=i, harness="synthetic", unit="s")
               for i, x in enumerate(xs)])[0]
    t0 = time.process_time()
    r = analyse_benchmark(b, resamples=a.resamples, ws_resamples=a.resamples)
    t1 = time.process_time()
    d = r.to_dict()
    print(f"analyse_benchmark (the same {a.executions} executions as one benchmark, "
          f"{a.resamples} bootstrap resamples each): {t1 - t0:.2f} s CPU; "
          f"{d['classification']}, steady performance {d['steady_performance'] and d['steady_performance']['median']}")


if __name__ == "__main__":
    main()
