"""Per-benchmark tables of ``segview detect``: the roll-up of each method's results over a
benchmark's executions (``--rollup``, ``--rollup-out``) and the note on the harness's warm-up."""
from __future__ import annotations

import io
import json
from typing import Any

from ..core.benchmark import group, rollup, warmup_count
from ..core import safecsv
from ..core.params import Params
from ..core.registry import DetectorSpec
from ..core.result import DetectionResult


def warmup_note(series: list[Any], choice: str) -> str | None:
    """What happened to the harness's warm-up iterations, when there were any."""
    if choice == "drop":
        dropped = [s for s in series if s.metadata.get("warmup_dropped")]
        return (f"harness warm-up iterations dropped from {len(dropped)} series; indices count "
                "measured iterations only") if dropped else None
    kept = [s for s in series if warmup_count(s)]
    return (f"{len(kept)} series hold harness warm-up iterations, kept and analysed (indices count "
            "them); --harness-warmup drop analyses measured iterations only") if kept else None


ROLLUP_COLUMNS = ("benchmark", "method", "executions", "analysed", "steady", "onset_median",
                  "onset_q1", "onset_q3", "onset_iqr", "change_points")


def rollup_rows(dataset_series: list[Any], batch: list[dict[str, Any]],
                specs: list[DetectorSpec]) -> list[dict[str, Any]]:
    """Per benchmark and method: :func:`segview.core.benchmark.rollup` of the successful runs."""
    by_method: dict[str, dict[str, DetectionResult]] = {sp.name: {} for sp in specs}
    for r in batch:
        if not r["error"] and r["method"] in by_method:
            by_method[r["method"]][r["series_id"]] = DetectionResult(
                r["method"], Params(), r["change_points"], r["steady_index"])
    return [{**rollup(b, by_method[sp.name], onset=sp.produces == "onset"), "method": sp.name}
            for b in group(dataset_series) for sp in specs]


def format_rollup(rows: list[dict[str, Any]], fmt: str) -> str:
    """The roll-up rows as ``text`` (a table), ``csv`` or ``json``."""
    if fmt == "json":
        return json.dumps([{k: r[k] for k in ROLLUP_COLUMNS} for r in rows], indent=1) + "\n"

    def cell(k: str, v: Any) -> str:
        if v is None:
            return "" if fmt == "csv" else "-"
        if k == "change_points":
            return ";".join("" if c is None else str(c) for c in v)
        return f"{v:g}" if isinstance(v, float) else str(v)

    table = [[cell(k, r[k]) for k in ROLLUP_COLUMNS] for r in rows]
    if fmt == "csv":
        buf = io.StringIO()
        w = safecsv.dict_writer(buf, fieldnames=ROLLUP_COLUMNS, lineterminator="\n")
        w.writeheader()
        w.writerows(dict(zip(ROLLUP_COLUMNS, t)) for t in table)
        return buf.getvalue()
    head = [c.replace("change_points", "change points per execution") for c in ROLLUP_COLUMNS]
    widths = [max(len(x) for x in col) for col in zip(head, *table)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
                     for r in [head, *table]) + "\n"

