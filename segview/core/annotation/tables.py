"""CSV tables of the annotation workflow: judgments in, ground truth out.

Judgments CSV: columns ``series_id,judge,steady,index`` (more columns are allowed and ignored here,
except ``change_points``: indices separated by spaces or semicolons, and ``role``: ``judge`` (default)
or ``adjudicator``, whose rows are the adjudicator's decisions), one row per judge and series.
``steady`` is ``1``/``0`` (also ``true``/``false``, ``yes``/``no``); ``index`` is the onset, a whole
number >= 0, and must be empty when ``steady`` is 0. Judges are ordered by first appearance.

Ground-truth CSV: ``series_id,steady,reference_index,clustered,method,votes_steady,votes_total,
disputed,cluster_size,agreeing_judges,rule,eps,min_samples``; ``reference_index`` and ``clustered``
are empty for unsteady series, ``steady`` is empty for a disputed (tied) series.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import safecsv
from ..atomic import atomic_open
from ..errors import DataFormatError
from .aggregate import GroundTruth

JUDGMENT_COLUMNS = ("series_id", "judge", "steady", "index")
GT_COLUMNS = ("series_id", "steady", "reference_index", "clustered", "method", "votes_steady",
              "votes_total", "disputed", "cluster_size", "agreeing_judges", "rule", "eps",
              "min_samples")
_TRUE = {"1", "true", "yes", "y", "steady"}
_FALSE = {"0", "false", "no", "n", "unsteady"}
MAX_REPORTED = 10


@dataclass(frozen=True)
class JudgmentRow:
    """One parsed row of a judgments table (``line`` is the 1-based file line)."""

    series_id: str
    judge: str
    steady: bool
    index: int | None
    change_points: tuple[int, ...] | None
    line: int
    role: str = "judge"


def _parse_cps(cell: str) -> tuple[int, ...]:
    parts = cell.replace(";", " ").replace(",", " ").split()
    return tuple(int(p) for p in parts)


def _parse_row(row: dict[str, str], line: int) -> tuple[JudgmentRow | None, str | None]:
    sid = (row.get("series_id") or "").strip()
    judge = (row.get("judge") or "").strip()
    steady_cell = (row.get("steady") or "").strip().lower()
    idx_cell = (row.get("index") or "").strip()
    if not sid:
        return None, "empty series_id"
    if not judge:
        return None, "empty judge"
    if steady_cell in _TRUE:
        steady = True
    elif steady_cell in _FALSE:
        steady = False
    else:
        return None, f"steady {steady_cell!r} is not 1/0"
    index = None
    if idx_cell:
        try:
            index = int(idx_cell)
        except ValueError:
            return None, f"index {idx_cell!r} is not a whole number"
        if index < 0:
            return None, f"index {index} is negative (leave it empty for 'no onset')"
        if not steady:
            return None, f"index {index} given although steady is 0"
    cps = None
    cp_cell = (row.get("change_points") or "").strip() if "change_points" in row else None
    if cp_cell is not None:
        try:
            cps = _parse_cps(cp_cell)
        except ValueError:
            return None, f"change_points {cp_cell!r} are not whole numbers"
    role = (row.get("role") or "").strip().lower() or "judge"
    if role not in ("judge", "adjudicator"):
        return None, f"role {role!r} is not judge or adjudicator"
    return JudgmentRow(sid, judge, steady, index, cps, line, role), None


def read_judgments_csv(path: str | Path) -> list[JudgmentRow]:
    """Read and validate a judgments table.

    Raises:
        DataFormatError: missing columns, or malformed rows; the message lists the offending lines
            (up to ten, then a count) with the reason for each.
    """
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = safecsv.DictReader(fh)
            header = [h.strip() for h in (reader.fieldnames or [])]
            reader.fieldnames = header
            raw = list(reader)
    except (OSError, UnicodeDecodeError) as err:
        raise DataFormatError(str(path), f"cannot be read ({err})") from err
    missing = [c for c in JUDGMENT_COLUMNS if c not in header]
    if missing:
        raise DataFormatError(str(path), f"missing column(s) {', '.join(missing)}; a judgments "
                                         f"table has columns {','.join(JUDGMENT_COLUMNS)}")
    rows: list[JudgmentRow] = []
    problems: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    for line, row in enumerate(raw, start=2):
        if None in row:
            problems.append(f"line {line}: more cells than columns")
            continue
        if not any((v or "").strip() for v in row.values()):
            continue
        parsed, why = _parse_row(row, line)
        if parsed is None:
            problems.append(f"line {line}: {why}")
            continue
        key = (parsed.series_id, parsed.judge)
        if key in seen:
            problems.append(f"line {line}: judge {parsed.judge!r} already labelled series "
                            f"{parsed.series_id!r} on line {seen[key]}")
            continue
        seen[key] = line
        rows.append(parsed)
    if problems:
        more = len(problems) - MAX_REPORTED
        text = "; ".join(problems[:MAX_REPORTED]) + (f"; and {more} more" if more > 0 else "")
        raise DataFormatError(str(path), f"{len(problems)} malformed row(s): {text}")
    if not rows:
        raise DataFormatError(str(path), "no judgments below the header")
    return rows


def write_judgments_csv(path: str | Path, rows: Sequence[JudgmentRow | tuple]) -> None:
    """Write ``(series_id, judge, steady, index[, change_points[, role]])`` rows as a judgments
    table; a ``role`` column is written when some row is an adjudicator's."""
    table: list[tuple[Any, ...]] = [
        (r.series_id, r.judge, r.steady, r.index, r.change_points, r.role)
        if isinstance(r, JudgmentRow) else tuple(r) for r in rows]
    with_cps = any((r[4] if len(r) > 4 else None) is not None for r in table)
    with_role = any(len(r) > 5 and r[5] not in (None, "judge") for r in table)
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        w = safecsv.writer(fh, lineterminator="\n")
        w.writerow([*JUDGMENT_COLUMNS, *(["change_points"] if with_cps else []),
                    *(["role"] if with_role else [])])
        for r in table:
            sid, judge, steady, idx = r[:4]
            cells = [sid, judge, int(bool(steady)), "" if idx is None else int(idx)]
            if with_cps:
                cps = r[4] if len(r) > 4 else None
                cells.append("" if not cps else " ".join(str(int(c)) for c in cps))
            if with_role:
                cells.append(r[5] if len(r) > 5 and r[5] else "judge")
            w.writerow(cells)


def _cell(v: object) -> object:
    if v is None:
        return ""
    if isinstance(v, bool):
        return int(v)
    return v


def ground_truth_rows(results: Sequence[GroundTruth]) -> list[dict[str, object]]:
    """Ground truth as table rows with the GT_COLUMNS (sentinel-free: blanks for None)."""
    out = []
    for gt in results:
        out.append({
            "series_id": gt.series_id, "steady": _cell(gt.steady),
            "reference_index": _cell(gt.reference_index),
            "clustered": _cell(gt.clustered if gt.steady else None),
            "method": gt.method, "votes_steady": gt.votes_steady, "votes_total": gt.votes_total,
            "disputed": int(gt.disputed), "cluster_size": gt.cluster_size,
            "agreeing_judges": " ".join(gt.agreeing_judges), "rule": gt.rule,
            "eps": f"{gt.eps:g}", "min_samples": _cell(gt.min_samples),
        })
    return out


def write_ground_truth_csv(path: str | Path, results: Sequence[GroundTruth]) -> None:
    """Write aggregated labels with the GT_COLUMNS."""
    with atomic_open(path, "w", newline="", encoding="utf-8") as fh:
        w = safecsv.dict_writer(fh, fieldnames=list(GT_COLUMNS), lineterminator="\n")
        w.writeheader()
        w.writerows(ground_truth_rows(results))
