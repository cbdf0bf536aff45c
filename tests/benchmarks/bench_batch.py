"""Benchmark: every method on the JMH series through the batch engine (issue 15.6), in CPU time.

1. Per method, in this process: CPU seconds over the selected series (``time.process_time``).
2. ``run_batch`` with ``--jobs`` local worker processes: wall time, the CPU of this process and of
   the workers (``RUSAGE_CHILDREN``, collected when the pool ends), and the peak RSS of a worker.
   The estimate for an idle machine is total CPU / jobs; run it once before measuring so that numba's
   on-disk cache is warm (a fresh cache adds each kernel's compilation to each worker's first run).

Run: ``python tests/benchmarks/bench_batch.py [--every 1] [--jobs 2] [--methods a,b,...]``.
"""
from __future__ import annotations

import argparse
import collections
import resource
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import segview  # noqa: E402
from segview.core.evaluation.batch import run_batch  # noqa: E402

JMH = REPO / ".." / "shared" / "data" / "jmh" / "series"
METHODS = "kbkssd,cpssd,op,pelt,binseg,fisher,nrss,autoparm"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=1, help="take every k-th series (default all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--methods", default=METHODS)
    args = ap.parse_args(argv)
    methods = args.methods.split(",")
    series = list(segview.load(JMH))[::args.every]
    for m in methods:  # kernels loaded (or compiled) before timing
        segview.detect(series[0], m)
    cpu: collections.Counter[str] = collections.Counter()
    for s in series:
        for m in methods:
            t = time.process_time()
            segview.detect(s, m)
            cpu[m] += time.process_time() - t
    total = sum(cpu.values())
    print(f"{len(series)} series x {len(methods)} methods, in this process (CPU seconds):")
    for m, v in cpu.most_common():
        print(f"  {m:9s} {v:8.2f} s  ({v / len(series) * 1000:7.1f} ms per series)")
    print(f"  total     {total:8.2f} s  -> on {args.jobs} cores ~{total / args.jobs:.0f} s")

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    self_before = time.process_time()
    start = time.monotonic()
    rows = run_batch(series, methods, workers=args.jobs)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    workers_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    own = time.process_time() - self_before
    errors = sum(1 for r in rows if r["error"])
    print(f"run_batch, {args.jobs} worker processes: {len(rows)} runs ({errors} errors), wall "
          f"{wall:.1f} s, CPU {workers_cpu:.1f} s in workers + {own:.1f} s here -> idle-machine "
          f"estimate {(workers_cpu + own) / args.jobs:.0f} s; peak worker RSS "
          f"{after.ru_maxrss / 1024:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
