"""Benchmark: every method on the JMH series through the batch engine (issue 15.6), in CPU time.

1. Per method, in this process: CPU seconds over the selected series (``time.process_time``);
   ``--skip-inprocess`` leaves it out.
2. ``run_batch`` with ``--jobs`` local worker processes (``segview detect --method all``): wall
   time, the CPU of this process and of the processes below it (workers and a fork server, read
   from ``/proc/PID/stat`` every 0.2 s: forked-server workers are not this process's children). The estimate for an idle machine is total CPU / jobs; run it once before measuring so
   that numba's on-disk cache is warm (a fresh cache adds each kernel's compilation to each
   worker's first run).
3. ``--procpool``: the explorer's run-all instead, through :class:`ProcessRunner` (``--jobs``
   workers, at most one call queued per worker, as ``gui.jobs.BatchJob`` does).

Memory: a thread samples every process below this one every 0.2 s (``/proc/PID/smaps_rollup``) and
reports each one's peak RSS, PSS (shared pages split between the processes mapping them: the fair
per-process figure when workers share libraries or a fork server's pages), its anonymous part
(file pages such as libllvmlite.so's come and go with the machine's memory pressure) and USS
(private pages).

Run: ``python tests/benchmarks/bench_batch.py [--every 1] [--jobs 2] [--methods a,b,...]
[--skip-inprocess] [--procpool]``; ``SEGVIEW_WORKER_START=spawn`` for spawned workers (the
reference: every worker loads numba itself).
"""
from __future__ import annotations

import argparse
import collections
import os
import sys
import threading
import time
from collections import deque
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

import segview  # noqa: E402
from segview.core.evaluation.batch import run_batch  # noqa: E402

JMH = REPO / ".." / "shared" / "data" / "jmh" / "series"
METHODS = "kbkssd,cpssd,op,pelt,binseg,fisher,nrss,autoparm"


def _children(pid: int) -> list[int]:
    out = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out += [int(c) for c in fh.read().split()]
        except OSError:
            pass
    return out


def descendants(pid: int) -> list[tuple[int, int]]:
    """``(pid, parent)`` of every process below ``pid`` (children, their children, ...)."""
    found, todo = [], [(c, pid) for c in _children(pid)]
    while todo:
        p, parent = todo.pop()
        found.append((p, parent))
        todo += [(c, p) for c in _children(p)]
    return found


def memory_mb(pid: int) -> dict[str, float] | None:
    """RSS, PSS and USS (private clean + dirty) of ``pid`` in MB and its CPU seconds (user +
    system), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            fields = {p[0].rstrip(":"): int(p[1]) / 1024 for p in (ln.split() for ln in fh)
                      if len(p) >= 2 and p[1].isdigit()}
        with open(f"/proc/{pid}/stat") as fh:
            ticks = fh.read().rsplit(")", 1)[1].split()[11:13]
    except (OSError, IndexError):
        return None
    return {"rss": fields.get("Rss", 0.0), "pss": fields.get("Pss", 0.0),
            "uss": fields.get("Private_Clean", 0.0) + fields.get("Private_Dirty", 0.0),
            "pss_anon": fields.get("Pss_Anon", 0.0),
            "cpu": sum(int(t) for t in ticks) / os.sysconf("SC_CLK_TCK")}


def _is_resource_tracker(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return b"resource_tracker" in fh.read()
    except OSError:
        return False


class MemorySampler:
    """RSS/PSS/USS and CPU of every process below this one, sampled on a thread.

    Workers forked by a fork server are its children, not ours: their CPU time is not in this
    process's ``RUSAGE_CHILDREN``, so the sampler keeps each process's last CPU reading too.
    """

    def __init__(self, period: float = 0.2) -> None:
        self.period = period
        self.samples: list[dict[int, dict[str, float]]] = []
        self.parents: set[int] = set()  # processes seen starting others (a fork server)
        self.trackers: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def __enter__(self) -> "MemorySampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _loop(self) -> None:
        me = os.getpid()
        while not self._stop.wait(self.period):
            sample = {}
            for pid, parent in descendants(me):
                if parent != me:
                    self.parents.add(parent)
                if pid in self.trackers or _is_resource_tracker(pid):
                    self.trackers.add(pid)
                    continue
                m = memory_mb(pid)
                if m is not None:
                    sample[pid] = m
            self.samples.append(sample)

    def cpu(self) -> float:
        """CPU seconds of every process below this one, at its last sample (a process's last
        0.2 s are missed)."""
        last: dict[int, float] = {}
        for sample in self.samples:
            for pid, m in sample.items():
                last[pid] = m["cpu"]
        return sum(last.values())

    def report(self) -> str:
        """Per process: peaks over the samples in which a worker was running (a fork server's
        pages become its own once its workers are gone); and the peak total PSS."""
        busy = [s for s in self.samples if any(p not in self.parents for p in s)]
        peak: dict[int, dict[str, float]] = {}
        for sample in busy:
            for pid, m in sample.items():
                old = peak.setdefault(pid, dict(m))
                for k, v in m.items():
                    old[k] = max(old[k], v)
        lines = []
        for pid, m in sorted(peak.items()):
            role = "fork server" if pid in self.parents else "worker"
            lines.append(f"  pid {pid:7d} {role:12s} peak RSS {m['rss']:6.1f} MB  PSS "
                         f"{m['pss']:6.1f} MB (anonymous {m['pss_anon']:5.1f})  USS "
                         f"{m['uss']:6.1f} MB  CPU {m['cpu']:6.1f} s")
        for key, what in (("pss", "PSS"), ("pss_anon", "anonymous PSS")):
            total = max((sum(m[key] for m in s.values()) for s in busy), default=0.0)
            lines.append(f"  peak total {what} of all of them {total:.1f} MB")
        return "\n".join(lines) if peak else "  (no worker process seen)"


def run_procpool(series: list, methods: list[str], jobs: int) -> tuple[int, int]:
    """The explorer's run-all: every (series, method) through a ProcessRunner."""
    from segview.core import registry
    from segview.core.workers.runner import ProcessRunner, unpack

    specs = [registry.get(m) for m in methods]
    runner = ProcessRunner(workers=jobs, warm=False).start()
    done = errors = 0
    pending: deque = deque()
    try:
        for s in series:
            for spec in specs:
                pending.append(runner.submit(spec, s, spec.defaults()))
                while len(pending) >= runner.workers:
                    try:
                        unpack(pending.popleft().wait(lambda: False))
                    except Exception:  # noqa: BLE001  (counted, as the explorer lists them)
                        errors += 1
                    done += 1
        while pending:
            try:
                unpack(pending.popleft().wait(lambda: False))
            except Exception:  # noqa: BLE001
                errors += 1
            done += 1
    finally:
        runner.shutdown()
    return done, errors


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--every", type=int, default=1, help="take every k-th series (default all)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--methods", default=METHODS, help="comma-separated, or 'all'")
    ap.add_argument("--skip-inprocess", action="store_true", help="only the worker processes")
    ap.add_argument("--procpool", action="store_true",
                    help="the explorer's run-all (ProcessRunner) instead of run_batch")
    args = ap.parse_args(argv)
    if args.methods == "all":
        from segview.core import registry
        methods = [sp.name for sp in registry.all_specs()]
    else:
        methods = args.methods.split(",")
    series = list(segview.load(JMH))[::args.every]
    if not args.skip_inprocess:
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

    self_before = time.process_time()
    start = time.monotonic()
    with MemorySampler() as mem:
        if args.procpool:
            runs, errors = run_procpool(series, methods, args.jobs)
            what = "ProcessRunner (explorer run-all)"
        else:
            rows = run_batch(series, methods, workers=args.jobs)
            runs, errors = len(rows), sum(1 for r in rows if r["error"])
            what = "run_batch"
    wall = time.monotonic() - start
    workers_cpu = mem.cpu()
    own = time.process_time() - self_before
    print(f"{what}, {args.jobs} worker processes, {len(series)} series x {len(methods)} methods: "
          f"{runs} runs ({errors} errors), wall {wall:.1f} s, CPU {workers_cpu:.1f} s in workers "
          f"+ {own:.1f} s here -> idle-machine estimate {(workers_cpu + own) / args.jobs:.0f} s")
    print("memory of each process below this one (peaks over the run):")
    print(mem.report())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
