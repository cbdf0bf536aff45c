"""Export folders (what :func:`segview.core.export.export_session` writes), read as a dataset.


An export folder holds:

* the series: ``series.csv`` / ``series.parquet`` (long table ``series_id,index,value[,x]``),
  ``series.json`` (``[{"series_id", "values", "x"}]``) or, for TCPD, one dataset file per series
  under ``datasets/<name>/<name>.json``; series with x values go to ``series_x.*``;
* ``labels.*``: one row per series in the layout of ``shared/data/jmh/labels.csv`` (``series_id,
  source, steady, judge_<name>..., jagt_index, jagt_clustered``) plus ``method, votes_steady,
  votes_total, disputed, rule``; for the change-point protocol ``change_points`` (consensus) and the
  judges' lists;
* ``judgments.*``: every judge's (and adjudicator's) current label, one row per judge and series:
  ``series_id, judge, role, steady, index, change_points, confidence, note, repeat, created_at``
  (``repeat`` = 1 for a judge's hidden calibration repeat);
* TCPD only: ``annotations.json`` (``{series: {annotator: [change points]}}``; an empty list =
  looked, no change; for the steady-state protocol the onset is the one change point);
* ``metadata.json``: the **manifest** (``"manifest": "segview labeled dataset"``, by which
  ``segview.load``, the GUI, ``session import`` and ``evaluate`` recognise an export folder): session,
  protocol, aggregation rule and parameters, judges (with their order seeds and assignments), segview
  version, each series' content hash, dimensions and file, and SHA-256 of every file written.

Multivariate series (``dims``) go to their own long tables ``series_mv<k>[_x].*`` with one column per
dimension (``series_id,index,<dim>...[,x]``), which ``segview.load`` reads as multivariate series; in
JSON ``values`` is then a list of rows. Sources are stored relative to the common folder of the
session's data files (never to the exporter's working directory). CSV files end lines with LF.

Change points are written as space-separated indices in CSV, JSON and Parquet tables.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import safecsv
from ..errors import DataFormatError, SegviewError
from ..model import Series
from . import tcpd_json
from .manifest import confine, read_manifest, validate_manifest

FORMATS = ("csv", "json", "parquet", "tcpd")
EXPORT_VERSION = 1
MANIFEST = "segview labeled dataset"
MANIFEST_FILE = "metadata.json"
JUDGMENT_FIELDS = ("series_id", "judge", "role", "steady", "index", "change_points", "confidence",
                   "note", "repeat", "created_at")


@dataclass
class ExportedDataset:
    """What :func:`read_export` returns."""

    folder: Path
    metadata: dict[str, Any]
    series: list[Series]
    labels: list[dict[str, Any]]
    judgments: list[dict[str, Any]] = field(default_factory=list)

    @property
    def protocol(self) -> str:
        return str(self.metadata["session"]["protocol"])

    def label_rows(self) -> dict[str, Any]:
        """The aggregated steady-state labels as :class:`~segview.core.io.labels_csv.LabelRow`
        (what the explorer shows); empty for the change-point protocol."""
        from .labels_csv import LabelRow

        if self.protocol != "steady_state":
            return {}
        out = {}
        for r in self.labels:
            judges = {k[len("judge_"):]: _int_or_none(v) for k, v in r.items()
                      if k.startswith("judge_")}
            steady = r.get("steady")
            out[str(r["series_id"])] = LabelRow(
                series_id=str(r["series_id"]),
                steady=None if steady is None else str(steady).lower() in ("1", "true"),
                judges=judges, jagt_index=_int_or_none(r.get("jagt_index")),
                jagt_clustered=(None if r.get("jagt_clustered") is None
                                else str(r["jagt_clustered"]).lower() in ("1", "true")),
                source=str(r.get("source") or ""))
        return out

    def annotations(self) -> dict[str, dict[str, list[int]]]:
        """Change-point protocol: each judge's change points per series (adjudicators and
        calibration repeats left out); empty for the steady-state protocol."""
        if self.protocol != "change_points":
            return {}
        out: dict[str, dict[str, list[int]]] = {}
        for r in self.judgments:
            if r["role"] == "judge" and not r["repeat"]:
                out.setdefault(r["series_id"], {})[r["judge"]] = list(r["change_points"] or ())
        return out


def _int_or_none(v: Any) -> int | None:
    if v is None or (isinstance(v, float) and np.isnan(v)) or str(v).strip() == "":
        return None
    return int(float(v))


def is_export_folder(folder: str | Path) -> bool:
    """True when ``folder`` holds a segview export manifest (``metadata.json`` naming itself
    ``"segview labeled dataset"``; exports of version 1 before the name carry ``export_version`` and
    ``file_hashes``)."""
    path = Path(folder) / MANIFEST_FILE
    if not path.is_file():
        return False
    try:
        path = confine(Path(folder), MANIFEST_FILE, path, MANIFEST_FILE)
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError, DataFormatError):
        return False
    return isinstance(meta, dict) and (meta.get("manifest") == MANIFEST or (
        "export_version" in meta and "file_hashes" in meta and "items" in meta))


def _cps_parse(cell: Any) -> tuple[int, ...] | None:
    if cell is None:
        return None
    return tuple(int(p) for p in str(cell).split())


def _read_table(path: Path) -> list[dict[str, Any]]:
    fmt = path.suffix.lstrip(".")
    try:
        if fmt == "csv":
            with open(path, newline="", encoding="utf-8-sig") as fh:
                return [{k: (None if v == "" else v) for k, v in r.items()}
                        for r in safecsv.DictReader(fh)]
        if fmt == "json":
            data = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(data, list):
                raise DataFormatError(str(path), "expected a list of rows")
            return data
        import pyarrow.parquet as pq
        return pq.read_table(path).to_pylist()
    except (OSError, ValueError) as err:
        raise DataFormatError(str(path), f"cannot be read ({err})") from err


def _typed_judgment(r: dict[str, Any], path: Path, row: int) -> dict[str, Any]:
    """Cells of a judgments row (str in CSV) -> python values."""
    def conv(key: str, f: Any) -> Any:
        v = r.get(key)
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return None
        try:
            return f(v)
        except (TypeError, ValueError):
            raise DataFormatError(str(path), f"{key} {v!r} is malformed", f"row {row}") from None

    def boolean(v: Any) -> bool:
        if isinstance(v, bool):
            return v
        if str(v).strip().lower() in ("1", "true"):
            return True
        if str(v).strip().lower() in ("0", "false"):
            return False
        raise ValueError(v)

    return {"series_id": str(r["series_id"]), "judge": str(r["judge"]),
            "role": str(r.get("role") or "judge"), "steady": conv("steady", boolean),
            "index": conv("index", int), "change_points": conv("change_points", _cps_parse),
            "confidence": conv("confidence", float), "note": conv("note", str),
            "repeat": conv("repeat", int) or 0,
            "created_at": conv("created_at", float)}


def _read_long(path: Path) -> Any:
    import pandas as pd
    try:
        if path.suffix == ".parquet":
            return pd.read_parquet(path)
        # exact float parsing: the default from pandas 3 on, an option before (deprecated since)
        exact = {"float_precision": "round_trip"} if pd.__version__.split(".")[0] < "3" else {}
        frame = pd.read_csv(path, dtype={"series_id": str}, keep_default_na=False, **exact)
        frame["series_id"] = frame["series_id"].map(safecsv.unescape_cell)
        return frame
    except (OSError, ValueError) as err:
        raise DataFormatError(str(path), f"cannot be read ({err})") from err


def _read_series(folder: Path, fmt: str, paths: dict[str, Path],
                 dims: dict[str, list[str]] | None = None) -> list[Series]:
    """The series of an export; ``paths`` are the items' files, already confined to ``folder``
    (:func:`.manifest.confine`)."""
    dims = dims or {}
    if fmt == "tcpd":
        out = []
        for sid, path in paths.items():
            (s,) = tcpd_json.read(path)
            x = s.metadata.get("time")
            out.append(Series(s.values, x if x is not None and all(
                isinstance(v, (int, float)) for v in x) else None, sid,
                {"source": path.name},  # replaced by the manifest's source
                dims=s.dims or None))
        return out
    if fmt == "json":
        path = confine(folder, "series.json", folder / MANIFEST_FILE, "series.json")
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, list):
            raise DataFormatError(str(path), "expected a list of series")
        return [Series(d["values"], d.get("x"), d["series_id"], dims=d.get("dims"))
                for d in (_row_of(d, path, k, ("series_id", "values"))
                          for k, d in enumerate(data, start=1))]
    groups = {}
    for path in dict.fromkeys(paths.values()):
        table = _read_long(path)
        if "series_id" not in table or "index" not in table:
            raise DataFormatError(str(path), "expected the columns series_id and index")
        groups.update({str(k): g.sort_values("index") for k, g in table.groupby("series_id",
                                                                                sort=False)})
    out = []
    for sid in paths:
        g = groups.get(sid)
        if g is None or not np.array_equal(g["index"].to_numpy(), np.arange(len(g))):
            raise DataFormatError(str(paths[sid]), f"series {sid!r}: indices are not 0..n-1")
        x = g["x"].to_numpy(dtype=np.float64) if "x" in g else None
        names = dims.get(sid)
        vals = g[names if names else "value"].to_numpy(dtype=np.float64)
        out.append(Series(vals, x, sid, dims=names))
    return out


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_export(folder: str | Path, *, verify: bool = True) -> ExportedDataset:
    """Read an export folder back (series, labels, judgments, metadata).

    The manifest is checked against its schema first (:mod:`.manifest`), and every file it names
    must lie inside ``folder``: a crafted manifest can neither read nor probe files elsewhere.

    Raises:
        DataFormatError: a malformed manifest (named with the place inside it), a file outside the
            folder, missing or altered files (SHA-256 or content hash mismatch), malformed tables.
    """
    folder = Path(folder)
    meta_path = folder / MANIFEST_FILE
    if not meta_path.is_file():
        raise DataFormatError(str(folder), "no metadata.json; not a segview export folder")
    meta_path = confine(folder, MANIFEST_FILE, meta_path, MANIFEST_FILE)
    meta = read_manifest(meta_path)
    if meta.get("manifest", MANIFEST) != MANIFEST:
        raise DataFormatError(str(meta_path), f"not a segview export manifest "
                                              f"({str(meta['manifest'])[:80]!r})", "manifest")
    validate_manifest(meta, meta_path, FORMATS)
    fmt = meta["format"]
    if verify:
        for name, digest in (meta.get("file_hashes") or {}).items():
            path = confine(folder, name, meta_path, f"file_hashes[{name!r}]")
            if not path.is_file():
                raise DataFormatError(str(folder / name), "listed in metadata.json but missing")
            if sha256_file(path) != digest:
                raise DataFormatError(str(folder / name), "changed since export (SHA-256 differs)")
    items = meta["items"]
    files = {it["series_id"]: it["file"] for it in items}
    paths = {sid: confine(folder, rel, meta_path, f"items[{k}].file")
             for k, (sid, rel) in enumerate(files.items())}
    tab = "json" if fmt == "tcpd" else fmt
    try:
        series = _read_series(folder, fmt, paths, {it["series_id"]: it["dims"] for it in items
                                                   if it.get("dims")})
        hashes = {it["series_id"]: it["content_hash"] for it in items}
        sources = {it["series_id"]: it.get("source") or "" for it in items}
        series = [Series(s.values, s.x, s.id, {**s.metadata, "source": sources.get(s.id, ""),
                                               "export_file": files.get(s.id, "")},
                         dims=s.dims or None) for s in series]
        bad = [s.id for s in series if hashes.get(s.id) != s.content_hash]
        if bad:
            raise DataFormatError(str(folder), f"series data do not match their content hash: "
                                               f"{', '.join(bad[:5])}")
        jpath = confine(folder, f"judgments.{tab}", meta_path, "judgments")
        judgments = [_typed_judgment(_row_of(r, jpath, k, ("series_id", "judge")), jpath, k)
                     for k, r in enumerate(_read_table(jpath), start=1)]
        if meta["session"]["protocol"] == "change_points":  # a blank CSV cell is an empty list
            judgments = [{**r, "change_points": r["change_points"] or ()} for r in judgments]
        lpath = confine(folder, f"labels.{tab}", meta_path, "labels")
        labels = [_row_of(r, lpath, k, ("series_id",))
                  for k, r in enumerate(_read_table(lpath), start=1)]
        exp = ExportedDataset(folder, meta, series, labels, judgments)
        exp.label_rows()  # malformed cells are found now, not when the explorer shows them
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as err:
        if isinstance(err, SegviewError):
            raise
        raise DataFormatError(str(folder), f"malformed export ({type(err).__name__}: "
                                           f"{str(err)[:200]})") from err
    return exp


def _row_of(r: Any, path: Path, row: int, needed: tuple[str, ...]) -> dict[str, Any]:
    """A table row as a dict holding the ``needed`` columns (DataFormatError otherwise)."""
    if not isinstance(r, dict):
        raise DataFormatError(str(path), f"expected a row object, got {type(r).__name__}",
                              f"row {row}")
    missing = [c for c in needed if r.get(c) is None]
    if missing:
        raise DataFormatError(str(path), f"no {missing[0]}", f"row {row}")
    return r
