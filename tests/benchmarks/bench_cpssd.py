"""Benchmark: CP-SSD stage by stage on a sample of the JMH series (3000 points each).

Stages: outlier filter, 80-bit prefix sums, segment-cost table, CROPS (all PELT runs), knee, final
PELT, bootstrap classification. Reference paths in the same process give ratios: the vectorised
outlier filter against the window-by-window rule (``tests/core/test_cpssd.py::_naive_outliers``),
one numba PELT run against the plain-Python transcription of spec §4
(``tests/core/test_cpssd_pelt.py``), and the whole series against the path before issue 15.1
(PELT computing every cost for every CROPS penalty, bootstrap through numpy's index matrices),
interleaved series by series, CPU time, with every output compared for equality.

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


def _stages(y: np.ndarray, params, reference: bool = False
            ) -> tuple[dict[str, float], int, object, tuple]:
    """One series stage by stage (CPU seconds); ``reference`` = the path before issue 15.1."""
    clock = time.process_time
    t = {}
    t0 = clock()
    skip = cpssd.warmup_skip(y)
    mask = cpssd.outlier_mask(y, skip)
    x = y[~mask]
    t1 = clock()
    s1, s2 = _pelt_r.prefix_sums_r(x)
    t2 = clock()
    table = None if reference else _pelt_r.segment_costs_or_none(s1, s2)
    t3 = clock()
    ln_n = math.log(x.size)
    res = _crops.crops_r(lambda b: _pelt_r.pelt_r_meanvar(s1, s2, b, 2, table), 4 * ln_n,
                         100000 * ln_n)
    t4 = clock()
    pens, ncpts = _crops.sealab_penalties_ncpts(res)
    beta, _ = _knee.choose_penalty(pens, ncpts, x.size)
    t5 = clock()
    cpts, q = _pelt_r.pelt_r_meanvar(s1, s2, beta, 2, table)
    kept = np.flatnonzero(~mask)
    t6 = clock()
    s, tests = classify_backward(y, kept[cpts - 1][:-1], params["seed"], reference=reference)
    t7 = clock()
    t.update(filter=t1 - t0, prefix=t2 - t1, cost_table=t3 - t2, crops=t4 - t3, knee=t5 - t4,
             final_pelt=t6 - t5, bootstrap=t7 - t6, total=t7 - t0)
    outputs = (res.pen_value_full.tolist(), res.ncpts.tolist(), res.runs, beta, cpts.tolist(), q,
               s, [(b.start, b.stop, b.lo, b.hi, b.different) for b in tests])
    return t, res.runs, (s1, s2, beta, y, skip), outputs


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
    _stages(series[ids[0]].values, params, reference=True)
    times: dict[str, list[float]] = {}
    ref_times: dict[str, list[float]] = {}
    runs = []
    ref_filter, fast_filter, ref_pelt, fast_pelt = [], [], [], []
    for k, sid in enumerate(ids):
        # interleaved: today's path, then the path before issue 15.1, on the same series
        t, nruns, (s1, s2, beta, y, skip), out = _stages(series[sid].values, params)
        t_ref, _, _, out_ref = _stages(series[sid].values, params, reference=True)
        assert out == out_ref, f"{sid}: outputs differ from the reference path"
        runs.append(nruns)
        for key, val in t.items():
            times.setdefault(key, []).append(val)
        for key, val in t_ref.items():
            ref_times.setdefault(key, []).append(val)
        if k % args.ref_every == 0:
            a = time.process_time()
            naive = _naive_outliers(y, skip)
            b = time.process_time()
            fast = cpssd.outlier_mask(y, skip)
            c = time.process_time()
            assert np.array_equal(naive, fast)
            ref_filter.append(b - a)
            fast_filter.append(c - b)
            x = y[~fast]
            a = time.process_time()
            ref = _spec_pelt(x, beta)
            b = time.process_time()
            got = _pelt_r.pelt_r_meanvar(s1, s2, beta)  # direct costs, one run
            c = time.process_time()
            assert got[0].tolist() == ref[0]
            ref_pelt.append(b - a)
            fast_pelt.append(c - b)
    log.info("CP-SSD on %d JMH series (every %d-th), CPU seconds per series (all outputs equal "
             "to the reference path):", len(ids), args.every)
    log.info("  %-11s %9s %9s %9s %9s  %s", "stage", "median", "mean", "ref mean", "ref/new",
             "(ref = before issue 15.1)")
    for key, vals in times.items():
        ref = ref_times[key]
        ratio = sum(ref) / sum(vals) if sum(vals) > 0 else float("nan")
        log.info("  %-11s %9.4f %9.4f %9.4f %9.2f", key, statistics.median(vals),
                 statistics.mean(vals), statistics.mean(ref), ratio)
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
