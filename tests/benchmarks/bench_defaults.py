"""Measure candidate defaults (scale, penalty) of op, pelt and binseg: the table of docs/defaults.md.

    python tests/benchmarks/bench_defaults.py [--methods pelt,binseg,op] [--out table.md]

Three data families, each scored with TCPDBench's F1 (margin 5) and covering metric
(segview.core.evaluation.tcpd_metrics), averaged over the series of the family:

* ``jmh``: the 246 steady series of ``shared/data/jmh`` (3000 points each, seconds per operation);
  the five judges' steady-state onsets are five annotators, each marking one change point (none when
  the judge put the onset at 0). Judges mark only the end of warm-up, so precision punishes every
  other change; the cover is the more telling number here.
* ``tcpd``: the 12 univariate complete data sets of ``shared/data/tcpd`` with their annotations.
* ``synthetic``: 80 seeded series of 1000 points (segview.core.synthetic and the same shapes with
  AR(1) noise and outliers): piecewise-constant means with 0-5 changes (jumps of 1.5-6 noise sd) in
  white noise, in AR(1) noise (phi 0.5, the jumps in marginal sd), with 1 % spikes of 12 sd (not
  change points), and JIT-like warm-up ramps; every series in random units (noise sd 10^-6..10^4)
  plus a random offset. The true change points are the one annotator.

Besides F1 and cover the table gives the mean number of change points per series and the largest
share of a series' length reported as change points (the acceptance bound is 5 % on the bundled JMH
sample and 10 % on TCPD).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import segview
from segview.core.errors import SegviewError
from segview.core.evaluation.tcpd_metrics import covering, f_measure
from segview.core.io.labels_csv import read_labels
from segview.core.synthetic import ar1_noise

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared" / "data"

#: (label, parameters): the old default first, then the candidates.
CANDIDATES: list[tuple[str, dict]] = [
    ("none / bic (old default)", {"scale": "none", "penalty": "bic"}),
    ("none / bic + noise_scale", {"scale": "none", "penalty": "bic", "noise_scale": True}),
    ("zscore / bic", {"scale": "zscore", "penalty": "bic"}),
    ("zscore / mbic", {"scale": "zscore", "penalty": "mbic"}),
    ("robust / aic", {"scale": "robust", "penalty": "aic"}),
    ("robust / hq", {"scale": "robust", "penalty": "hq"}),
    ("robust / bic0", {"scale": "robust", "penalty": "bic0"}),
    ("robust / bic", {"scale": "robust", "penalty": "bic"}),
    ("robust / mbic", {"scale": "robust", "penalty": "mbic"}),
    ("robust / 50", {"scale": "robust", "penalty": 50.0}),
]


def jmh_family() -> list[tuple[str, np.ndarray, dict[str, list[int]]]]:
    labels = read_labels(SHARED / "jmh" / "labels.csv")
    out = []
    for sid, row in labels.items():
        if not row.steady:
            continue
        (series,) = segview.load(SHARED / "jmh" / "series" / f"{sid}.json")
        ann = {j: ([int(v)] if v else []) for j, v in row.judges.items() if v is not None}
        out.append((sid, series.values, ann))
    return out


def tcpd_family() -> list[tuple[str, np.ndarray, dict[str, list[int]]]]:
    base = SHARED / "tcpd"
    annotations = json.loads((base / "annotations.json").read_text())
    out = []
    for path in sorted((base / "datasets").glob("*.json")):
        try:
            ds = segview.load(path)
        except SegviewError:
            continue  # missing values (uk_coal_employ)
        if len(ds) != 1 or ds[0].values.ndim != 1:
            continue  # run_log is two-dimensional
        out.append((ds[0].id, ds[0].values, annotations[ds[0].id]))
    return out


def synthetic_family(count: int = 80, n: int = 1000) -> list[tuple[str, np.ndarray, dict]]:
    out = []
    kinds = ("white", "ar1", "spikes", "warmup")
    for i in range(count):
        kind = kinds[i % len(kinds)]
        rng = np.random.default_rng(1000 + i)
        unit = 10.0 ** rng.uniform(-6, 4)
        offset = rng.uniform(-1, 1) * 10.0 ** rng.uniform(-3, 6) * unit
        if kind == "warmup":
            onset = int(rng.integers(50, 400))
            y = rng.standard_normal(n)
            y[:onset] += rng.uniform(3, 10) * (1.0 - np.arange(onset) / onset)
            cps = [onset]
        else:
            k = int(rng.integers(0, 6))
            cps = sorted(int(c) for c in rng.choice(np.arange(30, n - 30, 10), k, replace=False))
            if kind == "ar1":
                noise = ar1_noise(n, 0.5, rng) * np.sqrt(1 - 0.25)  # marginal sd 1
            else:
                noise = rng.standard_normal(n)
            level, means = 0.0, np.zeros(n)
            for c in cps:
                level += rng.choice([-1.0, 1.0]) * rng.uniform(1.5, 6.0)
                means[c:] = level
            y = means + noise
            if kind == "spikes":
                at = rng.choice(n, n // 100, replace=False)
                y[at] += rng.choice([-1.0, 1.0], at.size) * 12.0
        out.append((f"{kind}-{i}", unit * y + offset, {"truth": cps}))
    return out


def score(family, method: str, params: dict) -> dict[str, float]:
    f1s, covers, counts, share = [], [], [], 0.0
    for sid, y, ann in family:
        cps = [int(c) for c in segview.detect(y, method, **params).change_points]
        f1s.append(f_measure(ann, cps)[0])
        covers.append(covering(ann, cps, len(y)))
        counts.append(len(cps))
        share = max(share, len(cps) / len(y))
    return {"f1": float(np.mean(f1s)), "cover": float(np.mean(covers)),
            "cps": float(np.mean(counts)), "max_share": share, "n": len(family)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--methods", default="pelt,binseg,op")
    ap.add_argument("--families", default="tcpd,synthetic,jmh")
    ap.add_argument("--out", help="also write the markdown table here")
    args = ap.parse_args(argv)
    builders = {"jmh": jmh_family, "tcpd": tcpd_family, "synthetic": synthetic_family}
    families = {f: builders[f]() for f in args.families.split(",")}
    lines = ["| method | scale / penalty | " + " | ".join(
        f"{f} F1 | {f} cover | {f} cps (max % of n)" for f in families) + " |",
        "|---|---|" + "---|---|---|" * len(families)]
    cells = []
    for fam in families.values():
        s = score(fam, "zero", {})
        cells += [f"{s['f1']:.3f}", f"{s['cover']:.3f}", "0"]
    lines.append("| zero | (no change point: baseline) | " + " | ".join(cells) + " |")
    for method in args.methods.split(","):
        for label, params in CANDIDATES:
            t0 = time.process_time()
            cells = []
            for fam in families.values():
                s = score(fam, method, params)
                cells += [f"{s['f1']:.3f}", f"{s['cover']:.3f}",
                          f"{s['cps']:.1f} ({100 * s['max_share']:.1f})"]
            lines.append(f"| {method} | {label} | " + " | ".join(cells) + " |")
            print(lines[-1], f"  [{time.process_time() - t0:.1f} s CPU]", file=sys.stderr,
                  flush=True)
    n_line = "series: " + ", ".join(f"{f} {len(v)}" for f, v in families.items())
    text = "\n".join([n_line, "", *lines]) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
