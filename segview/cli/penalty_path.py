"""``segview detect --penalty-path [LOW,HIGH]``: the CROPS path of op/pelt per series, as CSV or JSON.

CSV columns: ``series_id,method,index,penalty_low,penalty_high,penalty,n_changes,cost,elbow,
change_points`` (one row per segmentation, fewest penalties first; ``penalty`` is a value inside
``[penalty_low, penalty_high]`` that reproduces it with ``--param penalty=...``; ``elbow`` is 1 on
the elbow's row). JSON: one entry per series and method with ``beta_min``, ``beta_max``, ``runs``,
``elbow`` (index or null), ``params`` and ``path`` (the rows). See docs/penalty-path.md.
"""
from __future__ import annotations

import io
import json
import sys
from typing import Any

from ..core.errors import ParameterError, RecoverableError
from ..core import safecsv
from ..core.params import Params
from ..core.penalty_path import PATH_METHODS, penalty_path
from ..core.registry import DetectorSpec

PATH_COLUMNS = ("series_id", "method", "index", "penalty_low", "penalty_high", "penalty",
                "n_changes", "cost", "elbow", "change_points")


def parse_range(text: str | None) -> tuple[float | None, float | None]:
    """``LOW,HIGH`` (either may be empty: its default) or None/``auto`` -> the range."""
    if text is None or text.strip().lower() in ("", "auto"):
        return None, None
    parts = text.split(",")
    if len(parts) != 2:
        raise ParameterError("--penalty-path", f"expected LOW,HIGH, got {text!r}")
    try:
        return tuple(float(p) if p.strip() else None for p in parts)  # type: ignore[return-value]
    except ValueError:
        raise ParameterError("--penalty-path", f"LOW and HIGH must be numbers, got {text!r}") from None


def check_methods(specs: list[DetectorSpec]) -> None:
    bad = [s.name for s in specs if s.name not in PATH_METHODS]
    if bad:
        raise ParameterError("--penalty-path", f"needs a penalised method with an exact solver "
                                               f"({', '.join(PATH_METHODS)}); not {', '.join(bad)}")


def run_paths(series: list[Any], specs: list[DetectorSpec], params: dict[str, Params],
              text_range: str | None, fmt: str) -> tuple[str, int]:
    """``(output text, failures)``: the path of each series and method (a failing one is reported
    on standard error and the others written)."""
    lo, hi = parse_range(text_range)
    rows: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    failures = 0
    for s in series:
        for sp in specs:
            try:
                path = penalty_path(s, sp.name, lo, hi, params=dict(params[sp.name]))
            except RecoverableError as err:
                print(f"segview: {s.id}, {sp.name}: {err}", file=sys.stderr)
                failures += 1
                continue
            if fmt == "json":
                entries.append({"series_id": s.id, "method": sp.name, "params": dict(path.params),
                                "beta_min": path.beta_min, "beta_max": path.beta_max,
                                "runs": path.runs, "elbow": path.elbow, "path": path.rows()})
            else:
                for r in path.rows():
                    rows.append({**r, "series_id": s.id, "method": sp.name,
                                 "elbow": int(r["elbow"]),
                                 "change_points": ";".join(map(str, r["change_points"]))})
    if fmt == "json":
        return json.dumps(entries, indent=1) + "\n", failures
    buf = io.StringIO()
    w = safecsv.dict_writer(buf, fieldnames=PATH_COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows({k: r[k] for k in PATH_COLUMNS} for r in rows)
    return buf.getvalue(), failures
