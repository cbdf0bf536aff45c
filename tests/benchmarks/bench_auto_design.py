"""Can a vote design beat TCPDBench's best published default (binseg 0.728 F1 / 0.720 cover) *out of
sample*? The measurements behind "Designs tried for a version 2" in docs/defaults.md (issue 28 point 4).

    python tests/benchmarks/bench_auto_design.py [--max-members 7] [--no-jmh]

Each candidate member runs once per series at pinned parameters (``CANDIDATES``); a design is a set
of 3 to ``--max-members`` members and a vote threshold, combined by ``auto``'s own ``vote`` (window 5,
TCPDBench's margin). Three families of series:

* ``tcpd``: the 12 univariate development sets, scored like ``--cp-index tcpdbench``.
* ``synthetic``: bench_defaults' 80 seeded series with known changes (independent of TCPD).
* ``jmh``: the 350 JMH series; scored on the 246 steady ones (the judges' onsets), flood figures on all.

Protocols printed: the best design in sample; the whole search repeated on 11 TCPD sets and scored on
the 12th (leave one out); the design chosen on synthetic data, scored on all 12 TCPD sets (all out of
sample); the vote threshold chosen on JMH for fixed member pools; and designs with no knob chosen
on TCPD (a strict majority of a pool fixed in advance). About 20 CPU minutes with JMH (the members
on two workers, then the 3,648 designs on one).
"""
from __future__ import annotations

import argparse
import itertools
import multiprocessing
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

import segview
from segview.core.api import run_spec
from segview.core.context import RunContext
from segview.core.detectors.auto import agreed, vote
from segview.core.evaluation.tcpd_metrics import covering, f_measure
from segview.core.io.detections import to_tcpdbench
from segview.core.io.labels_csv import read_labels
from segview.core.registry import get

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_defaults import SHARED, synthetic_family, tcpd_family  # noqa: E402

#: label -> (detector, pinned parameters, preset the rest come from, run on y and -y)
CANDIDATES: dict[str, tuple[str, dict[str, Any], str | None, bool]] = {
    "binseg": ("binseg", {"scale": "zscore", "cost": "l2", "penalty": "mbic", "min_size": 1,
                          "max_bkps": None, "rule": "segview"}, None, False),
    "binseg normal": ("binseg", {"scale": "zscore", "cost": "normal", "penalty": "mbic",
                                 "min_size": 2, "max_bkps": None, "rule": "segview"}, None, False),
    "pelt": ("pelt", {"min_size": 1}, "tcpdbench", False),
    "amoc": ("amoc", {}, "tcpdbench", False),
    "bocpd": ("bocpd", {}, "tcpdbench", False),
    "cpnp": ("cpnp", {}, "tcpdbench", True),
    "segneigh": ("segneigh", {}, "tcpdbench", False),
    "wbs": ("wbs", {}, "tcpdbench", False),
    "rfpop": ("rfpop", {"penalty": "bic", "penalty_factor": 4.0, "threshold": 2.0}, None, False),
    "fisher": ("fisher", {}, None, False),
}
POOL = tuple(CANDIDATES)
CURRENT = ("binseg", "binseg normal", "amoc", "bocpd", "cpnp")  # auto version 1


def members(y: np.ndarray) -> dict[str, list[int]]:
    out = {}
    for label, (detector, pinned, preset, both) in CANDIDATES.items():
        spec = get(detector)
        p = spec.coerce(dict(pinned), preset=preset)
        if y.size < spec.required_length(p):
            out[label] = []
            continue
        cps = [int(c) for c in run_spec(spec, y, p, RunContext()).change_points]
        if both:
            cps = agreed(cps, [int(c) for c in run_spec(spec, -y, p, RunContext()).change_points], 5)
        out[label] = cps
    return out


def _job(item):
    sid, y = item
    return sid, members(np.asarray(y, dtype=np.float64))


def jmh_family() -> list[tuple[str, np.ndarray, dict[str, list[int]] | None]]:
    labels = read_labels(SHARED / "jmh" / "labels.csv")
    out = []
    for path in sorted((SHARED / "jmh" / "series").glob("*.json")):
        (s,) = segview.load(path)
        row = labels[path.stem]
        ann = ({j: ([int(v)] if v else []) for j, v in row.judges.items() if v is not None}
               if row.steady else None)
        out.append((path.stem, np.asarray(s.values), ann))
    return out


def cached(pool, fam) -> list[tuple[int, Any, dict[str, list[int]]]]:
    res = dict(pool.map(_job, [(s, y) for s, y, _ in fam], chunksize=2))
    return [(len(y), ann, res[s]) for s, y, ann in fam]


def score(rows, keys: Sequence[str], votes: int, tcpdbench: bool) -> np.ndarray:
    """(series x [F1, cover]) of a design; rows without annotations are skipped."""
    out = []
    for n, ann, mem in rows:
        if ann is None:
            continue
        cps = [c for c in vote([mem[k] for k in keys], votes, 5)[0] if 0 < c < n]
        if tcpdbench:
            cps = to_tcpdbench(cps, n, "auto")
        out.append((f_measure(ann, cps)[0], covering(ann, cps, n)))
    return np.array(out)


def flood(rows, keys: Sequence[str], votes: int) -> tuple[float, float, int]:
    s = 100 * np.array([len([c for c in vote([m[k] for k in keys], votes, 5)[0] if 0 < c < n]) / n
                        for n, _, m in rows])
    return float(np.percentile(s, 90)), float(s.max()), int((s > 1).sum())


def _fmt(a: np.ndarray) -> str:
    return f"{a[0]:.3f} / {a[1]:.3f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-members", type=int, default=7)
    ap.add_argument("--no-jmh", action="store_true")
    args = ap.parse_args(argv)
    tc, syn = tcpd_family(), synthetic_family()
    members(tc[0][1])  # compile the kernels once, before forking
    with multiprocessing.get_context("fork").Pool(2) as pool:
        t_rows, s_rows = cached(pool, tc), cached(pool, syn)
        j_rows = None if args.no_jmh else cached(pool, jmh_family())
    designs = [(keys, v) for m in range(3, args.max_members + 1)
               for keys in itertools.combinations(POOL, m) for v in range(2, m + 1)]
    T = np.stack([score(t_rows, k, v, True) for k, v in designs])  # designs x 12 x 2
    S = np.stack([score(s_rows, k, v, False) for k, v in designs]).mean(axis=1)
    tm = T.mean(axis=1)
    print(f"{len(designs)} designs; {int(((tm[:, 0] > 0.728) & (tm[:, 1] > 0.720)).sum())} beat "
          "0.728 / 0.720 in sample")
    best = int(np.argmax(tm.sum(axis=1)))
    print("best in sample:", designs[best], _fmt(tm[best]))
    picked = []
    for h in range(T.shape[1]):
        keep = np.arange(T.shape[1]) != h
        picked.append(T[int(np.argmax(T[:, keep].mean(axis=1).sum(axis=1))), h])
    print("whole search, leave one out:", _fmt(np.mean(picked, axis=0)))
    for name, idx in (("any", range(len(designs))),
                      ("strict majority", [i for i, (k, v) in enumerate(designs)
                                           if v == len(k) // 2 + 1])):
        i = max(idx, key=lambda i: S[i].sum())
        print(f"chosen on synthetic ({name}):", designs[i], "synthetic", _fmt(S[i]),
              "-> tcpd", _fmt(tm[i]))
    fixed = {"version 1 (5 members)": CURRENT, "all candidates": POOL}
    for name, keys in fixed.items():
        for v in range(2, len(keys) + 1):
            line = f"{name}, votes {v}: tcpd {_fmt(score(t_rows, keys, v, True).mean(axis=0))}"
            if j_rows is not None:
                j = score(j_rows, keys, v, False).mean(axis=0)
                p90, top, over = flood(j_rows, keys, v)
                line += f", jmh {_fmt(j)}, flood p90 {p90:.2f} max {top:.2f} ({over} > 1 %)"
            print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
