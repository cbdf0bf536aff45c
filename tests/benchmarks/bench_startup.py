"""Benchmark: start-up costs of the command line and the first launch (issue 15.5), in CPU time.

* ``import segview``, ``segview --help``, ``segview methods`` in fresh interpreters: user + system
  CPU of the child (``resource.getrusage(RUSAGE_CHILDREN)``), median of ``--repeat`` runs,
  interleaved with the reference "build every sub-command's parser" (what ``--help`` did before)
  and with ``segview methods`` after importing every detector's kernel module and scipy.ndimage
  first (what listing the detectors loaded before the kernel imports became lazy).
* Loading the 350 JMH series (``../shared/data/jmh/series``): ``segview.load`` against the
  per-float check loop it replaced, in this process.
* ``--cold``: the first results of a fresh install: worker processes started with an empty numba
  cache (``NUMBA_CACHE_DIR``) and an empty ``SEGVIEW_CACHE_DIR``, each fast detector run once on a
  3000-point series; wall time to the first and to every result, and the CPU time of the workers
  (and of their fork server), read from ``/proc`` while they run (forked workers are not this
  process's children, so ``RUSAGE_CHILDREN`` misses them).

Run: ``python tests/benchmarks/bench_startup.py [--repeat 5] [--cold]``.
"""
from __future__ import annotations

import argparse
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
JMH = REPO / ".." / "shared" / "data" / "jmh" / "series"

COMMANDS = {
    "import segview": ["-c", "import segview"],
    "segview --help": ["-m", "segview", "--help"],
    "segview methods": ["-m", "segview", "methods"],
    "reference: methods with eager kernel imports": [
        "-c", "import importlib, sys\n"
              "for m in ('_cost_kernels', '_partition_kernels', '_multivariate_kernels',\n"
              "          '_fpop_kernels', '_kbkssd_kernels', '_fisher_kernels',\n"
              "          '_autoparm_kernels', '_pelt_r', '_pcg64'):\n"
              "    importlib.import_module('segview.core.detectors.' + m)\n"
              "import scipy.ndimage\n"
              "from segview.cli import main as m\n"
              "sys.exit(m.main(['methods']))"],
    "reference: every sub-command's parser": [
        "-c", "from segview.cli import main as m\n"
              "for name in m.COMMANDS: __import__('segview.cli.' + name)\n"
              "m.build_parser()"],
}


def child_cpu(args: list[str], env: dict[str, str] | None = None) -> float:
    """User + system CPU seconds of one fresh interpreter running ``args``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, *args], check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _old_numbers(values: list) -> list[float]:
    """The reader's check before issue 15.5: one Python test per float."""
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ValueError(f"bad value {v!r}")
        out.append(float(v))
    return out


def bench_load() -> None:
    import json

    import numpy as np

    import segview
    from segview.core.io.readers import finite_floats

    files = sorted(JMH.glob("*.json"))
    if not files:
        print("JMH data missing: load benchmark skipped")
        return
    forks = []
    for f in files:
        data = json.loads(f.read_text())
        forks += data if data and isinstance(data[0], list) else [data]
    t0 = time.process_time()
    ref = [np.asarray(_old_numbers(f)) for f in forks]
    t1 = time.process_time()
    new = [finite_floats(f) for f in forks]
    t2 = time.process_time()
    assert all(np.array_equal(a, b) for a, b in zip(ref, new))
    segview.load(files[0])
    t3 = time.process_time()
    ds = segview.load(JMH)
    t4 = time.process_time()
    print(f"JMH {len(files)} files: value check per float {t1 - t0:.3f} s -> vectorised "
          f"{t2 - t1:.3f} s ({(t1 - t0) / max(t2 - t1, 1e-9):.0f}x); whole segview.load "
          f"{t4 - t3:.3f} s CPU for {len(ds)} series")


def bench_cold() -> None:
    import numpy as np

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from bench_batch import MemorySampler  # workers forked by a fork server are not our children

    from segview.core import registry
    from segview.core.model import Series
    from segview.core.workers.runner import ProcessRunner
    from segview.core.synthetic import warmup_plateau

    with tempfile.TemporaryDirectory() as numba_dir, tempfile.TemporaryDirectory() as cache_dir:
        os.environ["NUMBA_CACHE_DIR"] = numba_dir
        os.environ["SEGVIEW_CACHE_DIR"] = cache_dir
        s, _ = warmup_plateau(n=3000, seed=1)
        series = Series(np.asarray(s.values), id="cold")
        specs = [sp for sp in registry.all_specs() if not sp.slow and not sp.needs_x]
        start = time.monotonic()
        with MemorySampler() as sampler:
            runner = ProcessRunner(workers=2, warm=False).start()
            calls = [(sp.name, runner.submit(sp, series, sp.defaults())) for sp in specs]
            done = {}
            for name, call in calls:
                call.future.result()
                done[name] = time.monotonic() - start
            runner.shutdown()
    cpu = sampler.cpu()
    order = sorted(done.items(), key=lambda kv: kv[1])
    print(f"cold start (empty numba and segview caches), 2 workers: first result "
          f"{order[0][0]} after {order[0][1]:.1f} s wall; all {len(order)} fast detectors after "
          f"{order[-1][1]:.1f} s; workers' CPU {cpu:.1f} s; "
          + ", ".join(f"{n} {t:.1f}s" for n, t in order))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cold", action="store_true", help="also measure a fresh install's first run")
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # an installed segview has its bytecode compiled (pip does it); with PYTHONDONTWRITEBYTECODE
    # every run compiled each module's source again (about 60 ms of `segview methods` here)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    times: dict[str, list[float]] = {k: [] for k in COMMANDS}
    for name, cmd in COMMANDS.items():  # first run of each: bytecode caches, not measured
        child_cpu(cmd, env)
    for _ in range(args.repeat):
        for name, cmd in COMMANDS.items():
            times[name].append(child_cpu(cmd, env))
    refs = {"segview --help": "reference: every sub-command's parser",
            "segview methods": "reference: methods with eager kernel imports"}
    for name, vals in times.items():
        med = statistics.median(vals)
        ref = refs.get(name)
        ratio = (f"; {statistics.median(times[ref]) / med:.1f}x faster than its reference"
                 if ref else "")
        print(f"{name:46s} CPU median {med:.3f} s (min {min(vals):.3f}){ratio}")
    bench_load()
    if args.cold:
        bench_cold()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
