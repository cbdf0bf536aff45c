"""``segview tune PATH... --truth GT.csv --method NAME [--grid NAME=V1,V2,...|NAME=LOW:HIGH:STEP]
[--fix NAME=VALUE] [--reference FILE[:NAME]] [--objective manhattan|weighted] [--weights fp=1,...]``.

Grid search of a detector's parameters. ``manhattan``: ``Σ |g − p|`` over the truth-steady series
where the detector and every ``--reference`` method say steady (the paper's criterion; the number of
scored series is shown). ``weighted``: the paper's future-work multi-objective cost over false
positives, false negatives, bias, error spread, mean and median absolute error (terms fp, fn, bias,
std, mae, medae; each scaled by its grid maximum). Without ``--grid`` the spec's grid is used
(KB-KSSD: 15000 configurations). ``--reference`` takes a ``segview detect`` CSV (optionally only
method NAME) or a column NAME of a labels table (e.g. ``labels.csv:cpssd_published``).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path

from ..core import atomic
from ..core import safecsv
from ..core import registry
from ..core.errors import DataFormatError, ParameterError
from ..core.evaluation import tune as tn
from ..core.evaluation.tables import read_predictions
from ..core.evaluation.tables import read_truth
from ..core.io.labels_csv import read_labels
from .evaluate import add_batch_options, batch_kwargs
from .loading import add_search_inputs, load_series
from .paramflags import add_preset_option, parse_param_args, preset_values
from .progress import ProgressBar


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tune", help="grid search of a detector's parameters against a ground truth",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_search_inputs(p)
    p.add_argument("--grid", action="append", default=[], metavar="NAME=VALUES",
                   help="grid values of a parameter (repeatable)")
    p.add_argument("--fix", action="append", default=[], metavar="NAME=VALUE",
                   help="parameter held fixed (repeatable)")
    p.add_argument("--reference", action="append", default=[], metavar="FILE[:NAME]",
                   help="score only series this method also calls steady (repeatable)")
    p.add_argument("--objective", choices=("manhattan", "weighted"), default="manhattan")
    p.add_argument("--weights", default=None, metavar="fp=1,fn=1,...",
                   help="weights of the weighted objective (default: all terms 1)")
    p.add_argument("--top", type=int, default=10, help="rows shown in text output")
    p.add_argument("--format", choices=("text", "json", "csv"), default="text")
    p.add_argument("-o", "--out", help="output file (default: standard output)")
    add_preset_option(p)
    add_batch_options(p)
    p.set_defaults(func=run)


def _references(items: list[str]) -> list[dict[str, int | None]]:
    out: list[dict[str, int | None]] = []
    for item in items:
        path, _, name = item.partition(":") if not Path(item).exists() else (item, "", "")
        with open(path, newline="", encoding="utf-8-sig") as fh:
            cols = next(csv.reader(fh), [])
        if "method" in cols:
            pred = read_predictions([path])
            names = [name] if name else pred.onset_methods
            for n in names:
                if n not in pred.onsets:
                    raise DataFormatError(path, f"no onset predictions of method {n!r}")
                out.append(pred.onsets[n])
        else:
            if not name:
                raise ParameterError("reference", f"{path}: name the onset column as FILE:COLUMN")
            labels = read_labels(path)
            if any(name not in r.onsets for r in labels.values()):
                raise DataFormatError(path, f"no onset column {name!r}")
            out.append({sid: r.onsets[name] for sid, r in labels.items()})
    return out


def _weights(text: str | None) -> dict[str, float] | None:
    if not text:
        return None
    out = {}
    for k, v in parse_param_args(t for t in text.split(",") if t.strip()).items():
        try:
            out[k] = float(v)
        except ValueError:
            raise ParameterError(k, f"weight must be a number, got {v!r}") from None
    return out


def format_csv(res: tn.TuneResult) -> str:
    names = list(res.grid)
    buf = io.StringIO()
    rows = [r.to_dict(names) for r in res.rows]
    w = safecsv.dict_writer(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def run(args: argparse.Namespace) -> int:
    spec = registry.get(args.method)
    truth = read_truth(args.truth)
    series = list(load_series(args, args.paths))
    grid = dict(tn.parse_grid(g) for g in args.grid) or None
    fixed = {**preset_values(spec, args.preset), **parse_param_args(args.fix)}
    refs = _references(args.reference)
    with ProgressBar(1, "tune") as bar:
        def progress(done: int, total: int) -> None:
            bar.total = max(total, 1)
            bar.update(done - bar.done)
        res = tn.grid_search(spec, series, truth, grid, fixed, refs, objective=args.objective,
                             weights=_weights(args.weights), progress=progress,
                             **batch_kwargs(args))
    if args.format == "json":
        names = list(res.grid)
        text = json.dumps({"method": res.method, "objective": res.objective, "grid": res.grid,
                           "fixed": res.fixed, "weights": res.weights, "seconds": res.seconds,
                           "best": res.best.to_dict(names),
                           "rows": [r.to_dict(names) for r in res.rows]}, indent=1,
                          default=str) + "\n"
    elif args.format == "csv":
        text = format_csv(res)
    else:
        text = tn.format_tune_text(res, args.top)
    if args.out:
        atomic.write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0
