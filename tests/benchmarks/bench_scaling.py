"""How every default detector scales: CPU time and peak memory at n = 1e3 ... 1e6 (issue 31).

    python tests/benchmarks/bench_scaling.py [--sizes 1000,10000,100000,1000000] [--limit 60]
                                             [--methods op,pelt] [--json out.json]

Each detector registered in segview (``segview methods``), with its default parameters, runs on a
seeded synthetic series (five level shifts in unit Gaussian noise) of each size, **each run in a
fresh subprocess** so that its peak memory is its own: the child imports segview, warms the
detector up on 300 points (numba compilation or cache loading is not counted), then times one
``segview.detect`` call in CPU seconds (calls under 0.2 s are repeated and the median is reported) (:func:`time.process_time`, all threads) and reads its peak
resident set (``VmHWM`` in ``/proc/self/status``; the figure before the timed call is reported too).

A run stops past ``--limit`` CPU seconds of the timed call (the parent reads the child's CPU from
``/proc/PID/stat`` four times a second, so the machine's load does not stop it early; a wall-clock
timeout of 10x the limit guards against a stuck child) and is shown as ``> 60 s``. (Not
``RLIMIT_CPU`` or a profiling timer: in this sandbox arming either makes the process's CPU clock
tick-based, 4 ms steps, which ruins short timings.) larger sizes of that method are not run. The scaling exponent between two successive
sizes is ``log(t2 / t1) / log(n2 / n1)`` (1 = linear, 2 = quadratic). Every row records the 1-minute
load average when it ran (``os.getloadavg``): CPU time is far less sensitive to load than wall time,
but not immune (caches, memory bandwidth).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

SIZES = (1_000, 10_000, 100_000, 1_000_000)
LIMIT_S = 60.0


def series(n: int, seed: int = 31) -> np.ndarray:
    """Five levels (four shifts at random places) plus N(0, 1) noise, seeded."""
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(n // 20, n - n // 20), size=4, replace=False))
    levels = rng.normal(0.0, 3.0, 5)
    return levels[np.searchsorted(cuts, np.arange(n), side="right")] + rng.standard_normal(n)


def _vm_hwm_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def child(method: str, n: int, marker: str) -> None:
    """Run one detection and print one JSON line (in the subprocess)."""
    import segview

    segview.detect(series(300), method)  # warm-up: compilation / cache loading not counted
    y = series(n)
    base = _vm_hwm_mb()
    with open(marker, "w") as fh:  # the parent's CPU limit counts from here
        fh.write(repr(time.process_time()))
    t0 = time.process_time()
    res = segview.detect(y, method)
    times = [time.process_time() - t0]
    while sum(times) < 0.2 and len(times) < 200:  # short runs: the median of repeated calls
        t0 = time.process_time()
        segview.detect(y, method)
        times.append(time.process_time() - t0)
    cpu = float(np.median(times))
    print(json.dumps({"method": method, "n": n, "cpu_s": cpu, "peak_mb": _vm_hwm_mb(),
                      "base_mb": base, "k": int(res.change_points.size)}))


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (all its threads), from ``/proc/PID/stat``."""
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_one(method: str, n: int, limit: float) -> dict:
    """One fresh subprocess; ``{"timeout": True}`` when it passed the limit."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        marker = os.path.join(tmp, "start")
        out, err = (open(os.path.join(tmp, name), "w+") for name in ("out", "err"))
        with out, err:
            proc = subprocess.Popen([sys.executable, __file__, "--child", method, str(n), marker],
                                    stdout=out, stderr=err, text=True)
            deadline = time.monotonic() + 10 * limit + 120  # a stuck child
            over = False
            while proc.poll() is None:
                time.sleep(0.25)
                try:
                    if os.path.exists(marker) and os.path.getsize(marker):
                        with open(marker) as fh:
                            start = float(fh.read())
                        over = _cpu_of(proc.pid) - start > limit
                    over = over or time.monotonic() > deadline
                except (OSError, ValueError):
                    continue
                if over:
                    proc.kill()
                    proc.wait()
                    return {"method": method, "n": n, "timeout": True, "load": load}
            out.seek(0)
            err.seek(0)
            stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        lines = stderr.strip().splitlines()
        return {"method": method, "n": n, "error": lines[-1] if lines else f"rc {proc.returncode}",
                "load": load}
    row = json.loads(stdout.strip().splitlines()[-1])
    row["load"] = load
    return row


def table(rows: list[dict], limit: float) -> str:
    out = ["| detector | n | CPU | exponent | peak RSS (before run) | change points | load |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    prev: dict[str, dict] = {}
    for r in rows:
        m, n = r["method"], r["n"]
        if r.get("timeout"):
            cpu, exp, mem, k = f"> {limit:.0f} s", "", "", ""
        elif "error" in r:
            cpu, exp, mem, k = "error", "", "", r["error"][:60]
        else:
            cpu = f"{r['cpu_s']:.3g} s"
            p = prev.get(m)
            exp = ""
            if p is not None and p.get("cpu_s", 0) > 0 and r["cpu_s"] > 0:
                exp = f"{math.log(r['cpu_s'] / p['cpu_s']) / math.log(n / p['n']):.2f}"
            mem = f"{r['peak_mb']:.0f} MB ({r['base_mb']:.0f} MB)"
            k = str(r["k"])
            prev[m] = r
        out.append(f"| {m} | {n:.0e} | {cpu} | {exp} | {mem} | {k} | {r['load']:.1f} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)))
    ap.add_argument("--limit", type=float, default=LIMIT_S, help="CPU seconds per run")
    ap.add_argument("--methods", default="", help="comma-separated (default: every detector)")
    ap.add_argument("--json", default="", help="also write the rows here")
    ap.add_argument("--child", nargs=3, metavar=("METHOD", "N", "MARKER"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], int(args.child[1]), args.child[2])
        return 0
    import segview

    methods = [m for m in args.methods.split(",") if m] or [s.name for s in segview.methods()]
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    rows: list[dict] = []
    for m in methods:
        for n in sizes:
            row = run_one(m, n, args.limit)
            rows.append(row)
            print(json.dumps(row), file=sys.stderr, flush=True)
            if row.get("timeout") or "error" in row:
                break
    print(table(rows, args.limit))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
