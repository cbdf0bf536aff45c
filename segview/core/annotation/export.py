"""Labeled-dataset export and import (CSV, JSON, Parquet, TCPD JSON).

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
import logging
import os
import re
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..io import safecsv
from ... import __version__
from ..atomic import (atomic_open, atomic_path, fsync_dir, make_temp_dir, output_error,
                      sync_tree, write_text)
from ..errors import DataFormatError, InputError, OutputError, ParameterError, SegviewError
from ..io import tcpd_json
from ..model import Series
from .manifest import confine, read_manifest, validate_manifest
from .session import AnnotationSession
from .tables import ground_truth_rows

log = logging.getLogger(__name__)

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
        from ..io.labels_csv import LabelRow

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


def _cps_text(cps: Sequence[int] | None) -> str | None:
    return None if cps is None else " ".join(str(int(c)) for c in cps)


def _cps_parse(cell: Any) -> tuple[int, ...] | None:
    if cell is None:
        return None
    return tuple(int(p) for p in str(cell).split())


def safe_name(series_id: str, taken: set[str]) -> str:
    """A file name for a series id (unsafe characters replaced; made unique with a hash)."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "_", series_id).strip("._") or "series"
    if len(base) > 100:  # file names are limited to 255 bytes; the id itself is kept in the data
        base = f"{base[:100]}-{hashlib.sha256(series_id.encode()).hexdigest()[:8]}"
    name = base
    if name in taken:
        name = f"{base}-{hashlib.sha256(series_id.encode()).hexdigest()[:8]}"
    taken.add(name)
    return name


# ----- tables ---------------------------------------------------------------------------------
def judgments_table(session: AnnotationSession) -> list[dict[str, Any]]:
    """Every judge's current label as rows with JUDGMENT_FIELDS (session item order);
    ``change_points`` is a tuple (change-point protocol) or None."""
    order = {it.series_id: k for k, it in enumerate(session.items())}
    rows = []
    for j in session.judges():
        for repeat in (0, 1):
            for sid, lab in session.labels(j, repeat=bool(repeat)).items():
                rows.append({"series_id": sid, "judge": j.name, "role": j.role,
                             "steady": lab.steady, "index": lab.onset,
                             "change_points": lab.change_points, "confidence": lab.confidence,
                             "note": lab.note, "repeat": repeat, "created_at": lab.created_at})
    rows.sort(key=lambda r: (order[r["series_id"]], r["repeat"]))
    return rows


def labels_table(session: AnnotationSession) -> list[dict[str, Any]]:
    """One row per series with the judges' onsets (or lists) and the aggregated label."""
    judges = [j.name for j in session.judges("judge")]
    per = session.all_labels()
    rows = []
    if session.protocol == "change_points":
        consensus = session.consensus_change_points()
        for it in session.items():
            labs = per.get(it.series_id, {})
            row = {"series_id": it.series_id, "source": it.source,
                   "change_points": _cps_text(consensus.get(it.series_id)) if labs else None}
            row.update({f"judge_{j}": _cps_text(labs[j].change_points) if j in labs else None
                        for j in judges})
            rows.append(row)
        return rows
    gts = {g["series_id"]: g for g in ground_truth_rows(session.aggregate())}
    for it in session.items():
        labs = per.get(it.series_id, {})
        g = gts.get(it.series_id, {})
        row: dict[str, Any] = {"series_id": it.series_id, "source": it.source,
                               "steady": g.get("steady", "")}
        row.update({f"judge_{j}": labs[j].onset if j in labs else None for j in judges})
        row.update({"jagt_index": g.get("reference_index", ""),
                    "jagt_clustered": g.get("clustered", ""), "method": g.get("method", ""),
                    "votes_steady": g.get("votes_steady", ""),
                    "votes_total": g.get("votes_total", ""), "disputed": g.get("disputed", ""),
                    "rule": g.get("rule", "")})
        rows.append({k: (None if v == "" else v) for k, v in row.items()})
    return rows


def _write_table(path: Path, rows: list[dict[str, Any]], columns: Sequence[str]) -> None:
    fmt = path.suffix.lstrip(".")
    if fmt == "csv":
        with atomic_open(path, "w", durable=False, newline="", encoding="utf-8") as fh:
            w = _LFWriter(fh)
            w.writerow(columns)
            for r in rows:
                w.writerow(["" if r.get(c) is None else (int(r[c]) if isinstance(r[c], bool)
                                                         else repr(r[c]) if isinstance(r[c], float)
                                                         else r[c]) for c in columns])
    elif fmt == "json":
        with atomic_open(path, "w", durable=False, encoding="utf-8") as fh:
            json.dump([{c: r.get(c) for c in columns} for r in rows], fh, indent=1)
    elif fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        data = {c: [r.get(c) for r in rows] for c in columns}
        with atomic_path(path, durable=False) as tmp:
            pq.write_table(pa.table({c: pa.array(v) if any(x is not None for x in v)
                                     else pa.array(v, type=pa.string()) for c, v in data.items()}),
                           tmp)
    else:  # pragma: no cover - guarded by FORMATS
        raise ParameterError("format", f"unknown table format {fmt!r}")


class _LFWriter:
    """A CSV writer ending lines with LF that still quotes cells holding a CR (free-text notes):
    ``csv.writer`` quotes only the characters of its own line terminator."""

    def __init__(self, fh: Any) -> None:
        import io

        self.fh = fh
        self.buf = io.StringIO()
        self.w = safecsv.writer(self.buf, lineterminator="\r\n")

    def writerow(self, cells: Sequence[Any]) -> None:
        self.buf.seek(0)
        self.buf.truncate()
        self.w.writerow(cells)
        self.fh.write(self.buf.getvalue()[:-2] + "\n")


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


# ----- series ---------------------------------------------------------------------------------
def _write_series(folder: Path, fmt: str, series: list[Series]) -> dict[str, str]:
    files: dict[str, str] = {}
    if fmt == "tcpd":
        taken: set[str] = set()
        for s in series:
            name = safe_name(s.id, taken)
            path = folder / "datasets" / name / f"{name}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text(path, json.dumps(tcpd_json.dataset_dict(s)), durable=False)
            files[s.id] = str(path.relative_to(folder))
        return files
    if fmt == "json":
        write_text(folder / "series.json", json.dumps(
            [{"series_id": s.id, "values": s.values.tolist(),
              "x": None if s.x is None else s.x.tolist(),
              **({"dims": list(s.dims)} if s.dims else {})} for s in series]), durable=False)
        return dict.fromkeys((s.id for s in series), "series.json")
    files = {}
    groups: dict[tuple[bool, tuple[str, ...]], list[Series]] = {}
    for s in series:
        groups.setdefault((s.x is not None, s.dims), []).append(s)
    dims_seen = list(dict.fromkeys(d for _, d in groups if d))
    for (with_x, dims), group in sorted(groups.items(), key=lambda kv: (
            bool(kv[0][1]), dims_seen.index(kv[0][1]) if kv[0][1] else 0, kv[0][0])):
        # series with x values, and each set of dimensions, apart: each file loads with segview.load
        stem = f"series_mv{dims_seen.index(dims) + 1}" if dims else "series"
        name = f"{stem}{'_x' if with_x else ''}.{fmt}"
        _write_long(folder / name, group, with_x=with_x)
        files.update(dict.fromkeys((s.id for s in group), name))
    return files


def _write_long(path: Path, group: list[Series], with_x: bool) -> None:
    """A long table ``series_id,index,value[,x]`` (``series_id,index,<dim>...[,x]`` for series with
    dimensions), floats written so that they read back exactly."""
    ids = [s.id for s in group for _ in range(len(s))]
    index = np.concatenate([np.arange(len(s)) for s in group])
    names = list(group[0].dims) or ["value"]
    clash = [d for d in names if d in ("series_id", "index", "x")] if group[0].dims else []
    if clash:
        raise InputError(group[0].id, f"dimension name {clash[0]!r} clashes with a column of the "
                                      "long table")
    values = np.concatenate([s.values.reshape(len(s), -1) for s in group])
    xs = np.concatenate([s.xs() for s in group]) if with_x else None
    if path.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq
        cols = {"series_id": pa.array(ids, pa.string()), "index": pa.array(index, pa.int64())}
        cols.update({d: pa.array(values[:, k], pa.float64()) for k, d in enumerate(names)})
        if xs is not None:
            cols["x"] = pa.array(xs, pa.float64())
        with atomic_path(path, durable=False) as tmp:
            pq.write_table(pa.table(cols), tmp)
        return
    with atomic_open(path, "w", durable=False, newline="", encoding="utf-8") as fh:
        w = safecsv.writer(fh, lineterminator="\n")
        w.writerow(["series_id", "index", *names, *(["x"] if xs is not None else [])])
        cells = [ids, index.tolist(), *(map(repr, values[:, k].tolist())
                                        for k in range(len(names)))]
        if xs is not None:
            cells.append(map(repr, xs.tolist()))
        w.writerows(zip(*cells))


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


# ----- export / read / import -----------------------------------------------------------------
def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tcpd_annotations(session: AnnotationSession) -> dict[str, dict[str, list[int]]]:
    """The judges' labels as TCPD annotations (adjudicators left out)."""
    out: dict[str, dict[str, list[int]]] = {}
    for j in session.judges("judge"):
        for sid, lab in session.labels(j).items():
            if session.protocol == "change_points":
                cps = list(lab.change_points or ())
            elif lab.steady and lab.onset is None:
                continue  # "steady, onset not given" has no TCPD form (kept in judgments.json)
            else:
                cps = [lab.onset] if lab.steady else []
            out.setdefault(sid, {})[j.name] = cps
    return out


def _assigned_ids(session: AnnotationSession, judge: Any) -> list[str] | None:
    got = session.assigned(judge)
    return None if got is None else [it.series_id for it in got]


def export_session(session: AnnotationSession, folder: str | Path, fmt: str = "csv", *,
                   series: Sequence[Series] | None = None) -> Path:
    """Write the labeled dataset of ``session`` into ``folder`` (created; must be empty).

    Args:
        fmt: ``csv``, ``json``, ``parquet`` or ``tcpd``.
        series: the data, when the session does not store values.

    Raises:
        ParameterError: unknown format. InputError: the folder is not empty, or given series do not
            match the session's content hashes.
    """
    if fmt not in FORMATS:
        raise ParameterError("format", f"must be one of {', '.join(FORMATS)}, got {fmt!r}")
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise InputError(str(folder), "the export folder is not empty")
    # Written into a hidden folder beside the target (``.NAME.partial-PID-RANDOM``, with the
    # umask's permissions like its files) and renamed into place at the end: a failure (full
    # disk, Ctrl-C, SIGTERM through the CLI) never leaves a half-written export that looks
    # complete, nor the hidden folder; one left by a killed process is swept at the next export.
    try:
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = make_temp_dir(folder)
    except OSError as err:
        raise output_error(folder, err) from err
    try:
        _export_into(session, tmp, fmt, series)
        sync_tree(tmp)  # every file on disk before the folder appears under its name
        if folder.exists():
            folder.rmdir()  # empty (checked above): the rename needs the name free
        os.replace(tmp, folder)
        fsync_dir(folder.parent)
    except BaseException as err:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(err, OutputError):
            raise OutputError(str(folder), err.reason) from err
        if isinstance(err, OSError):
            raise output_error(folder, err) from err
        raise
    log.info("exported session %s to %s (%s)", session.name, folder, fmt)
    return folder


def _export_into(session: AnnotationSession, folder: Path, fmt: str,
                 series: Sequence[Series] | None) -> None:
    if series is None:
        data = [session.series(it.series_id) for it in session.items()]
    else:
        changed = session.check_data(series)
        if changed:
            raise InputError(changed[0], f"data differ from the annotated series "
                                         f"({len(changed)} series: {', '.join(changed[:5])})")
        by_id = {s.id: s for s in series}
        data = [by_id[it.series_id] for it in session.items()]
    tab = "json" if fmt == "tcpd" else fmt
    files = _write_series(folder, fmt, data)
    sources = relative_sources({it.series_id: it.source for it in session.items()})
    labels = [{**r, "source": sources[r["series_id"]]} for r in labels_table(session)]
    _write_table(folder / f"labels.{tab}", labels, list(labels[0]) if labels else ["series_id"])
    _write_table(folder / f"judgments.{tab}",
                 [{**r, "change_points": _cps_text(r["change_points"])}
                  for r in judgments_table(session)], JUDGMENT_FIELDS)
    written = sorted({*files.values(), f"labels.{tab}", f"judgments.{tab}"})
    if fmt == "tcpd":
        with atomic_path(folder / "annotations.json", durable=False) as tmp:
            tcpd_json.write_annotations(tmp, tcpd_annotations(session))
        written.append("annotations.json")
    meta = {
        "manifest": MANIFEST,
        "export_version": EXPORT_VERSION, "segview_version": __version__, "format": fmt,
        "exported_at": time.time(),
        "session": {"name": session.name, "protocol": session.protocol,
                    "created_at": session.created_at, "tool_version": session.tool_version,
                    "settings": session.settings},
        "aggregation": {k: session.settings.get(k) for k in ("rule", "eps", "min_samples", "tie")},
        "judges": [{"name": j.name, "role": j.role, "seed": j.seed,
                    "assigned": _assigned_ids(session, j)} for j in session.judges()],
        "items": [{"series_id": it.series_id, "content_hash": it.content_hash,
                   "n_samples": it.n_samples, "source": sources[it.series_id],
                   "file": files[it.series_id],
                   **({"dims": list(s.dims)} if s.dims else {})}
                  for it, s in zip(session.items(), data)],
        "file_hashes": {f: _sha256(folder / f) for f in written},
    }
    write_text(folder / "metadata.json", json.dumps(meta, indent=1), durable=False)


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
            if _sha256(path) != digest:
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


def relative_sources(sources: dict[str, str]) -> dict[str, str]:
    """Sources relative to the common folder of all data files (``/`` separators), so an export
    does not depend on where its session was created or exported; a series without a source keeps
    an empty one (its id names it)."""
    import os

    given = {k: v for k, v in sources.items() if v}
    if not given:
        return dict(sources)
    paths = {k: os.path.abspath(v) for k, v in given.items()}
    try:
        root = os.path.commonpath([os.path.dirname(p) for p in paths.values()])
    except ValueError:  # different drives
        return {k: Path(v).name for k, v in sources.items()}
    return {k: (Path(os.path.relpath(paths[k], root)).as_posix() if k in paths else "")
            for k in sources}


def _rows_from_annotations(path: Path, protocol: str) -> list[dict[str, Any]]:
    rows = []
    for sid, per in tcpd_json.read_annotations(path, keep_zero=protocol == "steady_state").items():
        for judge, cps in per.items():
            if protocol == "change_points":
                rows.append({"series_id": sid, "judge": judge, "change_points": tuple(cps)})
            elif len(cps) > 1:
                raise DataFormatError(str(path), "a steady-state annotation holds one onset",
                                      f"{sid!r}, annotator {judge!r}")
            else:
                rows.append({"series_id": sid, "judge": judge, "steady": bool(cps),
                             "index": cps[0] if cps else None})
    return rows


def import_judgments(session: AnnotationSession, source: str | Path) -> int:
    """Record the judgments of an export folder, a judgments CSV or a TCPD ``annotations.json``
    into ``session`` (judges are created as needed). Returns the number recorded.

    Raises:
        DataFormatError: unreadable source, or its series do not match the session's data.
        InputError: a series is not part of the session.
    """
    from .tables import read_judgments_csv

    source = Path(source)
    seeds: dict[str, tuple[str, int]] = {}
    assigned: dict[str, list[str]] = {}
    if source.is_dir():
        exp = read_export(source)
        rows = exp.judgments
        judges_meta = exp.metadata.get("judges") or []
        seeds = {j["name"]: (j.get("role") or "judge", j.get("seed")) for j in judges_meta}
        assigned = {j["name"]: j["assigned"] for j in judges_meta
                    if j.get("assigned") is not None}
        mine = {it.series_id: it.content_hash for it in session.items()}
        differ = [i["series_id"] for i in exp.metadata["items"]
                  if i["series_id"] in mine and mine[i["series_id"]] != i["content_hash"]]
        if differ:
            raise DataFormatError(str(source), f"labels belong to different data than session "
                                               f"{session.name!r}: {', '.join(differ[:5])}")
    elif source.name == "annotations.json":
        rows = _rows_from_annotations(source, session.protocol)
    else:
        rows = [{"series_id": r.series_id, "judge": r.judge, "steady": r.steady, "index": r.index,
                 "change_points": r.change_points} for r in read_judgments_csv(source)]
    known = {it.series_id for it in session.items()}
    unknown = sorted({r["series_id"] for r in rows} - known)
    if unknown:
        raise InputError(unknown[0], f"{len(unknown)} series are not in session {session.name!r}"
                                     f" ({', '.join(unknown[:5])})")
    judges = {}
    for name in [*seeds, *(r["judge"] for r in rows)]:  # every judge of an export, even idle
        if name not in judges:
            role, seed = seeds[name] if name in seeds else (
                next(r.get("role") for r in rows if r["judge"] == name) or "judge", None)
            judges[name] = session.judge(name, create=True, role=role, seed=seed)
            if name in assigned and session.assigned(judges[name]) is None:
                session.set_assignment(judges[name], assigned[name])
    return session.record_many([(judges[r["judge"]], r["series_id"], {
        "steady": r.get("steady"), "onset": r.get("index"),
        "change_points": r.get("change_points"), "confidence": r.get("confidence"),
        "note": r.get("note"), "repeat": r.get("repeat"), "created_at": r.get("created_at")})
        for r in rows])
