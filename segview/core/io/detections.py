"""The detections table written by ``segview detect`` and the explorer's CSV export.

Columns ``series_id,method,steady_index,change_points,runtime_ms``: ``steady_index`` is -1 for
"never steady" (blank for change-point detectors) and ``change_points`` is ``;``-separated. Both
front ends write through here so their files compare line by line.
"""
from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence
from typing import Any

CSV_COLUMNS = ("series_id", "method", "steady_index", "change_points", "runtime_ms")


def detection_row(series_id: str, method: str, produces: str, steady_start: int | None,
                  change_points: Sequence[int] | Iterable[int], runtime_ms: float
                  ) -> dict[str, Any]:
    """One table row; the ``None`` onset becomes -1 (onset detectors) or blank (others)."""
    if steady_start is None:
        steady: int | str = -1 if produces == "onset" else ""
    else:
        steady = int(steady_start)
    return {"series_id": series_id, "method": method, "steady_index": steady,
            "change_points": ";".join(str(int(c)) for c in change_points),
            "runtime_ms": round(float(runtime_ms), 3)}


def format_csv(rows: Iterable[dict[str, Any]]) -> str:
    """The rows as CSV text with a header."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue()
