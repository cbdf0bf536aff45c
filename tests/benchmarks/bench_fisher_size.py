"""Size of the Berry-Hellerstein test on queue response times without change (issue 16.2).

For M/M/1 and M/D/1 FCFS response times (warm-up 60,000 customers, spec fisher.md §8-§9), N = 100
and 1000, a grid of utilisations, the share of seeded replications in which the procedure reports a
change (= the root test rejects, spec §6), before (faithful: Eq. 8 at the estimated phi) and after
calibration (``calibrate="block"``, 399 bootstrap series per critical value). Also the diagnostic
variants of docs/berry-hellerstein.md (Monte Carlo critical values, true phi, Gaussianised data,
warm-up, batch means) with ``--diagnose``.

Run: ``python tests/benchmarks/bench_fisher_size.py [--reps 600] [--diagnose | --power]`` (several CPU
minutes; the docs used 600, 400 and 150 replications).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import segview  # noqa: E402
from segview.core.detectors import _fisher_table, fisher  # noqa: E402
from segview.core.detectors._fisher_kernels import two_partition  # noqa: E402
from segview.core.synthetic import ar1_noise, md1_response_times, mm1_response_times  # noqa: E402

QUEUES = {"M/M/1": mm1_response_times, "M/D/1": md1_response_times}
RHOS = (0.1, 0.2, 0.3, 0.5, 0.7, 0.9)


def root(x: np.ndarray) -> tuple[float, int]:
    c = x - x.mean()
    S, Q = np.r_[0.0, np.cumsum(c)], np.r_[0.0, np.cumsum(c * c)]
    d_p, d_q, q = two_partition(S, Q, 0, x.size, 1)
    return (np.inf if d_q == 0 else d_p / d_q), int(q)


def size_table(reps: int) -> list[str]:
    lines = ["| queue | N | rho | phi-hat (mean) | faithful (default) | calibrate=block |",
             "|---|---|---|---|---|---|"]
    for qname, gen in QUEUES.items():
        for n in (100, 1000):
            for rho in RHOS:
                t0 = time.process_time()
                before, after, phis = [], [], []
                for s in range(reps):
                    x = gen(n, rho, seed=s)[0].values
                    phis.append(fisher.lag1_autocorrelation(x))
                    before.append(segview.detect(x, "fisher").change_points.size > 0)
                    after.append(segview.detect(x, "fisher", calibrate="block")
                                 .change_points.size > 0)
                lines.append(f"| {qname} | {n} | {rho} | {np.mean(phis):.2f} | "
                             f"{np.mean(before):.3f} | {np.mean(after):.3f} |")
                print(lines[-1], f"({time.process_time() - t0:.0f} s CPU)", flush=True)
    return lines


def diagnose(reps: int) -> list[str]:
    """Rejection rates of the root test under variants that isolate each suspected cause."""
    from scipy.stats import norm, rankdata
    lines = ["| variant | N=100 rho=.2 | N=100 rho=.5 | N=1000 rho=.2 | N=1000 rho=.5 |",
             "|---|---|---|---|---|"]
    cols = [(100, 0.2), (100, 0.5), (1000, 0.2), (1000, 0.5)]
    res: dict[str, list[float]] = {}
    for n, rho in cols:
        long = mm1_response_times(400_000, rho, seed=999)[0].values
        true_phi = fisher.lag1_autocorrelation(long)
        rows: dict[str, list[bool]] = {}

        def add(name: str, hit: bool) -> None:
            rows.setdefault(name, []).append(bool(hit))

        for s in range(reps):
            x = mm1_response_times(n, rho, seed=s)[0].values
            t, _ = root(x)
            ph = fisher.lag1_autocorrelation(x)
            add("faithful: Eq. 8 at phi-hat", t > fisher.eq8(n, ph))
            add("simulated Tc (table) at phi-hat", t > _fisher_table.lookup(n, ph))
            add("Eq. 8 at the true phi", t > fisher.eq8(n, true_phi))
            add("simulated Tc at the true phi", t > _fisher_table.lookup(n, true_phi))
            g = norm.ppf((rankdata(x) - 0.5) / n)
            add("Gaussianised (normal scores), Eq. 8", root(g)[0] > fisher.eq8(
                n, fisher.lag1_autocorrelation(g)))
            a = ar1_noise(n, true_phi, np.random.default_rng([5, s]))
            add("Gaussian AR(1) at the true phi, Eq. 8", root(a)[0] > fisher.eq8(
                n, fisher.lag1_autocorrelation(a)))
            x0 = mm1_response_times(n, rho, seed=s, warmup=0)[0].values
            add("no warm-up (empty start), Eq. 8", root(x0)[0] > fisher.eq8(
                n, fisher.lag1_autocorrelation(x0)))
            x6 = mm1_response_times(n, rho, seed=s, warmup=600_000)[0].values
            add("warm-up 600,000, Eq. 8", root(x6)[0] > fisher.eq8(
                n, fisher.lag1_autocorrelation(x6)))
            xb = mm1_response_times(10 * n, rho, seed=s)[0].values.reshape(n, 10).mean(axis=1)
            add("batch means of 10 customers, Eq. 8", root(xb)[0] > fisher.eq8(
                n, fisher.lag1_autocorrelation(xb)))
            r, _ = fisher.prewhiten(x)
            add("AR(1) residuals (prewhiten), Eq. 8", root(r)[0] > fisher.eq8(
                n - 1, fisher.lag1_autocorrelation(r)))
            add("calibrate=sieve (AR sieve bootstrap)", segview.detect(
                x, "fisher", calibrate="sieve", boot_reps=199).change_points.size > 0)
            add("calibrate=block (normal scores, block bootstrap)", segview.detect(
                x, "fisher", calibrate="block").change_points.size > 0)
        for name, hits in rows.items():
            res.setdefault(name, []).append(float(np.mean(hits)))
        print(f"N={n} rho={rho} true phi {true_phi:.3f} done", flush=True)
    for name, vals in res.items():
        lines.append(f"| {name} | " + " | ".join(f"{v:.3f}" for v in vals) + " |")
    return lines


def power(reps: int) -> list[str]:
    """Share of runs with a change reported when the utilisation changes half-way (N = 1000)."""
    lines = ["| rho | drho | default | calibrate=block |", "|---|---|---|---|"]
    for rho in (0.2, 0.5):
        for drho in (0.1, 0.3):
            f, b = [], []
            for s in range(reps):
                x = mm1_response_times(1000, rho, drho=drho, seed=10_000 + s)[0].values
                f.append(segview.detect(x, "fisher").change_points.size > 0)
                b.append(segview.detect(x, "fisher", calibrate="block").change_points.size > 0)
            lines.append(f"| {rho} | +{drho} | {np.mean(f):.2f} | {np.mean(b):.2f} |")
            print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=600)
    ap.add_argument("--diagnose", action="store_true", help="the cause study instead of the table")
    ap.add_argument("--power", action="store_true", help="power with a change instead of the table")
    args = ap.parse_args(argv)
    if args.power:
        lines = power(args.reps)
    else:
        lines = diagnose(args.reps) if args.diagnose else size_table(args.reps)
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
