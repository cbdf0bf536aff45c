"""Loading benchmark data: the targets of issue 26 (a benchmark script, not a timed test).

    python tests/benchmarks/bench_load_benchmarks.py [--dir DIR] [--only a|b] [--profile]

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
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "segview-bench26")
    ap.add_argument("--only", choices=("a", "b"))
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    rows = []
    if args.only in (None, "a"):
        folder = args.dir / "large"
        make_large(folder)
        r = measure(folder, args.profile)
        assert r["values"] == N_BENCH * N_EXEC * N_ITER and r["benchmarks"] == N_BENCH, r
        peak = r["rss_peak_kb"] * 1024
        rows.append(("(a) 1,000 bench x 10 exec x 3,000 it (JMH -rf json, 10 files)",
                     r["cpu"], r["wall"], f"{peak / 2**20:.0f} MB = {peak / PAYLOAD:.2f}x payload "
                     f"(import: {r['rss_import_kb'] / 1024:.0f} MB; growth "
                     f"{(peak - r['rss_import_kb'] * 1024) / PAYLOAD:.2f}x)",
                     r["cpu"] < 5 and peak < 2 * PAYLOAD, r))
    if args.only in (None, "b"):
        folder = args.dir / "small"
        make_small(folder)
        r = measure(folder, args.profile)
        assert r["series"] == N_SMALL * SMALL_FORKS and not r["problems"], r
        rows.append((f"(b) {N_SMALL:,} small files (JMH fork lists, {SMALL_FORKS}x{SMALL_ITER})",
                     r["cpu"], r["wall"], f"{r['rss_peak_kb'] / 1024:.0f} MB", r["cpu"] < 10, r))
    print(f"{'input':<66} {'CPU s':>7} {'wall s':>7}  {'target':<6} peak RSS")
    for name, cpu, wall, mem, ok, r in rows:
        print(f"{name:<66} {cpu:7.2f} {wall:7.2f}  {'met' if ok else 'MISSED':<6} {mem}")
    for name, *_, r in rows:
        if "profile" in r:
            print(f"\n--- profile of {name}\n{r['profile']}")


if __name__ == "__main__":
    main()
