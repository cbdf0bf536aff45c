"""Reading the evaluation inputs: ground-truth tables and ``segview detect`` prediction CSVs.

Truth CSV columns: ``series_id,steady,reference_index,clustered`` (``reference_index`` blank or -1
when unsteady). A segview/JMH ``labels.csv`` (``steady, jagt_index, jagt_clustered``) is accepted too.
Prediction CSV columns: ``series_id,method,steady_index,change_points,runtime_ms``; ``steady_index``
-1 = never steady, blank = not an onset detector; ``change_points`` ``;``-separated. Sentinels become
``None`` here.
"""
from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .. import safecsv
from ..io.readers import read_json
from ..errors import DataFormatError
from .metrics import TruthRow

TRUTH_COLUMNS = ("series_id", "steady", "reference_index", "clustered")
PRED_COLUMNS = ("series_id", "method", "steady_index", "change_points")


@dataclass
class Predictions:
    """Predictions per method: onsets (onset detectors only) and change points (all)."""

    onsets: dict[str, dict[str, int | None]] = field(default_factory=dict)
    change_points: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)

    @property
    def onset_methods(self) -> list[str]:
        return [m for m in self.order if m in self.onsets]


def _rows(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            reader = safecsv.DictReader(fh)
            rows = list(reader)
            return list(reader.fieldnames or []), rows
    except OSError as err:
        raise DataFormatError(str(path), f"cannot be read ({err})") from err
    except csv.Error as err:
        raise DataFormatError(str(path), f"is not a valid CSV ({err})") from err


def _int_or_none(cell: str | None, path: Path, where: str) -> int | None:
    text = (cell or "").strip()
    if text in ("", "-1", "None", "none"):
        return None
    try:
        value = float(text)
    except ValueError:
        raise DataFormatError(str(path), f"{text!r} is not an index", where) from None
    if value != int(value) or value < -1:
        raise DataFormatError(str(path), f"{text!r} is not an index", where)
    return int(value)


def _flag(cell: str | None, path: Path, where: str) -> bool | None:
    text = (cell or "").strip().lower()
    if text == "":
        return None
    if text in ("1", "true", "yes"):
        return True
    if text in ("0", "false", "no"):
        return False
    raise DataFormatError(str(path), f"{cell!r} is not 0/1", where)


def read_truth(path: str | Path) -> dict[str, TruthRow]:
    """Read a ground-truth table (truth CSV or labels.csv) keyed by series id."""
    path = Path(path)
    cols, rows = _rows(path)
    if not rows:
        raise DataFormatError(str(path), "no rows")
    if "reference_index" in cols:
        ref_col, cl_col = "reference_index", "clustered"
    elif "jagt_index" in cols:
        ref_col, cl_col = "jagt_index", "jagt_clustered"
    else:
        raise DataFormatError(str(path), "needs columns " + ",".join(TRUTH_COLUMNS))
    for c in ("series_id", "steady"):
        if c not in cols:
            raise DataFormatError(str(path), f"missing column {c!r}")
    out: dict[str, TruthRow] = {}
    for line, row in enumerate(rows, start=2):
        where = f"line {line}"
        sid = (row.get("series_id") or "").strip()
        if not sid:
            raise DataFormatError(str(path), "empty series_id", where)
        if sid in out:
            raise DataFormatError(str(path), f"duplicate series_id {sid!r}", where)
        steady = _flag(row.get("steady"), path, f"{where}, column 'steady'")
        if steady is None:
            raise DataFormatError(str(path), "blank 'steady'", where)
        ref = _int_or_none(row.get(ref_col), path, f"{where}, column {ref_col!r}")
        if steady and ref is None:
            raise DataFormatError(str(path), f"steady series {sid} has no {ref_col}", where)
        clustered = _flag(row.get(cl_col), path, f"{where}, column {cl_col!r}")
        out[sid] = TruthRow(sid, steady, ref if steady else None, clustered if steady else None)
    return out


def read_predictions(paths: Iterable[str | Path], into: Predictions | None = None) -> Predictions:
    """Read ``segview detect`` CSVs; several methods may share a file, a method may span files."""
    pred = into or Predictions()
    for p in paths:
        path = Path(p)
        cols, rows = _rows(path)
        for c in ("series_id", "method", "steady_index"):
            if c not in cols:
                raise DataFormatError(str(path), f"missing column {c!r} (expected "
                                                 + ",".join(PRED_COLUMNS) + ")")
        for line, row in enumerate(rows, start=2):
            where = f"line {line}"
            sid = (row.get("series_id") or "").strip()
            method = (row.get("method") or "").strip()
            if not sid or not method:
                raise DataFormatError(str(path), "empty series_id or method", where)
            if method not in pred.order:
                pred.order.append(method)
            cell = (row.get("steady_index") or "").strip()
            if cell != "":
                onsets = pred.onsets.setdefault(method, {})
                if sid in onsets:
                    raise DataFormatError(str(path), f"second row for {sid}, {method}", where)
                onsets[sid] = _int_or_none(cell, path, f"{where}, column 'steady_index'")
            cps = [c for c in (row.get("change_points") or "").split(";") if c.strip()]
            try:
                pred.change_points.setdefault(method, {})[sid] = [int(c) for c in cps]
            except ValueError:
                raise DataFormatError(str(path), f"bad change_points {row.get('change_points')!r}",
                                      where) from None
    return pred


def read_cp_truth(path: str | Path) -> dict[str, dict[str, list[int]]]:
    """Multi-annotator change-point truth as JSON ``{series_id: {annotator: [cp, ...]}}`` (the layout
    of TCPD's ``annotations.json``); an empty list means "looked, no change"."""
    path = Path(path)
    data = read_json(path)  # a series id or annotator given twice is an error, not "last wins"
    if not isinstance(data, dict):
        raise DataFormatError(str(path), "expected an object {series_id: {annotator: [...]}}")
    out: dict[str, dict[str, list[int]]] = {}
    for sid, ann in data.items():
        if not isinstance(ann, dict) or not all(isinstance(v, list) for v in ann.values()):
            raise DataFormatError(str(path), "expected {annotator: [cp, ...]}", f"series {sid}")
        try:
            out[str(sid)] = {str(k): [int(c) for c in v] for k, v in ann.items()}
        except (TypeError, ValueError):
            raise DataFormatError(str(path), "change points must be integers",
                                  f"series {sid}") from None
    return out
