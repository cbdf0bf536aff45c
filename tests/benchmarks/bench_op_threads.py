"""``op`` with 1 and 2 threads (issue 31, "Threads that pay"): wall and CPU time.

    python tests/benchmarks/bench_op_threads.py [--sizes 10000,20000] [--reps 5]

``segview.detect(y, "op", threads=t, search="dp")``: op's defaults (MBIC) with the full dynamic
programme, the only path threads apply to (op's own default, search ``auto``, runs the pruned MBIC
search in one thread, far faster than either; see ``docs/performance.md``), on ``bench_scaling.py``'s
series. Both thread counts give the same ``F`` and ``last`` bit
for bit; the question is only time. The speed-up is **wall** time (threads do not lower CPU time,
they add a little), median and range of per-repetition ratios of interleaved repetitions
(``_timing.py``), and the CPU time of each is shown beside it: the parallel kernel's extra CPU
bounds the speed-up on a quiet 2-core machine at ``2 / (CPU 2 threads / CPU 1 thread)``. On a
loaded machine the wall figures mostly measure the neighbours; read them with the load.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from _timing import fmt, fmt_load, measure, ratio  # noqa: E402
from bench_scaling import series  # noqa: E402

import segview  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,20000")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    print("| n | wall 1 thread | wall 2 threads | speed-up (wall) | CPU 1 thread | CPU 2 threads "
          "| CPU bound on 2 idle cores | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in (int(float(s)) for s in args.sizes.split(",")):
        y = series(n)
        cases = {f"t{t}": (lambda t=t: segview.detect(y, "op", threads=t, search="dp"))
                 for t in (1, 2)}
        wall = measure(cases, reps=args.reps, clock=time.perf_counter)
        cpu = measure(cases, reps=args.reps, warmup=0)
        extra = ratio(cpu["t2"], cpu["t1"])
        print(f"| {n:.0e} | {fmt(wall['t1'])} | {fmt(wall['t2'])} | "
              f"{fmt(ratio(wall['t1'], wall['t2']), unit='x')} | {fmt(cpu['t1'])} | "
              f"{fmt(cpu['t2'])} | {2.0 / extra.median:.2f}x | {fmt_load(wall['t1'])} |",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
