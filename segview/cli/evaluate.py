"""``segview evaluate [--truth GT.csv] [--cp-truth annotations.json] PRED.csv... [--format text|json|csv]``.

Onsets: truth columns ``series_id,steady,reference_index,clustered`` (a ``labels.csv`` with
``jagt_index``, ``jagt_clustered`` works too). Predictions are ``segview detect`` CSVs; several
methods may share a file. With ``--method NAME --series PATH`` detectors are also run here, through
the batch engine (cached; ``--scheduler ADDRESS`` for Dask; ``--preset NAME``).

Change points: ``--cp-truth annotations.json`` ({series: {annotator: [cp, ...]}}, TCPD's layout)
scores every method's change points with TCPDBench's F1 (``--margin``, default 5) and covering metric,
computed exactly as TCPDBench computes them, one row per series and method, then means that say how
many series they are over. Without ``--truth`` only change points are scored. Cover needs the series
lengths: ``--series PATH`` (series that fail to load are named on stderr and the exit code is 1, as
in ``detect``). The numbers are compared as written; ``--cp-index tcpdbench`` first turns segview
change points into TCPDBench's reported locations (cp - 1, kept when 1 <= cp - 1 < n - 1): use it
here or on ``detect``, not both. TCPDBench's published default experiment is reproduced by

    segview detect DATASETS --method binseg,pelt,zero --preset tcpdbench --cp-index tcpdbench -o p.csv
    segview evaluate --cp-truth annotations.json p.csv --series DATASETS
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..core import atomic
from ..core.errors import InputError, ParameterError
from ..core.evaluation import report as rep
from ..core.evaluation.batch import MethodSpec, run_batch
from ..core.evaluation.evaluate import evaluate_onsets, score_change_points
from ..core.evaluation.tables import Predictions, read_cp_truth, read_predictions, read_truth
from ..core.evaluation.cache import default_cache_dir
from ..core.io import load
from ..core.io.detections import CP_INDEX, convert_cps
from .loading import add_columns_option, add_fill_missing_option, load_series
from .paramflags import add_preset_option, parse_param_args, preset_values
from .progress import ProgressBar


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
    p.add_argument("--truth", metavar="GT.csv",
                   help="onset ground-truth table, or a segview export folder (optional with "
                        "--cp-truth; an export given as --series is its own truth)")
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
    add_columns_option(p)
    add_fill_missing_option(p)
    p.add_argument("--cp-truth", metavar="FILE.json",
                   help="multi-annotator change points {series_id: {annotator: [cp, ...]}}; "
                        "default: the annotations.json of a TCPD --series folder (or a "
                        "change-point export's judgments)")
    p.add_argument("--margin", type=int, default=5, help="F1 margin in samples (default 5)")
    p.add_argument("--cp-index", choices=CP_INDEX, default="segview",
                   help="segview: score change points as written (default); tcpdbench: convert "
                        "segview change points to TCPDBench's reported locations first (cp - 1, "
                        "1 <= cp - 1 < n - 1; bocpd: cp, as TCPDBench reports it; needs --series)")
    add_batch_options(p)
    p.set_defaults(func=run)


def _run_detectors(args: argparse.Namespace, series: list, pred: Predictions) -> int:
    """Run the ``--method`` detectors into ``pred``; returns the number of failed runs."""
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
    failures = 0
    for row in run_with_bar(series, specs, args, "evaluate"):
        if row["error"]:
            print(f"segview: {row['series_id']}, {row['method']}: {row['error']}", file=sys.stderr)
            failures += 1
            continue
        m = row["method"]
        if m not in pred.order:
            pred.order.append(m)
        if specs[row["spec_index"]].spec.produces == "onset":
            pred.onsets.setdefault(m, {})[row["series_id"]] = row["steady_index"]
        pred.change_points.setdefault(m, {})[row["series_id"]] = row["change_points"]
    return failures


def _cp_predictions(args: argparse.Namespace, pred: Predictions,
                    lengths: dict[str, int] | None) -> dict[str, dict[str, list[int]]]:
    if args.cp_index == "segview":
        return pred.change_points
    if not lengths:
        raise ParameterError("cp-index", f"--cp-index {args.cp_index} needs --series PATH for the "
                                         "series lengths")
    return {m: {sid: convert_cps(cps, lengths[sid], args.cp_index, m)
                for sid, cps in per.items() if sid in lengths}
            for m, per in pred.change_points.items()}


def _write(args: argparse.Namespace, text: str) -> None:
    if args.out:
        atomic.write_text(args.out, text)
    else:
        sys.stdout.write(text)


def _truth_from_export(folder: str) -> dict:
    """Onset truth from a segview export folder's aggregated labels (steady-state protocol)."""
    from ..core.evaluation.metrics import TruthRow

    labels = load(folder).labels
    if not labels:
        raise InputError(folder, "the export holds no steady-state labels")
    return {sid: TruthRow(sid, bool(r.steady), r.jagt_index if r.steady else None,
                          r.jagt_clustered if r.steady else None)
            for sid, r in labels.items() if r.steady is not None}


def run(args: argparse.Namespace) -> int:
    failures = 0
    series: list = []
    dataset = None
    if args.series:
        dataset = load_series(args, args.series)
        for problem in dataset.problems:
            print(f"segview: skipped {problem}", file=sys.stderr)
            failures += 1
        series = list(dataset)
    # A TCPD folder (annotations.json) or a change-point export brings its own change-point truth,
    # and an export its aggregated labels: no extra flags needed.
    auto_cp = dataset.change_point_truth() if dataset is not None and not args.cp_truth else {}
    if auto_cp:
        print(f"segview: change-point truth: the annotations of {len(auto_cp)} series in "
              f"{', '.join(map(str, dataset.annotation_files or args.series))}", file=sys.stderr)
    if not args.truth and dataset is not None and dataset.labels and not auto_cp:
        args.truth = next(str(e.folder) for e in dataset.exports)
    if not args.truth and not args.cp_truth and not auto_cp:
        raise ParameterError("truth", "give --truth GT.csv (onsets), --cp-truth FILE.json (change "
                                      "points), or both")
    if args.truth and Path(args.truth).is_dir():
        truth = _truth_from_export(args.truth)
    else:
        truth = read_truth(args.truth) if args.truth else None
    cp_truth = read_cp_truth(args.cp_truth) if args.cp_truth else (auto_cp or None)
    pred = read_predictions(args.predictions)
    if args.method:
        if not series:
            raise ParameterError("series", "--method needs --series PATH to run the detector on")
        failures += _run_detectors(args, series, pred)
    if not pred.order:
        raise InputError("predictions", "give prediction CSV files or --method with --series")
    chosen = ([m.strip() for m in args.methods.split(",") if m.strip()] if args.methods else None)
    lengths = {s.id: len(s) for s in series} or None
    cp_rows: list = []
    cp_summary: dict = {}
    if cp_truth is not None:
        cp_pred = _cp_predictions(args, pred, lengths)
        cp_rows, cp_summary = score_change_points(
            cp_truth, cp_pred, lengths, margin=args.margin,
            methods=chosen if truth is None and chosen else None)
        if truth is None and not cp_rows:
            raise InputError("predictions", "no prediction for any series in "
                                            f"{args.cp_truth or 'the annotations'}")
    if truth is None:
        text = {"text": lambda: rep.format_cp_text(cp_rows, cp_summary),
                "json": lambda: rep.format_cp_json(cp_rows, cp_summary, args.cp_index),
                "csv": lambda: rep.format_cp_csv(cp_rows, cp_summary)}[args.format]()
        _write(args, text)
        return 1 if failures else 0
    methods = chosen or pred.onset_methods
    if not methods:
        raise InputError("predictions", "no onset predictions (steady_index) to evaluate")
    report = evaluate_onsets(truth, pred.onsets, methods, mode=args.scoring)
    if cp_summary:
        report.tcpd = {m: {k: float(v) for k, v in s.items()
                           if isinstance(v, (int, float)) and not (k == "n_cover" and not v)}
                       for m, s in cp_summary.items()}
        report.tcpd_series = cp_rows
    text = {"text": rep.format_text, "json": rep.format_json, "csv": rep.format_csv}[args.format](
        report)
    if args.format == "text" and cp_rows:
        text += "\n" + rep.format_cp_text(cp_rows, cp_summary)
    _write(args, text)
    if args.plots:
        rep.write_plots(report, args.plots)
    return 1 if failures else 0
