"""Benchmark: CP-SSD stage by stage on a sample of the JMH series (3000 points each).

Stages: outlier filter, 80-bit prefix sums, CROPS (all PELT runs), knee, final PELT, bootstrap
classification. Reference paths in the same process give ratios: the vectorised outlier filter
against the window-by-window rule (``tests/core/test_cpssd.py::_naive_outliers``) and one numba
PELT run against the plain-Python transcription of spec §4 (``tests/core/test_cpssd_pelt.py``).

Run: ``python tests/benchmarks/bench_cpssd.py [--every 10] [--ref-every 5]``.
"""
from __future__ import annotations

import argparse
import logging
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import segview  # noqa: E402
from segview.core.context import RunContext  # noqa: E402
from segview.core.detectors import _crops, _knee, _pelt_r, cpssd  # noqa: E402
from segview.core.detectors._cpssd_bootstrap import classify_backward  # noqa: E402
from segview.core.io.labels_csv import read_labels  # noqa: E402
from tests.core.test_cpssd import _naive_outliers  # noqa: E402
from tests.core.test_cpssd_pelt import _spec_pelt  # noqa: E402

log = logging.getLogger("bench_cpssd")
JMH = REPO / ".." / "shared" / "data" / "jmh"


def _stages(y: np.ndarray, params) -> tuple[dict[str, float], int, object]:
    t = {}
    t0 = time.perf_counter()
    skip = cpssd.warmup_skip(y)
    mask = cpssd.outlier_mask(y, skip)
    x = y[~mask]
    t1 = time.perf_counter()
    s1, s2 = _pelt_r.prefix_sums_r(x)
    t2 = time.perf_counter()
    ln_n = math.log(x.size)
    res = _crops.crops_r(lambda b: _pelt_r.pelt_r_meanvar(s1, s2, b), 4 * ln_n, 100000 * ln_n)
    t3 = time.perf_counter()
    pens, ncpts = _crops.sealab_penalties_ncpts(res)
    beta, _ = _knee.choose_penalty(pens, ncpts, x.size)
    t4 = time.perf_counter()
    cpts, _ = _pelt_r.pelt_r_meanvar(s1, s2, beta)
    kept = np.flatnonzero(~mask)
    t5 = time.perf_counter()
    s, _ = classify_backward(y, kept[cpts - 1][:-1], params["seed"])
    t6 = time.perf_counter()
    t.update(filter=t1 - t0, prefix=t2 - t1, crops=t3 - t2, knee=t4 - t3, final_pelt=t5 - t4,
             bootstrap=t6 - t5, total=t6 - t0)
    return t, res.runs, (s1, s2, beta, y, skip)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=10, help="take every k-th series (default 10)")
    ap.add_argument("--ref-every", type=int, default=5,
                    help="run the slow reference paths on every k-th sampled series")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    labels = read_labels(JMH / "labels.csv")
    series = {s.id: s for s in segview.load(JMH / "series")}
    ids = sorted(series)[::args.every]
    params = cpssd.SPEC.defaults()
    # warm-up (numba compile / cache load)
    _stages(series[ids[0]].values, params)
    times: dict[str, list[float]] = {}
    runs = []
    ref_filter, fast_filter, ref_pelt, fast_pelt = [], [], [], []
    for k, sid in enumerate(ids):
        t, nruns, (s1, s2, beta, y, skip) = _stages(series[sid].values, params)
        runs.append(nruns)
        for key, val in t.items():
            times.setdefault(key, []).append(val)
        if k % args.ref_every == 0:
            a = time.perf_counter()
            naive = _naive_outliers(y, skip)
            b = time.perf_counter()
            fast = cpssd.outlier_mask(y, skip)
            c = time.perf_counter()
            assert np.array_equal(naive, fast)
            ref_filter.append(b - a)
            fast_filter.append(c - b)
            x = y[~fast]
            a = time.perf_counter()
            ref = _spec_pelt(x, beta)
            b = time.perf_counter()
            got = _pelt_r.pelt_r_meanvar(s1, s2, beta)
            c = time.perf_counter()
            assert got[0].tolist() == ref[0]
            ref_pelt.append(b - a)
            fast_pelt.append(c - b)
    log.info("CP-SSD on %d JMH series (every %d-th), median seconds per series:", len(ids),
             args.every)
    for key, vals in times.items():
        log.info("  %-11s median %.4f  p95 %.4f  max %.4f", key, statistics.median(vals),
                 float(np.percentile(vals, 95)), max(vals))
    log.info("  CROPS PELT runs per series: median %.0f, max %d; per run %.2f ms (median)",
             statistics.median(runs), max(runs),
             1000 * statistics.median([c / r for c, r in zip(times["crops"], runs)]))
    if ref_filter:
        log.info("  outlier filter: vectorised %.4f s vs window loop %.4f s -> %.1fx",
                 statistics.median(fast_filter), statistics.median(ref_filter),
                 statistics.median(ref_filter) / statistics.median(fast_filter))
        log.info("  one PELT run: numba %.5f s vs plain Python %.4f s -> %.0fx",
                 statistics.median(fast_pelt), statistics.median(ref_pelt),
                 statistics.median(ref_pelt) / statistics.median(fast_pelt))
    del labels
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
