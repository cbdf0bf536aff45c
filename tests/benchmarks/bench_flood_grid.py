"""Issue 28's flood measurement for one detector over a small grid of its parameters: for every grid
point, the JMH flood figures (90th percentile and maximum of change points as % of n over the 350
series of ``shared/data/jmh``, and the number of series above 1 %) and TCPDBench's F1 / cover
(mean over the 12 univariate development sets, locations as TCPDBench reports them). This is how
the version-2 defaults of wbs, cpnp and kcpa were chosen and bocpd's candidates measured
(docs/defaults.md, "No default floods").

    python tests/benchmarks/bench_flood_grid.py kcpa '{"cost": 10}' '{"cost": 30}' ... \
        [--stride 1] [--jobs 2] [--out log.jsonl]

A grid point is a JSON object of parameters (``{}``: the default; ``{"preset": "tcpdbench"}``: a
preset). Each finished point prints one line and is appended to ``--out`` as JSON.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np

import segview

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_defaults_table import SHARED, scores  # noqa: E402
from bench_defaults import tcpd_family  # noqa: E402


def _share(item):
    method, params, values = item
    return len(segview.detect(values, method, **params).change_points) / len(values)


def jmh_shares(method: str, params: dict, stride: int = 1, jobs: int = 2) -> np.ndarray:
    items = []
    for path in sorted((SHARED / "jmh" / "series").glob("*.json"))[::stride]:
        (s,) = segview.load(path)
        items.append((method, params, np.asarray(s.values)))
    if jobs == 1:
        return np.array([_share(i) for i in items])
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return np.array(pool.map(_share, items, chunksize=4))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("method")
    ap.add_argument("grid", nargs="+", help="JSON objects of parameters")
    ap.add_argument("--stride", type=int, default=1, help="every k-th JMH series only")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-tcpd", action="store_true")
    ap.add_argument("--no-jmh", action="store_true")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    fam = None if args.no_tcpd else tcpd_family()
    for text in args.grid:
        params = json.loads(text)
        row: dict = {"method": args.method, "params": params}
        t0 = time.time()
        if fam is not None:
            f1, cover = scores(fam, args.method, params).mean(axis=0)
            row |= {"tcpd_f1": round(float(f1), 4), "tcpd_cover": round(float(cover), 4)}
        if not args.no_jmh:
            a = 100 * jmh_shares(args.method, params, args.stride, args.jobs)
            row |= {"jmh_series": int(a.size), "jmh_p90": round(float(np.percentile(a, 90)), 3),
                    "jmh_max": round(float(a.max()), 3), "jmh_over1": int((a > 1).sum()),
                    "jmh_median": round(float(np.median(a)), 3)}
        row["wall_s"] = round(time.time() - t0, 1)
        print(json.dumps(row), flush=True)
        if args.out:
            with args.out.open("a") as fh:
                fh.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
