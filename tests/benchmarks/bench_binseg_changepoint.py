"""binseg's ``tcpdbench`` preset (``rule=changepoint``, R changepoint's BinSeg, Q = 5): the
vectorised rule against the earlier scalar one (issue 31).

    python tests/benchmarks/bench_binseg_changepoint.py [--sizes 10000,100000,1000000] [--reps 5]

Issue 31 measured the scalar rule (one ``math.log`` per candidate, every segment recomputed every
round) 5-11x slower than R's ``cpt.mean(method="BinSeg", Q=5)``; R is not installed here, so the
target is a speed-up of at least 11x over the scalar rule on the same inputs, which puts the
vectorised rule at or ahead of R. The scalar rule is the test's reference implementation
(``tests/core/test_binseg_changepoint_vectorised.py``, equal bit for bit); both run on the
z-scored series the preset segments (TCPDBench's MBIC, min_size 1). CPU time, median and range of
interleaved repetitions (``_timing.py``), the speed-up per repetition.
"""
from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))
from _timing import fmt, fmt_load, measure, ratio  # noqa: E402
from bench_scaling import series  # noqa: E402

from segview.core.detectors.binseg import changepoint_binseg  # noqa: E402
from tests.core.test_binseg_changepoint_vectorised import (  # noqa: E402
    _reference_changepoint_binseg,
)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    print("| n | scalar rule (before) | vectorised rule | speed-up | same result | load |")
    print("| --- | --- | --- | --- | --- | --- |")
    for n in (int(float(s)) for s in args.sizes.split(",")):
        y = series(n)
        y = (y - y.mean()) / y.std(ddof=1)
        same = changepoint_binseg(y) == _reference_changepoint_binseg(y)
        r = measure({"scalar": lambda y=y: _reference_changepoint_binseg(y),
                     "vector": lambda y=y: changepoint_binseg(y)}, reps=args.reps)
        print(f"| {n:.0e} | {fmt(r['scalar'])} | {fmt(r['vector'])} | "
              f"{fmt(ratio(r['scalar'], r['vector']), unit='x')} | {same} | "
              f"{fmt_load(r['vector'])} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
