"""segview's ecp and kcpa against the packages a user would pick instead, on identical input.

    PYTHONPATH=. python tests/benchmarks/bench_ecp_kcpa_peers.py [--n 3000] [--ecp-n 1000]
        [--permutations 199] [--reps 5] [--otava DIR]

Input: a z-scored series of n samples, normal noise with a mean shift at n/3 and a variance change
at 2n/3 (seeded). CPU time of this process (``_timing.measure``: interleaved repetitions, median
and range, load average).

* kcpa vs ``ruptures.KernelCPD(kernel="rbf")`` (``pelt`` with a penalty). ruptures' rbf kernel is
  ``exp(-gamma ||x - y||^2)`` with gamma = 1 / median squared distance by default, and its PELT
  minimises a linearly penalised cost; segview's kcpa (R ecp's) uses the kernel with ``h`` = the
  median squared distance and Arlot et al.'s non-linear penalty over every number of segments. The
  same kernel is used (gamma = 1/h), and ruptures' penalty is set to segview's penalty per change
  at the number of segments segview chose, so both answer "where are the changes" on equal terms;
  the change points are printed side by side.
* kcpa's segment-neighbourhood recursion vs ``ruptures.KernelCPD(kernel="rbf").predict(n_bkps=k)``
  (``--n-bkps``), like for like: both find the cheapest segmentation with exactly k change points
  by dynamic programming over the number of segments, with the same kernel (gamma = 1/h, h = R
  ecp's bandwidth) and minimum segment length 1. segview runs kcpa with ``max_cp = k`` and
  ``C = 0`` (no penalty, so the answer is the k-change optimum), timed whole (bandwidth, n x n cost
  table, recursion) and also with the table cached (the explorer's slider case). Costs printed:
  each answer's total under segview's cost (``m - (1/m) sum k``) and under ruptures' own
  (``ruptures.costs.CostRbf``, which clips ``gamma d^2`` to [0.01, 100] before ``exp``, so its
  ``k(x, x)`` is ``exp(-0.01)``, not 1: the two costs differ and so may the optimum).
* ecp vs ``signal_processing_algorithms`` (MongoDB) ``e_divisive(series, pvalue, permutations)``
  and Apache Otava's E-Divisive with its permutation tester (``--otava``: a folder holding the
  ``otava`` package, e.g. the unpacked wheel, because otava pins numpy 2.2 and scipy 1.16 and
  cannot share this environment). Same significance level and number of permutations. Both peers
  search only splits with ``kappa`` = the segment's end (not every right end, as Matteson & James
  and R do), have no minimum segment size, and shuffle with numpy's generator, so their p-values
  and sometimes their change points differ; segview's are R's.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import fmt, fmt_load, measure, ratio  # noqa: E402

import segview  # noqa: E402
from segview.core.detectors import kcpa as K  # noqa: E402


def series(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    a, b = n // 3, 2 * n // 3
    y = np.concatenate([rng.normal(0, 1, a), rng.normal(2, 1, b - a), rng.normal(2, 3, n - b)])
    return K.as_matrix(y, "zscore")[:, 0]


def bench_kcpa(n: int, reps: int, cost: float) -> None:
    import ruptures as rpt

    y = series(n)
    res = segview.detect(y, "kcpa", scale="none", cost=cost)
    h, v = res.stats["bandwidth"], res.stats["vmax"]
    k = res.stats["segments"]
    # segview's penalty for its chosen K, per change point, as ruptures' linear penalty
    pen = cost * v * k / n * (1 + np.log(n / k)) / max(1, k - 1)
    algo = rpt.KernelCPD(kernel="rbf", params={"gamma": 1.0 / h}, min_size=1)
    cases = {"segview kcpa": lambda: segview.detect(y, "kcpa", scale="none", cost=cost),
             "ruptures KernelCPD pelt": lambda: algo.fit(y).predict(pen=pen)}
    fig = measure(cases, reps=reps)
    theirs = algo.fit(y).predict(pen=pen)[:-1]
    print(f"kcpa, n={n}, C={cost}: {fmt_load(fig['segview kcpa'])}")
    for name, f in fig.items():
        print(f"  {name:28s} {fmt(f)}")
    print(f"  ruptures / segview CPU: "
          f"{fmt(ratio(fig['ruptures KernelCPD pelt'], fig['segview kcpa']), unit='x')}")
    print(f"  segview:  {[int(c) for c in res.change_points[:12]]}{' ...' if len(res.change_points) > 12 else ''}"
          f" ({len(res.change_points)})")
    print(f"  ruptures: {[int(c) for c in theirs[:12]]}{' ...' if len(theirs) > 12 else ''} ({len(theirs)})")


def _total(U: np.ndarray, cps: list[int]) -> float:
    b = [0, *cps, U.shape[0]]
    return float(sum(U[a, e - 1] for a, e in zip(b[:-1], b[1:])))


def bench_kcpa_nbkps(n: int, reps: int, n_bkps: list[int]) -> None:
    """Like for like with ruptures' KernelCPD dynamic programme (see the module docstring)."""
    import ruptures as rpt
    from segview.core.api import run_spec
    from segview.core.context import RunContext
    from segview.core.registry import get

    y = series(n)
    spec = get("kcpa")
    base = spec.coerce({"scale": "none", "cost": 0.0})
    state = spec.prepare(y, base, RunContext())
    h = state.h
    for k in n_bkps:
        params = spec.coerce({"scale": "none", "cost": 0.0, "max_cp": k})
        algo = rpt.KernelCPD(kernel="rbf", params={"gamma": 1.0 / h}, min_size=1)
        cases = {"segview kcpa (whole run)": lambda: run_spec(spec, y, params),
                 "segview kcpa (state cached)": lambda: run_spec(
                     spec, y, params, RunContext().with_prepared(state)),
                 "ruptures KernelCPD dynp": lambda: algo.fit(y).predict(n_bkps=k)}
        fig = measure(cases, reps=reps)
        ours = run_spec(spec, y, params)
        cps = [int(c) for c in ours.change_points]
        theirs = [int(c) for c in algo.fit(y).predict(n_bkps=k)[:-1]]
        cost = algo.cost
        print(f"kcpa vs KernelCPD.predict(n_bkps={k}), n={n}, gamma=1/h={1 / h:.6g}: "
              f"{fmt_load(fig['segview kcpa (whole run)'])}")
        for name, f in fig.items():
            print(f"  {name:30s} {fmt(f)}")
        for name in ("segview kcpa (whole run)", "segview kcpa (state cached)"):
            print(f"  ruptures / {name} CPU: "
                  f"{fmt(ratio(fig['ruptures KernelCPD dynp'], fig[name]), unit='x')}")
        same = "same" if cps == theirs else "DIFFERENT"
        print(f"  change points ({same}): segview {cps[:10]}{' ...' if len(cps) > 10 else ''} "
              f"({len(cps)}), ruptures {theirs[:10]}{' ...' if len(theirs) > 10 else ''} "
              f"({len(theirs)})")
        print(f"  segview's cost: segview's answer {_total(state.table(), cps):.10g}, ruptures' "
              f"{_total(state.table(), theirs):.10g}; ruptures' cost: segview's answer "
              f"{cost.sum_of_costs([*cps, n]):.10g}, ruptures' "
              f"{cost.sum_of_costs([*theirs, n]):.10g}")


def bench_ecp(n: int, reps: int, permutations: int, otava_dir: str | None) -> None:
    from signal_processing_algorithms.energy_statistics import energy_statistics as es

    y = series(n)
    cases = {"segview ecp": lambda: segview.detect(y, "ecp", scale="none",
                                                   permutations=permutations),
             "signal-processing-algorithms": lambda: es.e_divisive(
                 y, pvalue=0.05, permutations=permutations)}
    otava_run = None
    if otava_dir:
        sys.path.insert(0, otava_dir)
        from otava.change_point_divisive.calculator import PairDistanceCalculator
        from otava.change_point_divisive.detector import ChangePointDetector
        from otava.change_point_divisive.significance_test import PermutationsSignificanceTester

        def otava_run():
            tester = PermutationsSignificanceTester(max_pvalue=0.05, permutations=permutations,
                                                    calculator=PairDistanceCalculator, seed=1)
            det = ChangePointDetector(significance_tester=tester,
                                      calculator=PairDistanceCalculator)
            return sorted(cp.index for cp in det.get_change_points(series=y))
        cases["apache-otava (E-Divisive)"] = otava_run
    fig = measure(cases, reps=reps)
    ours = segview.detect(y, "ecp", scale="none", permutations=permutations)
    print(f"ecp, n={n}, R={permutations}: {fmt_load(fig['segview ecp'])}")
    for name, f in fig.items():
        print(f"  {name:30s} {fmt(f)}")
    for name in fig:
        if name != "segview ecp":
            print(f"  {name} / segview CPU: {fmt(ratio(fig[name], fig['segview ecp']), unit='x')}")
    print(f"  segview: {[int(c) for c in ours.change_points]} p={[float(p) for p in ours.strengths]}")
    print(f"  signal-processing-algorithms: {sorted(int(c) for c in es.e_divisive(y, 0.05, permutations))}")
    if otava_run is not None:
        print(f"  apache-otava: {otava_run()}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--ecp-n", type=int, default=1000)
    ap.add_argument("--permutations", type=int, default=199)
    ap.add_argument("--cost", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--otava", default=None)
    ap.add_argument("--n-bkps", default="1,4,16,64",
                    help="comma-separated numbers of change points for the KernelCPD "
                         "dynamic-programme comparison")
    ap.add_argument("--only", choices=("kcpa", "kcpa-dynp", "ecp"), default=None)
    a = ap.parse_args()
    if a.only in (None, "kcpa"):
        bench_kcpa(a.n, a.reps, a.cost)
    if a.only in (None, "kcpa-dynp"):
        bench_kcpa_nbkps(a.n, a.reps, [int(k) for k in a.n_bkps.split(",") if k.strip()])
    if a.only in (None, "ecp"):
        bench_ecp(a.ecp_n, a.reps, a.permutations, a.otava)


if __name__ == "__main__":
    main()
