"""Turing Change Point Dataset (TCPD) JSON: dataset files and ``annotations.json``.

Dataset file: ``{"name", "longname", "n_obs", "n_dim", "time": {"type", "format", "index", "raw"},
"series": [{"label", "type", "raw": [...]}, ...]}``. One :class:`Series` per file, with id ``name`` (so
annotations keyed by the dataset name match); a dataset with several entries in ``series`` (``n_dim >
1``, e.g. ``run_log``) is one multivariate Series whose dimensions are named by the labels.
``time.raw`` goes into the metadata as ``time`` (not x: TCPD times are often date strings), with
``time_format``; the explorer labels its x axis with them.

Missing values (``null``) are an error naming the place, unless the caller picks a gap-filling rule
by name (``fill_missing``, see :data:`FILL_RULES`); filled indices are listed in the metadata
(``filled``) and in a note of the loader.

Annotations file: ``{dataset name: {annotator id: [change point, ...]}}``. TCPD marks a change at
the index of the first observation of the new segment, the same convention as segview's change
points; an empty list means the annotator looked and saw no change (kept distinct from a missing
annotator). Index 0 (which TCPD's metrics add to every list anyway) is kept only by
:func:`read_annotations` with ``keep_zero=True``.
"""
from __future__ import annotations

import json
import logging
import math
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataFormatError, MissingValuesError, ParameterError
from ..model import Series
from .readers import NotSeriesFile, json_object, read_json

log = logging.getLogger(__name__)

REQUIRED = ("name", "n_obs", "series")
#: Named gap-filling rules for missing values: ``linear`` interpolates between the neighbours
#: (a gap at an end takes the nearest value), ``previous`` carries the last value forward (a gap at
#: the start takes the first value).
FILL_RULES = ("linear", "previous")


def sniff(head: str) -> bool:
    text = head.lstrip()
    return text.startswith("{") and ('"n_obs"' in text or '"series"' in text)


def _values(raw: Any, path: Path, where: str, n_obs: int, fill: str | None
            ) -> tuple[list[float], list[int]]:
    if not isinstance(raw, list) or not raw:
        raise DataFormatError(str(path), "'raw' must be a non-empty list of numbers", where)
    if len(raw) != n_obs:
        raise DataFormatError(str(path), f"{len(raw)} values but n_obs is {n_obs}", where)
    out = []
    gaps = []
    for i, v in enumerate(raw):
        if v is None:
            if fill is None:
                raise MissingValuesError(str(path), f"{where}, index {i}", FILL_RULES)
            gaps.append(i)
            out.append(math.nan)
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise DataFormatError(str(path), f"value {v!r} is not a finite number",
                                  f"{where}, index {i}")
        out.append(float(v))
    if gaps:
        if len(gaps) == len(out):
            raise DataFormatError(str(path), "every value is missing", where)
        out = fill_gaps(out, fill)
    return out, gaps


def fill_gaps(values: list[float], rule: str | None) -> list[float]:
    """Replace NaN entries by the named rule of :data:`FILL_RULES`."""
    if rule not in FILL_RULES:
        raise ParameterError("fill_missing", f"unknown gap-filling rule {rule!r} (known: "
                                             f"{', '.join(FILL_RULES)})")
    arr = np.asarray(values, dtype=np.float64)
    ok = np.flatnonzero(np.isfinite(arr))
    idx = np.arange(arr.size)
    if rule == "linear":
        return np.interp(idx, ok, arr[ok]).tolist()
    pos = np.maximum.accumulate(np.where(np.isfinite(arr), idx, -1))
    pos = np.where(pos < 0, ok[0], pos)
    return arr[pos].tolist()


def read(path: Path, fill_missing: str | None = None) -> list[Series]:
    """Read a TCPD dataset file (one Series); raises DataFormatError naming the file and the place.

    Args:
        fill_missing: None (a missing value is an error) or a rule of :data:`FILL_RULES`.
    """
    path = Path(path)
    if fill_missing is not None and fill_missing not in FILL_RULES:
        raise ParameterError("fill_missing", f"unknown gap-filling rule {fill_missing!r} (known: "
                                             f"{', '.join(FILL_RULES)})")
    data = read_json(path)
    if not isinstance(data, dict):
        raise DataFormatError(str(path), "a TCPD dataset file holds a JSON object")
    missing = [k for k in REQUIRED if k not in data]
    if len(missing) == len(REQUIRED):
        raise NotSeriesFile(str(path), "a JSON object that is not a TCPD dataset (no name, "
                                       "n_obs, series)")
    if missing:
        raise DataFormatError(str(path), f"not a TCPD dataset file: missing {', '.join(missing)}")
    n_obs = data["n_obs"]
    if isinstance(n_obs, bool) or not isinstance(n_obs, int) or n_obs < 1:
        raise DataFormatError(str(path), f"n_obs {n_obs!r} is not a positive whole number")
    entries = data["series"]
    if not isinstance(entries, list) or not entries:
        raise DataFormatError(str(path), "'series' must be a non-empty list")
    n_dim = data.get("n_dim", len(entries))
    if n_dim != len(entries):
        raise DataFormatError(str(path), f"n_dim is {n_dim} but {len(entries)} series are given")
    name = str(data["name"])
    time = json_object(data, "time")
    index = time.get("index")
    if index is not None and (not isinstance(index, list) or len(index) != n_obs):
        count = f"{len(index)} entries" if isinstance(index, list) else f"a {type(index).__name__}"
        raise DataFormatError(str(path), f"time.index has {count} but n_obs is {n_obs}", "time")
    columns = []
    labels = []
    filled: dict[str, list[int]] = {}
    for k, entry in enumerate(entries):
        if not isinstance(entry, dict) or "raw" not in entry:
            raise DataFormatError(str(path), "series entry without 'raw'", f"series {k}")
        label = str(entry.get("label", f"V{k + 1}"))
        if label in labels:
            raise DataFormatError(str(path), f"label {label!r} repeats", f"series {k}")
        vals, gaps = _values(entry["raw"], path, f"series {k} ({label!r})", n_obs, fill_missing)
        if gaps:
            filled[label] = gaps
        columns.append(vals)
        labels.append(label)
    meta: dict[str, Any] = {"source": str(path), "format": "tcpd", "tcpd_name": name,
                            "longname": data.get("longname", name)}
    if len(labels) == 1:
        meta["label"] = labels[0]
    if time.get("raw") is not None:
        if not isinstance(time["raw"], list) or len(time["raw"]) != n_obs:
            raise DataFormatError(str(path), f"time.raw must be a list of {n_obs} entries", "time")
        meta["time"] = list(time["raw"])
        meta["time_format"] = time.get("format")
    if filled:
        meta["filled"] = {"rule": fill_missing, "indices": filled}
        log.info("%s: filled %d missing value(s) by rule %r", path,
                 sum(map(len, filled.values())), fill_missing)
    if len(columns) == 1:
        return [Series(columns[0], id=name, metadata=meta)]
    return [Series(np.column_stack(columns), id=name, metadata=meta, dims=labels)]


def dataset_dict(series: Series, name: str | None = None) -> dict[str, Any]:
    """A TCPD dataset object for ``series`` (x values become ``time.raw``; the dimensions of a
    multivariate series become the entries of ``series``)."""
    n = len(series)
    time: dict[str, Any] = {"index": list(range(n))}
    if series.x is not None:
        time.update(type="float", raw=[float(v) for v in series.x])
    labels = series.dims or (str(series.metadata.get("label", "V1")),)
    cols = [series.values] if not series.dims else [series.values[:, k] for k in range(len(labels))]
    return {"name": name or series.id, "longname": str(series.metadata.get("longname", series.id)),
            "n_obs": n, "n_dim": len(labels), "time": time,
            "series": [{"label": lab, "type": "float", "raw": [float(v) for v in col]}
                       for lab, col in zip(labels, cols)]}


def read_annotations(path: str | Path, *, keep_zero: bool = False
                     ) -> dict[str, dict[str, list[int]]]:
    """Read ``annotations.json`` -> ``{dataset: {annotator: sorted change points}}``.

    Raises:
        DataFormatError: not an object of objects of lists of whole numbers (the key is named).
    """
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise DataFormatError(str(path), "annotations must be an object keyed by dataset name")
    out: dict[str, dict[str, list[int]]] = {}
    for name, per in data.items():
        if not isinstance(per, dict):
            raise DataFormatError(str(path), "expected an object keyed by annotator", f"{name!r}")
        out[name] = {}
        for annotator, cps in per.items():
            where = f"{name!r}, annotator {annotator!r}"
            if not isinstance(cps, list) or any(isinstance(c, bool) or not isinstance(c, int)
                                                or c < 0 for c in cps):
                raise DataFormatError(str(path), "expected a list of whole numbers >= 0", where)
            out[name][str(annotator)] = sorted({c for c in cps if keep_zero or c > 0})
    return out


def write_annotations(path: str | Path, annotations: dict[str, dict[str, list[int]]]) -> None:
    """Write ``{dataset: {annotator: [change points]}}`` as TCPD's ``annotations.json``."""
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({k: {a: [int(c) for c in v] for a, v in per.items()}
                   for k, per in annotations.items()}, fh, indent=1, sort_keys=False)
