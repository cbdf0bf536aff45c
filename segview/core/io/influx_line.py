"""InfluxDB line protocol: each measurement, tag set and numeric field is a benchmark.

Format ("Line protocol", InfluxDB v2 reference, docs.influxdata.com/influxdb/v2/reference/syntax/
line-protocol; checked against the ``Point.to_line_protocol()`` output of the Python client
``influxdb-client`` 1.50)::

    measurement[,tag_key=tag_value...] field_key=field_value[,field_key=field_value...] [timestamp]

* Measurement names escape commas and spaces with ``\\``; tag keys, tag values and field keys
  escape commas, equals signs and spaces.
* Field values: floats (``1.5``, ``1e3``), integers ``12i``, unsigned integers ``12u``, strings in
  double quotes (``\\"`` and ``\\\\`` escaped), booleans (``t``, ``true``, ``F``, ...).
* The timestamp is an integer (nanoseconds since the epoch unless the writer chose another
  precision); ``#`` lines are comments.

What a file becomes: every numeric field of every (measurement, tag set) is a benchmark with one
execution, its points in file order (timestamps, when every point has one, become x values as
written). String and boolean fields are not measurements: they are listed in the metadata
(``ignored_fields``), not read. The line protocol carries no units, so direction is unknown.
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from ..benchmark import execution
from ..errors import DataFormatError
from ..model import Series
from .readers import read_text

NAME = "influx"
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
_INT = re.compile(r"^[+-]?[0-9]+[iu]$")
_BOOL = frozenset(("t", "T", "true", "True", "TRUE", "f", "F", "false", "False", "FALSE"))

EXAMPLE = """bench_iteration,benchmark=fib,host=ci1 duration_ns=12345i,ops=81.2 1700000000000000000
bench_iteration,benchmark=fib,host=ci1 duration_ns=12201i,ops=82.0 1700000001000000000"""


class _Bad(ValueError):
    pass


def _split(text: str, seps: str, quotes: bool = False) -> list[str]:
    """Split at unescaped separator characters (outside double quotes when ``quotes``); escapes
    are kept (``_unescape`` removes them)."""
    parts, cur, i, inq = [], [], 0, False
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            cur.append(text[i:i + 2])
            i += 2
            continue
        if quotes and c == '"':
            inq = not inq
        elif not inq and c in seps:
            parts.append("".join(cur))
            cur = []
            i += 1
            continue
        cur.append(c)
        i += 1
    if inq:
        raise _Bad("an unterminated string field")
    parts.append("".join(cur))
    return parts


def _unescape(s: str) -> str:
    return re.sub(r"\\([,= \\\"])", r"\1", s)


def parse_line(line: str) -> tuple[str, dict[str, str], dict[str, str | bool | int | float],
                                   int | None]:
    """``(measurement, tags, fields, timestamp)`` of one line; ``_Bad`` (a ValueError) names what
    is wrong."""
    parts = [p for p in _split(line.strip(), " ", quotes=True) if p != ""]
    if len(parts) < 2:
        raise _Bad("no field set (expected measurement[,tags] field=value [timestamp])")
    if len(parts) > 3:
        raise _Bad(f"{len(parts)} space-separated parts; expected measurement[,tags] fields "
                   "[timestamp] (unescaped space?)")
    head = _split(parts[0], ",")
    measurement = _unescape(head[0])
    if not measurement:
        raise _Bad("empty measurement name")
    tags = {}
    for t in head[1:]:
        kv = _split(t, "=")
        if len(kv) != 2 or not kv[0] or not kv[1]:
            raise _Bad(f"tag {t!r} is not key=value")
        tags[_unescape(kv[0])] = _unescape(kv[1])
    fields: dict[str, str | bool | int | float] = {}
    for f in _split(parts[1], ",", quotes=True):
        kv = _split(f, "=", quotes=True)
        if len(kv) != 2 or not kv[0]:
            raise _Bad(f"field {f!r} is not key=value")
        key, raw = _unescape(kv[0]), kv[1]
        if raw.startswith('"') and raw.endswith('"') and len(raw) >= 2:
            fields[key] = _unescape(raw[1:-1])
        elif raw in _BOOL:
            fields[key] = raw.lower().startswith("t")
        elif _INT.match(raw):
            fields[key] = int(raw[:-1])
        elif _NUMBER.match(raw):
            fields[key] = float(raw)
        else:
            raise _Bad(f"field {key!r}: {raw!r} is not a line-protocol value")
    stamp = None
    if len(parts) == 3:
        if not re.match(r"^-?[0-9]+$", parts[2]):
            raise _Bad(f"timestamp {parts[2]!r} is not an integer")
        stamp = int(parts[2])
    return measurement, tags, fields, stamp


def sniff(head: str) -> bool:
    lines = [ln for ln in head.splitlines() if ln.strip()]
    if len(lines) > 1 and not head.endswith("\n"):
        lines = lines[:-1]
    data = [ln for ln in lines if not ln.lstrip().startswith("#")]
    if not data:
        return False
    for ln in data[:100]:
        try:
            _, _, fields, _ = parse_line(ln)
        except ValueError:
            return False
        if not fields:
            return False
    return True


def read(path: Path) -> list[Series]:
    """Read line protocol; raises DataFormatError naming the file and line."""
    path = Path(path)
    text = read_text(path)
    points: dict[tuple[str, tuple[tuple[str, str], ...], str], list[tuple[float, int | None]]] = {}
    ignored: dict[tuple[str, tuple[tuple[str, str], ...]], set[str]] = {}
    for line_no, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        try:
            measurement, tags, fields, stamp = parse_line(raw)
        except ValueError as err:
            raise DataFormatError(str(path), f"not InfluxDB line protocol: {err}",
                                  f"line {line_no}") from None
        tagkey = tuple(sorted(tags.items()))
        for key, v in fields.items():
            if isinstance(v, (bool, str)):
                ignored.setdefault((measurement, tagkey), set()).add(key)
                continue
            fv = float(v)
            if not math.isfinite(fv):
                raise DataFormatError(str(path), f"field {key!r} is not finite", f"line {line_no}")
            points.setdefault((measurement, tagkey, key), []).append((fv, stamp))
    if not points:
        raise DataFormatError(str(path), "no numeric field in any line")
    out = []
    for (measurement, tagkey, field), pts in points.items():
        tags = dict(tagkey)
        tagtext = ",".join(f"{k}={v}" for k, v in tagkey)
        name = f"{measurement}[{tagtext}].{field}" if tagtext else f"{measurement}.{field}"
        meta: dict[str, Any] = {"source": str(path), "format": NAME, "measurement": measurement,
                                "field": field}
        if (measurement, tagkey) in ignored:
            meta["ignored_fields"] = sorted(ignored[(measurement, tagkey)])
        stamps = [p[1] for p in pts if p[1] is not None]
        out.append(execution([p[0] for p in pts], benchmark=name, index=0, harness="influx",
                             params=tags, metadata=meta, id=name,
                             x=stamps if len(stamps) == len(pts) else None))
    return out
