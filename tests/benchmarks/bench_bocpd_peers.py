"""segview's bocpd against the online detectors a user would pick instead, on identical input.

    PYTHONPATH=. python tests/benchmarks/bench_bocpd_peers.py [--n 3000] [--reps 5]
        [--focus-threshold 20]

The issue names ``ocpdet`` and ``changepoint-online`` (PyPI) as bocpd's peers. Neither implements
Bayesian online change-point detection: they are the other online detectors a performance engineer
would reach for, so the outputs are compared as answers to the same question ("where did the
series change?"), not as the same computation.

Input: four seeded series of n samples, z-scored once (every detector gets the same numbers):
``shifts`` (mean 0 -> 2 -> 0.5 at n/3 and 2n/3), ``variance`` (sd 1 -> 3 at n/2), ``steps`` (six
mean levels, 1 sd apart) and ``noise`` (no change). CPU time of this process
(``_timing.measure``: interleaved repetitions, median and range, load average).

* segview ``bocpd`` with its defaults (TCPDBench's R ``ocp`` configuration: constant hazard
  1/100, Normal-Gamma prior m 0, k 1, a 1, b 1, i.e. unknown mean *and* variance). Change points
  are R ``ocp``'s ``maxCPs``: the most probable segmentation built along the run-length posterior,
  read at the end of the series, so each is placed where the segment starts.
* changepoint-online ``Focus(Gaussian())``: the exact CUSUM likelihood-ratio test for a change in
  mean (variance taken as 1, the pre-change mean unknown), restarted after every alarm; an alarm
  when the statistic reaches ``--focus-threshold`` (the package has no default; 20 is about
  2.5 log n, above what the ``noise`` series reaches). It reports the stopping time and the most
  likely change location; the location is what is listed.
* ocpdet ``CUSUM()`` and ``EWMA()`` with their defaults (k 0.25, h 8; r 0.1, L 2.4; burn-in 50):
  control charts for a change in mean against a running mean and sd that restart after an alarm.
  They report the alarm time (after the change, by the detection delay), not a change location.
  ``ocpdet.TwoSample`` is left out: each step runs a scipy two-sample test for every split of the
  data so far (about n^2 / 2 scipy calls per detection, millions at n = 3000), far outside a live
  budget. ``ocpdet``'s ``__init__`` imports TensorFlow (for its neural detector), which this
  environment does not have, so the three classical detectors are loaded from their files.
"""
from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import fmt, fmt_load, measure, ratio  # noqa: E402

import segview  # noqa: E402
from segview.core.detectors import kcpa as K  # noqa: E402


def make_series(n: int, seed: int = 0) -> dict[str, tuple[np.ndarray, list[int]]]:
    """Name -> (z-scored series, true change points)."""
    rng = np.random.default_rng(seed)
    a, b = n // 3, 2 * n // 3
    shifts = np.concatenate([rng.normal(0, 1, a), rng.normal(2, 1, b - a), rng.normal(0.5, 1, n - b)])
    h = n // 2
    variance = np.concatenate([rng.normal(0, 1, h), rng.normal(0, 3, n - h)])
    bounds = [round(i * n / 6) for i in range(7)]
    levels = rng.permutation(6).astype(float)
    steps = np.concatenate([rng.normal(levels[i], 1, bounds[i + 1] - bounds[i]) for i in range(6)])
    noise = rng.normal(0, 1, n)
    out = {"shifts": (shifts, [a, b]), "variance": (variance, [h]), "steps": (steps, bounds[1:-1]),
           "noise": (noise, [])}
    return {k: (K.as_matrix(y, "zscore")[:, 0], cps) for k, (y, cps) in out.items()}


def _ocpdet(name: str):
    """``ocpdet.<name>.<name>`` loaded from its file, without the package's TensorFlow import."""
    spec = importlib.util.find_spec("ocpdet")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("ocpdet is not installed (pip install --no-deps ocpdet)")
    path = Path(next(iter(spec.submodule_search_locations))) / f"{name}.py"
    mspec = importlib.util.spec_from_file_location(f"_ocpdet_{name}", path)
    mod = importlib.util.module_from_spec(mspec)
    mspec.loader.exec_module(mod)
    return getattr(mod, name)


def focus_run(y: np.ndarray, threshold: float) -> list[int]:
    """FOCuS (Gaussian mean, unknown pre-change mean) restarted after each alarm: the change
    locations it reports, as indices of the first sample of each new segment."""
    from changepoint_online import Focus, Gaussian

    cps: list[int] = []
    start, det = 0, Focus(Gaussian())
    for i, v in enumerate(y):
        det.update(float(v))
        if det.statistic() >= threshold:
            cps.append(start + int(det.changepoint()["changepoint"]))
            start, det = i + 1, Focus(Gaussian())
    return cps


def chart_run(cls, y: np.ndarray) -> list[int]:
    det = cls()
    det.process(list(map(float, y)))
    return [int(c) for c in det.changepoints]


def _near(found: list[int], truth: list[int], tol: int) -> str:
    hits = sum(any(abs(f - t) <= tol for f in found) for t in truth)
    return f"{hits}/{len(truth)} true changes within {tol}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--focus-threshold", type=float, default=20.0)
    a = ap.parse_args()
    CUSUM, EWMA = _ocpdet("CUSUM"), _ocpdet("EWMA")
    for name, (y, truth) in make_series(a.n).items():
        cases = {
            "segview bocpd": lambda y=y: segview.detect(y, "bocpd"),
            "changepoint-online Focus": lambda y=y: focus_run(y, a.focus_threshold),
            "ocpdet CUSUM": lambda y=y: chart_run(CUSUM, y),
            "ocpdet EWMA": lambda y=y: chart_run(EWMA, y),
        }
        fig = measure(cases, reps=a.reps)
        print(f"{name}, n={a.n}, true changes {truth}: {fmt_load(fig['segview bocpd'])}")
        for case, f in fig.items():
            print(f"  {case:26s} {fmt(f)}")
        for case in fig:
            if case != "segview bocpd":
                print(f"  {case} / segview CPU: "
                      f"{fmt(ratio(fig[case], fig['segview bocpd']), unit='x')}")
        outs = {"segview bocpd": [int(c) for c in segview.detect(y, "bocpd").change_points],
                "changepoint-online Focus": focus_run(y, a.focus_threshold),
                "ocpdet CUSUM (alarm times)": chart_run(CUSUM, y),
                "ocpdet EWMA (alarm times)": chart_run(EWMA, y)}
        for case, cps in outs.items():
            shown = cps[:12] + (["..."] if len(cps) > 12 else [])
            print(f"  {case:28s} {len(cps):4d}: {shown}  ({_near(cps, truth, 30)})")


if __name__ == "__main__":
    main()
