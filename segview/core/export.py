"""Labeled-dataset export and import (CSV, JSON, Parquet, TCPD JSON): an annotation session's
series, labels and judgments written to an export folder, and judgments imported back into a
session. This module joins the annotation package (sessions) and the file formats (``core.io``),
which never import each other; the folder's layout and its reading are described in
:mod:`segview.core.io.export_folder`.
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
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from . import safecsv
from .annotation.session import AnnotationSession
from .annotation.tables import ground_truth_rows
from .atomic import (atomic_open, atomic_path, fsync_dir, make_temp_dir, output_error, sync_tree,
                     write_text)
from .errors import DataFormatError, InputError, OutputError, ParameterError
from .io import tcpd_json
from .io.export_folder import (EXPORT_VERSION, FORMATS, JUDGMENT_FIELDS, MANIFEST, MANIFEST_FILE,
                               ExportedDataset, is_export_folder, read_export, sha256_file)
from .model import Series

log = logging.getLogger(__name__)

# the reading side lives with the other file formats; named here too, so one module offers both
__all__ = ["EXPORT_VERSION", "FORMATS", "JUDGMENT_FIELDS", "MANIFEST", "MANIFEST_FILE",
           "ExportedDataset", "export_session", "import_judgments", "is_export_folder",
           "judgments_table", "labels_table", "read_export", "relative_sources", "safe_name",
           "tcpd_annotations"]


def _cps_text(cps: Sequence[int] | None) -> str | None:
    return None if cps is None else " ".join(str(int(c)) for c in cps)


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
    rows: list[dict[str, Any]] = []
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
    rows: list[dict[str, Any]] = []
    if session.protocol == "change_points":
        consensus = session.consensus_change_points()
        for it in session.items():
            labs = per.get(it.series_id, {})
            row: dict[str, Any] = {
                "series_id": it.series_id, "source": it.source,
                "change_points": _cps_text(consensus.get(it.series_id)) if labs else None}
            row.update({f"judge_{j}": _cps_text(labs[j].change_points) if j in labs else None
                        for j in judges})
            rows.append(row)
        return rows
    gts = {g["series_id"]: g for g in ground_truth_rows(session.aggregate())}
    for it in session.items():
        labs = per.get(it.series_id, {})
        g = gts.get(it.series_id, {})
        row = {"series_id": it.series_id, "source": it.source, "steady": g.get("steady", "")}
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


# ----- export / read / import -----------------------------------------------------------------
def tcpd_annotations(session: AnnotationSession) -> dict[str, dict[str, list[int]]]:
    """The judges' labels as TCPD annotations (adjudicators left out)."""
    out: dict[str, dict[str, list[int]]] = {}
    for j in session.judges("judge"):
        for sid, lab in session.labels(j).items():
            if session.protocol == "change_points":
                cps = list(lab.change_points or ())
            elif not lab.steady:
                cps = []
            elif lab.onset is None:
                continue  # "steady, onset not given" has no TCPD form (kept in judgments.json)
            else:
                cps = [lab.onset]
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
        "file_hashes": {f: sha256_file(folder / f) for f in written},
    }
    write_text(folder / "metadata.json", json.dumps(meta, indent=1), durable=False)


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
    rows: list[dict[str, Any]] = []
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
    from .annotation.tables import read_judgments_csv

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
