"""Loading benchmark data: the targets of issue 26 (a benchmark script, not a timed test).

    python tests/benchmarks/bench_load_benchmarks.py [--dir DIR] [--only a|b] [--reps N] [--profile]

(a) 1,000 benchmarks x 10 executions (JMH forks) x 3,000 iterations = 30 M values in JMH's
    ``-rf json`` format (``primaryMetric.rawData``) laid out as JMH writes it (pretty-printed, one
    value per line: ~1.2 GB), 10 files of 100 benchmarks; the CPU time of
    ``segview.load(folder)`` and the peak memory (the RSS high-water mark of a fresh interpreter,
    ``resource.getrusage``) against the float64 payload (240 MB). Targets: < 5 s CPU, < 2x payload.
(b) a folder of 20,000 small JMH fork lists (3 forks x 50 iterations each); the CPU time of
    ``segview.load(folder)``. Target: < 10 s CPU.

Each load runs in a fresh subprocess (``sys.executable`` with this process's ``PYTHONPATH``), so the
high-water mark is that of the load alone; the table also gives the RSS after ``import segview``
(the interpreter and numpy) and the growth over it. The high-water mark is ``VmHWM`` of
``/proc/self/status`` where there is one: Linux carries ``getrusage``'s ``ru_maxrss`` over fork and
exec, so there a child would start with this (data-writing) process's peak; elsewhere
``resource.getrusage``. The input is written once to ``--dir`` (default
a folder under the system temp dir, kept for reruns: the values are the same each time, seeded).
``--profile`` prints the top of a ``cProfile`` of each load.

Each target is loaded ``--reps`` times (default 3), the targets interleaved (a, b, a, b, ...) so
that a change in the machine's load hits both alike; the table gives the median and range of the
CPU time, wall time and peak memory, and the 1-minute load average seen (the machine's two cores
are shared: CPU time, not wall time, is the figure; a loaded machine still inflates it). A target
is met when its median is.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import Figure  # noqa: E402  (median and range, tests/benchmarks/_timing.py)

N_BENCH, N_EXEC, N_ITER, N_FILES = 1000, 10, 3000, 10
N_SMALL, SMALL_FORKS, SMALL_ITER = 20_000, 3, 50
PAYLOAD = N_BENCH * N_EXEC * N_ITER * 8  # bytes of float64

#: what the child measures: CPU time of segview.load, RSS high-water marks before and after
CHILD = r"""
import json, resource, sys, time
import segview
from segview.core.io import load

def hwm_kb():
    # the process's own RSS high-water mark: Linux keeps getrusage's ru_maxrss across fork and
    # exec (a child starts with its parent's peak), /proc/self/status VmHWM is this process's
    try:
        with open("/proc/self/status") as fh:
            return next(int(l.split()[1]) for l in fh if l.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

before = hwm_kb()
t0 = time.process_time()
w0 = time.perf_counter()
if PROFILE:
    import cProfile, pstats, io
    prof = cProfile.Profile()
    ds = prof.runcall(load, FOLDER)
else:
    ds = load(FOLDER)
cpu = time.process_time() - t0
wall = time.perf_counter() - w0
peak = hwm_kb()
n_values = sum(len(s) for s in ds.series)
out = {"cpu": cpu, "wall": wall, "rss_import_kb": before, "rss_peak_kb": peak,
       "series": len(ds.series), "benchmarks": len(ds.benchmarks()), "values": n_values,
       "problems": [str(p) for p in ds.problems]}
if PROFILE:
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(15)
    out["profile"] = buf.getvalue()
print(json.dumps(out))
"""


def _jmh_entry(name: str, forks: np.ndarray) -> str:
    """One benchmark of a JMH ``-rf json`` file as JMH writes it: the fields of JMH 1.37, four
    spaces of indentation per level, every ``rawData`` value on its own line (its
    ``Double.toString`` text, which Python's ``repr`` matches)."""
    head = {"jmhVersion": "1.37", "benchmark": name, "mode": "avgt", "threads": 1,
            "forks": int(forks.shape[0]), "jvm": "/usr/lib/jvm/java-17/bin/java",
            "jvmArgs": [], "jdkVersion": "17.0.9", "vmName": "OpenJDK 64-Bit Server VM",
            "vmVersion": "17.0.9+9", "warmupIterations": 5, "warmupTime": "10 s",
            "warmupBatchSize": 1, "measurementIterations": int(forks.shape[1]),
            "measurementTime": "10 s", "measurementBatchSize": 1, "params": {"size": "100"}}
    score = float(forks.mean())
    metric = {"score": score, "scoreError": 0.0, "scoreConfidence": [score, score],
              "scorePercentiles": {"0.0": float(forks.min()), "100.0": float(forks.max())},
              "scoreUnit": "ns/op", "rawData": "RAW"}
    text = json.dumps({**head, "primaryMetric": metric, "secondaryMetrics": {}}, indent=4)
    sep = ",\n" + " " * 16  # (the whole entry is indented 4 more below)
    raw = ",\n".join(" " * 12 + "[\n" + " " * 16 + sep.join(map(repr, f.tolist())) + "\n"
                     + " " * 12 + "]" for f in forks)
    text = text.replace('"RAW"', "[\n" + raw + "\n" + " " * 8 + "]")
    return "\n".join("    " + line for line in text.splitlines())


def make_large(folder: Path) -> None:
    """10 JMH result files of 100 benchmarks x 10 forks x 3,000 iterations (~120 MB each)."""
    done = folder / ".complete-jmh-layout"
    if done.exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(26)
    per_file = N_BENCH // N_FILES
    for f in range(N_FILES):
        entries = []
        for b in range(per_file):
            level = 10 ** rng.uniform(1, 5)
            forks = level * (1 + 0.02 * rng.standard_normal((N_EXEC, N_ITER)))
            entries.append(_jmh_entry(f"org.bench.Suite{f}.run{b:03d}", forks))
        (folder / f"results{f:02d}.json").write_text("[\n" + ",\n".join(entries) + "\n]\n")
        print(f"  wrote {folder / f'results{f:02d}.json'}", file=sys.stderr)
    done.write_text("")


def make_small(folder: Path) -> None:
    """20,000 JMH fork lists of 3 forks x 50 iterations (6 significant digits)."""
    done = folder / ".complete"
    if done.exists():
        return
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(27)
    for k in range(N_SMALL):
        forks = np.round(100 * (1 + 0.01 * rng.standard_normal((SMALL_FORKS, SMALL_ITER))), 4)
        (folder / f"s{k:05d}.json").write_text(json.dumps(forks.tolist()))
    done.write_text("")


def measure(folder: Path, profile: bool) -> dict:
    code = CHILD.replace("FOLDER", repr(str(folder))).replace("PROFILE", repr(profile))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=False)  # inherits PYTHONPATH: the worktree under test
    if out.returncode != 0:
        raise SystemExit(f"load failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def _figure(samples: list[float], unit: str = "s") -> str:
    fig = Figure(tuple(samples))
    if unit == "MB":
        return f"{fig.median:.0f} MB ({fig.lo:.0f}-{fig.hi:.0f})"
    return f"{fig.median:.2f} s ({fig.lo:.2f}-{fig.hi:.2f})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "segview-bench26")
    ap.add_argument("--only", choices=("a", "b"))
    ap.add_argument("--reps", type=int, default=3, help="loads per target (median and range)")
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    targets = [t for t in ("a", "b") if args.only in (None, t)]
    folders = {"a": args.dir / "large", "b": args.dir / "small"}
    if "a" in targets:
        make_large(folders["a"])
    if "b" in targets:
        make_small(folders["b"])
    runs: dict[str, list[dict]] = {t: [] for t in targets}
    loads = [os.getloadavg()[0]]
    for rep in range(max(1, args.reps)):
        for t in targets if rep % 2 == 0 else targets[::-1]:
            r = measure(folders[t], args.profile and rep == 0)
            if t == "a":
                assert r["values"] == N_BENCH * N_EXEC * N_ITER and r["benchmarks"] == N_BENCH, r
            else:
                assert r["series"] == N_SMALL * SMALL_FORKS and not r["problems"], r
            runs[t].append(r)
            loads.append(os.getloadavg()[0])
            print(f"  ({t}) run {rep + 1}: CPU {r['cpu']:.2f} s, wall {r['wall']:.2f} s, peak "
                  f"{r['rss_peak_kb'] / 1024:.0f} MB, load {loads[-1]:.1f}", file=sys.stderr)
    names = {"a": "(a) 1,000 bench x 10 exec x 3,000 it (JMH -rf json, 10 files)",
             "b": f"(b) {N_SMALL:,} small files (JMH fork lists, {SMALL_FORKS}x{SMALL_ITER})"}
    limits = {"a": "< 5 s CPU, peak < 2x payload", "b": "< 10 s CPU"}
    print(f"{len(runs[targets[0]])} loads per target, 1-minute load average "
          f"{min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} CPUs; median (range)")
    for t in targets:
        rs = runs[t]
        cpu = [r["cpu"] for r in rs]
        peak_mb = [r["rss_peak_kb"] / 1024 for r in rs]
        cpu_med = Figure(tuple(cpu)).median
        ok = cpu_med < (5 if t == "a" else 10)
        print(f"\n{names[t]}\n  target      {limits[t]}")
        print(f"  CPU time    {_figure(cpu)}\n  wall time   {_figure([r['wall'] for r in rs])}")
        print(f"  peak RSS    {_figure(peak_mb, 'MB')}")
        if t == "a":
            ratio = Figure(tuple(m * 2**20 / PAYLOAD for m in peak_mb))
            growth = Figure(tuple((r["rss_peak_kb"] - r["rss_import_kb"]) * 1024 / PAYLOAD
                                  for r in rs))
            ok = ok and ratio.median < 2
            print(f"  peak/payload {ratio.median:.2f}x ({ratio.lo:.2f}-{ratio.hi:.2f}) of "
                  f"{PAYLOAD / 2**20:.0f} MB float64; growth over import {growth.median:.2f}x")
        print(f"  target      {'met' if ok else 'MISSED'}")
    for t in targets:
        if "profile" in runs[t][0]:
            print(f"\n--- profile of {names[t]}\n{runs[t][0]['profile']}")


if __name__ == "__main__":
    main()
