"""``segview detect PATH... --method NAME [--param KEY=VALUE ...] [--format csv|json] [--out FILE]``.

CSV columns: ``series_id,method,steady_index,change_points,runtime_ms``; ``steady_index`` is -1 for
"never steady" (blank for change-point detectors) and ``change_points`` is ``;``-separated.
Exit codes: 0 all series done, 1 some files or series failed (the others are written), 2 usage or
input error.
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

from ..core import registry
from ..core.api import run_spec
from ..core.errors import ParameterError, RecoverableError
from ..core.io import load
from ..core.params import Params
from ..core.registry import DetectorSpec
from ..core.result import DetectionResult
from .paramflags import help_params, parse_param_args
from .progress import ProgressBar

CSV_COLUMNS = ("series_id", "method", "steady_index", "change_points", "runtime_ms")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("detect", help="run detectors on series files or folders",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="*", metavar="PATH", help="series files or folders")
    p.add_argument("-m", "--method", action="append", default=None,
                   help="detector name (repeatable or comma-separated); 'all' = every steady-state "
                        "detector; see `segview methods`")
    p.add_argument("-p", "--param", action="append", default=[], metavar="KEY=VALUE",
                   help="detector parameter (repeatable); applies to every selected method that "
                        "declares it")
    p.add_argument("--format", choices=("csv", "json"), default="csv")
    p.add_argument("-o", "--out", help="output file (default: standard output)")
    p.add_argument("--help-params", action="store_true",
                   help="print the parameters of the selected methods and exit")
    p.set_defaults(func=run)


def select_methods(names: list[str] | None) -> list[DetectorSpec]:
    """Resolve ``--method`` values; 'all' expands to every onset (steady-state) detector."""
    if not names:
        raise ParameterError("method", "choose a detector with --method (see `segview methods`)")
    out: list[DetectorSpec] = []
    for chunk in names:
        for name in (n.strip() for n in chunk.split(",") if n.strip()):
            specs = ([s for s in registry.all_specs() if s.produces == "onset"]
                     if name.lower() == "all" else [registry.get(name)])
            out += [s for s in specs if s not in out]
    return out


def resolve_params(specs: list[DetectorSpec], raw: dict[str, str]) -> dict[str, Params]:
    """Coerce ``--param`` values per method; a key no selected method declares is an error."""
    declared = {p.name for s in specs for p in s.params}
    for key in raw:
        if key not in declared:
            names = ", ".join(s.name for s in specs)
            raise ParameterError(key, f"no selected method ({names}) has this parameter")
    return {s.name: s.coerce({k: v for k, v in raw.items() if k in {p.name for p in s.params}})
            for s in specs}


def result_row(series_id: str, spec: DetectorSpec, res: DetectionResult) -> dict[str, Any]:
    if spec.produces == "onset":
        steady: int | str = -1 if res.steady_start is None else int(res.steady_start)
    else:
        steady = "" if res.steady_start is None else int(res.steady_start)
    return {"series_id": series_id, "method": spec.name, "steady_index": steady,
            "change_points": ";".join(str(int(c)) for c in res.change_points),
            "runtime_ms": round(res.runtime_ms, 3)}


def format_rows(rows: list[dict[str, Any]], fmt: str, results: list[dict[str, Any]]) -> str:
    if fmt == "json":
        return json.dumps(results, indent=1) + "\n"
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()


def _json_entry(series_id: str, spec: DetectorSpec, params: Params,
                res: DetectionResult) -> dict[str, Any]:
    return {"series_id": series_id, "method": spec.name, "detector_version": spec.version,
            "params": dict(params), "steady_index": res.steady_start,
            "change_points": [int(c) for c in res.change_points],
            "runtime_ms": round(res.runtime_ms, 3), "notes": list(res.notes)}


def run(args: argparse.Namespace) -> int:
    specs = select_methods(args.method)
    if args.help_params:
        print("\n\n".join(help_params(s) for s in specs))
        return 0
    params = resolve_params(specs, parse_param_args(args.param))
    if not args.paths:
        raise ParameterError("PATH", "give at least one series file or folder")
    dataset = load(args.paths)
    failures = 0
    for problem in dataset.problems:
        print(f"segview: skipped {problem}", file=sys.stderr)
        failures += 1
    rows: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    with ProgressBar(len(dataset) * len(specs), "detect") as bar:
        for series in dataset:
            for spec in specs:
                try:
                    res = run_spec(spec, series, params[spec.name])
                except RecoverableError as err:
                    print(f"segview: {series.id}, {spec.name}: {err}", file=sys.stderr)
                    failures += 1
                else:
                    rows.append(result_row(series.id, spec, res))
                    entries.append(_json_entry(series.id, spec, params[spec.name], res))
                bar.update(1, series.id)
    text = format_rows(rows, args.format, entries)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 1 if failures else 0
