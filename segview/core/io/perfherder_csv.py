"""Mozilla Perfherder performance data as CSV: one benchmark per Perfherder signature.

Perfherder (Treeherder's performance view) has no CSV button; its data leave it through the REST
API ``/api/project/{repo}/performance/data/``, whose points are
``{id, signature_id, job_id, push_id, revision, push_timestamp, value}`` per signature hash
(``treeherder/webapp/api/performance_data.py``, mozilla/treeherder at dc3080dd, August 2026:
``push_timestamp`` in POSIX seconds, ``value`` rounded to 2 places). Written to CSV, with or
without the signature's properties, these are the tables researchers exchange; the published
Mozilla performance data set (mozilla/REALISE-Performance, ``data/README.md`` and its
``*_timeseries_data.csv`` files) has the columns::

    repository_name,signature_id,framework_id,signature_hash,machine_platform,should_alert,
    has_subtests,extra_options,tags,option_collection_hash,test,suite,lower_is_better,name,
    parent_signature,repository_id,measurement_unit,application,job_id,entry_id,
    push_timestamp,value,revision,push_id

(``push_timestamp`` there an ISO 8601 date/time). Both read here: a table whose header has
``push_timestamp``, ``value`` and ``revision`` or ``signature_id``.

What a file becomes: each signature (``signature_hash``, else ``signature_id``; one for the whole
file when neither is there) is a benchmark with one execution, its points ordered by push time
(stable: retriggers of one push keep file order), the push times as x values (POSIX seconds).
Name: the signature's ``name`` (else ``suite test``, else the signature, else the file name),
with ``[machine_platform]`` when the file holds several platforms. Unit: ``measurement_unit``;
direction: ``lower_is_better`` when present, else from the unit. ``revision`` and ``push_id`` of
each point are kept in the metadata (``revisions``).
"""
from __future__ import annotations

import csv
from pathlib import Path

from ..benchmark import HIGHER, LOWER, execution
from ..errors import DataFormatError
from ..model import Series
from .columns import _number, _time, read_table

NAME = "perfherder"
_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")

EXAMPLE = """id,signature_id,job_id,push_id,revision,push_timestamp,value
2001,4768977,90001,1245770,1db51625512e,1700016556,9.49
2002,4768977,90002,1245871,6a96bb1f430f,1700085057,9.24"""


def _is_perfherder(header: list[str]) -> bool:
    h = {c.strip().lower() for c in header}
    return {"push_timestamp", "value"} <= h and bool(h & {"revision", "signature_id",
                                                           "signature_hash"})


def sniff(head: str) -> bool:
    first = next((ln for ln in head.splitlines() if ln.strip()), "")
    row = next(csv.reader([first]), [])
    return _is_perfherder(row)


def read(path: Path) -> list[Series]:
    """Read a Perfherder CSV; raises DataFormatError naming the file, line and column."""
    path = Path(path)
    table = read_table(path, ",")
    col = {h.strip().lower(): j for j, h in enumerate(table.header)}
    if not _is_perfherder(table.header):
        raise DataFormatError(str(path), "not a Perfherder table (needs push_timestamp, value and "
                                         "revision or signature_id columns)", "line 1")
    sig_col = col.get("signature_hash", col.get("signature_id"))
    groups: dict[str, list[tuple[float, int, float, list[str]]]] = {}
    for line, row in table.rows:
        if len(row) < len(table.header):
            raise DataFormatError(str(path), f"{len(row)} cells, the header names "
                                             f"{len(table.header)} columns", f"line {line}")
        sig = row[sig_col] if sig_col is not None else ""
        t = _time(row[col["push_timestamp"]], path, line, "push_timestamp")
        v = _number(row[col["value"]], path, line, "value")
        groups.setdefault(sig, []).append((t, line, v, row))
    if not groups:
        raise DataFormatError(str(path), "no rows below the header")

    def cell(row: list[str], name: str) -> str:
        j = col.get(name)
        return row[j] if j is not None else ""

    platforms = {cell(pts[0][3], "machine_platform") for pts in groups.values()}
    out = []
    for sig, pts in groups.items():
        pts.sort(key=lambda p: p[0])
        first = pts[0][3]
        name = (cell(first, "name") or " ".join(x for x in (cell(first, "suite"),
                                                            cell(first, "test")) if x)
                or (f"signature {sig}" if sig else path.stem))
        platform = cell(first, "machine_platform")
        if platform and len(platforms) > 1:
            name = f"{name} [{platform}]"
        unit = cell(first, "measurement_unit")
        lib = cell(first, "lower_is_better").lower()
        direction = LOWER if lib in _TRUE else HIGHER if lib in _FALSE else None
        meta = {"source": str(path), "format": NAME,
                "revisions": [cell(p[3], "revision") for p in pts]}
        for key in ("repository_name", "signature_id", "signature_hash", "framework_id",
                    "machine_platform", "application", "suite", "test"):
            if cell(first, key):
                meta[key] = cell(first, key)
        if "push_id" in col:
            meta["push_ids"] = [cell(p[3], "push_id") for p in pts]
        out.append(execution([p[2] for p in pts], benchmark=name, index=0, harness="perfherder",
                             unit=unit, direction=direction, metadata=meta, id=name,
                             x=[p[0] for p in pts]))
    return out

