"""``segview evaluate --truth GT.csv PRED.csv... [--format text|json|csv] [--out FILE] [--plots DIR]``.

Truth columns ``series_id,steady,reference_index,clustered`` (a ``labels.csv`` with ``jagt_index``,
``jagt_clustered`` works too). Predictions are ``segview detect`` CSVs; several methods may share a
file. With ``--method NAME --series PATH`` detectors are also run here, through the batch engine
(cached; ``--scheduler ADDRESS`` for Dask). ``--cp-truth annotations.json`` adds the TCPD F1 and
cover metrics for change-point methods (cover needs ``--series`` for the lengths).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core.errors import InputError, ParameterError
from ..core.evaluation import report as rep
from ..core.evaluation.batch import MethodSpec, run_batch
from ..core.evaluation.evaluate import evaluate_change_points, evaluate_onsets
from ..core.evaluation.tables import Predictions, read_cp_truth, read_predictions, read_truth
from ..core.diskmemo import user_cache_dir
from ..core.io import load
from .paramflags import add_preset_option, parse_param_args, preset_values
from .progress import ProgressBar


def default_cache_dir() -> Path:
    return user_cache_dir() / "results"


def add_batch_options(p: argparse.ArgumentParser) -> None:
    """Options shared by evaluate, sensitivity and tune for running detectors."""
    g = p.add_argument_group("batch engine")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on a Dask distributed scheduler (e.g. tcp://host:8786)")
    g.add_argument("-j", "--workers", type=int, default=None,
                   help="local worker processes (default: all cores; 1 = in-process)")
    g.add_argument("--cache-dir", default=None,
                   help=f"result cache folder (default: {default_cache_dir()})")
    g.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")


def batch_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    cache = None if args.no_cache else (args.cache_dir or default_cache_dir())
    return {"executor": args.scheduler, "workers": args.workers, "cache_dir": cache}


def run_with_bar(series: list, specs: list[MethodSpec], args: argparse.Namespace,
                 label: str) -> list[dict[str, Any]]:
    with ProgressBar(len(series) * len(specs), label) as bar:
        def progress(done: int, total: int) -> None:
            bar.update(done - bar.done)
        return run_batch(series, specs, progress=progress, **batch_kwargs(args))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("evaluate", help="compare detector outputs with a ground truth",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("predictions", nargs="*", metavar="PRED.csv", help="segview detect CSV files")
    p.add_argument("--truth", required=True, metavar="GT.csv", help="ground-truth table")
    p.add_argument("--format", choices=("text", "json", "csv"), default="text")
    p.add_argument("-o", "--out", help="output file (default: standard output)")
    p.add_argument("--plots", metavar="DIR", help="write figures (PNG and SVG) to DIR")
    p.add_argument("--methods", help="comma-separated methods to report, in this order "
                                     "(default: all onset methods found)")
    p.add_argument("--scoring", choices=("joint", "own"), default="joint",
                   help="onset errors over series where the truth and every method say steady "
                        "(joint, the paper's convention) or each method's own steady series")
    p.add_argument("-m", "--method", action="append", default=[],
                   help="also run this detector on --series (repeatable)")
    p.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                   help="parameter for the --method detectors that declare it")
    add_preset_option(p)
    p.add_argument("--series", nargs="+", metavar="PATH", help="series files or folders")
    p.add_argument("--cp-truth", metavar="FILE.json",
                   help="multi-annotator change points {series_id: {annotator: [cp, ...]}}")
    p.add_argument("--margin", type=int, default=5, help="F1 margin in samples (default 5)")
    add_batch_options(p)
    p.set_defaults(func=run)


def _run_detectors(args: argparse.Namespace, series: list, pred: Predictions) -> None:
    raw = parse_param_args(args.param)
    specs = []
    for chunk in args.method:
        for name in (n.strip() for n in chunk.split(",") if n.strip()):
            ms = MethodSpec.of(name)
            own = {k: v for k, v in raw.items() if k in {q.name for q in ms.spec.params}}
            specs.append(MethodSpec.of(ms.spec, {**preset_values(ms.spec, args.preset), **own}))
    used = {k for s in specs for k in (q.name for q in s.spec.params)}
    for key in raw:
        if key not in used:
            raise ParameterError(key, "no selected --method has this parameter")
    for row in run_with_bar(series, specs, args, "evaluate"):
        if row["error"]:
            print(f"segview: {row['series_id']}, {row['method']}: {row['error']}", file=sys.stderr)
            continue
        m = row["method"]
        if m not in pred.order:
            pred.order.append(m)
        if specs[row["spec_index"]].spec.produces == "onset":
            pred.onsets.setdefault(m, {})[row["series_id"]] = row["steady_index"]
        pred.change_points.setdefault(m, {})[row["series_id"]] = row["change_points"]


def run(args: argparse.Namespace) -> int:
    truth = read_truth(args.truth)
    pred = read_predictions(args.predictions)
    series = list(load(args.series)) if args.series else []
    if args.method:
        if not series:
            raise ParameterError("series", "--method needs --series PATH to run the detector on")
        _run_detectors(args, series, pred)
    if not pred.order:
        raise InputError("predictions", "give prediction CSV files or --method with --series")
    methods = ([m.strip() for m in args.methods.split(",") if m.strip()] if args.methods
               else pred.onset_methods)
    if not methods:
        raise InputError("predictions", "no onset predictions (steady_index) to evaluate")
    report = evaluate_onsets(truth, pred.onsets, methods, mode=args.scoring)
    if args.cp_truth:
        lengths = {s.id: len(s) for s in series} or None
        report.tcpd = evaluate_change_points(read_cp_truth(args.cp_truth), pred.change_points,
                                             lengths, margin=args.margin)
    text = {"text": rep.format_text, "json": rep.format_json, "csv": rep.format_csv}[args.format](
        report)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    if args.plots:
        rep.write_plots(report, args.plots)
    return 0
