"""Benchmark: CP-SSD stage by stage on a sample of the JMH series, against the original code path.

Stages: outlier filter, 80-bit prefix sums, segment-cost table, CROPS (all PELT runs), knee, final
PELT, bootstrap classification. Three paths run in the same process, interleaved series by series
and repeated in rounds (the best of the rounds is kept per stage, CPU and wall separately):

* ``orig``: the path before issue 15.1 (numpy median/quantile per outlier window, PELT computing
  every cost for every CROPS penalty, bootstrap through numpy's index matrices);
* ``now``: today's path in one thread (:func:`segview.core.detectors.cpssd.pelt_runners`: one cost
  table for all PELT runs, penalties of a CROPS round together, provably one-segment penalties not
  run, PELT's candidates as runs of consecutive starts, fused bootstrap kernel);
* ``now2``: today's path with ``threads=2`` (table columns, CROPS penalties and the two resampled
  segments in parallel: less wall time, CPU the same or a little more).

Every output of every path (CROPS breakpoints and counts, runs, penalty, change points, cost, the
index and every bootstrap CI) is compared for equality. Reference kernels in the same process: the
outlier filter against the window-by-window rule (``tests/core/test_cpssd.py::_naive_outliers``) and
one numba PELT run against the plain-Python transcription of spec §4.

Run: ``python tests/benchmarks/bench_cpssd.py [--every 10] [--rounds 3] [--ref-every 5]``.
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
from segview.core.detectors import _crops, _knee, _pelt_r, cpssd  # noqa: E402
from segview.core.detectors._cpssd_bootstrap import classify_backward  # noqa: E402
from tests.core.test_cpssd import _naive_outliers  # noqa: E402
from tests.core.test_cpssd_pelt import _spec_pelt  # noqa: E402

log = logging.getLogger("bench_cpssd")
JMH = REPO / ".." / "shared" / "data" / "jmh"
PATHS = ("orig", "now", "now2")
STAGES = ("filter", "prefix", "cost_table", "crops", "knee", "final_pelt", "bootstrap", "total")


def _stages(y: np.ndarray, seed: int, path: str) -> tuple[dict[str, tuple[float, float]], tuple]:
    """One series stage by stage: ``{stage: (cpu s, wall s)}`` and every output."""
    ref = path == "orig"
    threads = 2 if path == "now2" else 1
    marks = [(time.process_time(), time.perf_counter())]

    def mark() -> None:
        marks.append((time.process_time(), time.perf_counter()))

    skip = cpssd.warmup_skip(y)
    mask = cpssd.outlier_mask(y, skip, reference=ref)
    x = y[~mask]
    mark()
    s1, s2 = _pelt_r.prefix_sums_r(x)
    mark()
    if ref:   # every CROPS run computes its costs as it goes
        pelt, many = (lambda b: _pelt_r.pelt_r_meanvar(s1, s2, b, 2)), None
    else:     # the detector's own runners: shared cost table, known one-segment penalties
        pelt, many = cpssd.pelt_runners(s1, s2, threads)
    mark()
    ln_n = math.log(x.size)
    res = _crops.crops_r(pelt, 4 * ln_n, 100000 * ln_n, pelt_many=many)
    mark()
    pens, ncpts = _crops.sealab_penalties_ncpts(res)
    beta, _ = _knee.choose_penalty(pens, ncpts, x.size)
    mark()
    cpts, q = pelt(beta)
    kept = np.flatnonzero(~mask)
    mark()
    s, tests = classify_backward(y, kept[cpts - 1][:-1], seed, reference=ref, threads=threads)
    mark()
    t = {name: (b[0] - a[0], b[1] - a[1]) for name, a, b in zip(STAGES, marks[:-1], marks[1:])}
    t["total"] = (marks[-1][0] - marks[0][0], marks[-1][1] - marks[0][1])
    outputs = (mask.tobytes(), res.pen_value_full.tolist(), res.ncpts.tolist(), res.runs, beta,
               cpts.tolist(), q, s, [(b.start, b.stop, b.lo, b.hi, b.different) for b in tests])
    return t, outputs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=10, help="take every k-th series (default 10)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds, best kept (3)")
    ap.add_argument("--ref-every", type=int, default=5,
                    help="run the window-loop filter and plain-Python PELT on every k-th series")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    series = {s.id: s for s in segview.load(JMH / "series")}
    ids = sorted(series)[::args.every]
    seed = cpssd.SPEC.defaults()["seed"]
    for path in PATHS:  # warm-up (numba compile / cache load, thread pool)
        _stages(series[ids[0]].values, seed, path)
    best: dict[str, dict[str, list[tuple[float, float]]]] = {p: {} for p in PATHS}
    ref_filter, fast_filter, ref_pelt, fast_pelt = [], [], [], []
    for k, sid in enumerate(ids):
        y = series[sid].values
        per: dict[str, dict[str, tuple[float, float]]] = {}
        outs = {}
        for _ in range(args.rounds):
            for path in PATHS:  # interleaved: every path once per round, on the same series
                t, outs[path] = _stages(y, seed, path)
                old = per.setdefault(path, t)
                per[path] = {st: (min(old[st][0], t[st][0]), min(old[st][1], t[st][1]))
                             for st in STAGES}
        assert outs["now"] == outs["orig"] and outs["now2"] == outs["orig"], \
            f"{sid}: outputs differ from the original path"
        for path in PATHS:
            for st in STAGES:
                best[path].setdefault(st, []).append(per[path][st])
        if k % args.ref_every == 0:
            skip = cpssd.warmup_skip(y)
            a = time.process_time()
            naive = _naive_outliers(y, skip)
            b = time.process_time()
            fast = cpssd.outlier_mask(y, skip)
            c = time.process_time()
            assert np.array_equal(naive, fast)
            ref_filter.append(b - a)
            fast_filter.append(c - b)
            x = y[~fast]
            s1, s2 = _pelt_r.prefix_sums_r(x)
            beta = outs["now"][4]
            a = time.process_time()
            ref_run = _spec_pelt(x, beta)
            b = time.process_time()
            got = _pelt_r.pelt_r_meanvar(s1, s2, beta)  # direct costs, one run
            c = time.process_time()
            assert got[0].tolist() == ref_run[0]
            ref_pelt.append(b - a)
            fast_pelt.append(c - b)
    log.info("CP-SSD on %d JMH series (every %d-th), best of %d interleaved rounds, mean seconds "
             "per series; every output equal on all three paths:", len(ids), args.every,
             args.rounds)
    log.info("  %-11s %8s %8s %7s | %8s %8s %7s | %8s %7s", "stage", "orig CPU", "now CPU",
             "ratio", "orig wall", "now wall", "ratio", "2thr wall", "ratio")

    def mean(path: str, st: str, i: int) -> float:
        return statistics.mean(v[i] for v in best[path][st])

    for st in STAGES:
        oc, nc, ow, nw, n2 = (mean("orig", st, 0), mean("now", st, 0), mean("orig", st, 1),
                              mean("now", st, 1), mean("now2", st, 1))
        log.info("  %-11s %8.4f %8.4f %7.2f | %8.4f %8.4f %7.2f | %8.4f %7.2f", st, oc, nc,
                 oc / nc if nc > 0 else float("nan"), ow, nw, ow / nw if nw > 0 else float("nan"),
                 n2, ow / n2 if n2 > 0 else float("nan"))
    log.info("  now2 CPU total %.4f s (threads=2 spends about the same CPU)",
             mean("now2", "total", 0))
    if ref_filter:
        log.info("  outlier filter: sorted sliding window %.4f s vs window loop %.4f s -> %.0fx",
                 statistics.median(fast_filter), statistics.median(ref_filter),
                 statistics.median(ref_filter) / statistics.median(fast_filter))
        log.info("  one PELT run: numba %.5f s vs plain Python %.4f s -> %.0fx",
                 statistics.median(fast_pelt), statistics.median(ref_pelt),
                 statistics.median(ref_pelt) / statistics.median(fast_pelt))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
