"""``segview workload``: job logs -> workload series W(t) -> Auto-PARM breakpoints, clustered across
sites (seed 004; autoparm.md §11, §9-§10). The computation lives in ``segview.core.workload``."""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

from ..core.errors import ParameterError
from ..core import atomic


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "workload", help="workload series W(t) from job logs; Auto-PARM breakpoints across sites",
        description="Build W(t) = CRA(t) - CRS(t) + RR(t) (work arrived minus work started plus "
                    "remaining run time of running jobs, seconds) on a grid of --step seconds from "
                    "each job log, segment the differenced series Y_k = W(t_k) - W(t_{k-1}) with "
                    "Auto-PARM (exact MDL optimum), and with several logs (sites) cluster all "
                    "breakpoints (centroid linkage, cutoff --cutoff steps). Logs: CSV with a "
                    "header naming submit/start/end columns (seconds), or Standard Workload "
                    "Format .swf (fields 2-4: submit time, wait time, run time; -1 drops the "
                    "job). Jobs with a zero timestamp or running longer than --max-runtime are "
                    "dropped.")
    p.add_argument("logs", nargs="+", help="job logs, one per site (.csv or .swf)")
    p.add_argument("--step", type=float, default=3600.0,
                   help="grid step in seconds (default 3600; the seed used 1000-10000)")
    p.add_argument("--columns", default="submit,start,end",
                   help="CSV column names of arrival, start and end time (default submit,start,end)")
    p.add_argument("--max-runtime", type=float, default=86400.0,
                   help="drop jobs running longer than this many seconds (default 86400, one day)")
    p.add_argument("--cutoff", type=float, default=25.0,
                   help="cross-site clustering cutoff in grid steps (default 25, the seed's c')")
    p.add_argument("--no-segment", action="store_true",
                   help="only build the series (with --out), no Auto-PARM")
    p.add_argument("--max-order", type=int, default=20, help="Auto-PARM's largest AR order (20)")
    p.add_argument("--out", help="CSV to write: site, t, W, Y (Y empty at the first point)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..core import workload as wl
    if not args.step > 0:
        raise ParameterError("step", f"must be a positive number of seconds, got {args.step}")
    if not args.cutoff >= 0:
        raise ParameterError("cutoff", f"must be >= 0, got {args.cutoff}")
    columns = tuple(c.strip() for c in args.columns.split(","))
    if len(columns) != 3 or not all(columns):
        raise ParameterError("columns", f"expected three names like submit,start,end, got "
                                        f"{args.columns!r}")
    sites = []
    for path in args.logs:
        log = wl.read_log(path, columns, args.max_runtime)  # type: ignore[arg-type]  # columns is None or the checked 3-tuple parsed above
        t, w = wl.workload(log, args.step)
        sites.append((Path(path).stem, log, t, w))
    if args.out:
        with atomic.atomic_open(args.out, "w", newline="", encoding="utf-8") as fh:
            out = csv.writer(fh, lineterminator="\n")
            out.writerow(["site", "t", "W", "Y"])
            for name, _, t, w in sites:
                for k in range(t.size):
                    out.writerow([name, repr(float(t[k])), repr(float(w[k])),
                                  "" if k == 0 else repr(float(w[k] - w[k - 1]))])
    report: dict[str, object] = {"step": args.step, "sites": []}
    per_site: dict[str, list[float]] = {}
    for name, log, t, w in sites:
        entry: dict[str, object] = {"site": name, "jobs": int(log.arrival.size),
                                    "dropped": log.dropped, "points": int(t.size),
                                    "t0": float(t[0])}
        if not args.no_segment:
            entry.update(_segment(name, t, w, args.max_order))
            per_site[name] = [float(b) for b in entry["breakpoints"]]  # type: ignore[union-attr]  # report and entry are built in this function with these keys
        report["sites"].append(entry)  # type: ignore[union-attr]  # report and entry are built in this function with these keys
    if not args.no_segment and len(sites) > 1:
        report["global"] = wl.cluster_sites(per_site, args.cutoff)
    if args.json:
        json.dump(report, sys.stdout, indent=1)
        print()
        return 0
    for entry in report["sites"]:  # type: ignore[union-attr]  # report and entry are built in this function with these keys
        line = (f"{entry['site']}: {entry['jobs']} jobs ({entry['dropped']} dropped), "
                f"{entry['points']} points")
        if "breakpoints" in entry:
            line += (f"; {len(entry['breakpoints'])} breakpoints at steps "
                     f"{entry['breakpoints']}, orders {entry['orders']}, "
                     f"code length {entry['code_length']:.2f}")
        print(line)
    for c in report.get("global", []):  # type: ignore[union-attr]  # report and entry are built in this function with these keys
        print(f"global breakpoint at step {c['position']:g} (spread {c['min']:g}-{c['max']:g}): "
              f"{', '.join(c['sites'])}")
    if args.out:
        print(f"series -> {args.out}")
    return 0


def _segment(name: str, t, w, max_order: int) -> dict[str, object]:
    """Auto-PARM on ``Y_k = W(t_k) - W(t_{k-1})``; breakpoints as indices of the W grid."""
    import numpy as np

    from ..core.api import detect
    from ..core.errors import InputError
    y = np.diff(w)
    if y.size < 10:
        raise InputError(name, f"{y.size} differenced points; Auto-PARM needs at least 10 "
                               f"(use a smaller --step)")
    if not np.any(y != y[0]):
        return {"breakpoints": [], "orders": [0], "code_length": float("nan"), "times": []}
    r = detect(y, "autoparm", max_order=max_order)
    bps = [int(c) + 1 for c in r.change_points]  # Y index i is the step from t_i to t_{i+1}
    return {"breakpoints": bps, "orders": r.stats["orders"],
            "code_length": float(r.stats["code_length"]), "times": [float(t[b]) for b in bps]}
