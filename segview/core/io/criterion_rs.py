"""Criterion.rs results: ``target/criterion/<group>/<function>/<value>/new/sample.json`` and the
``raw.csv`` beside it (checked against criterion 0.3.6 as packaged by Debian 12; the files have kept
this layout through 0.5).

``sample.json`` (criterion's ``SavedSample``)::

    {"sampling_mode": "Linear" | "Flat", "iters": [d, 2d, ...], "times": [ns, ...]}

``times[i]`` is the total time in nanoseconds (wall-clock measurement) of a sample of ``iters[i]``
iterations, so the value is ``times[i] / iters[i]`` ns per iteration. ``raw.csv`` (criterion's
CSV report)::

    group,function,value,throughput_num,throughput_type,sample_measured_value,unit,iteration_count

with ``sample_measured_value`` the sample's total in ``unit`` for ``iteration_count`` iterations;
the value is their quotient, in ``unit``.

* The name: ``sample.json`` does not hold it; ``benchmark.json`` beside it does (``full_id``,
  e.g. ``sum/100``; ``group_id``, ``function_id``, ``value_str``, ``throughput``): it is read when
  present, else the name is the folder path between ``criterion/`` and ``new/`` (criterion's
  directory names replace some characters, so they may differ from the real name). ``raw.csv``
  names it in its columns (``group/function/value``). A ``value`` becomes the parameter ``value``.
* **Criterion runs every benchmark of a bench target in one process**, one sample after the other:
  a benchmark is **one execution** (index 0) whose iterations are its samples. Criterion's warm-up
  phase is not recorded, so nothing is marked as warm-up. Each sample's iteration count is kept in
  ``criterion_iters``; lower is better.
* ``new/`` holds the latest run; after a run criterion copies it to ``base/`` (or to
  ``--save-baseline NAME``). A baseline's ``sample.json`` identical to ``new/sample.json`` is a
  copy and is skipped in folder loads; a different one (an earlier run) loads as the benchmark
  ``NAME@baseline``. A ``raw.csv`` beside a ``sample.json`` holds the same samples and is skipped.
  Criterion's other files (``benchmark.json``, ``estimates.json``, ``tukey.json``) are not series
  and are skipped in folder loads.
"""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..benchmark import LOWER, execution
from ..errors import DataFormatError
from ..model import Series
from .harness_common import field, json_meta, numbers
from .readers import NotSeriesFile, read_json, read_text

NAME = "criterion"
LABEL = "Criterion.rs"  # in messages
HARNESS = "criterion"
_HEAD = re.compile(r'^\{\s*"(sampling_mode|iters|times)"\s*:')
_COMPANION = re.compile(r'^\{\s*"(group_id|mean|median|std_dev|slope|median_abs_dev)"\s*:')
_TUKEY = re.compile(r"^\[\s*(-?[0-9.eE+-]+\s*,\s*){3}-?[0-9.eE+-]+\s*\]\s*$")
_CSV_HEAD = re.compile(r"^group,function,value,throughput_num,throughput_type,")


def sniff(head: str) -> bool:
    return bool(_HEAD.match(head.lstrip()))


def sniff_companion(head: str) -> bool:
    text = head.lstrip()
    return bool(_COMPANION.match(text)) or bool(_TUKEY.match(text))


def sniff_csv(head: str) -> bool:
    return bool(_CSV_HEAD.match(head.lstrip()))


def read_companion(path: Path) -> list[Series]:
    """Criterion's ``benchmark.json``/``estimates.json``/``tukey.json``: not series (skipped in
    folder loads). A four-number list not named ``tukey.json`` is a JMH fork list after all."""
    path = Path(path)
    if path.name != "tukey.json" and _TUKEY.match(read_text(path).lstrip()):
        from . import jmh_json
        return jmh_json.read(path)
    raise NotSeriesFile(str(path), "a Criterion.rs summary file (benchmark.json, estimates.json, "
                                   "tukey.json), not measurements; open new/sample.json beside it")


def _layout(path: Path) -> tuple[str, str]:
    """(benchmark name from the folders, baseline folder name) for ``.../<bench>/<baseline>/F``;
    the baseline is '' when the file does not sit in criterion's layout (a ``new`` folder or a
    folder beside one)."""
    parent = path.resolve().parent
    if parent.name == "new" or (parent.parent / "new").is_dir():
        baseline, inner = parent.name, list(parent.parent.parts)
    else:
        baseline, inner = "", list(parent.parts)
    if "criterion" in inner[:-1]:
        k = len(inner) - 1 - inner[::-1].index("criterion")
        name_parts = inner[k + 1:]
    else:
        name_parts = inner[-1:]
    return "/".join(name_parts) or path.stem, baseline


def _identical_copy(path: Path, baseline: str) -> bool:
    new = path.parent.parent / "new" / path.name
    if baseline == "new" or not new.is_file():
        return False
    try:
        return new.read_bytes() == path.read_bytes()
    except OSError:
        return False


def _benchmark_json(path: Path) -> dict[str, Any]:
    p = path.parent / "benchmark.json"
    if not p.is_file():
        return {}
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return d if isinstance(d, dict) else {}


def read(path: Path) -> list[Series]:
    """Read a Criterion.rs ``sample.json``; DataFormatError names the file and the place."""
    path = Path(path)
    folder_name, baseline = _layout(path)
    if _identical_copy(path, baseline):
        raise NotSeriesFile(str(path), f"a copy of ../new/{path.name} (criterion's {baseline!r} "
                                       "baseline); load new/sample.json")
    data = read_json(path)
    iters = numbers(field(data, "iters", path, "top level", LABEL, list), path, "iters")
    times = numbers(field(data, "times", path, "top level", LABEL, list), path, "times")
    if len(iters) != len(times):
        raise DataFormatError(str(path), f"{len(iters)} iteration counts for {len(times)} times",
                              "iters/times")
    if len(times) == 0:
        raise DataFormatError(str(path), "the sample is empty", "times")
    bad = np.flatnonzero(iters <= 0)
    if bad.size:
        raise DataFormatError(str(path), f"iteration count {iters[bad[0]]:g} is not positive",
                              f"iters[{bad[0]}]")
    bench = _benchmark_json(path)
    name = str(bench.get("full_id") or folder_name)
    value = bench.get("value_str")
    md: dict[str, Any] = {"source": str(path), "format": NAME,
                          "sampling_mode": data.get("sampling_mode"),
                          "criterion_iters": iters.tolist(), "baseline": baseline,
                          **json_meta({k: bench[k] for k in ("group_id", "function_id",
                                                             "throughput", "title")
                                       if k in bench})}
    if baseline not in ("new", ""):
        name = f"{name}@{baseline}"
    return [execution(times / iters, benchmark=name, index=0, harness=HARNESS, unit="ns",
                      direction=LOWER, params={"value": value} if value else None, metadata=md)]


def read_csv(path: Path) -> list[Series]:
    """Read a Criterion.rs ``raw.csv``; DataFormatError names the file and the line."""
    path = Path(path)
    if (path.parent / "sample.json").is_file():
        raise NotSeriesFile(str(path), "the same samples as sample.json beside it; load that")
    _, baseline = _layout(path)
    text = read_text(path)
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0] if rows else []
    cols = {c: i for i, c in enumerate(header)}
    for c in ("group", "function", "value", "sample_measured_value", "unit", "iteration_count"):
        if c not in cols:
            raise DataFormatError(str(path), f"no {c!r} column (header: {', '.join(header)}); a "
                                             "Criterion.rs version that renamed it is not "
                                             "supported yet", "line 1")
    out: dict[str, dict[str, Any]] = {}
    for line, row in enumerate(rows[1:], start=2):
        where = f"line {line}"
        if len(row) != len(header):
            raise DataFormatError(str(path), f"{len(row)} fields, {len(header)} expected (a "
                                             "truncated or malformed row)", where)
        name = "/".join(p for p in (row[cols["group"]], row[cols["function"]], row[cols["value"]])
                        if p)
        b = out.setdefault(name, {"unit": row[cols["unit"]], "vals": [], "iters": [],
                                  "value": row[cols["value"]], "where": where})
        if b["unit"] != row[cols["unit"]]:
            raise DataFormatError(str(path), f"benchmark {name!r} mixes units ({b['unit']} at "
                                             f"{b['where']}, {row[cols['unit']]} here)", where)
        try:
            total = float(row[cols["sample_measured_value"]])
            count = float(row[cols["iteration_count"]])
        except ValueError:
            raise DataFormatError(str(path), "sample_measured_value and iteration_count must be "
                                             "numbers", where) from None
        if not count > 0 or not np.isfinite(total):
            raise DataFormatError(str(path), f"bad sample ({total!r} for {count!r} iterations)",
                                  where)
        b["vals"].append(total / count)
        b["iters"].append(count)
    if not out:
        raise DataFormatError(str(path), "the file holds no sample", "line 2")
    return [execution(np.array(b["vals"]), benchmark=name if baseline in ("new", "")
                      else f"{name}@{baseline}", index=0, harness=HARNESS, unit=b["unit"],
                      direction=LOWER, params={"value": b["value"]} if b["value"] else None,
                      metadata={"source": str(path), "format": "criterion-csv",
                                "criterion_iters": b["iters"], "baseline": baseline})
            for name, b in out.items()]
