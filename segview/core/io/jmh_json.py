"""JMH measurements as JSON.

Two layouts are read:

* the fork list of the steady-state studies: ``[[x0, x1, ...], [x0, ...], ...]``, one list per fork;
  a flat list of numbers is taken as a single fork;
* JMH's own result file (``-rf json``): a list of benchmark objects whose
  ``primaryMetric.rawData`` holds one list per fork.

Series ids: the file stem when the file holds one fork, ``stem/forkK`` (0-based K) when it holds
several; for JMH result files ``benchmark[params]/forkK``.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from ..benchmark import HIGHER, LOWER, direction_for_unit, execution
from ..errors import DataFormatError
from ..model import Series
from .readers import NotSeriesFile, finite_floats, read_json


def sniff(head: str) -> bool:
    return head.lstrip().startswith("[")


def _numbers(values: Any, path: Path, where: str) -> Any:
    """The fork as float64 (vectorised); a bad value raises DataFormatError naming its index."""
    if not isinstance(values, list):
        raise DataFormatError(str(path), f"expected a list of numbers, got {type(values).__name__}",
                              where)
    if not values:
        raise DataFormatError(str(path), "the fork holds no measurements", where)
    fast = finite_floats(values)
    if fast is not None:
        return fast
    out = []  # only to name the bad value
    for i, v in enumerate(values):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise DataFormatError(str(path), f"value {v!r} is not a number", f"{where}, index {i}")
        try:
            f = float(v)
        except OverflowError:
            raise DataFormatError(str(path), f"value of {len(str(v))} digits is too large for a "
                                             "number", f"{where}, index {i}") from None
        if not math.isfinite(f):
            raise DataFormatError(str(path), f"value {v!r} is not finite", f"{where}, index {i}")
        out.append(f)
    return out


_TIME_MODES = ("avgt", "sample", "ss")  # JMH's time-per-operation modes (thrpt is a rate)


def _bench_name(entry: dict[str, Any]) -> str:
    name = str(entry.get("benchmark", "benchmark"))
    params = entry.get("params")
    if isinstance(params, dict) and params:
        name += "[" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + "]"
    return name


def _read_jmh_results(data: list[Any], path: Path) -> list[Series]:
    out: list[Series] = []
    for b, entry in enumerate(data):
        where = f"benchmark {b}"
        metric = entry.get("primaryMetric") if isinstance(entry, dict) else None
        if not isinstance(metric, dict):
            raise DataFormatError(str(path), "JMH result entry has no primaryMetric object", where)
        raw = metric.get("rawData")
        if not isinstance(raw, list) or not raw:
            raise DataFormatError(str(path), "JMH result entry has no primaryMetric.rawData", where)
        name = _bench_name(entry)
        unit = str(metric.get("scoreUnit", ""))
        mode = str(entry.get("mode", ""))
        direction = HIGHER if mode == "thrpt" else LOWER if mode in _TIME_MODES else None
        params = entry.get("params") if isinstance(entry.get("params"), dict) else None
        run_meta = {k: entry[k] for k in ("jmhVersion", "jvm", "vmName", "vmVersion", "mode",
                                          "threads", "forks", "warmupIterations",
                                          "measurementIterations", "measurementTime")
                    if k in entry and isinstance(entry[k], (str, int, float))}
        for k, fork in enumerate(raw):
            vals = _numbers(fork, path, f"{where}, fork {k}")
            # rawData holds the measured iterations only: JMH keeps warm-up iterations in its
            # console log alone, so warmup is 0 here.
            out.append(execution(vals, benchmark=name, index=k, harness="jmh", unit=unit,
                                 direction=direction or direction_for_unit(unit), params=params,
                                 id=f"{name}/fork{k}",
                                 metadata={**run_meta, "source": str(path), "fork": k,
                                           "format": "jmh-result"}))
    return out


def read(path: Path) -> list[Series]:
    """Read a JMH fork list or JMH result file; raises DataFormatError naming file and place."""
    path = Path(path)
    data = read_json(path)
    if isinstance(data, dict):
        raise NotSeriesFile(str(path), "a JSON object, not a JMH fork list (a list of forks)")
    if not isinstance(data, list) or not data:
        raise DataFormatError(str(path), "expected a non-empty list of forks")
    if all(isinstance(e, dict) for e in data):
        return _read_jmh_results(data, path)
    if set(map(type, data)) <= {int, float}:
        data = [data]  # a single fork written as a flat list
    forks = [_numbers(fork, path, f"fork {k}") for k, fork in enumerate(data)]
    stem = path.stem
    # A fork list carries no unit: the direction stays unknown.
    return [execution(f, benchmark=stem, index=k, harness="jmh",
                      id=stem if len(forks) == 1 else f"{stem}/fork{k}",
                      metadata={"source": str(path), "fork": k, "format": "jmh"})
            for k, f in enumerate(forks)]
