"""Turing Change Point Dataset (TCPD) JSON: dataset files and ``annotations.json``.

Dataset file: ``{"name", "longname", "n_obs", "n_dim", "time": {"type", "format", "index", "raw"},
"series": [{"label", "type", "raw": [...]}, ...]}``. One :class:`Series` per entry of ``series``;
its id is ``name`` for a one-dimensional dataset and ``name/label`` otherwise. ``time.raw`` goes
into the metadata (not x: TCPD times are often date strings).

Annotations file: ``{dataset name: {annotator id: [change point, ...]}}``. TCPD marks a change at
the index of the first observation of the new segment, the same convention as segview's change
points; an empty list means the annotator looked and saw no change (kept distinct from a missing
annotator). Index 0 (which TCPD's metrics add to every list anyway) is kept only by
:func:`read_annotations` with ``keep_zero=True``.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..errors import DataFormatError
from ..model import Series
from .readers import read_json

REQUIRED = ("name", "n_obs", "series")


def sniff(head: str) -> bool:
    text = head.lstrip()
    return text.startswith("{") and ('"n_obs"' in text or '"series"' in text)


def _values(raw: Any, path: Path, where: str, n_obs: int) -> list[float]:
    if not isinstance(raw, list) or not raw:
        raise DataFormatError(str(path), "'raw' must be a non-empty list of numbers", where)
    if len(raw) != n_obs:
        raise DataFormatError(str(path), f"{len(raw)} values but n_obs is {n_obs}", where)
    out = []
    for i, v in enumerate(raw):
        if v is None:
            raise DataFormatError(str(path), "missing value (null); segview needs complete series",
                                  f"{where}, index {i}")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise DataFormatError(str(path), f"value {v!r} is not a finite number",
                                  f"{where}, index {i}")
        out.append(float(v))
    return out


def read(path: Path) -> list[Series]:
    """Read a TCPD dataset file; raises DataFormatError naming the file and the place."""
    path = Path(path)
    data = read_json(path)
    if not isinstance(data, dict):
        raise DataFormatError(str(path), "a TCPD dataset file holds a JSON object")
    missing = [k for k in REQUIRED if k not in data]
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
    time = data.get("time") if isinstance(data.get("time"), dict) else {}
    out = []
    for k, entry in enumerate(entries):
        if not isinstance(entry, dict) or "raw" not in entry:
            raise DataFormatError(str(path), "series entry without 'raw'", f"series {k}")
        label = str(entry.get("label", f"V{k + 1}"))
        vals = _values(entry["raw"], path, f"series {k} ({label!r})", n_obs)
        sid = name if len(entries) == 1 else f"{name}/{label}"
        meta = {"source": str(path), "format": "tcpd", "tcpd_name": name, "label": label,
                "longname": data.get("longname", name)}
        if time.get("raw") is not None:
            if not isinstance(time["raw"], list) or len(time["raw"]) != n_obs:
                raise DataFormatError(str(path), f"time.raw must be a list of {n_obs} entries", "time")
            meta["time"] = list(time["raw"])
            meta["time_format"] = time.get("format")
        out.append(Series(vals, id=sid, metadata=meta))
    return out


def dataset_dict(series: Series, name: str | None = None) -> dict[str, Any]:
    """A one-dimensional TCPD dataset object for ``series`` (x values become ``time.raw``)."""
    n = len(series)
    time: dict[str, Any] = {"index": list(range(n))}
    if series.x is not None:
        time.update(type="float", raw=[float(v) for v in series.x])
    return {"name": name or series.id, "longname": str(series.metadata.get("longname", series.id)),
            "n_obs": n, "n_dim": 1, "time": time,
            "series": [{"label": "V1", "type": "float",
                        "raw": [float(v) for v in series.values]}]}


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
