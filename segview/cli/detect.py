"""``segview detect PATH... [--method NAME] [--param KEY=VALUE ...] [--format csv|json] [--out FILE]``.

Without ``--method`` the default change-point detector ``auto`` runs (a majority vote of five
models, chosen by measurement: docs/defaults.md); earlier versions required ``--method``.

CSV columns: ``series_id,method,steady_index,change_points,runtime_ms,benchmark,execution,
strengths,strength_label``;
``steady_index`` is -1 for "never steady" (blank for change-point detectors), ``change_points`` is
``;``-separated, ``benchmark``/``execution`` name the benchmark and its process execution (a series
without benchmark metadata: its id, 0), ``strengths`` gives one number per change point
(``;``-separated, blank for a method without them) and ``strength_label`` what it is
(docs/strengths.md; JSON: a list or null). A result's notes (e.g. that a method's default changed
with its version, or how the data were standardised) are a list ``notes`` in JSON; with CSV the
notes every series' result has are told once per method on standard error, with a count of the
others. Indices count the harness's own warm-up iterations unless
``--harness-warmup drop`` removes them first (JSON entries record the choice and the count).
``--rollup`` adds a table per benchmark and method (executions analysed, steady, median and IQR
of the onsets, change points per execution) on standard output, ``--rollup-out FILE`` writes it
as CSV or JSON (``--format``).
``--penalty-path [LOW,HIGH]`` writes each series' CROPS penalty path for op/pelt instead
(segview/cli/penalty_path.py, docs/penalty-path.md).
``--preset NAME`` starts every selected method from its named parameter set (``segview methods
NAME``; ``--param`` overrides it). ``--cp-index tcpdbench`` writes change points as TCPDBench reports
them: the last sample before each change (cp - 1), only ``1 <= cp - 1 < n - 1`` (``bocpd``: cp,
as TCPDBench's ocp wrapper reports the first sample of each new segment).
Exit codes: 0 all series done, 1 some files or series failed (the others are written), 2 usage or
input error.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..core import atomic, registry
from ..core.benchmark import warmup_count
from ..core.errors import InputError, ParameterError, Terminated
from ..core.evaluation.batch import (BatchCancelled, BatchIncomplete, MethodSpec, partial_path,
                                     run_batch)
from ..core.limits import cost_warning
from ..core.io.detections import (CP_INDEX, benchmark_columns, convert_with_strengths,
                                   detection_row, format_csv)
from ..core.params import Params
from ..core.registry import DetectorSpec
from .benchtables import format_rollup, rollup_rows, warmup_note
from .loading import add_columns_option, add_fill_missing_option, load_series
from .penalty_path import check_methods, parse_range, run_paths
from .paramflags import add_preset_option, help_params, parse_param_args, positive_int
from .progress import ProgressBar



def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("detect", help="run detectors on series files or folders",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH", help="series files or folders")
    add_columns_option(p)
    add_fill_missing_option(p)
    p.add_argument("-m", "--method", action="append", default=None,
                   help=f"detector name (repeatable or comma-separated); 'all' = every steady-state "
                        f"detector; see `segview methods`. Default: {DEFAULT_METHOD}, segview's "
                        f"default change-point method (a vote of five models, docs/defaults.md; "
                        f"earlier versions required --method)")
    p.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                   help="detector parameter (repeatable); applies to every selected method that "
                        "declares it")
    add_preset_option(p)
    p.add_argument("--cp-index", choices=CP_INDEX, default="segview",
                   help="change-point numbers written: segview = first sample of the new segment "
                        "(default); tcpdbench = TCPDBench's reported location, the last sample "
                        "before the change (cp - 1, kept when 1 <= cp - 1 < n - 1; for bocpd, "
                        "whose TCPDBench wrapper reports first samples, cp itself)")
    p.add_argument("--per-dimension", action="store_true",
                   help="split multivariate series (TCPD run_log, multi-column CSV) into their "
                        "dimensions (ids SERIES/DIMENSION) and run every method on each; without "
                        "it op, pelt and binseg segment all dimensions jointly and the others say "
                        "they need one dimension")
    p.add_argument("--harness-warmup", choices=("keep", "drop"), default="keep",
                   help="the iterations the harness itself recorded as warm-up (JMH's warm-up "
                        "iterations, pyperf's warmups...): keep them in the analysed series "
                        "(default; indices count them) or drop them (measured iterations only)")
    p.add_argument("--rollup", action="store_true",
                   help="also print a per-benchmark summary of each method's results")
    p.add_argument("--rollup-out", metavar="FILE",
                   help="write the per-benchmark summary to FILE (CSV or JSON by --format)")
    p.add_argument("--penalty-path", nargs="?", const="auto", default=None, metavar="LOW,HIGH",
                   help="instead of detecting, write each series' CROPS penalty path for op/pelt: "
                        "every segmentation optimal for some penalty in [LOW, HIGH] (default "
                        "ln n to n), its cost and the elbow (docs/penalty-path.md)")
    p.add_argument("--format", choices=("csv", "json"), default="csv")
    p.add_argument("-o", "--out", help="output file (default: standard output)")
    p.add_argument("--help-params", action="store_true",
                   help="print the parameters of the selected methods and exit")
    p.add_argument("-j", "--jobs", type=positive_int, default=1,
                   help="worker processes (default 1 = in this process; 0 = one per core)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on a Dask distributed cluster (e.g. tcp://host:8786)")
    p.add_argument("--cache", metavar="DIR",
                   help="cache results on disk so that repeated runs recompute nothing")
    p.set_defaults(func=run)


#: what ``detect`` runs without ``--method``: the default change-point detector (docs/defaults.md)
DEFAULT_METHOD = "auto"


def select_methods(names: list[str] | None) -> list[DetectorSpec]:
    """Resolve ``--method`` values; 'all' expands to every onset (steady-state) detector; no
    ``--method`` at all means :data:`DEFAULT_METHOD`."""
    if names is None:
        names = [DEFAULT_METHOD]
    if not any(n.strip() for chunk in names for n in chunk.split(",")):
        raise ParameterError("method", "choose a detector with --method (see `segview methods`)")
    out: list[DetectorSpec] = []
    for chunk in names:
        for name in (n.strip() for n in chunk.split(",") if n.strip()):
            specs = ([s for s in registry.all_specs() if s.produces == "onset"]
                     if name.lower() == "all" else [registry.get(name)])
            out += [s for s in specs if s not in out]
    return out


def resolve_params(specs: list[DetectorSpec], raw: dict[str, str],
                   preset: str | None = None) -> dict[str, Params]:
    """Coerce ``--param`` values per method over the ``--preset`` (every selected method must
    declare it); a key no selected method declares is an error."""
    declared = {p.name for s in specs for p in s.params}
    for key in raw:
        if key not in declared:
            names = ", ".join(s.name for s in specs)
            raise ParameterError(key, f"no selected method ({names}) has this parameter")
    return {s.name: s.coerce({k: v for k, v in raw.items() if k in {p.name for p in s.params}},
                             preset=preset)
            for s in specs}


def result_row(row: dict[str, Any], spec: DetectorSpec, series: Any = None) -> dict[str, Any]:
    """A batch-engine row as a row of the detections table (``series``: its benchmark columns)."""
    return detection_row(row["series_id"], row["method"], spec.produces, row["steady_index"],
                         row["change_points"], row["runtime_ms"],
                         **(benchmark_columns(series) if series is not None else {}),
                         strengths=row.get("strengths"),
                         strength_label=row.get("strength_label", ""))


def json_entry(row: dict[str, Any], series: Any = None, harness_warmup: str = "keep"
               ) -> dict[str, Any]:
    keys = ("series_id", "method", "detector_version", "params", "steady_index", "change_points")
    extra: dict[str, Any] = {}
    if series is not None:
        extra = {**benchmark_columns(series), "harness_warmup": harness_warmup,
                 "warmup": warmup_count(series),
                 "warmup_dropped": int(series.metadata.get("warmup_dropped", 0) or 0)}
    strengths = row.get("strengths")
    return {**{k: row[k] for k in keys}, "runtime_ms": round(float(row["runtime_ms"]), 3),
            "strengths": strengths,
            "strength_label": row.get("strength_label", "") if strengths is not None else "",
            "notes": list(row.get("notes") or ()), **extra}


def notes_summary(batch: list[dict[str, Any]]) -> list[str]:
    """What each method's results say: the notes every series' result has, once, then how many
    other (series-specific) notes there were, which the JSON output lists per series."""
    runs: dict[str, int] = {}
    seen: dict[str, dict[str, int]] = {}
    for row in batch:
        if row.get("error"):
            continue
        m = row["method"]
        runs[m] = runs.get(m, 0) + 1
        per = seen.setdefault(m, {})
        for note in dict.fromkeys(str(n) for n in row.get("notes") or ()):
            per[note] = per.get(note, 0) + 1
    out = []
    for m, per in seen.items():
        out += [f"{m}: {note}" for note, k in per.items() if k == runs[m]]
        other = sum(1 for k in per.values() if k < runs[m])
        if other:
            out.append(f"{m}: {other} more note{'s' if other > 1 else ''} on some series only "
                       "(--format json gives each result's notes)")
    return out


def format_rows(rows: list[dict[str, Any]], fmt: str, entries: list[dict[str, Any]]) -> str:
    if fmt == "json":
        return json.dumps(entries, indent=1) + "\n"
    return format_csv(rows)


def run(args: argparse.Namespace) -> int:
    specs = select_methods(args.method)
    if args.help_params:
        print("\n\n".join(help_params(s) for s in specs))
        return 0
    params = resolve_params(specs, parse_param_args(args.param), args.preset)
    if args.penalty_path is not None:
        check_methods(specs)
        parse_range(args.penalty_path)
    if not args.paths:
        raise ParameterError("PATH", "give at least one series file or folder")
    if args.rollup_out and Path(args.rollup_out).exists() and not args.force:
        raise InputError(args.rollup_out, "exists; pass --force to overwrite it")
    if args.rollup_out and not Path(args.rollup_out).parent.is_dir():
        raise InputError(args.rollup_out, "cannot be written: its folder does not exist")
    dataset = load_series(args, args.paths, harness_warmup=args.harness_warmup)
    failures = 0
    for problem in dataset.problems:
        print(f"segview: skipped {problem}", file=sys.stderr)
        failures += 1
    specs_by_name = {sp.name: sp for sp in specs}
    if args.per_dimension:
        dataset.series = [d for s in dataset.series for d in s.dimensions()]
    if args.penalty_path is not None:
        return _write_paths(args, dataset.series, specs, params, failures)
    note = warmup_note(dataset.series, args.harness_warmup)
    if note:
        print(f"segview: note: {note}", file=sys.stderr)
    longest = max((len(s) for s in dataset.series), default=0)
    for sp in specs:  # minutes or gigabytes ahead: say so before starting (issue 17)
        note = cost_warning(sp, longest, params[sp.name]) if longest else None
        if note:
            print(f"segview: warning: {note}", file=sys.stderr)
    with ProgressBar(len(dataset) * len(specs), "detect") as bar:
        def progress(done: int, total: int) -> None:
            bar.update(done - bar.done)

        try:
            batch = run_batch(list(dataset), [MethodSpec(sp, params[sp.name]) for sp in specs],
                              executor=args.scheduler, workers=args.jobs or os.cpu_count() or 1,
                              progress=progress, cache_dir=args.cache)
            partial = None
        except BatchCancelled as stop:  # Ctrl-C: keep what finished, marked as partial
            batch, partial = stop.rows, stop
        except BatchIncomplete as stop:  # the scheduler went away: the same, and say why
            batch, partial = stop.rows, stop
    rows, entries = [], []
    lengths = {s.id: len(s) for s in dataset}
    by_id = {s.id: s for s in dataset}
    for row in batch:
        if row["error"]:
            print(f"segview: {row['series_id']}, {row['method']}: {row['error']}", file=sys.stderr)
            failures += 1
            continue
        if args.cp_index != "segview":
            cps, strengths = convert_with_strengths(row["change_points"], row.get("strengths"),
                                                    lengths[row["series_id"]], args.cp_index,
                                                    row["method"])
            row = {**row, "change_points": cps, "strengths": strengths}
        series = by_id.get(row["series_id"])
        if args.format == "json":  # only the table written is built (1e6 rows: 2 GB spared)
            entries.append(json_entry(row, series, args.harness_warmup))
        else:
            rows.append(result_row(row, specs_by_name[row["method"]], series))
    text = format_rows(rows, args.format, entries)
    if args.format == "csv":  # the CSV table has no room for them: told once per method
        for line in notes_summary(batch):
            print(f"segview: note: {line}", file=sys.stderr)
    out = args.out if partial is None or not args.out else partial_path(args.out)
    if out:
        atomic.write_text(out, text)
    else:
        sys.stdout.write(text)
    if isinstance(partial, BatchIncomplete):
        print(f"segview: error: {partial}" + (f"; partial results written to {out}" if out
                                                else ""), file=sys.stderr)
        return 1
    if args.rollup or args.rollup_out:
        summary = rollup_rows(list(dataset), batch, specs)
        if args.rollup_out:
            atomic.write_text(args.rollup_out, format_rollup(summary, args.format))
        if args.rollup:
            sys.stdout.write(("\n" if not out else "") + format_rollup(summary, "text"))
    if partial is not None:
        term = isinstance(partial.__cause__, Terminated)
        print(f"segview: {'terminated (SIGTERM)' if term else 'interrupted'}: partial results, "
              f"{len(partial.rows)} of {partial.total} runs"
              + (f" written to {out}" if out else ""), file=sys.stderr)
        return 128 + Terminated.signum if term else 130
    return 1 if failures else 0


def _write_paths(args: argparse.Namespace, series: list[Any], specs: list[DetectorSpec],
                 params: dict[str, Params], failures: int) -> int:
    """``--penalty-path``: the CROPS path table instead of the detections (whole or absent)."""
    text, failed = run_paths(series, specs, params, args.penalty_path, args.format)
    if args.out:
        atomic.write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 1 if failures + failed else 0
