"""A detector worker's fixed memory, apart from what its data needs (issue 15.6).

``bench_batch.py`` reports each worker's *peak* over a run, which includes the working memory of the
largest series: CP-SSD's segment-cost table alone is n(n+1)/2 doubles, 34 MB for a 3000-point JMH
series.
This script measures what a worker costs before any such data: it starts the explorer's
:class:`ProcessRunner` (``--jobs`` workers, forked from the fork server on Linux, spawned with
``SEGVIEW_WORKER_START=spawn``), runs KB-KSSD once in each worker on a 400-point series (detectors
registered, one kernel loaded), then reads every worker's RSS, PSS and USS from
``/proc/PID/smaps_rollup``. Then it runs CP-SSD on a JMH-sized series
(``--n`` points) in each worker and reads them again: what stays after a large run (the table is
one large allocation, returned to the system when the run ends; the peak during the run is in
``bench_batch.py``'s report).

Run: ``python tests/benchmarks/bench_worker_memory.py [--jobs 2] [--n 3000]``
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_batch import _is_resource_tracker, descendants, memory_mb  # noqa: E402

from segview.core import registry  # noqa: E402
from segview.core.model import Series  # noqa: E402
from segview.core.workers.runner import ProcessRunner, unpack  # noqa: E402


def _series(n: int, seed: int) -> Series:
    rng = np.random.default_rng(seed)
    warm = n // 4
    values = np.r_[np.linspace(3.0, 1.0, warm), np.ones(n - warm)] + 0.05 * rng.standard_normal(n)
    return Series(values, id=f"synthetic-{n}")


def _report(title: str, pids: list[int]) -> None:
    print(title)
    for pid in pids:
        m = memory_mb(pid)
        if m is not None:
            print(f"  pid {pid:7d}  RSS {m['rss']:6.1f} MB  PSS {m['pss']:6.1f} MB  "
                  f"USS {m['uss']:6.1f} MB")


def _run_everywhere(runner: ProcessRunner, method: str, series: Series) -> None:
    spec = registry.get(method)
    futures = [runner.submit(spec, series, spec.defaults()) for _ in range(2 * runner.workers)]
    for f in futures:
        unpack(f.wait(lambda: False))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--n", type=int, default=3000, help="length of the CP-SSD series")
    args = ap.parse_args(argv)
    runner = ProcessRunner(workers=args.jobs, warm=False).start()
    try:
        _run_everywhere(runner, "kbkssd", _series(400, 1))
        tree = descendants(os.getpid())
        parents = {parent for _, parent in tree}
        workers = [p for p, _ in tree if p not in parents and not _is_resource_tracker(p)]
        servers = [p for p, _ in tree if p in parents and p != os.getpid()]
        start = os.environ.get("SEGVIEW_WORKER_START", "") or "default"
        _report(f"fork server / parents below this process (start method: {start})", servers)
        _report("workers after registering the detectors and one KB-KSSD run (fixed cost)",
                workers)
        _run_everywhere(runner, "cpssd", _series(args.n, 2))
        _report(f"the same workers after CP-SSD on {args.n} points (its cost table: "
                f"{args.n * (args.n + 1) / 2 * 8 / 2**20:.1f} MB)", workers)
    finally:
        runner.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
