"""Any table as benchmarks: a column mapping says which columns hold what.

A CSV/TSV written by some other tool rarely has segview's own column names. A
:class:`ColumnMapping` names the columns that hold each role:

``value``      the measured value (required). In the **long** layout one column; in the **wide**
               layout several (a comma list, or ``*`` for every column no other role takes): each
               value column is then a benchmark of its own (named ``BENCH/COLUMN`` when there is a
               benchmark column, else by the column). In the **rows** layout each row is one
               process execution and its value columns (``*`` or a list, in header order) are
               the iterations (warmup_stats-style tables: ``process_exec_idx,bench_name,0,1,
               2,...``); trailing blank cells end a row, an empty row is a crashed execution
               (kept out, with a warning naming its line).
``benchmark``  the benchmark's name (without it every row belongs to one benchmark named after
               the file).
``execution``  the process execution (fork, process, launch, run...): rows of one benchmark are
               grouped into executions by (benchmark, execution); executions are numbered 0, 1,
               ... in the order of their labels (numerically when every label is a whole number),
               the label itself kept as ``execution_label``.
``iteration``  the iteration number: the rows of an execution are ordered by it (stable, so
               equal numbers keep file order: a repeated number is an error); file order without it.
``unit``       a column with each row's unit (``ns``, ``ops/s``...), or ``unit_value`` a fixed
               unit for the whole file; the direction (lower or higher is better) follows from
               the unit (:func:`segview.core.benchmark.direction_for_unit`).
``time``       a time stamp per row (a number, or an ISO 8601 date/time, which becomes POSIX
               seconds): the series' x values.
``warmup``     a column whose truthy value (``1``, ``true``, ``yes``, ``warmup``...) marks the
               harness's warm-up iterations; they must lead their execution (after ordering) and
               are kept, marked by the series' ``warmup`` count (see :mod:`segview.core.benchmark`).

On the command line a mapping is written ``bench=NAME,exec=NAME,iter=NAME,value=NAME,unit=NAME,
time=NAME,warmup=NAME,layout=long|wide|rows`` (:func:`parse_columns`; also ``unit_value=ms`` and
``delimiter=tab|comma|semicolon|...``); in the wide layout ``value=a,b,c`` lists several columns
(a piece without ``=`` continues the previous value). :func:`guess_mapping` proposes one from a
file's header, :func:`preview` shows what it would load, and a mapping chosen for a file is
remembered for its folder (:func:`remember_mapping`, in segview's config folder
:func:`user_config_dir`; ``$SEGVIEW_CONFIG_DIR`` overrides it) so that later loads of tables in
that folder use it (:func:`mapping_for`).

Errors name the file, the line and the column: a value that is not a number, a column the mapping
names but the header lacks, an unknown key in a mapping.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import tempfile
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..benchmark import execution
from ..diskmemo import user_config_dir
from ..errors import DataFormatError, ParameterError, SegviewWarning
from ..model import Series
from .csv_series import _text_and_delimiter
from .readers import read_head, read_text
from ..safecsv import unescape_cell

HARNESS = "table"
FORMAT = "columns"
LAYOUTS = ("long", "wide", "rows")
TABLE_EXTENSIONS = (".csv", ".tsv")

#: spec key -> ColumnMapping field
_KEYS = {
    "bench": "benchmark", "benchmark": "benchmark",
    "exec": "execution", "execution": "execution",
    "iter": "iteration", "iteration": "iteration",
    "value": "value", "values": "value",
    "unit": "unit",
    "unit_value": "unit_value", "fixed_unit": "unit_value",
    "time": "time",
    "warmup": "warmup",
    "layout": "layout",
    "delimiter": "delimiter", "sep": "delimiter",
}
#: field -> the key written by ColumnMapping.spec()
_SHORT = {"benchmark": "bench", "execution": "exec", "iteration": "iter", "value": "value",
          "unit": "unit", "unit_value": "unit_value", "time": "time", "warmup": "warmup",
          "layout": "layout", "delimiter": "delimiter"}
_DELIMITER_NAMES = {"comma": ",", "tab": "\t", "\\t": "\t", "semicolon": ";", "space": " ",
                    "pipe": "|"}
_DELIMITER_WORDS = {v: k for k, v in _DELIMITER_NAMES.items() if k != "\\t"}

_TRUE = frozenset(("1", "true", "t", "yes", "y", "warmup", "warm-up", "warm_up", "warm"))
_FALSE = frozenset(("0", "false", "f", "no", "n", "", "measurement", "measured", "measure",
                    "result", "actual"))

#: roles, in the order the GUI shows them: (field, label)
ROLES = (("benchmark", "Benchmark"), ("execution", "Execution"), ("iteration", "Iteration"),
         ("value", "Value"), ("unit", "Unit"), ("time", "Time"), ("warmup", "Warm-up"))


@dataclass(frozen=True)
class ColumnMapping:
    """Which columns of a table hold which role (see the module docstring).

    Attributes:
        value: the value column (long), or for the wide layout a comma list of columns or ``*``.
        benchmark, execution, iteration, unit, time, warmup: column names, or None.
        unit_value: a fixed unit for every row (when there is no unit column).
        layout: ``"long"``, ``"wide"`` or ``"rows"``.
        delimiter: the cell separator, or None to detect it.
    """

    value: str
    benchmark: str | None = None
    execution: str | None = None
    iteration: str | None = None
    unit: str | None = None
    unit_value: str | None = None
    time: str | None = None
    warmup: str | None = None
    layout: str = "long"
    delimiter: str | None = None

    def __post_init__(self) -> None:
        if not self.value or not str(self.value).strip():
            raise ParameterError("columns", "the mapping needs a value column (value=NAME)")
        if self.layout not in LAYOUTS:
            raise ParameterError("columns", f"layout must be long, wide or rows, got "
                                            f"{self.layout!r}")
        if self.layout == "long" and ("," in self.value or self.value == "*"):
            raise ParameterError("columns", f"value={self.value} names several columns: that is "
                                            "the wide layout (add layout=wide)")

    def value_columns(self) -> list[str]:
        """The value columns as named (``["*"]`` for every remaining column)."""
        return [v.strip() for v in self.value.split(",") if v.strip()]

    def spec(self) -> str:
        """The mapping as a ``--columns`` string (:func:`parse_columns` reads it back)."""
        parts = []
        for name, key in _SHORT.items():
            v = getattr(self, name)
            if v is None or (name == "layout" and v == "long"):
                continue
            if name == "delimiter":
                v = _DELIMITER_WORDS.get(v, v)
            parts.append(f"{key}={v}")
        return ",".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)
                if getattr(self, f.name) is not None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "ColumnMapping":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ParameterError("columns", f"unknown mapping key(s) {', '.join(unknown)}")
        # a missing or empty value is __post_init__'s ParameterError
        given: dict[str, Any] = {k: (str(v) if v is not None else None) for k, v in data.items()}
        return cls(**given)


def parse_columns(spec: str) -> ColumnMapping:
    """``bench=NAME,exec=NAME,iter=NAME,value=NAME,unit=NAME,time=NAME,warmup=NAME,layout=long|
    wide|rows`` as a :class:`ColumnMapping`. A piece without ``=`` continues the previous value (so
    ``layout=wide,value=a,b,c`` lists three value columns).

    Raises:
        ParameterError: an unknown key (the known ones are listed), a key given twice, no value
            column, a bad layout or delimiter.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ParameterError("columns", "empty column mapping; write e.g. bench=name,value=time")
    out: dict[str, str] = {}
    last: str | None = None
    for piece in spec.split(","):
        if "=" not in piece:
            if last is None:
                raise ParameterError("columns", f"{piece.strip()!r} is not KEY=COLUMN (e.g. "
                                                "value=time)")
            out[last] += "," + piece.strip()
            continue
        key, _, val = piece.partition("=")
        key = key.strip().lower().replace("-", "_")
        if key not in _KEYS:
            known = ", ".join(sorted(set(_KEYS)))
            raise ParameterError("columns", f"unknown key {key!r} in {spec!r}; known keys: {known}")
        field_name = _KEYS[key]
        if field_name in out:
            raise ParameterError("columns", f"{key!r} is given twice in {spec!r}")
        out[field_name] = val.strip()
        last = field_name
    if "delimiter" in out:
        d = out["delimiter"]
        d = _DELIMITER_NAMES.get(d.lower(), d)
        if len(d) != 1:
            raise ParameterError("columns", f"delimiter {out['delimiter']!r} is not one character "
                                            f"or one of {', '.join(_DELIMITER_NAMES)}")
        out["delimiter"] = d
    if "layout" in out:
        out["layout"] = out["layout"].lower()
    out = {k: v for k, v in out.items() if v != "" or k == "value"}
    if "value" not in out:
        raise ParameterError("columns", f"{spec!r} names no value column; add value=COLUMN")
    return ColumnMapping(**out)


def as_mapping(columns: "ColumnMapping | str | Mapping[str, Any]") -> ColumnMapping:
    """A ColumnMapping from a mapping, a ``--columns`` string or a dict."""
    if isinstance(columns, ColumnMapping):
        return columns
    if isinstance(columns, str):
        return parse_columns(columns)
    if isinstance(columns, Mapping):
        return ColumnMapping.from_dict(columns)
    raise ParameterError("columns", f"expected a ColumnMapping or a string, got "
                                    f"{type(columns).__name__}")


# ---------------------------------------------------------------- reading the table


@dataclass(frozen=True)
class Table:
    """A table's header and rows (each with its 1-based line number in the file)."""

    path: Path
    header: list[str]
    rows: list[tuple[int, list[str]]]
    delimiter: str


def read_table(path: str | os.PathLike[str], delimiter: str | None = None) -> Table:
    """The header and rows of a CSV/TSV (BOM dropped, separator detected unless given; blank rows
    skipped; cells stripped, spreadsheet-escaped text cells unescaped).

    Raises:
        DataFormatError: unreadable, empty, malformed CSV (with the line).
    """
    p = Path(path)
    if delimiter is None:
        text, delimiter = _text_and_delimiter(p)
    else:
        text = read_text(p)
        if not text or text.isspace():
            raise DataFormatError(str(p), "the file is empty")
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    rows: list[tuple[int, list[str]]] = []
    header: list[str] | None = None
    start = 1
    escaped = "'" in text  # only then can a cell carry a spreadsheet escape (safecsv)
    try:
        for row in reader:
            line = start
            start = reader.line_num + 1
            cells = [c.strip() for c in row]
            if not any(cells):
                continue
            if escaped:
                cells = [unescape_cell(c) for c in cells]
            if header is None:
                header = cells
            else:
                rows.append((line, cells))
    except csv.Error as err:
        raise DataFormatError(str(p), f"malformed CSV ({err})", f"line {reader.line_num}") from None
    if header is None:
        raise DataFormatError(str(p), "the file holds no values (only separators)")
    return Table(p, header, rows, delimiter)


def _column(table: Table, name: str, role: str) -> int:
    matches = [j for j, h in enumerate(table.header) if h == name]
    if not matches:  # a case-insensitive match when the exact one is missing
        matches = [j for j, h in enumerate(table.header) if h.lower() == name.lower()]
    if not matches:
        have = ", ".join(repr(h) for h in table.header[:20])
        raise DataFormatError(str(table.path), f"no column {name!r} (the mapping's {role} column); "
                                               f"the header has {have}", "line 1")
    if len(matches) > 1:
        raise DataFormatError(str(table.path), f"{len(matches)} columns are named {name!r} (the "
                                               f"mapping's {role} column)", "line 1")
    return matches[0]


def _number(cell: str, path: Path, line: int, column: str) -> float:
    where = f"line {line}, column {column!r}"
    if not cell:
        raise DataFormatError(str(path), "the cell is blank; a value is needed", where)
    try:
        v = float(cell)
    except ValueError:
        raise DataFormatError(str(path), f"{cell!r} is not a number", where) from None
    if not math.isfinite(v):
        raise DataFormatError(str(path), f"value {cell!r} is not finite", where)
    return v


def _fast_number(cell: str, path: Path, line: int, column: str) -> float:
    """:func:`_number` without its cost on the common case (a plain finite number)."""
    try:
        v = float(cell)
    except ValueError:
        return _number(cell, path, line, column)  # raises the named error
    if v - v != 0.0:  # NaN or infinite
        return _number(cell, path, line, column)
    return v


def _time(cell: str, path: Path, line: int, column: str) -> float:
    try:
        v = float(cell)
    except ValueError:
        try:
            stamp = datetime.fromisoformat(cell.replace("Z", "+00:00"))
        except ValueError:
            raise DataFormatError(str(path), f"{cell!r} is neither a number nor an ISO 8601 "
                                             "date/time",
                                  f"line {line}, column {column!r}") from None
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=timezone.utc)
        return stamp.timestamp()
    if not math.isfinite(v):
        raise DataFormatError(str(path), f"time {cell!r} is not finite",
                              f"line {line}, column {column!r}")
    return v


def _flag(cell: str, path: Path, line: int, column: str) -> bool:
    c = cell.strip().lower()
    if c in _TRUE:
        return True
    if c in _FALSE:
        return False
    raise DataFormatError(str(path), f"{cell!r} does not say warm-up or not (use 1/0, true/false, "
                                     "yes/no, warmup/measurement)",
                          f"line {line}, column {column!r}")


@dataclass
class _Group:
    bench: str
    label: str
    points: list[tuple[float, int, float, float | None, bool]]  # (order, line, value, time, warm)
    unit: str | None = None
    unit_line: int = 0


def _whole(label: str) -> int | None:
    try:
        return int(label)
    except ValueError:
        return None


def read_mapped(path: str | os.PathLike[str], mapping: "ColumnMapping | str",
                table: Table | None = None, *, source: str = "given") -> list[Series]:
    """The table's rows as benchmark executions (one Series per benchmark and execution, and per
    value column in the wide layout), in order of first appearance.

    Raises:
        DataFormatError: naming the file, line and column: a missing column, a value that is not
            a number, a unit that changes inside an execution, a repeated iteration number, a
            warm-up row after a measured one, no rows.
    """
    m = as_mapping(mapping)
    p = Path(path)
    t = table if table is not None else read_table(p, m.delimiter)
    roles = {}
    for role in ("benchmark", "execution", "iteration", "unit", "time", "warmup"):
        name = getattr(m, role)
        if name:
            roles[role] = (_column(t, name, role), name)
    taken = {j for j, _ in roles.values()}
    if m.layout == "long":
        vcols = [(_column(t, m.value, "value"), m.value)]
    elif m.value_columns() == ["*"]:
        vcols = [(j, h) for j, h in enumerate(t.header) if j not in taken]
        if not vcols:
            raise DataFormatError(str(p), "value=* but every column has another role", "line 1")
    else:
        vcols = [(_column(t, v, "value"), v) for v in m.value_columns()]
    if m.layout == "rows":
        return _read_rows(p, t, m, roles, vcols, source)
    need = max([j for j, _ in roles.values()] + [j for j, _ in vcols]) + 1
    wide = m.layout == "wide"
    groups: dict[tuple[str, str], _Group] = {}
    stem = p.stem
    for line, row in t.rows:
        if len(row) < need:
            raise DataFormatError(str(p), f"{len(row)} cells, but the mapping needs column "
                                          f"{need} ({t.header[need - 1]!r})", f"line {line}")
        if "benchmark" in roles:
            j, name = roles["benchmark"]
            bench = row[j]
            if not bench:
                raise DataFormatError(str(p), "the benchmark name is blank",
                                      f"line {line}, column {name!r}")
        else:
            bench = None
        label = row[roles["execution"][0]] if "execution" in roles else ""
        if "execution" in roles and not label:
            raise DataFormatError(str(p), "the execution is blank",
                                  f"line {line}, column {roles['execution'][1]!r}")
        order = (_fast_number(row[roles["iteration"][0]], p, line, roles["iteration"][1])
                 if "iteration" in roles else 0.0)
        when = _time(row[roles["time"][0]], p, line, roles["time"][1]) if "time" in roles else None
        warm = _flag(row[roles["warmup"][0]], p, line, roles["warmup"][1]) if "warmup" in roles \
            else False
        unit = row[roles["unit"][0]] if "unit" in roles else None
        for j, col in vcols:
            cell = row[j]
            if wide and not cell:
                continue  # a ragged wide table: this column has no value in this row
            value = _fast_number(cell, p, line, col)
            name = (f"{bench}/{col}" if bench is not None else col) if wide else (bench or stem)
            g = groups.get((name, label))
            if g is None:
                g = groups[(name, label)] = _Group(name, label, [])
            if unit is not None:
                if g.unit is None:
                    g.unit, g.unit_line = unit, line
                elif unit != g.unit:
                    raise DataFormatError(str(p), f"unit {unit!r} differs from {g.unit!r} on line "
                                                  f"{g.unit_line} of the same execution",
                                          f"line {line}, column {roles['unit'][1]!r}")
            g.points.append((order, line, value, when, warm))
    if not groups:
        raise DataFormatError(str(p), "no rows below the header")
    index = _exec_index(list(groups))
    spec = m.spec()
    out = []
    for (name, label), g in groups.items():
        pts = g.points
        if "iteration" in roles:
            pts = sorted(pts, key=lambda q: q[0])
            for a, b in zip(pts, pts[1:]):
                if a[0] == b[0]:
                    raise DataFormatError(str(p), f"iteration {b[0]:g} of {name!r}"
                                                  + (f" execution {label!r}" if label else "")
                                                  + f" is also on line {a[1]}",
                                          f"line {b[1]}, column {roles['iteration'][1]!r}")
        n_warm = 0
        while n_warm < len(pts) and pts[n_warm][4]:
            n_warm += 1
        late = next((q for q in pts[n_warm:] if q[4]), None)
        if late is not None:
            raise DataFormatError(str(p), "a warm-up iteration after a measured one (warm-up "
                                          "iterations must come first in their execution)",
                                  f"line {late[1]}, column {roles['warmup'][1]!r}")
        unit = g.unit if g.unit is not None else (m.unit_value or "")
        # with a time column every point has its time
        xs = [q[3] for q in pts if q[3] is not None] if "time" in roles else None
        meta = {"source": str(p), "format": FORMAT, "columns": spec, "columns_source": source}
        if label:
            meta["execution_label"] = label
        out.append(execution([q[2] for q in pts], benchmark=name, index=index[(name, label)],
                             harness=HARNESS, unit=unit, warmup=n_warm, metadata=meta, x=xs,
                             id=None if "execution" in roles else name))
    return out


def _exec_index(keys: "list[tuple[str, str]]") -> dict[tuple[str, str], int]:
    """Execution numbers per benchmark: 0, 1, ... in the order of the labels (numeric order when
    every label of the benchmark is a whole number, else first appearance)."""
    labels: dict[str, list[str]] = {}
    for name, label in keys:
        labels.setdefault(name, []).append(label)
    index: dict[tuple[str, str], int] = {}
    for name, labs in labels.items():
        numbered = [(w, x) for x in labs if (w := _whole(x)) is not None]
        if len(numbered) == len(labs):   # every label a whole number: in numeric order
            labs = [x for _, x in sorted(numbered, key=lambda wx: wx[0])]
        for k, lab in enumerate(labs):
            index[(name, lab)] = k
    return index


def _read_rows(p: Path, t: Table, m: ColumnMapping, roles: dict[str, tuple[int, str]],
               vcols: list[tuple[int, str]], source: str) -> list[Series]:
    """The rows layout: each row one execution, its value columns the iterations."""
    unused = [r for r in ("iteration", "time", "warmup") if r in roles]
    if unused:
        raise ParameterError("columns", f"{', '.join(unused)} not used in the rows layout (each "
                                        "row is one execution, its value columns the iterations)")
    rows: dict[tuple[str, str], tuple[int, list[float], str | None]] = {}
    crashed: list[tuple[str, str, int]] = []
    counts: dict[str, int] = {}
    for line, row in t.rows:
        bench = row[roles["benchmark"][0]] if "benchmark" in roles and roles["benchmark"][0] < len(
            row) else (None if "benchmark" in roles else p.stem)
        if not bench:
            raise DataFormatError(str(p), "the benchmark name is blank",
                                  f"line {line}, column {roles['benchmark'][1]!r}")
        if "execution" in roles:
            j, name = roles["execution"]
            label = row[j] if j < len(row) else ""
            if not label:
                raise DataFormatError(str(p), "the execution is blank",
                                      f"line {line}, column {name!r}")
        else:
            label = str(counts.get(bench, 0))
        counts[bench] = counts.get(bench, 0) + 1
        if (bench, label) in rows:
            raise DataFormatError(str(p), f"execution {label!r} of {bench!r} is also on line "
                                          f"{rows[(bench, label)][0]}", f"line {line}")
        values: list[float] = []
        ended: str | None = None
        for j, col in vcols:
            cell = row[j] if j < len(row) else ""
            if not cell:
                ended = ended or col
                continue
            if ended is not None:
                raise DataFormatError(str(p), f"a value after the blank cell in column {ended!r}",
                                      f"line {line}, column {col!r}")
            values.append(_fast_number(cell, p, line, col))
        unit = row[roles["unit"][0]] if "unit" in roles and roles["unit"][0] < len(row) else None
        rows[(bench, label)] = (line, values, unit)
        if not values:
            crashed.append((bench, label, line))
    if not rows:
        raise DataFormatError(str(p), "no rows below the header")
    index = _exec_index(list(rows))
    notes: dict[str, list[str]] = {}
    for bench, label, line in crashed:
        notes.setdefault(bench, []).append(
            f"{p}: line {line}: execution {label!r} of {bench!r} has no values (crashed?); "
            "the benchmark's other executions are kept")
    spec = m.spec()
    out: list[Series] = []
    first_of: set[str] = set()
    for (bench, label), (line, values, unit) in rows.items():
        if not values:
            continue
        meta: dict[str, Any] = {"source": str(p), "format": FORMAT, "columns": spec,
                                "columns_source": source, "execution_label": label}
        if bench in notes and bench not in first_of:
            meta["load_warnings"] = list(notes[bench])
        first_of.add(bench)
        out.append(execution(values, benchmark=bench, index=index[(bench, label)],
                             harness=HARNESS, unit=unit if unit is not None else
                             (m.unit_value or ""), metadata=meta))
    for bench, msgs in notes.items():
        for msg in msgs:
            warnings.warn(msg, SegviewWarning, stacklevel=3)
    if not out:
        raise DataFormatError(str(p), "every row is empty: no execution has values")
    return out


def preview(path: str | os.PathLike[str], mapping: "ColumnMapping | str | None", rows: int = 20
            ) -> tuple[list[str], list[list[str]], "list[Series] | str"]:
    """The table's header, its first ``rows`` rows, and what ``mapping`` would load: the series,
    or the error text (the header and rows are empty when the file itself cannot be read)."""
    try:
        delimiter = None
        if mapping is not None:
            try:
                delimiter = as_mapping(mapping).delimiter
            except ParameterError:
                delimiter = None
        table = read_table(path, delimiter)
    except DataFormatError as err:
        return [], [], str(err)
    head = [r for _, r in table.rows[:rows]]
    if mapping is None:
        return table.header, head, "choose a value column"
    try:
        with warnings.catch_warnings():  # a preview is not a load: its warnings are in the
            warnings.simplefilter("ignore", SegviewWarning)  # series' load_warnings
            return table.header, head, read_mapped(path, mapping, table)
    except (DataFormatError, ParameterError) as err:
        return table.header, head, str(err)


def summary(series: "list[Series] | str") -> str:
    """One line saying what a preview would load (or the error text)."""
    if isinstance(series, str):
        return series
    from ..benchmark import group

    benches = group(series)
    execs = sum(len(b) for b in benches)
    its = [len(s) for s in series]
    lo, hi = min(its), max(its)
    span = f"{lo}" if lo == hi else f"{lo}-{hi}"
    warm = sum(int(s.metadata.get("warmup", 0)) for s in series)
    notes = [n for s in series for n in s.metadata.get("load_warnings", ())]
    extra = f", {warm} warm-up iterations marked" if warm else ""
    units = sorted({str(s.metadata.get("unit") or "") for s in series})
    if len(units) > 1:
        extra += f", units {', '.join(u or '(none)' for u in units)}"
    elif units[0]:
        way = {"lower": "lower is better", "higher": "higher is better"}.get(
            str(series[0].metadata.get("direction")), "direction unknown")
        extra += f", unit {units[0]} ({way})"
    if notes:
        extra += f"; {len(notes)} warning(s): {notes[0]}"
    return (f"{len(benches)} benchmark(s) x {execs} execution(s) x {span} iterations"
            f"{extra}")


# ---------------------------------------------------------------- guessing

_GUESS = {
    "benchmark": ("benchmark", "bench", "bench_name", "benchmark_name", "name", "test", "test_name",
                  "series_id", "series", "case", "suite", "workload", "event", "metric"),
    "execution": ("execution", "exec", "process_exec_idx", "pexec", "process", "process_execution",
                  "fork", "launch", "launch_index", "invocation", "run", "run_id", "repetition",
                  "repetition_index", "replicate", "trial", "vm_run"),
    "iteration": ("iteration", "iter", "iteration_index", "in_process_iteration", "index", "idx",
                  "i", "step", "round", "sample", "iteration_number"),
    "value": ("value", "values", "measurement", "time", "duration", "duration_ns", "elapsed",
              "runtime", "score", "wallclock", "wallclock_time", "real_time", "ns", "ms", "us",
              "seconds", "result", "mean", "nanoseconds"),
    "unit": ("unit", "units", "time_unit", "measurement_unit", "score_unit"),
    "time": ("timestamp", "push_timestamp", "time_stamp", "datetime", "date", "ts", "start",
             "start_time", "uptime_ns"),
    "warmup": ("warmup", "warm_up", "is_warmup", "warmup_iteration", "iteration_type", "phase",
               "stage"),
}


def _norm(h: str) -> str:
    return h.strip().lower().replace(" ", "_").replace("-", "_")


def _numeric(cells: list[str]) -> bool:
    seen = False
    for c in cells:
        if not c:
            continue
        try:
            v = float(c)
        except ValueError:
            return False
        if not math.isfinite(v):
            return False
        seen = True
    return seen


def guess_from_table(table: Table) -> ColumnMapping | None:
    """A mapping proposed from the header names and the first rows' contents (None when no
    column holds numbers)."""
    head = [_norm(h) for h in table.header]
    sample = [r for _, r in table.rows[:50]]
    col_cells = [[r[j] if j < len(r) else "" for r in sample] for j in range(len(head))]
    numeric = [_numeric(c) for c in col_cells]
    chosen: dict[str, int] = {}
    for role in ("unit", "warmup", "execution", "iteration", "benchmark", "time", "value"):
        for cand in _GUESS[role]:
            hits = [j for j, h in enumerate(head) if h == cand and j not in chosen.values()]
            if not hits:
                continue
            j = hits[0]
            if role in ("value", "iteration") and not numeric[j]:
                continue
            if role == "time" and "value" not in chosen and cand == "time" and numeric[j]:
                continue  # 'time' is more likely the measured value
            if role == "warmup" and not all(c.strip().lower() in _TRUE | _FALSE
                                            for c in col_cells[j]):
                continue
            chosen[role] = j
            break
    iters = [j for j, h in enumerate(head) if h.isdigit() and j not in chosen.values()]
    if len(iters) >= 2 and "value" not in chosen:  # 0,1,2,...: each row one execution
        others = [j for j in range(len(head)) if j not in chosen.values() and j not in iters]
        if not others:
            names = {role: table.header[j] for role, j in chosen.items()
                     if role in ("benchmark", "execution", "unit")}
            return ColumnMapping(value="*", layout="rows", **names)
    if "value" not in chosen:
        rest = [j for j in range(len(head)) if numeric[j] and j not in chosen.values()]
        if not rest:
            return None
        if "benchmark" not in chosen and len(rest) > 1 and "execution" not in chosen:
            return ColumnMapping(value="*", layout="wide", delimiter=None,
                                 iteration=table.header[chosen["iteration"]]
                                 if "iteration" in chosen else None,
                                 time=table.header[chosen["time"]] if "time" in chosen else None)
        chosen["value"] = rest[0]
    names = {role: table.header[j] for role, j in chosen.items()}
    if "unit" not in names:  # a unit in the value column's name: wallclock_ms, time (ns)
        m = re.search(r"(?:^|[_\s(\[])(ns|us|µs|ms|s|sec|seconds|ops/s|ops_per_s)[)\]]?$",
                      names["value"].strip().lower())
        if m:
            names["unit_value"] = {"sec": "s", "seconds": "s", "ops_per_s": "ops/s"}.get(
                m.group(1), m.group(1))
    return ColumnMapping(**names)


def guess_mapping(path: str | os.PathLike[str]) -> ColumnMapping | None:
    """A mapping proposed for the file (None when it cannot be read or holds no number column)."""
    try:
        return guess_from_table(read_table(path))
    except DataFormatError:
        return None


# ---------------------------------------------------------------- remembered per folder

_STORE = "column-mappings.json"


def _store_path(config_dir: Path | None) -> Path:
    return (config_dir or user_config_dir()) / _STORE


def _folder_key(path: str | os.PathLike[str]) -> str:
    p = Path(path)
    folder = p if p.is_dir() else p.parent
    return str(folder.resolve())


def remembered_mappings(config_dir: Path | None = None) -> dict[str, ColumnMapping]:
    """Every remembered mapping, by folder (an unreadable or damaged store reads as empty)."""
    try:
        data = json.loads(_store_path(config_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    out = {}
    if isinstance(data, dict):
        for folder, entry in data.items():
            try:
                out[str(folder)] = as_mapping(entry)
            except (ParameterError, TypeError):
                continue
    return out


def remembered_mapping(path: str | os.PathLike[str], config_dir: Path | None = None
                       ) -> ColumnMapping | None:
    """The mapping remembered for the folder of ``path`` (a file or a folder), or None."""
    return remembered_mappings(config_dir).get(_folder_key(path))


def remember_mapping(path: str | os.PathLike[str], mapping: "ColumnMapping | str",
                     config_dir: Path | None = None) -> Path:
    """Remember ``mapping`` for the folder of ``path``; returns the store's path. The store is
    replaced whole (written beside it, then renamed), so a crash never leaves half a file."""
    m = as_mapping(mapping)
    store = _store_path(config_dir)
    data = {k: v.to_dict() for k, v in remembered_mappings(config_dir).items()}
    data[_folder_key(path)] = m.to_dict()
    store.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".column-mappings-", dir=store.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
        os.replace(tmp, store)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return store


def fits(mapping: ColumnMapping, header: list[str]) -> bool:
    """Whether every column ``mapping`` names is in ``header``."""
    have = {h.lower() for h in header}
    names = [getattr(mapping, r) for r in ("benchmark", "execution", "iteration", "unit", "time",
                                           "warmup") if getattr(mapping, r)]
    vals = mapping.value_columns()
    if vals != ["*"]:
        names += vals
    return all(n.lower() in have for n in names)


def mapping_for(path: Path, remembered: Mapping[str, ColumnMapping]) -> ColumnMapping | None:
    """The remembered mapping that applies to the table ``path``: the one of its folder, when the
    file's header has every column it names (another table in the folder is read as usual)."""
    if path.suffix.lower() not in TABLE_EXTENSIONS:
        return None
    m = remembered.get(_folder_key(path))
    if m is None:
        return None
    header = header_of(path, m.delimiter)
    return m if header is not None and fits(m, header) else None


def header_of(path: Path, delimiter: str | None = None) -> list[str] | None:
    """The first non-blank line's cells, from the file's first 64 KiB (None when unreadable)."""
    try:
        head = read_head(path, 1 << 16)
    except DataFormatError:
        return None
    lines = [ln for ln in head.splitlines() if ln.strip()]
    if not lines:
        return None
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(head[:4096], delimiters=",;\t").delimiter
        except csv.Error:
            delimiter = ","
    row = next(csv.reader([lines[0]], delimiter=delimiter), [])
    return [unescape_cell(c.strip()) for c in row]

