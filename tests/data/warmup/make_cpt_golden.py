"""Make cpt_golden.json: R changepoint's answers for warmup_stats' change-point call.

Run once where R and changepoint (rkillick/changepoint e3959de, the commit warmup_stats' build.sh
installs) are installed:  R_LIBS=/path/to/rlib python tests/data/warmup/make_cpt_golden.py
The tests read only the JSON (no R needed). Series: seeded synthetic executions of several kinds
and lengths, short random series (where R's pruning can miss the optimum), and the 10 real JVM/PyPy
executions of tests/data/harness/krun/nbody_results.json.bz2 with their outliers removed. The
outliers come from a direct Python 3 port of warmup_stats' own ``_tukey_all_outliers``
(warmup/outliers.py at 41212e0), below, not from segview.
"""
import bz2
import json
import math
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
KRUN = HERE.parent / "harness" / "krun" / "nbody_results.json.bz2"


# --- warmup_stats 41212e0 warmup/outliers.py, ported line by line (/ -> // for ints) ---------
def _clamp_window_size(index, data_size, window_size=200):
    half_window = window_size // 2
    lh_index = 0 if (index - half_window) < 0 else index - half_window
    rh_index = data_size if (index + half_window) > data_size else index + half_window
    return (lh_index, rh_index)


def median(data):
    size = len(data)
    if size == 1:
        return data[0]
    index = (size - 1) // 2
    if size % 2 == 1:
        return data[index]
    return (data[index] + data[index + 1]) / 2.0


def percentile(data, pc):
    size = len(data)
    if size == 1:
        return data[0]
    index = (size - 1) * (pc / 100.0)
    index_floor = float(math.floor(index))
    index_ceil = float(math.ceil(index))
    if index_floor == index_ceil:
        return data[int(index)]
    d0 = data[int(index_floor)] * (index_ceil - index)
    d1 = data[int(index_ceil)] * (index - index_floor)
    return d0 + d1


def tukey_all_outliers(data, window_size):
    all_outliers = []
    size = len(data)
    for index, datum in enumerate(data):
        l_slice, r_slice = _clamp_window_size(index, size, window_size)
        if l_slice == 0 and r_slice < window_size:
            continue
        window_sorted = sorted(data[l_slice:r_slice])
        window_median = median(window_sorted)
        pc_band = 3 * (percentile(window_sorted, 90.0) - percentile(window_sorted, 10.0))
        if datum > (window_median + pc_band) or datum < (window_median - pc_band):
            all_outliers.append(index)
    return all_outliers
# ----------------------------------------------------------------------------------------------


def synthetic():
    out = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        n = [12, 16, 24, 40, 100, 300, 1000, 2000][seed % 8]
        kind = seed % 5
        t = np.arange(n)
        if kind == 0:     # noise only
            x = rng.normal(1.0, 0.01, n)
        elif kind == 1:   # warm-up: slow first quarter
            x = np.where(t < n // 4, 1.5, 1.0) + rng.normal(0, 0.02, n)
        elif kind == 2:   # slowdown late
            x = np.where(t < 2 * n // 3, 1.0, 1.3) + rng.normal(0, 0.02, n)
        elif kind == 3:   # several steps and a variance change
            x = 1.0 + 0.2 * (t * 4 // n) + rng.normal(0, 0.005, n) * (1 + 4 * (t > n // 2))
        else:             # quantised timer (millisecond ticks): equal neighbours, flat pieces
            x = np.round(np.where(t < n // 3, 0.020, 0.012) + rng.normal(0, 0.0015, n), 3)
        out.append((f"synthetic seed={seed} kind={kind} n={n}", x.tolist(), []))
    for seed in range(8):  # short random series
        rng = np.random.default_rng(1000 + seed)
        out.append((f"short seed={1000 + seed}", rng.normal(0, 1, 10 + seed).tolist(), []))
    for seed in (191, 2227):  # random series on which R's pruned PELT misses the optimum
        rng = np.random.default_rng(seed)
        n = int(rng.integers(6, 41))
        if seed % 3 == 1:
            x = rng.normal(0, 1, n) * np.exp(rng.normal(0, 2, n))
        else:
            x = np.round(rng.normal(0, 1, n), 1)
        out.append((f"pruning seed={seed}", x.tolist(), []))
    with bz2.open(KRUN, "rb") as fh:
        doc = json.loads(fh.read())
    for key in sorted(doc["wallclock_times"]):
        for i, ex in enumerate(doc["wallclock_times"][key]):
            window = int(len(ex) * 0.1)   # bin/warmup_stats: DEFAULT_WINDOW_RATIO
            out.append((f"krun {key} pexec {i}", ex, tukey_all_outliers(ex, window)))
    return out


def main():
    series = synthetic()
    with tempfile.TemporaryDirectory() as tmp:
        inp, res = Path(tmp) / "in.bin", Path(tmp) / "out.txt"
        with open(inp, "wb") as fh:
            fh.write(struct.pack("<i", len(series)))
            for _, x, outl in series:
                bad = set(outl)
                red = [v for j, v in enumerate(x) if j not in bad]
                pen = 15.0 * np.log(len(red))   # mark_changepoints_in_json's pen_value
                fh.write(struct.pack("<i", len(red)) + struct.pack("<d", pen))
                fh.write(struct.pack(f"<{len(red)}d", *red))
        subprocess.run(["Rscript", str(HERE / "cpt_golden.R"), str(inp), str(res)], check=True)
        lines = res.read_text().splitlines()
    doc = {"made_by": "tests/data/warmup/make_cpt_golden.py + cpt_golden.R",
           "r": lines[0], "changepoint_commit": "e3959de1a25f75278c364c382b73dbf9c0002205",
           "call": "cpt.meanvar(x, method='PELT', penalty='Manual', pen.value=15*numpy.log(len(x)))"
                   " on x = the execution without its outliers",
           "series": []}
    for (name, x, outl), line in zip(series, lines[1:]):
        cpts, means, variances = (list(map(float, p.split(","))) for p in line.split(";"))
        doc["series"].append({"name": name, "values": x, "outliers": outl,
                              "cpts": [int(c) for c in cpts], "means": means,
                              "variances": variances})
    (HERE / "cpt_golden.json").write_text(json.dumps(doc, indent=0) + "\n")
    print(f"{len(series)} series written", file=sys.stderr)


if __name__ == "__main__":
    main()
