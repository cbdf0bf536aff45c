"""Google Benchmark results: JSON (``--benchmark_out=F --benchmark_out_format=json`` or
``--benchmark_format=json``) and CSV (``--benchmark_format=csv`` / ``--benchmark_out_format=csv``);
checked against libbenchmark 1.7.1 (Debian 12).

JSON layout::

    {"context": {"date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "caches", ...},
     "benchmarks": [{"name", "family_index", "per_family_instance_index", "run_name",
                     "run_type": "iteration" | "aggregate", "repetitions", "repetition_index",
                     "threads", "iterations", "real_time", "cpu_time", "time_unit",
                     "aggregate_name" (aggregates only), counters...}, ...]}

CSV layout: ``name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,
label,error_occurred,error_message`` (plus user counters); aggregates are rows named
``NAME_mean``, ``NAME_median``, ``NAME_stddev``, ``NAME_cv`` after the rows of ``NAME``.

* **Per-repetition rows are the measurements** (``run_type == "iteration"``, ordered by
  ``repetition_index``); aggregate rows (mean, median, stddev, cv) are summaries of them and are
  not loaded. A file with aggregates only (written with ``--benchmark_report_aggregates_only=true``)
  is a named error saying to rerun with ``--benchmark_repetitions=N`` and without
  ``--benchmark_report_aggregates_only`` (``--benchmark_display_aggregates_only`` only changes the
  console and keeps the repetitions in the ``--benchmark_out`` file). A CSV row is an aggregate when
  its name is an earlier row's name plus ``_mean``/``_median``/``_stddev``/``_cv`` (the CSV has no
  ``run_type``; user-defined statistics cannot be told apart there).
* **Google Benchmark runs every repetition in one process**, one after the other: a benchmark is
  **one execution** (index 0) whose iterations are its repetitions. ``--benchmark_enable_random_
  interleaving`` changes the order in which benchmarks' repetitions run, not the process: still one
  execution. Its warm-up (``--benchmark_min_warmup_time``) is not reported, so nothing is marked as
  warm-up. Each repetition's own ``iterations`` count is kept in ``gbench_iterations``.
* **The value is ``real_time``** (wall-clock time per iteration, in ``time_unit``, lower is
  better) by default; the reader option ``time="cpu"`` loads ``cpu_time`` instead
  (``segview.core.io.load_file(path, time="cpu")``); the metadata's ``time`` says which.
* The benchmark's name is ``run_name`` (``BM_Sort/8``, ``BM_x/threads:2``); the ``context``
  (machine, caches, load, library build type) goes into the metadata. A repetition with
  ``error_occurred`` is skipped with a warning; a benchmark whose every repetition failed is a
  crashed one, reported as a warning.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..benchmark import LOWER, execution
from ..errors import DataFormatError
from ..model import Series
from .harness_common import crashed, field, json_meta, number
from .readers import json_object, read_json, read_text

NAME = "gbench"
LABEL = "Google Benchmark"  # in messages
HARNESS = "gbench"
_HEAD = re.compile(r'^\{\s*"context"\s*:\s*\{')
_CONTEXT_KEYS = ('"num_cpus"', '"mhz_per_cpu"', '"library_build_type"', '"caches"', '"executable"')
_CSV_HEAD = re.compile(r'^"?name"?,"?iterations"?,[^\n]*"?time_unit"?')
AGGREGATES = ("mean", "median", "stddev", "cv")
RERUN = ("rerun the benchmark with --benchmark_repetitions=N (N >= 2) and without "
         "--benchmark_report_aggregates_only, so each repetition is written")
TIMES = {"real": "real_time", "cpu": "cpu_time"}


def sniff(head: str) -> bool:
    text = head.lstrip()
    return bool(_HEAD.match(text)) and any(k in text for k in _CONTEXT_KEYS)


def sniff_csv(head: str) -> bool:
    return bool(_CSV_HEAD.match(head.lstrip()))


def _time_key(time: str) -> str:
    if time not in TIMES:
        raise DataFormatError("time", f"must be 'real' or 'cpu', got {time!r}")
    return TIMES[time]


def _is_failed(row: dict[str, Any]) -> bool:
    v = row.get("error_occurred")
    return v is True or (isinstance(v, str) and v.strip().lower() == "true")


class _Bench:
    def __init__(self, name: str, where: str, unit: str) -> None:
        self.name, self.where, self.unit = name, where, unit
        self.rows: list[tuple[int, float, Any]] = []  # (order key, value, iterations)
        self.failed: list[str] = []
        self.threads: Any = None
        self.row_index: list[int] = []  # JSON row of each entry of rows (to name a bad value)


def _series(benches: dict[str, _Bench], path: Path, fmt: str, time_key: str,
            meta: dict[str, Any]) -> list[Series]:
    out: list[Series] = []
    for b in benches.values():
        warns = []
        if b.failed:
            text = (f"{len(b.failed)} repetition(s) reported an error ({b.failed[0]})"
                    + ("; no repetition left (crashed)" if not b.rows else "; skipped"))
            warns.append(crashed(path, b.name, b.where, text))
        if not b.rows:
            continue
        vals = np.array([r[1] for r in b.rows], dtype=np.float64)
        bad = np.flatnonzero(~np.isfinite(vals))
        if bad.size:
            k = int(bad[0])
            where = (f"benchmarks[{b.row_index[k]}].{time_key}" if b.row_index
                     else f"{b.name}, repetition {k}")
            raise DataFormatError(str(path), f"value {b.rows[k][1]!r} is not finite", where)
        rows = sorted(b.rows, key=lambda r: r[0])
        md = {**meta, "source": str(path), "format": fmt, "time": time_key,
              "gbench_iterations": [r[2] for r in rows]}
        if b.threads is not None:
            md["threads"] = b.threads
        if warns:
            md["load_warnings"] = warns
        out.append(execution(np.array([r[1] for r in rows]), benchmark=b.name, index=0,
                             harness=HARNESS, unit=b.unit, direction=LOWER, metadata=md))
    return out


def _add(benches: dict[str, _Bench], name: str, unit: str, where: str, path: Path) -> _Bench:
    b = benches.get(name)
    if b is None:
        b = benches[name] = _Bench(name, where, unit)
    elif b.unit != unit:
        raise DataFormatError(str(path), f"benchmark {name!r} mixes time units ({b.unit} at "
                                         f"{b.where}, {unit} here)", where)
    return b


def _aggregates_only(path: Path, names: list[str]) -> DataFormatError:
    shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
    return DataFormatError(str(path), f"aggregates only ({shown}): the file holds no per-"
                                      f"repetition row to analyse; {RERUN}", "benchmarks")


def read(path: Path, time: str = "real") -> list[Series]:
    """Read a Google Benchmark JSON file; DataFormatError names the file and the place."""
    path = Path(path)
    time_key = _time_key(time)
    data = read_json(path)
    rows = field(data, "benchmarks", path, "top level", LABEL, list)
    context = json_object(data, "context")
    meta = {"context": json_meta(context)} if context else {}
    benches: dict[str, _Bench] = {}
    seen: dict[tuple[str, int], int] = {}
    aggregates: list[str] = []
    for i, row in enumerate(rows):
        # The common case goes without per-row checks beyond types; a bad row is named below.
        if not isinstance(row, dict):
            raise DataFormatError(str(path), f"a row is {type(row).__name__}, expected an object",
                                  f"benchmarks[{i}]")
        raw_name = row.get("name")
        if type(raw_name) is not str:
            raw_name = field(row, "name", path, f"benchmarks[{i}]", LABEL, str)  # or a named error
        run_type = row.get("run_type")
        if run_type is None:  # before run_type (libbenchmark < 1.5): go by the name
            base, _, suffix = raw_name.rpartition("_")
            run_type = "aggregate" if suffix in AGGREGATES and base in benches else "iteration"
        if run_type == "aggregate":
            aggregates.append(raw_name)
            continue
        if run_type != "iteration":
            raise DataFormatError(str(path), f"unknown run_type {run_type!r} (expected 'iteration' "
                                             "or 'aggregate')", f"benchmarks[{i}]")
        name = str(row.get("run_name", raw_name))
        unit = row.get("time_unit")
        if type(unit) is not str:
            unit = field(row, "time_unit", path, f"benchmarks[{i}]", LABEL, str)  # or named error
        b = benches.get(name)
        if b is None or b.unit != unit:
            b = _add(benches, name, unit, f"benchmarks[{i}]", path)
        rep = row.get("repetition_index", len(b.rows) + len(b.failed))
        if type(rep) is not int:
            raise DataFormatError(str(path), f"repetition_index {rep!r} is not an integer",
                                  f"benchmarks[{i}]")
        first = seen.setdefault((name, rep), i)
        if first != i:
            raise DataFormatError(str(path), f"benchmark {name!r} repetition {rep} appears twice "
                                             f"(first at benchmarks[{first}]); segview cannot tell "
                                             "the runs apart (two results files joined?)",
                                  f"benchmarks[{i}]")
        if "threads" in row:
            b.threads = row["threads"]
        if row.get("error_occurred") is True:
            b.failed.append(f"benchmarks[{i}]: {row.get('error_message', 'error')}")
            continue
        v = row.get(time_key)
        if type(v) is not float and type(v) is not int:
            where = f"benchmarks[{i}]"
            v = field(row, time_key, path, where, LABEL, (int, float))  # or a named error
            number(v, path, f"{where}.{time_key}")
        b.rows.append((rep, v, row.get("iterations")))
        b.row_index.append(i)
    if not benches:
        if aggregates:
            raise _aggregates_only(path, aggregates)
        raise DataFormatError(str(path), "the file holds no benchmark", "benchmarks")
    return _series(benches, path, NAME, time_key, meta)


def read_csv(path: Path, time: str = "real") -> list[Series]:
    """Read Google Benchmark's CSV output; DataFormatError names the file and the line."""
    path = Path(path)
    time_key = _time_key(time)
    text = read_text(path)
    reader = csv.DictReader(io.StringIO(text))
    header = reader.fieldnames or []
    for col in ("name", time_key, "time_unit"):
        if col not in header:
            raise DataFormatError(str(path), f"no {col!r} column (header: {', '.join(header)}); a "
                                             "Google Benchmark version that renamed it is not "
                                             "supported yet", "line 1")
    benches: dict[str, _Bench] = {}
    pending: list[tuple[str, str]] = []  # aggregate-looking rows of not-yet-seen names
    aggregates: list[str] = []
    for line, row in enumerate(reader, start=2):
        where = f"line {line}"
        if None in row or any(row.get(c) is None for c in header):
            raise DataFormatError(str(path), f"{len(header)} columns expected (a truncated or "
                                             "malformed row)", where)
        name = row["name"]
        base, _, suffix = name.rpartition("_")
        if suffix in AGGREGATES and base in benches:
            aggregates.append(name)
            continue
        if suffix in AGGREGATES and base:
            pending.append((name, base))
        unit = row["time_unit"]
        b = _add(benches, name, unit, where, path)
        if _is_failed(row):
            b.failed.append(f"{where}: {row.get('error_message') or 'error'}")
            continue
        raw = row[time_key]
        try:
            v = float(raw)
        except ValueError:
            raise DataFormatError(str(path), f"{time_key} {raw!r} is not a number", where) from None
        iters: Any = row.get("iterations")
        iters = int(iters) if iters and iters.isdigit() else iters
        b.rows.append((len(b.rows), number(v, path, where), iters))
    if not benches and aggregates:
        raise _aggregates_only(path, aggregates)
    by_base: dict[str, set[str]] = {}
    for name, base in pending:
        by_base.setdefault(base, set()).add(name.rpartition("_")[2])
    only_aggs = [b for b, s in by_base.items() if {"mean", "median", "stddev"} <= s]
    if only_aggs and all(n in {f"{b}_{a}" for b in only_aggs for a in AGGREGATES}
                         for n in benches):
        raise _aggregates_only(path, sorted(benches))
    if not benches:
        raise DataFormatError(str(path), "the file holds no benchmark row", "line 2")
    return _series(benches, path, "gbench-csv", time_key, {})
