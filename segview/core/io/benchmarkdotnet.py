"""BenchmarkDotNet's full JSON export and its measurements CSV (dotnet/BenchmarkDotNet:
``Exporters/Json/JsonExporterBase.cs``, ``Exporters/Csv/CsvMeasurementsExporter.cs``,
``Engines/IterationMode.cs``, ``Engines/IterationStage.cs``, ``Engines/RunResults.cs``; checked
against 0.15.8 / 0.16.0-develop at 5995bf6, 2026, and the 0.10.14 layout).

Every measurement is one iteration of one **launch** (a process: ``LaunchIndex`` 1, 2, ...):
``IterationMode`` ``Workload`` (the benchmark) or ``Overhead`` (an empty method, what BDN subtracts),
``IterationStage`` ``Jitting``, ``Pilot``, ``Warmup``, ``Actual``, ``Result`` or ``Extra``,
``IterationIndex``, ``Operations`` (invocations in the iteration) and ``Nanoseconds`` (for all of
them). JSON (``JsonExporter.Full``, ``-full.json``, or the default ``-full-compressed.json``)::

    {"Title": ..., "HostEnvironmentInfo": {"BenchmarkDotNetVersion": ..., "RuntimeVersion": ...},
     "Benchmarks": [{"Type": "IntroBasic", "Method": "Sleep", "MethodTitle": "Sleep",
                     "Parameters": "N=10&Sorted=True", "FullName": ..., "Statistics": {...},
                     "Measurements": [{"IterationMode": "Workload", "IterationStage": "Actual",
                                       "LaunchIndex": 1, "IterationIndex": 1,
                                       "Operations": 16, "Nanoseconds": 1601234.5}, ...]}]}

CSV (``*-measurements.csv``; ``,`` or, in a decimal-comma culture, ``;``): ``Target``,
``Target_Namespace``, ``Target_Type``, ``Target_Method``, ``Job_*``, ``Params``,
``Measurement_LaunchIndex``, ``Measurement_IterationMode``, ``Measurement_IterationStage``,
``Measurement_IterationIndex``, ``Measurement_Nanoseconds``, ``Measurement_Operations``,
``Measurement_Value`` (and ``Gen_0``... with the memory diagnoser).

What segview reads, per benchmark and launch (execution index ``LaunchIndex - 1``), as time per
operation ``Nanoseconds / Operations`` in ``ns`` (lower is better):

* ``Workload`` ``Jitting``, ``Pilot`` and ``Warmup`` iterations: the harness's warm-up (``warmup=K``,
  kept, in that order), then ``Workload`` ``Actual``: the measured iterations;
* ``Overhead`` iterations are **not** values of the benchmark: left out, their count goes into
  metadata ``overhead_iterations`` and the median ``Overhead`` ``Actual`` time per operation (what BDN
  subtracts) into ``overhead_ns_per_op``;
* ``Result`` iterations (BDN's own ``Actual`` minus overhead, upper outliers removed) and ``Extra``
  iterations (diagnosers) are derived, left out, counted in ``result_iterations``/``extra_iterations``.

BenchmarkDotNet 0.10's layout (no ``IterationStage``; ``IterationMode`` ``Pilot``, ``IdleWarmup``,
``IdleTarget``, ``MainWarmup``, ``MainTarget``, ``Result``) is read the same way (Idle = Overhead,
Main = Workload, Target = Actual). A launch without ``Workload Actual`` iterations (a crashed
process) is a named :class:`~segview.core.errors.DataFormatWarning`; a brief export (no
``Measurements``) is an error saying which exporter to use.

Series: benchmark ``Type.Method[params]`` (the job's id appended when one file has several jobs),
id ``name/launchK`` with 0-based K.
"""
from __future__ import annotations

import csv
import io
import math
from pathlib import Path
import re
import statistics
from typing import Any

from ..benchmark import LOWER, execution
from ..errors import DataFormatError
from ..model import Series
from .loadwarn import report
from .readers import json_object, read_json, read_text

_OLD_MODES = {"Pilot": ("Workload", "Pilot"), "IdleWarmup": ("Overhead", "Warmup"),
              "IdleTarget": ("Overhead", "Actual"), "MainWarmup": ("Workload", "Warmup"),
              "MainTarget": ("Workload", "Actual"), "Result": ("Workload", "Result")}
_WARM = ("Jitting", "Pilot", "Warmup")
_REQUIRED = ("IterationMode", "LaunchIndex", "Operations", "Nanoseconds")
_CSV_COLUMNS = ("Measurement_LaunchIndex", "Measurement_IterationMode",
                "Measurement_Nanoseconds", "Measurement_Operations")


def sniff_json(head: str) -> bool:
    return head.lstrip().startswith("{") and any(
        k in head for k in ('"HostEnvironmentInfo"', '"BenchmarkDotNetCaption"',
                            '"BenchmarkDotNetVersion"'))


def sniff_csv(head: str) -> bool:
    first = head.lstrip("\ufeff").splitlines()[0] if head.strip() else ""
    return "Measurement_LaunchIndex" in first or (
        first.startswith("Target") and "Measurement_" in first)


def _params(text: Any) -> dict[str, str]:
    if not isinstance(text, str) or not text:
        return {}
    out = {}
    for part in text.split("&"):
        k, _, v = part.partition("=")
        out[k] = v
    return out


def _name(base: str, params: dict[str, str]) -> str:
    if not params:
        return base
    return base + "[" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + "]"


class _Launches:
    """The measurements of one benchmark, split by launch."""

    def __init__(self, path: Path, name: str, where: str) -> None:
        self.path, self.name, self.where = path, name, where
        self.launches: dict[int, dict[str, Any]] = {}
        self.extra = 0

    def add(self, mode: str, stage: str, launch: int, ops: float, ns: float, where: str) -> None:
        if not ops > 0:
            raise DataFormatError(str(self.path), f"Operations {ops!r} must be positive", where)
        if launch < 1:  # BDN's Extra (diagnoser) run has LaunchIndex 0
            self.extra += 1
            return
        la = self.launches.setdefault(launch, {"warm": [], "actual": [], "overhead": [],
                                               "overhead_actual": [], "result": 0, "extra": 0,
                                               "where": where})
        per_op = ns / ops
        if mode == "Overhead":
            la["overhead"].append(per_op)
            if stage == "Actual":
                la["overhead_actual"].append(per_op)
        elif mode == "Workload":
            if stage in _WARM:
                la["warm"].append(per_op)
            elif stage == "Actual":
                la["actual"].append(per_op)
            elif stage == "Result":
                la["result"] += 1
            else:
                la["extra"] += 1
        else:
            raise DataFormatError(str(self.path), f"unknown IterationMode {mode!r} (expected "
                                  "Workload or Overhead)", where)

    def series(self, meta: dict[str, Any], params: dict[str, str],
               pending: list[tuple[str, str, str]]) -> list[Series]:
        out = []
        for launch in sorted(self.launches):
            la = self.launches[launch]
            where = f"{self.where}, launch {launch}"
            if not la["actual"]:
                pending.append((self.name, f"launch {launch} of {self.name!r} has no Workload "
                                f"Actual iterations ({len(la['warm'])} warm-up); the process "
                                "crashed or was cut: it is left out", where))
                continue
            m = {**meta, "launch": launch, "overhead_iterations": len(la["overhead"]),
                 "result_iterations": la["result"], "extra_iterations": la["extra"] + self.extra}
            if la["overhead_actual"]:
                m["overhead_ns_per_op"] = statistics.median(la["overhead_actual"])
            out.append(execution(la["warm"] + la["actual"], benchmark=self.name, index=launch - 1,
                                 harness="benchmarkdotnet", unit="ns", direction=LOWER,
                                 warmup=len(la["warm"]), params=params or None,
                                 id=f"{self.name}/launch{launch - 1}", metadata=m))
        if not self.launches:
            pending.append((self.name, f"{self.name!r} has no launch with measurements; it is "
                            "left out", self.where))
        return out


def _number(v: Any, path: Path, key: str, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise DataFormatError(str(path), f"{key} {v!r} is not a finite number", where)
    return float(v)


def _unique_names(bases: list[str], jobs: list[str]) -> list[str]:
    counts: dict[str, int] = {}
    for b in bases:
        counts[b] = counts.get(b, 0) + 1
    return [f"{b} ({j})" if counts[b] > 1 and j else b for b, j in zip(bases, jobs)]


def read_json_export(path: Path) -> list[Series]:
    """Read a BenchmarkDotNet full JSON export (see the module docstring).

    Raises:
        DataFormatError: a brief export, or a measurement without one of its fields (names the
            benchmark and measurement, and the keys found: a renamed field).
    """
    path = Path(path)
    doc = read_json(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("Benchmarks"), list):
        raise DataFormatError(str(path), "no 'Benchmarks' list: not a BenchmarkDotNet JSON export",
                              "top level")
    host = json_object(doc, "HostEnvironmentInfo")
    run = {k: host[k] for k in ("BenchmarkDotNetVersion", "OsVersion", "ProcessorName",
                                "RuntimeVersion", "Architecture", "Configuration")
           if isinstance(host.get(k), (str, int, float))}
    benches = doc["Benchmarks"]
    if benches and all(isinstance(b, dict) and "Measurements" not in b for b in benches):
        raise DataFormatError(str(path), "a brief export without 'Measurements': export the full "
                              "JSON (JsonExporter.Full, [JsonExporterAttribute.Full], or "
                              "'--exporters json' which writes *-report-full-compressed.json)")
    bases, jobs = [], []
    for b in benches:
        b = b if isinstance(b, dict) else {}
        base = f"{b.get('Type', '?')}.{b.get('MethodTitle') or b.get('Method', '?')}"
        bases.append(_name(base, _params(b.get("Parameters"))))
        display = str(b.get("DisplayInfo", ""))  # "Type.Method: JobId(Characteristics) [Params]"
        job = display.split(": ", 1)[1] if ": " in display else ""
        jobs.append(re.split(r"[(\[]", job, maxsplit=1)[0].strip())
    names = _unique_names(bases, jobs)
    out: list[Series] = []
    pending: list[tuple[str, str, str]] = []
    for i, (b, name) in enumerate(zip(benches, names)):
        where = f"Benchmarks[{i}]"
        if not isinstance(b, dict) or not isinstance(b.get("Measurements"), list):
            raise DataFormatError(str(path), "a benchmark without a 'Measurements' list", where)
        launches = _Launches(path, name, where)
        for j, m in enumerate(b["Measurements"]):
            mwhere = f"{where}.Measurements[{j}]"
            if not isinstance(m, dict):
                raise DataFormatError(str(path), "a measurement must be an object", mwhere)
            missing = [k for k in _REQUIRED if k not in m]
            if missing:
                raise DataFormatError(str(path), f"a measurement without {', '.join(missing)} (it "
                                      f"has {', '.join(sorted(m)) or 'nothing'}): a renamed "
                                      "field?", mwhere)
            mode, stage = str(m["IterationMode"]), m.get("IterationStage")
            if stage is None:
                if mode not in _OLD_MODES:
                    raise DataFormatError(str(path), f"no IterationStage and IterationMode {mode!r}"
                                          " is not one of BenchmarkDotNet 0.10's modes", mwhere)
                mode, stage = _OLD_MODES[mode]
            launch = m["LaunchIndex"]
            if isinstance(launch, bool) or not isinstance(launch, int):
                raise DataFormatError(str(path), f"LaunchIndex {launch!r} is not an integer", mwhere)
            launches.add(mode, str(stage), launch, _number(m["Operations"], path, "Operations", mwhere),
                         _number(m["Nanoseconds"], path, "Nanoseconds", mwhere), mwhere)
        meta = {**run, "source": str(path), "format": "bdn-json"}
        for key, meta_key in (("Namespace", "namespace"), ("FullName", "full_name"),
                              ("DisplayInfo", "display_info")):
            if isinstance(b.get(key), str):
                meta[meta_key] = b[key]
        out += launches.series(meta, _params(b.get("Parameters")), pending)
    if not out:
        raise DataFormatError(str(path), "no benchmark with Workload Actual measurements")
    for bench, reason, where in pending:
        report(out, bench, str(path), reason, where)
    return out


def _csv_number(cell: str, decimal_comma: bool, path: Path, where: str) -> float:
    text = cell.strip()
    if decimal_comma:
        text = text.replace(".", "").replace(",", ".") if "," in text else text
    try:
        value = float(text.replace("\u00a0", "").replace(" ", ""))
    except ValueError:
        raise DataFormatError(str(path), f"{cell!r} is not a number", where) from None
    if not math.isfinite(value):
        raise DataFormatError(str(path), f"{cell!r} is not a finite number", where)
    return value


def read_csv_export(path: Path) -> list[Series]:
    """Read a BenchmarkDotNet ``*-measurements.csv`` (see the module docstring).

    Raises:
        DataFormatError: a missing ``Measurement_*`` column (a renamed field) or a bad value (names
            the line and column).
    """
    path = Path(path)
    text = read_text(path)
    if not text.endswith("\n") and "\n" in text:
        text = text[:text.rfind("\n") + 1]  # a line still being written
    first = text.split("\n", 1)[0]
    delim = ";" if first.count(";") > first.count(",") else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=delim))
    if not rows:
        raise DataFormatError(str(path), "the file is empty")
    header = [c.strip() for c in rows[0]]
    missing = [c for c in _CSV_COLUMNS if c not in header]
    if missing:
        raise DataFormatError(str(path), f"no {', '.join(missing)} column (columns: "
                              f"{', '.join(header)}): a renamed field?", "line 1")
    col = {h: k for k, h in enumerate(header)}
    stage_col = col.get("Measurement_IterationStage")
    decimal_comma = delim == ";"
    groups: dict[tuple[str, str, str], _Launches] = {}
    info: dict[tuple[str, str, str], dict[str, Any]] = {}
    for lineno, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        where = f"line {lineno}"
        if len(row) != len(header):
            raise DataFormatError(str(path), f"{len(row)} cells for {len(header)} columns", where)

        def cell(name: str) -> str:
            return row[col[name]].strip() if name in col else ""

        target = cell("Target") or f"{cell('Target_Type')}.{cell('Target_Method')}"
        key = (target, cell("Params"), cell("Job_Id"))
        if key not in groups:
            groups[key] = _Launches(path, "", where)
            info[key] = {"namespace": cell("Target_Namespace"), "job": cell("Job_Id"),
                         "line": lineno}
        mode = cell("Measurement_IterationMode")
        stage = row[stage_col].strip() if stage_col is not None else None
        if stage is None:
            if mode not in _OLD_MODES:
                raise DataFormatError(str(path), f"IterationMode {mode!r} without an "
                                      "IterationStage column", where)
            mode, stage = _OLD_MODES[mode]
        launch_text = cell("Measurement_LaunchIndex")
        if not launch_text.lstrip("-").isdigit():
            raise DataFormatError(str(path), f"LaunchIndex {launch_text!r} is not an integer", where)
        groups[key].add(mode, stage, int(launch_text),
                        _csv_number(cell("Measurement_Operations"), decimal_comma, path,
                                    f"{where}, Measurement_Operations"),
                        _csv_number(cell("Measurement_Nanoseconds"), decimal_comma, path,
                                    f"{where}, Measurement_Nanoseconds"), where)
    keys = list(groups)
    names = _unique_names([_name(t, _params(p)) for t, p, _ in keys], [j for _, _, j in keys])
    out: list[Series] = []
    pending: list[tuple[str, str, str]] = []
    for key, name in zip(keys, names):
        la = groups[key]
        la.name, la.where = name, f"line {info[key]['line']}"
        meta = {"source": str(path), "format": "bdn-csv", "namespace": info[key]["namespace"]}
        if info[key]["job"]:
            meta["job"] = info[key]["job"]
        out += la.series(meta, _params(key[1]), pending)
    if not out:
        raise DataFormatError(str(path), "no benchmark with Workload Actual measurements")
    for bench, reason, where in pending:
        report(out, bench, str(path), reason, where)
    return out
