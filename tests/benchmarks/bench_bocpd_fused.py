"""bocpd's fused kernel against the per-step path it replaced, on identical input (issue 31).

    PYTHONPATH=. python tests/benchmarks/bench_bocpd_fused.py [--n 3000] [--reps 5]

Series: the four of ``bench_bocpd_peers.py`` (shifts, variance, steps, noise; z-scored once) and
the first three 3,000-point series of the bundled sample data (what the explorer opens). For each,
CPU time (``_timing.measure``: interleaved repetitions, median and range, load average) of

* ``detect``: ``segview.detect(y, "bocpd")`` with the defaults (the fused kernel);
* ``steps``: the per-step path (numba element-wise step, numpy long double sums), which was
  ``detect``'s kernel before, on the same arguments;

their ratio, and the posterior updates done (sum over t of the run lengths kept), since the cost
is that number times the work per run length.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import fmt, fmt_load, measure, ratio  # noqa: E402
from bench_bocpd_peers import make_series  # noqa: E402

import segview  # noqa: E402
from segview.core.context import NULL_CONTEXT  # noqa: E402
from segview.core.detectors import _bocpd_kernels as K  # noqa: E402
from segview.core.detectors.bocpd import _scaled  # noqa: E402


def sample_series(n: int) -> dict[str, np.ndarray]:
    from segview.core.io import load
    from segview.core.resources import sample_dir
    out = {}
    for s in load(sample_dir()):
        if len(s) == n and len(out) < 3:
            out[f"sample {len(out) + 1}"] = np.asarray(s.values, dtype=np.float64)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    series = {k: y for k, (y, _) in make_series(args.n).items()}
    series.update(sample_series(args.n))
    cases, updates = {}, {}
    for name, y in series.items():
        z = _scaled(y, "zscore")
        kargs = K._arguments(z, 100.0, (0.0, 1.0, 1.0, 1.0), 1e-4, 10_000, False, 10, 2, 5,
                             NULL_CONTEXT)
        _, diag = K.bocpd(z, 100.0, (0.0, 1.0, 1.0, 1.0))
        updates[name] = int(diag["kept"].sum())
        cases[f"{name}|detect"] = lambda y=y: segview.detect(y, "bocpd")
        cases[f"{name}|steps"] = lambda a=kargs: K._bocpd_steps(*a, compiled=True)
    res = measure(cases, reps=args.reps)
    print(f"bocpd, n = {args.n}, CPU time per run, median (range) over {args.reps} interleaved "
          f"repetitions; {fmt_load(next(iter(res.values())))}")
    print(f"{'series':10s} {'updates':>9s}  {'detect (fused)':>24s}  {'per-step path':>24s}  ratio")
    for name in series:
        d, s = res[f"{name}|detect"], res[f"{name}|steps"]
        print(f"{name:10s} {updates[name]:9d}  {fmt(d):>24s}  {fmt(s):>24s}  "
              f"{fmt(ratio(s, d), unit='x')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
