"""How ecp's default (version 2: ``kappa_search=end``) was chosen: docs/defaults.md, "ecp".

    PYTHONPATH=. python tests/benchmarks/bench_ecp_default.py [--tcpd] [--timing N,...]
        [--jmh CONFIG] [--stride K] [--reps 5]

* ``--tcpd``: TCPDBench's F1 (margin 5) and cover, mean over the 12 univariate development sets,
  locations as TCPDBench reports them, for every configuration in ``CONFIGS`` (the scoring of
  ``bench_defaults_table.py``). Version 1's change points are the preset tcpdbench's, whose scores
  are TCPDBench's published ones (``tests/cli/test_tcpdbench_ecp_kcpa_cli.py``), so those are
  printed instead of running it (``--with-v1`` runs it).
* ``--timing``: CPU of ``segview.detect`` on the peer benchmark's series (z-scored mean shift at n/3,
  variance change at 2n/3), old default (preset ``faithful``) against the candidates
  (``_timing.measure``: interleaved repetitions, median and range, load average).
* ``--jmh CONFIG [--part i/k]``: the flood rule on the 350 JMH series (every ``--stride``-th; the
  i-th of k shares), one line per series; ``--jmh-summary FILE...`` then gives the 90th percentile
  and max of change points as % of n, the series above 1 % (rule: p90 <= 1 %, max <= 2 %), the
  mean number of change points and the CPU per series. Run the parts under ``nice``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import fmt, fmt_load, measure  # noqa: E402
from bench_defaults import tcpd_family  # noqa: E402
from bench_ecp_kcpa_peers import series  # noqa: E402

import segview  # noqa: E402
from segview.core.evaluation.tcpd_metrics import covering, f_measure  # noqa: E402
from segview.core.io.detections import to_tcpdbench  # noqa: E402

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"

#: the configurations compared (keyword arguments of segview.detect)
CONFIGS: dict[str, dict] = {
    "v1 (preset faithful: R search, stop_early)": {"preset": "faithful"},
    "end, ecp-3.1.1 (truncated factor)": {"kappa_search": "end", "statistic": "ecp-3.1.1"},
    "end, ecp-3.1.2 (exact factor)": {"kappa_search": "end", "statistic": "ecp-3.1.2"},
    "end, exact factor, min_size 30 only": {"min_size_share": 0.0},
    "default": {},
}


def tcpd(with_v1: bool) -> None:
    fam = tcpd_family()
    print(f"TCPD: {len(fam)} univariate development sets")
    pub = json.loads((SHARED / "tcpd" / "tcpdbench_default_all_methods.json").read_text())
    f1 = np.mean([pub[name]["f1"]["ecp"] for name, _, _ in fam])
    cover = np.mean([pub[name]["cover"]["ecp"] for name, _, _ in fam])
    print(f"  {'TCPDBench published (= preset tcpdbench)':45s} F1 {f1:.3f}  cover {cover:.3f}")
    for name, kw in CONFIGS.items():
        if name.startswith("v1") and not with_v1:
            continue  # its change points are tcpdbench's (tests/cli/test_tcpdbench_ecp_kcpa_cli.py)
        rows, t0 = [], time.process_time()
        for _, y, ann in fam:
            cps = to_tcpdbench(segview.detect(y, "ecp", **kw).change_points, len(y), "ecp")
            rows.append((f_measure(ann, cps)[0], covering(ann, cps, len(y))))
        f1, cover = np.mean(rows, axis=0)
        print(f"  {name:45s} F1 {f1:.3f}  cover {cover:.3f}  "
              f"({time.process_time() - t0:.1f} s CPU)", flush=True)


def timing(ns: list[int], reps: int) -> None:
    for n in ns:
        y = series(n)
        cases = {name: (lambda kw=kw: segview.detect(y, "ecp", scale="none", **kw))
                 for name, kw in CONFIGS.items() if name != "default"}
        if n > 3000:  # the R search: tens of seconds a run from 1e4 on
            cases = {k: v for k, v in cases.items() if not k.startswith("v1")}
        for f in cases.values():
            f()  # compile / load the kernels outside the measurement
        fig = measure(cases, reps=reps if n <= 10_000 else 1)
        print(f"n={n}: {fmt_load(next(iter(fig.values())))}")
        for name, f in fig.items():
            cps = [int(c) for c in cases[name]().change_points]
            print(f"  {name:45s} {fmt(f)}  {cps}", flush=True)


def jmh(config: str, stride: int, part: str = "1/1") -> None:
    """The flood figures; ``part`` "i/k": only the i-th of k interleaved shares of the series (run
    k processes, then ``--jmh-summary`` on their outputs). One line per series as it finishes."""
    kw = CONFIGS[config]
    i, k = (int(v) for v in part.split("/"))
    paths = sorted((SHARED / "jmh" / "series").glob("*.json"))[::stride]
    # every 7th series first, then the rest: a run stopped early still covers the whole set
    paths = [paths[j] for r in range(7) for j in range(r, len(paths), 7)][i - 1::k]
    for path in paths:
        (s,) = segview.load(path)
        t0 = time.process_time()
        cps = len(segview.detect(s.values, "ecp", **kw).change_points)
        print(f"series {path.stem} n {len(s.values)} cps {cps} cpu {time.process_time() - t0:.3f}",
              flush=True)


def jmh_summary(files: list[str]) -> None:
    rows = [line.split() for f in files for line in Path(f).read_text().splitlines()
            if line.startswith("series ")]
    n = np.array([int(r[3]) for r in rows])
    counts = np.array([int(r[5]) for r in rows])
    cpu = np.array([float(r[7]) for r in rows])
    a = 100 * counts / n
    print(f"JMH: {len(a)} series, p90 {np.percentile(a, 90):.2f} %, max {a.max():.2f} %, "
          f"{int((a > 1).sum())} above 1 %, median {np.median(a):.2f} %, mean "
          f"{counts.mean():.1f} change points (max {counts.max()}); CPU a series median "
          f"{np.median(cpu):.2f} s, p90 {np.percentile(cpu, 90):.2f} s, max {cpu.max():.2f} s, "
          f"{int((cpu > 1).sum())} above 1 s, total {cpu.sum():.0f} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tcpd", action="store_true")
    ap.add_argument("--with-v1", action="store_true", help="also run version 1 on TCPD (minutes)")
    ap.add_argument("--timing", default="")
    ap.add_argument("--jmh", default=None, choices=tuple(CONFIGS))
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--part", default="1/1")
    ap.add_argument("--jmh-summary", nargs="*", default=None)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    if a.tcpd:
        tcpd(a.with_v1)
    if a.timing:
        timing([int(v) for v in a.timing.split(",")], a.reps)
    if a.jmh:
        jmh(a.jmh, a.stride, a.part)
    if a.jmh_summary:
        jmh_summary(a.jmh_summary)


if __name__ == "__main__":
    main()
