"""Series from CSV.

* **wide**: a header row, then one column per series (a column named ``x`` gives x values for all;
  a column named ``index`` is ignored). Columns may be ragged: trailing blank cells end a series.
* **long**: columns ``series_id,index,value`` (optionally ``x``), one row per measurement, rows of a
  series in any order; indices of a series must be 0..n-1 without gaps or repeats.
* **long, several value columns** (a multivariate series per id): ``series_id[,index]`` and no
  ``value`` column; every other column (except ``x``) is a dimension named by its header, e.g.
  ``series_id,index,Pace,Distance``. Without ``index`` the rows of an id are in order.

A CSV whose header holds ``series_id`` and ``steady`` is a labels table, not series: it raises
:class:`LabelsFileError` so that folder loads can skip it.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..errors import DataFormatError
from ..model import Series
from .readers import NotSeriesFile, bulk_objects, read_text

LONG_COLUMNS = ("series_id", "index", "value")
_CHUNK_CHARS = 1 << 20
_ROWS_PER_CHECK = (1 << 14) - 1  # a mask: progress and cancellation every 16384 rows


class LabelsFileError(NotSeriesFile):
    """The CSV file is a labels table (series_id, steady, ...) rather than measurements."""


def sniff(head: str) -> bool:
    first = head.splitlines()[0] if head.splitlines() else ""
    return "," in first or ";" in first or "\t" in first


def _text_and_delimiter(path: Path) -> tuple[str, str]:
    text = read_text(path)
    if not text or text.isspace():  # not text.strip(): no copy of an 85 MB text under the GIL
        raise DataFormatError(str(path), "the file is empty")
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t")
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = ","
    return text, delimiter


def _rows(path: Path, text: str, delimiter: str) -> tuple[list[str], list[list[str]]]:
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        rows = [r for r in reader if any(c.strip() for c in r)]
    except csv.Error as err:
        raise DataFormatError(str(path), f"malformed CSV ({err})", f"line {reader.line_num}") from None
    if not rows:
        raise DataFormatError(str(path), "the file holds no values (only separators)")
    header = [h.strip() for h in rows[0]]
    return header, rows[1:]


def _number(cell: str, path: Path, where: str) -> float:
    try:
        v = float(cell)
    except ValueError:
        raise DataFormatError(str(path), f"{cell!r} is not a number", where) from None
    if not math.isfinite(v):
        raise DataFormatError(str(path), f"value {cell!r} is not finite", where)
    return v


def _read_long(path: Path, header: list[str], rows: list[list[str]], ctx: RunContext = NULL_CONTEXT
               ) -> list[Series]:
    col = {name: header.index(name) for name in (*LONG_COLUMNS, "x") if name in header}
    data: dict[str, dict[int, tuple[float, float | None]]] = {}
    for line, row in enumerate(rows, start=2):
        if not line & _ROWS_PER_CHECK:
            ctx.progress(line / (len(rows) + 2), f"line {line} of {len(rows) + 1}")
        if len(row) < len(header):
            raise DataFormatError(str(path), f"expected {len(header)} cells, got {len(row)}",
                                  f"line {line}")
        sid = row[col["series_id"]].strip()
        if not sid:
            raise DataFormatError(str(path), "empty series_id", f"line {line}")
        idx_cell = row[col["index"]].strip()
        try:
            idx = int(idx_cell)
        except ValueError:
            raise DataFormatError(str(path), f"index {idx_cell!r} is not a whole number",
                                  f"line {line}") from None
        val = _number(row[col["value"]].strip(), path, f"line {line}, column 'value'")
        xv = _number(row[col["x"]].strip(), path, f"line {line}, column 'x'") if "x" in col else None
        points = data.setdefault(sid, {})
        if idx in points:
            raise DataFormatError(str(path), f"series {sid!r} has index {idx} twice", f"line {line}")
        points[idx] = (val, xv)
    if not data:
        raise DataFormatError(str(path), "no measurements below the header")
    for sid, points in data.items():
        n = len(points)
        if sorted(points) != list(range(n)):
            missing = sorted(set(range(n)) - set(points))[:3]
            raise DataFormatError(str(path), f"series {sid!r} indices are not 0..{n - 1} "
                                             f"(missing e.g. {missing})")
    if "x" in col:   # then every point has its x value
        return [Series([points[i][0] for i in range(len(points))],
                       x=[x_i for i in range(len(points)) if (x_i := points[i][1]) is not None],
                       id=sid,
                       metadata={"source": str(path), "format": "csv-long"})
                for sid, points in data.items()]
    # every value is a checked finite float: one array for all series, each series a view of it
    # (a file of many short series spent half its time re-checking each one in Series())
    with bulk_objects():
        flat = np.array([points[i][0] for points in data.values() for i in range(len(points))],
                        dtype=np.float64)
        flat.flags.writeable = False
        ends = np.cumsum([len(points) for points in data.values()]).tolist()
        views = list(map(flat.__getitem__, map(slice, [0, *ends[:-1]], ends)))
        source = str(path)
        return Series._checked_many(views, list(data),
                                    [{"source": source, "format": "csv-long"} for _ in views])


def _read_wide(path: Path, header: list[str], rows: list[list[str]]) -> list[Series]:
    if not rows:
        raise DataFormatError(str(path), "no measurements below the header")
    columns: dict[int, list[float]] = {j: [] for j in range(len(header))}
    ended: set[int] = set()
    for line, row in enumerate(rows, start=2):
        if len(row) > len(header):
            raise DataFormatError(str(path), f"{len(row)} cells but the header names "
                                             f"{len(header)} columns", f"line {line}")
        for j, name in enumerate(header):
            cell = row[j].strip() if j < len(row) else ""
            if not cell:
                ended.add(j)
                continue
            if j in ended:
                raise DataFormatError(str(path), "a value follows a blank cell in the same column",
                                      f"line {line}, column {name!r}")
            columns[j].append(_number(cell, path, f"line {line}, column {name!r}"))
    return _wide_series(path, header, columns)


def _wide_series(path: Path, header: list[str],
                 columns: "dict[int, list[float]] | dict[int, NDArray[np.float64]]") -> list[Series]:
    names = [h or f"column{j}" for j, h in enumerate(header)]
    xcol = next((j for j, h in enumerate(names) if h.lower() == "x"), None)
    skip = {j for j, h in enumerate(names) if h.lower() == "index"} | ({xcol} if xcol is not None
                                                                       else set())
    out = []
    for j, name in enumerate(names):
        if j in skip:
            continue
        vals = columns[j]
        if len(vals) == 0:
            raise DataFormatError(str(path), "the column holds no values", f"column {name!r}")
        xs = columns[xcol][: len(vals)] if xcol is not None else None
        if xs is not None and len(xs) < len(vals):
            raise DataFormatError(str(path), "the x column is shorter than the series",
                                  f"column {name!r}")
        out.append(Series(vals, x=xs, id=name, metadata={"source": str(path), "format": "csv-wide"}))
    if not out:
        raise DataFormatError(str(path), "no series columns")
    return out


def _read_dims(path: Path, header: list[str], rows: list[list[str]], ctx: RunContext = NULL_CONTEXT
               ) -> list[Series]:
    lower = [h.lower() for h in header]
    sid_col = lower.index("series_id")
    idx_col = lower.index("index") if "index" in lower else None
    x_col = lower.index("x") if "x" in lower else None
    dims = [j for j in range(len(header)) if j not in (sid_col, idx_col, x_col)]
    names = [header[j] or f"column{j}" for j in dims]
    data: dict[str, dict[int, tuple[list[float], float | None]]] = {}
    for line, row in enumerate(rows, start=2):
        if not line & _ROWS_PER_CHECK:
            ctx.progress(line / (len(rows) + 2), f"line {line} of {len(rows) + 1}")
        if len(row) < len(header):
            raise DataFormatError(str(path), f"expected {len(header)} cells, got {len(row)}",
                                  f"line {line}")
        sid = row[sid_col].strip()
        if not sid:
            raise DataFormatError(str(path), "empty series_id", f"line {line}")
        points = data.setdefault(sid, {})
        if idx_col is None:
            idx = len(points)
        else:
            try:
                idx = int(row[idx_col].strip())
            except ValueError:
                raise DataFormatError(str(path), f"index {row[idx_col].strip()!r} is not a whole "
                                                 "number", f"line {line}") from None
        if idx in points:
            raise DataFormatError(str(path), f"series {sid!r} has index {idx} twice", f"line {line}")
        vals = [_number(row[j].strip(), path, f"line {line}, column {header[j]!r}") for j in dims]
        xv = (_number(row[x_col].strip(), path, f"line {line}, column 'x'") if x_col is not None
              else None)
        points[idx] = (vals, xv)
    out = []
    for sid, points in data.items():
        n = len(points)
        if sorted(points) != list(range(n)):
            raise DataFormatError(str(path), f"series {sid!r} indices are not 0..{n - 1}")
        rows_of = [points[i][0] for i in range(n)]
        # with an x column every point has its x value
        xs = ([x_i for i in range(n) if (x_i := points[i][1]) is not None] if x_col is not None
              else None)
        meta = {"source": str(path), "format": "csv-long"}
        if len(dims) == 1:
            out.append(Series([v[0] for v in rows_of], x=xs, id=sid, metadata=meta))
        else:
            out.append(Series(rows_of, x=xs, id=sid, metadata=meta, dims=names))
    if not out:
        raise DataFormatError(str(path), "no measurements below the header")
    return out


def _read_wide_fast(path: Path, text: str, delimiter: str) -> list[Series] | None:
    """A wide CSV of plain numbers, parsed by numpy in C (10 million rows in ~2 s instead of
    ~100 s cell by cell); None when the file is anything else, so that the cell-by-cell reader
    gives the result or the precise error (line, column, cell).

    Only the regular case is taken here: an unquoted header on the first line, every body row with
    exactly one finite number per header column. Blank cells (ragged columns), quotes, numbers
    numpy does not read (``1_000``), NaN/inf, short or long rows all go the slow way. ``loadtxt``
    converts with Python's own correctly rounded string-to-double, so values are bit-identical.
    """
    first, _, body = text.partition("\n")
    if '"' in first or not first.strip() or not body or body.isspace():
        return None
    header = [h.strip() for h in next(csv.reader([first], delimiter=delimiter), [])]
    lower = [h.lower() for h in header]
    if not header or "series_id" in lower:
        return None  # long / multivariate / labels layouts: the general reader
    parts = []
    start = 0
    while start < len(body):
        # ~1 MB pieces: loadtxt holds the GIL while it parses, so a load on a worker thread gives
        # the GUI thread a turn between pieces (one 85 MB call froze the explorer for seconds)
        end = body.find("\n", start + _CHUNK_CHARS)
        end = len(body) if end < 0 else end + 1
        piece = body[start:end]
        start = end
        if piece.isspace():
            continue
        try:
            arr = np.loadtxt(io.StringIO(piece), delimiter=delimiter, comments=None, ndmin=2,
                             dtype=np.float64, encoding=None)
        except (ValueError, TypeError, OverflowError, MemoryError):
            return None
        if arr.shape[1] != len(header) or not np.isfinite(arr).all():
            return None
        parts.append(arr)
    if not parts:
        return None
    arr = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return _wide_series(path, header, {j: np.ascontiguousarray(arr[:, j]) for j in range(len(header))})


def read(path: Path, ctx: RunContext | None = None) -> list[Series]:
    """Read a wide or long CSV; raises DataFormatError naming file, line and column.

    ``ctx`` is checked for cancellation and told the fraction of rows read (long layouts, read
    row by row)."""
    path = Path(path)
    ctx = ctx or NULL_CONTEXT
    text, delimiter = _text_and_delimiter(path)
    fast = _read_wide_fast(path, text, delimiter)
    if fast is not None:
        return fast
    header, rows = _rows(path, text, delimiter)
    lower = [h.lower() for h in header]
    if "series_id" in lower and "steady" in lower:
        raise LabelsFileError(str(path), "a labels table (series_id, steady, ...), not series")
    if all(c in lower for c in LONG_COLUMNS):
        with bulk_objects():  # a (value, x) tuple per row: no collector passes over them
            return _read_long(path, lower, rows, ctx)
    if "series_id" in lower and "value" not in lower and len(
            set(lower) - {"series_id", "index", "x"}) >= 1:
        return _read_dims(path, header, rows, ctx)
    return _read_wide(path, header, rows)
