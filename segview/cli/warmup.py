"""``segview warmup FILES... [--method barrett|kbkssd|cpssd] [--json OUT] [--csv OUT] [--latex OUT]
[--report OUT.html] [--delta SECONDS] [--seed N]``.

Barrett et al.'s warm-up analysis of every benchmark in FILES (warmup_stats CSV, Krun, JMH,
pyperf... anything segview reads; ``segview inspect`` shows how they group into benchmarks): a
class per execution (flat, warmup, slowdown, no steady state), a verdict per benchmark
(consistent, good or bad inconsistent), the steady iteration (0-based, in the measured
iterations) and the steady performance with Kalibera & Jones' bootstrap interval. A summary table
goes to standard output; ``--json`` writes ``{"benchmarks": [...]}`` (per execution warmup_stats'
``index``, ``classification``, ``changepoints``, ``outliers``, ``segment_means``), ``--csv`` the
summary, ``--latex`` a table that ``pdflatex`` compiles, ``--report`` a self-contained HTML page
(summary and per-benchmark small multiples). See docs/warmup.md.

Bad input (crashed executions, executions of different lengths, one execution, all-equal values,
mixed units) is named on standard error and the rest analysed. Exit codes: 0 all analysed, 1 some
files, benchmarks or executions could not be analysed (the rest is written), 2 usage or input
error.
"""
from __future__ import annotations

import argparse
import json
import sys
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.errors import DataFormatWarning, InputError
from ..core.atomic import write_text
from .loading import add_columns_option, add_fill_missing_option, load_series
from .paramflags import positive_int

HELP = "warm-up classes per execution and benchmark (warmup_stats), with reports"

OUTPUTS = ("json", "csv", "latex", "report")


def add_analysis_options(p: argparse.ArgumentParser, confidence: float = 0.99,
                         what: str = "the bootstrap intervals (default 0.99, warmup_stats' level)"
                         ) -> None:
    """Options shared by ``segview warmup`` and ``segview compare``."""
    add_columns_option(p)
    add_fill_missing_option(p)
    p.add_argument("-m", "--method", default="barrett",
                   help="how executions are segmented: barrett (warmup_stats' pipeline, "
                        "default), kbkssd, cpssd, or any registered detector")
    p.add_argument("--delta", type=float, default=None, metavar="D",
                   help="absolute delta of the classification, in seconds for time units "
                        "(warmup_stats: 0.001); coarse for millisecond iterations")
    p.add_argument("--delta-percent", action="store_true",
                   help="--delta is warmup_stats' 'D%%': percent of the fastest segment mean")
    p.add_argument("--steady-ratio", type=float, default=None, metavar="R",
                   help="steady state expected before the last R of the iterations (0.25)")
    p.add_argument("--exact", action="store_true",
                   help="barrett: optimal change points instead of R changepoint's PELT")
    p.add_argument("--harness-warmup", choices=("keep", "drop"), default="drop",
                   help="the harness's own warm-up iterations: drop them (default; indices count "
                        "measured iterations) or keep them in the analysis")
    p.add_argument("--resamples", type=int, default=10000,
                   help="bootstrap resamples (default 10000; 0: no interval)")
    p.add_argument("--confidence", type=float, default=confidence, help=f"coverage of {what}")
    p.add_argument("--seed", type=int, default=None, help="seed of the bootstraps")
    p.add_argument("--threads", type=positive_int, default=1,
                   help="executions analysed in this many threads (same results)")
    p.add_argument("--force", action="store_true", help="overwrite output files that exist")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("warmup", help=HELP, description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="FILE", help="benchmark result files or folders")
    add_analysis_options(p)
    p.add_argument("--json", metavar="OUT", help="write the analysis as JSON")
    p.add_argument("--csv", metavar="OUT", help="write the per-benchmark summary as CSV")
    p.add_argument("--latex", metavar="OUT", help="write the summary as a LaTeX document")
    p.add_argument("--report", metavar="OUT.html", help="write a self-contained HTML report")
    p.add_argument("-q", "--quiet", action="store_true", help="no summary table on stdout")
    p.set_defaults(func=run)


def analysis_params(args: argparse.Namespace) -> dict[str, Any]:
    """``analyse_benchmark`` keyword arguments from the shared options."""
    if not 0 < args.confidence < 1:
        raise InputError("--confidence", f"must lie in (0, 1), got {args.confidence}")
    if args.resamples < 0:
        raise InputError("--resamples", f"must be 0 or more, got {args.resamples}")
    params: dict[str, Any] = {"harness_warmup": args.harness_warmup,
                              "resamples": args.resamples, "confidence": args.confidence,
                              "threads": args.threads}
    if args.delta is not None:
        if not args.delta >= 0:
            raise InputError("--delta", f"must be 0 or more, got {args.delta}")
        params["delta"] = args.delta
    if args.delta_percent:
        if args.delta is None:
            raise InputError("--delta-percent", "give the percentage with --delta")
        params["delta_mode"] = "percent"
    if args.steady_ratio is not None:
        if not 0 <= args.steady_ratio < 1:
            raise InputError("--steady-ratio", f"must lie in [0, 1), got {args.steady_ratio}")
        params["steady_ratio"] = args.steady_ratio
    if args.exact:
        params["exact"] = True
    if args.seed is not None:
        params["seed"] = args.seed
    return params


def check_outputs(args: argparse.Namespace, names: tuple[str, ...]) -> list[tuple[str, str]]:
    """The output files asked for, checked before any work: folder exists, no file overwritten
    without --force, no two outputs on one path."""
    outs = [(k, getattr(args, k)) for k in names if getattr(args, k, None)]
    seen: dict[str, str] = {}
    for key, path in outs:
        p = Path(path)
        flag = f"--{key}"
        if str(p.resolve()) in seen:
            raise InputError(path, f"given to both {seen[str(p.resolve())]} and {flag}")
        seen[str(p.resolve())] = flag
        if p.exists() and not p.is_file():
            raise InputError(path, f"{flag}: is not a regular file")
        if p.is_file() and not args.force:
            raise InputError(path, f"{flag}: exists; pass --force to overwrite it")
        if not p.parent.is_dir():
            raise InputError(path, f"{flag}: cannot be written: the folder {str(p.parent)!r} "
                                   "does not exist")
    return outs


def load_and_analyse(args: argparse.Namespace, paths: list[str], params: dict[str, Any],
                     label: str = "") -> tuple[list[Any], list[Any], int]:
    """Load ``paths``, analyse every benchmark; named warnings on stderr. Returns the
    benchmarks, their analyses and the number of failures (files, benchmarks, executions)."""
    from ..core.benchmark import group
    from ..core.io.loadwarn import LOAD_WARNINGS
    from ..core.warmup import analyse_benchmark

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DataFormatWarning)
        dataset = load_series(args, paths)
    failures = 0
    pre = f"{label}: " if label else ""
    for w in caught:   # crashed executions and the like: named, counted, the rest analysed
        if issubclass(w.category, DataFormatWarning):
            print(f"segview: {pre}warning: {w.message}", file=sys.stderr)
            failures += 1
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    for problem in dataset.problems:
        print(f"segview: {pre}skipped {problem}", file=sys.stderr)
        failures += 1
    benches = group(dataset.series)
    if not benches:
        print(f"segview: {pre}no benchmark read from {', '.join(paths)}", file=sys.stderr)
        failures += 1
    results = []
    for b in benches:
        r = analyse_benchmark(b, args.method, **params)
        loaded = tuple(str(w) for s in b.executions for w in s.metadata.get(LOAD_WARNINGS, ()))
        if loaded:   # the reader's own warnings (a crashed execution...) go into the reports too
            r = replace(r, warnings=loaded + r.warnings)
        results.append(r)
        for w in r.warnings[len(loaded):]:
            print(f"segview: {pre}warning: {w}", file=sys.stderr)
        failures += sum(1 for e in r.executions if e.error)
        if not r.analysed:
            print(f"segview: {pre}benchmark {b.name!r}: no execution could be analysed",
                  file=sys.stderr)
            failures += 1
    return benches, results, failures


def run(args: argparse.Namespace) -> int:
    from ..core.warmup import report, to_json

    params = analysis_params(args)
    outs = check_outputs(args, OUTPUTS)
    if args.method != "barrett":
        from ..core import registry
        registry.get(args.method)   # an unknown method is a usage error before any loading
    benches, results, failures = load_and_analyse(args, list(args.paths), params)
    rows = report.summary_rows(results)
    for key, path in outs:
        if key == "json":
            text = json.dumps(to_json(results), indent=1) + "\n"
        elif key == "csv":
            text = report.format_csv(rows)
        elif key == "latex":
            text = report.format_latex(rows)
        else:
            text = report.render_html(results, benches, sources=[str(p) for p in args.paths])
        write_text(path, text)
    if not args.quiet:
        sys.stdout.write(report.format_text(rows))
    return 1 if failures else 0
