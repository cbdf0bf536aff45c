"""``segview inspect FILE... [--format text|json]``: say what segview read, before you trust an analysis.

Per benchmark: its harness, unit, direction (``lower`` = time per operation, ``higher`` =
throughput is better) and executions (forks, worker processes, repetitions); per execution the
number of the harness's warm-up iterations, of measured iterations, and the first and last measured
values. JSON: ``{"benchmarks": [{"name", "harness", "unit", "direction", "executions": [{"index",
"warmup", "measured", "first", "last", ...}], "params", "metadata", "warnings"}], "problems":
[{"file", "error"}]}``.
Files (or files inside folders) that cannot be read are named on standard error and in
``problems``; the rest is printed. Exit codes: 0 everything read, 1 some files failed, 2 usage
error.
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

from ..core.benchmark import describe, group
from ..core.errors import DataFormatError, ParameterError
from ..core.model import Series
from .loading import add_columns_option, add_fill_missing_option, load_series

HELP = "say what segview read: benchmarks, executions, warm-up and measured iterations"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("inspect", help=HELP, description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="FILE", help="series files or folders")
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_columns_option(p)
    add_fill_missing_option(p)
    p.set_defaults(func=run)


def read_all(paths: list[str], args: argparse.Namespace | None = None
             ) -> tuple[list[Series], list[DataFormatError], list[str]]:
    """Every path loaded on its own (one bad file does not stop the others): the series, the
    files that failed and the loaders' warnings."""
    series: list[Series] = []
    problems: list[DataFormatError] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for p in paths:
            try:
                ds = load_series(args or argparse.Namespace(), [p])
            except DataFormatError as err:
                problems.append(err)
                continue
            series += ds.series
            problems += ds.problems
    notes = list(dict.fromkeys(str(w.message) for w in caught))
    return series, problems, notes


def _value(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, list):
        return "(" + ", ".join(_value(x) for x in v) + ")"
    return f"{v:.6g}"


_DIRECTION = {"lower": "lower is better", "higher": "higher is better (throughput)",
              None: "unknown direction"}


def format_text(benchmarks: list[dict[str, Any]]) -> str:
    out = []
    for b in benchmarks:
        execs = b["executions"]
        out.append(f"{b['name']}: harness {b['harness'] or '-'}, unit {b['unit'] or '-'}, "
                   f"{_DIRECTION.get(b['direction'], b['direction'])}, {len(execs)} execution"
                   + ("s" if len(execs) != 1 else ""))
        rows = [("exec", "warmup", "measured", "first", "last", "id")]
        rows += [(str(e["index"]), str(e["warmup"]) + (f" (dropped {e['warmup_dropped']})"
                                                        if e.get("warmup_dropped") else ""),
                  str(e["measured"]), _value(e["first"]), _value(e["last"]), e["id"])
                 for e in execs]
        widths = [max(len(r[k]) for r in rows) for k in range(5)]
        for r in rows:
            out.append("  " + "  ".join(c.rjust(w) for c, w in zip(r[:5], widths)) + "  " + r[5])
        out += [f"  warning: {w}" for w in b["warnings"]]
    return "\n".join(out) + ("\n" if out else "")


def run(args: argparse.Namespace) -> int:
    if not args.paths:
        raise ParameterError("FILE", "give at least one series file or folder")
    series, problems, notes = read_all(args.paths, args)
    benchmarks = [describe(b) for b in group(series)]
    for note in notes:
        print(f"segview: warning: {note}", file=sys.stderr)
    for problem in problems:
        print(f"segview: skipped {problem}", file=sys.stderr)
    if args.format == "json":
        doc = {"benchmarks": benchmarks,
               "problems": [{"file": p.source, "error": str(p)} for p in problems]}
        print(json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False))
    else:
        sys.stdout.write(format_text(benchmarks))
    return 1 if problems else 0
