"""The labels table of ``shared/data/jmh/labels.csv`` and of segview's labeled-dataset export.

Columns: ``series_id, source, steady, judge_*..., jagt_index, jagt_clustered`` and any number of
``<method>_<tag>`` onset columns (``cpssd_published``, ``kbkssd_reference``). Sentinels become
``None`` here and never reach the core: blank judge cells and ``-1`` onsets mean "no onset".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .. import safecsv
from ..errors import DataFormatError

JUDGE_PREFIX = "judge_"
#: Columns that are not onsets: the fixed ones and those segview's export adds.
NOT_ONSETS = ("series_id", "source", "steady", "jagt_index", "jagt_clustered", "method",
              "votes_steady", "votes_total", "disputed", "rule", "change_points")


@dataclass(frozen=True)
class LabelRow:
    """One series' labels; every onset is ``int | None``."""

    series_id: str
    steady: bool | None
    judges: dict[str, int | None] = field(default_factory=dict)
    jagt_index: int | None = None
    jagt_clustered: bool | None = None
    onsets: dict[str, int | None] = field(default_factory=dict)
    source: str = ""


def _onset(cell: str, path: Path, where: str) -> int | None:
    cell = cell.strip()
    if cell == "" or cell == "-1":
        return None
    try:
        v = int(float(cell))
    except ValueError:
        raise DataFormatError(str(path), f"{cell!r} is not an index", where) from None
    if v < -1:
        raise DataFormatError(str(path), f"negative index {v}", where)
    return v


def read_labels(path: str | Path) -> dict[str, LabelRow]:
    """Read a labels table keyed by series id; raises DataFormatError naming line and column."""
    path = Path(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            rows = list(safecsv.DictReader(fh))
    except OSError as err:
        raise DataFormatError(str(path), f"cannot be read ({err})") from err
    if not rows:
        raise DataFormatError(str(path), "no label rows")
    cols = list(rows[0].keys())
    if "series_id" not in cols:
        raise DataFormatError(str(path), "missing column 'series_id'")
    judges = [c for c in cols if c.startswith(JUDGE_PREFIX)]
    onset_cols = [c for c in cols if c not in judges and c not in NOT_ONSETS]
    out: dict[str, LabelRow] = {}
    for line, row in enumerate(rows, start=2):
        sid = (row.get("series_id") or "").strip()
        if not sid:
            raise DataFormatError(str(path), "empty series_id", f"line {line}")
        steady_cell = (row.get("steady") or "").strip()
        steady = None if steady_cell == "" else steady_cell in ("1", "true", "True")
        clustered = (row.get("jagt_clustered") or "").strip()
        out[sid] = LabelRow(
            series_id=sid,
            steady=steady,
            judges={j[len(JUDGE_PREFIX):]: _onset(row[j] or "", path, f"line {line}, column {j!r}")
                    for j in judges},
            jagt_index=_onset(row.get("jagt_index") or "", path, f"line {line}, column 'jagt_index'"),
            jagt_clustered=None if clustered == "" else clustered == "1",
            onsets={c: _onset(row[c] or "", path, f"line {line}, column {c!r}") for c in onset_cols
                    if _looks_like_onsets(rows, c)},
            source=(row.get("source") or "").strip(),
        )
    return out


def _looks_like_onsets(rows: list[dict[str, str]], col: str) -> bool:
    for r in rows:
        v = (r.get(col) or "").strip()
        if v and not v.lstrip("-").isdigit():
            return False
    return True
