"""``segview aggregate``: judges' judgments (CSV) -> ground truth (CSV); docs/algorithms/jagt.md."""
from __future__ import annotations

import argparse
import json
import math
from typing import Any

from ..core import safecsv
from ..core import atomic
from ..core.annotation import agreement
import sys

from ..core.annotation.aggregate import (RULES, TIE_POLICIES, Adjudication, aggregate,
                                         aggregate_change_points)
from ..core.annotation.tables import read_judgments_csv, write_ground_truth_csv
from ..core.errors import DataFormatError, ParameterError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "aggregate", help="aggregate judges' labels into ground truth (JAGT)",
        description="Aggregate a judgments table (columns series_id,judge,steady,index; index "
                    "empty when unsteady; judges ordered by first appearance; an optional role "
                    "column marks adjudicators' decisions, as `segview session export-judgments` "
                    "writes them) into one label per series: majority vote on steadiness, DBSCAN "
                    "over the onsets. With --stats the JSON is alone on stdout (the summary goes "
                    "to stderr).")
    p.add_argument("judgments", help="judgments CSV")
    p.add_argument("--out", required=True, help="ground-truth CSV to write")
    p.add_argument("--eps", type=float, default=50.0,
                   help="DBSCAN neighbourhood in samples, inclusive (default 50)")
    p.add_argument("--min-samples", type=int, default=None,
                   help="DBSCAN min_samples (default: 3 for the reference rule, a strict majority "
                        "of the onsets present for the general rule)")
    p.add_argument("--rule", choices=RULES, default="general",
                   help="'reference' = the KB-KSSD study's code (five judges; reproduces its "
                        "published ground truth); 'general' = spec rule for any number of judges "
                        "(default)")
    p.add_argument("--tie", choices=TIE_POLICIES, default="disputed",
                   help="what an exact steadiness tie becomes (default: disputed, left for "
                        "adjudication)")
    p.add_argument("--change-points", action="store_true",
                   help="change-point protocol: the table has a change_points column (indices "
                        "separated by spaces); write series_id,change_points,n_judges with the "
                        "consensus of the pooled points (DBSCAN, --eps, --min-samples judges)")
    p.add_argument("--judges-per-series", "-k", type=int, default=None, metavar="K",
                   help="report (stderr, and 'under_covered' in --stats) the series with fewer "
                        "than K judgments")
    p.add_argument("--stats", action="store_true",
                   help="print agreement statistics (Fleiss' kappa, onset spread, judge bias) "
                        "as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.min_samples is not None and args.min_samples < 1:
        raise ParameterError("min-samples", f"must be >= 1, got {args.min_samples}")
    rows = read_judgments_csv(args.judgments)
    adjudications = {r.series_id: Adjudication(r.steady, r.index, r.judge) for r in rows
                     if r.role == "adjudicator"}
    rows = [r for r in rows if r.role != "adjudicator"]
    if args.change_points:
        return _change_points(args, rows)
    results = aggregate([(r.series_id, r.judge, r.steady, r.index) for r in rows], rule=args.rule,
                        eps=args.eps, min_samples=args.min_samples, tie=args.tie,
                        adjudications=adjudications)
    write_ground_truth_csv(args.out, results)
    steady = sum(1 for g in results if g.steady)
    clustered = sum(1 for g in results if g.steady and g.clustered)
    disputed = sum(1 for g in results if g.disputed)
    print(f"{len(results)} series: {steady} steady ({clustered} clustered, "
          f"{steady - clustered} scattered or single), {disputed} disputed"
          + (f", {len(adjudications)} adjudicated" if adjudications else "")
          + f"; rule {args.rule}, eps {args.eps:g} -> {args.out}",
          file=sys.stderr if args.stats else sys.stdout)
    short = under_covered(rows, args.judges_per_series)
    if short:
        print(f"segview: warning: {len(short)} series have fewer than {args.judges_per_series} "
              "judgments: " + ", ".join(f"{sid} ({n})" for sid, n in list(short.items())[:10])
              + (" ..." if len(short) > 10 else ""), file=sys.stderr)
    if args.stats:
        votes: dict[str, dict[str, bool]] = {}
        for r in rows:
            votes.setdefault(r.series_id, {})[r.judge] = r.steady
        stats = agreement.summary(results, votes)
        if args.judges_per_series is not None:
            stats["under_covered"] = {sid: {"judges": n, "wanted": args.judges_per_series}
                                      for sid, n in short.items()}
        print(json.dumps(json_clean(stats), indent=2))
    return 0


def under_covered(rows: list, k: int | None) -> dict[str, int]:
    """Series with fewer than ``k`` judges' rows (``{}`` when k is None)."""
    if k is None:
        return {}
    count: dict[str, int] = {}
    for r in rows:
        count[r.series_id] = count.get(r.series_id, 0) + 1
    return {sid: n for sid, n in count.items() if n < k}


def _change_points(args: argparse.Namespace, rows: list) -> int:
    missing = [r.line for r in rows if r.change_points is None]
    if missing:
        raise DataFormatError(args.judgments, "--change-points needs a change_points column")
    per: dict[str, dict[str, tuple[int, ...]]] = {}
    for r in rows:
        per.setdefault(r.series_id, {})[r.judge] = r.change_points
    with atomic.atomic_open(args.out, "w", newline="", encoding="utf-8") as fh:
        w = safecsv.writer(fh, lineterminator="\n")
        w.writerow(["series_id", "change_points", "n_judges"])
        for sid, labs in per.items():
            cps = aggregate_change_points(labs, eps=args.eps, min_judges=args.min_samples)
            w.writerow([sid, " ".join(map(str, cps)), len(labs)])
    print(f"{len(per)} series: consensus change points, eps {args.eps:g} -> {args.out}")
    return 0


def json_clean(value: Any) -> Any:
    """Make statistics JSON-safe: NaN -> null, tuples -> lists, unknown objects -> str."""
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {str(k): json_clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_clean(v) for v in value]
    if value is None or isinstance(value, (str, int)):
        return value
    return str(value)
