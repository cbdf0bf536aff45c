"""Benchmark: the HTML warm-up report of 100 benchmarks x 10 executions (issue 27's target: under
5 s).

Synthetic executions from ``bench_warmup.make`` (seeded warm-ups, slowdowns, flat ones, noise and
spikes). Timed separately, wall and CPU: the analysis (``analyse_benchmark`` with ``barrett``, all
1,000 executions; it dominates and is not the report's cost), the rendering
(``report.render_html``: summary table and 1,000 inline-SVG small multiples) and writing the file
(``write_whole``). Prints the page size. ``--out`` keeps the page (e.g. to open in a browser).

Run: ``python tests/benchmarks/bench_warmup_report.py [--benchmarks 100] [--executions 10]
[--iterations 2000] [--resamples 2000] [--out report.html]``.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from segview.cli.benchtables import write_whole  # noqa: E402 (after the sys.path line)
from segview.core.benchmark import (  # noqa: E402
    execution,
    group,
)
from segview.core.warmup import (  # noqa: E402
    analyse_benchmark,
    report,
)
from tests.benchmarks.bench_warmup import make  # noqa: E402


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--benchmarks", type=int, default=100)
    ap.add_argument("--executions", type=int, default=10)
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--resamples", type=int, default=2000)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    k, e = args.benchmarks, args.executions
    xs = make(k * e, args.iterations)
    series = [execution(xs[b * e + i], benchmark=f"bench{b:03d}", index=i, harness="synthetic",
                        unit="s") for b in range(k) for i in range(e)]
    benches = group(series)
    results, w_an, c_an = timed(lambda: [analyse_benchmark(b, resamples=args.resamples,
                                                           ws_resamples=args.resamples)
                                         for b in benches])
    page, w_r, c_r = timed(lambda: report.render_html(results, benches))
    out = args.out or str(Path(tempfile.mkdtemp()) / "report.html")
    _, w_w, _ = timed(lambda: write_whole(out, page))
    print(f"{k} benchmarks x {e} executions x {args.iterations} iterations")
    print(f"analysis (barrett, bootstraps {args.resamples}): {w_an:.2f} s wall, {c_an:.2f} s CPU")
    print(f"render_html: {w_r:.2f} s wall, {c_r:.2f} s CPU; page {len(page) / 1e6:.1f} MB")
    print(f"write: {w_w:.3f} s wall")
    print(f"report (render + write): {w_r + w_w:.2f} s wall -> {out}")


if __name__ == "__main__":
    main()
