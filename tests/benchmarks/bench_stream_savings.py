"""How many iterations would incremental KB-KSSD have saved on the JMH series? (issue 16.5)

Feeds every series of ``shared/data/jmh`` (350 forks of 3000 iterations) to
:class:`segview.stream.SteadyStateMonitor` and records where it first says "steady" (where a
benchmark harness would stop), compared with 3000 and with the judges' aggregated onset
(``jagt_index`` in ``labels.csv``; 246 series are steady for the judges, 104 never are).

The monitor is fed 20 measurements at a time and the feeding stops at its first "steady" (as a
harness would; with ``growth=0`` that is the exact first prefix the rule allows). Usage:
``python tests/benchmarks/bench_stream_savings.py [--growth 0.02,0] [--ell 1,500,1000,1500]``;
prints the Markdown table of ``docs/streaming.md``.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

import segview
from segview.core.io.labels_csv import read_labels
from segview.stream import SteadyStateMonitor

JMH = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "jmh"


def run(ell: int, growth: float, labels, data) -> dict[str, float]:
    stops, saved, before, after, onset_err = [], 0, 0, [], []
    false_stops = same_as_full = 0
    cpu = time.process_time()
    for sid, label in labels.items():
        x = data[sid]
        m = SteadyStateMonitor(total=x.size, growth=growth, min_steady_length=ell)
        for chunk in np.array_split(x, np.arange(20, x.size, 20)):  # a harness: stop when steady
            m.extend(chunk)
            if m.first_steady is not None:
                break
        first = m.first_steady
        if first is None:
            continue
        stops.append(first.seen)
        saved += x.size - first.seen
        full = segview.detect(x, "kbkssd", min_steady_length=ell).steady_start
        same_as_full += first.since == full
        if not label.steady:
            false_stops += 1
            continue
        j = label.jagt_index
        if first.seen < j:
            before += 1
        else:
            after.append(first.seen - j)
        onset_err.append(abs(first.since - j))
    cpu = time.process_time() - cpu
    n = len(labels)
    n_steady = sum(1 for lab in labels.values() if lab.steady)
    total = sum(d.size for d in data.values())
    return dict(
        ell=ell, stopped=len(stops), n=n, median_stop=float(np.median(stops)) if stops else np.nan,
        saved_pct=100.0 * saved / total, before=before, n_steady=n_steady,
        after_median=float(np.median(after)) if after else np.nan,
        after_q3=float(np.percentile(after, 75)) if after else np.nan,
        onset_err=float(np.median(onset_err)) if onset_err else np.nan,
        false_stops=false_stops, n_unsteady=n - n_steady, same_as_full=same_as_full,
        cpu_ms=1000.0 * cpu / n)


def baseline(labels, data) -> str:
    """The same columns for batch KB-KSSD on the full 3000 iterations (no early stop)."""
    err, steady_never = [], 0
    for sid, label in labels.items():
        onset = segview.detect(data[sid], "kbkssd").steady_start
        if onset is None:
            continue
        if label.steady:
            err.append(abs(onset - label.jagt_index))
        else:
            steady_never += 1
    return (f"| batch, full series | – | – | 3000 | 0 % | – | – | {np.median(err):.0f} | "
            f"{steady_never} (called steady) | – | – |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--growth", default="0.02,0",
                    help="check schedules (comma-separated); 0 = check every prefix")
    ap.add_argument("--ell", default="1,500,1000,1500",
                    help="min_steady_length values (comma-separated)")
    ap.add_argument("--data", type=Path, default=JMH)
    args = ap.parse_args()
    labels = read_labels(args.data / "labels.csv")
    data = {sid: np.asarray(json.loads((args.data / "series" / f"{sid}.json").read_text())[0])
            for sid in labels}
    print(f"{len(labels)} series of {sorted({d.size for d in data.values()})} iterations\n")
    print("| growth | min_steady_length | stops (of 350) | median stop | iterations saved | "
          "stops before judges' onset (of 246 steady) | "
          "stop − judges' onset, median / Q3 (the others) | "
          "\\|since − judges' onset\\| median | stops on never-steady series (of 104) | "
          "since = full-series onset | CPU per series |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print(baseline(labels, data), flush=True)
    for growth in (float(g) for g in args.growth.split(",")):
        for ell in (int(e) for e in args.ell.split(",")):
            r = run(ell, growth, labels, data)
            print(f"| {growth:g} | {ell} | {r['stopped']} | {r['median_stop']:.0f} | "
                  f"{r['saved_pct']:.1f} % | "
                  f"{r['before']} ({100 * r['before'] / r['n_steady']:.0f} %) | "
                  f"{r['after_median']:.0f} / {r['after_q3']:.0f} | {r['onset_err']:.0f} | "
                  f"{r['false_stops']} | {r['same_as_full']} of {r['stopped']} | "
                  f"{r['cpu_ms']:.0f} ms |", flush=True)


if __name__ == "__main__":
    main()
