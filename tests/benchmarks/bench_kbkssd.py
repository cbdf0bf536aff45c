"""Benchmark: KB-KSSD on the 350 JMH series (3000 points each), fast detector vs the plain spec
transcription (``tests/core/test_kbkssd.py::ref_kbkssd``: np.convolve with the 2N-tap kernel,
per-block np.percentile, np.median after every replacement) in the same process.

Run: ``python tests/benchmarks/bench_kbkssd.py [--repeat 5] [--ref-every 1]``. Prints the median
time per series of each path, their ratio, the ratio against the 11 ms budget baseline, and checks
that both paths give the same onsets (and the ``kbkssd_reference`` column).
"""
from __future__ import annotations

import argparse
import logging
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
from segview.core.detectors import kbkssd  # noqa: E402
from segview.core.io.labels_csv import read_labels  # noqa: E402
from tests.core.test_kbkssd import ref_kbkssd  # noqa: E402

log = logging.getLogger("bench_kbkssd")
BASELINE_MS = 11.0  # median per 3000-point series of the reference pipeline (acceptance baseline)


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(jmh: Path, repeat: int = 5, ref_every: int = 1) -> dict[str, float]:
    labels = read_labels(jmh / "labels.csv")
    series = list(segview.load(jmh / "series"))
    spec = kbkssd.SPEC
    params = spec.defaults()
    segview.detect(series[0], "kbkssd")  # numba compilation / cache load
    fast_api, fast_core, ref_times, rerun = [], [], [], []
    mismatches = 0
    for i, s in enumerate(series):
        values = s.values
        fast_api.append(_best(lambda: segview.detect(values, "kbkssd"), repeat))
        fast_core.append(_best(lambda: spec.run(values, params, RunContext()), repeat))
        prepared = spec.prepare(values, params, RunContext())
        ctx = RunContext(prepared=prepared)
        rerun.append(_best(lambda: spec.run(values, params.replace(prob_threshold=0.9), ctx),
                           repeat))
        res = segview.detect(values, "kbkssd")
        expected = labels[s.id].onsets["kbkssd_reference"]
        mismatches += res.steady_start != expected
        if i % ref_every == 0:
            arr = np.array(values)
            t0 = time.perf_counter()
            onset, _, _ = ref_kbkssd(arr)
            ref_times.append(time.perf_counter() - t0)
            mismatches += onset != (-1 if expected is None else expected)
    out = {
        "series": len(series),
        "mismatches": mismatches,
        "fast_api_ms": statistics.median(fast_api) * 1e3,
        "fast_core_ms": statistics.median(fast_core) * 1e3,
        "threshold_rerun_ms": statistics.median(rerun) * 1e3,
        "reference_ms": statistics.median(ref_times) * 1e3,
    }
    out["ratio_vs_reference"] = out["reference_ms"] / out["fast_api_ms"]
    out["ratio_vs_11ms"] = BASELINE_MS / out["fast_api_ms"]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jmh", type=Path, default=REPO / ".." / "shared" / "data" / "jmh")
    ap.add_argument("--repeat", type=int, default=5, help="timings per series (best is kept)")
    ap.add_argument("--ref-every", type=int, default=1, help="time the reference on every k-th")
    args = ap.parse_args(argv)
    if not (args.jmh / "labels.csv").is_file():
        sys.stderr.write(f"no JMH data at {args.jmh}\n")
        return 2
    r = run(args.jmh.resolve(), args.repeat, args.ref_every)
    sys.stdout.write(
        f"KB-KSSD on {r['series']} JMH series (3000 points), median per series:\n"
        f"  fast, segview.detect       {r['fast_api_ms']:.3f} ms\n"
        f"  fast, prepare+run only     {r['fast_core_ms']:.3f} ms\n"
        f"  threshold re-run (prepared) {r['threshold_rerun_ms'] * 1e3:.1f} us\n"
        f"  plain spec transcription   {r['reference_ms']:.3f} ms\n"
        f"  speed-up vs transcription  {r['ratio_vs_reference']:.1f}x\n"
        f"  speed-up vs 11 ms baseline {r['ratio_vs_11ms']:.1f}x (target >= 10x)\n"
        f"  onset mismatches vs kbkssd_reference: {int(r['mismatches'])}\n")
    return 0 if r["mismatches"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
