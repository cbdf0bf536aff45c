"""pyperf JSON results (``pyperf timeit/command -o FILE``, ``Runner(...).bench_func``, ``pyperf
convert``; checked against pyperf 2.11.0, file format ``"version": "1.0"``).

Layout::

    {"benchmarks": [{"metadata": {...}, "runs": [
        {"metadata": {...}, "warmups": [[loops, value], ...], "values": [value, ...]}, ...]}, ...],
     "metadata": {... common to all benchmarks: "unit", "loops", "name", machine, Python ...},
     "version": "1.0"}

A file ending in ``.gz`` is gzip-compressed (pyperf compresses by suffix); segview decompresses by
content. A benchmark's metadata is the file's common ``metadata`` updated by the benchmark's own;
its name is ``metadata.name``, its unit ``metadata.unit`` (``"second"`` by default, ``"byte"`` for
``--track-memory``, ``"integer"``); lower is better for all three.

* **Each run is one worker process**: one execution of the benchmark, its values in order the
  ``warmups`` (marked as the harness's warm-up, ``warmup=len(warmups)``) then the ``values``. Every
  value is already per loop iteration (pyperf divides by ``loops`` and ``inner_loops``); a
  warm-up's loop count is kept in ``warmup_loops``. Run metadata (date, duration, load, RSS...)
  goes into the execution's metadata.
* **Calibration runs** (a run with ``warmups`` but no ``values``, written when pyperf calibrates
  the number of loops: its metadata has ``calibrate_loops`` or ``recalibrate_loops``) measure
  nothing: they are not executions. Their number is recorded as ``calibration_runs`` in every
  execution's metadata. Execution indices count the measuring worker processes only (0-based).
* A run with neither warm-ups nor values is a crashed worker: reported as a warning (and in
  ``load_warnings`` of the benchmark's first execution), not dropped silently; the other runs keep
  their original index so the gap is visible.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ..benchmark import LOWER, direction_for_unit, execution
from ..errors import DataFormatError
from ..model import Series
from .harness_common import Names, crashed, field, json_meta, number, numbers
from .readers import json_object, read_json

NAME = "pyperf"
_HEAD = re.compile(r'^\{\s*"benchmarks"\s*:\s*\[\s*\{\s*"(metadata|runs)"\s*:')
_LOWER_UNITS = ("second", "byte", "integer")
_CALIBRATION_KEYS = ("calibrate_loops", "recalibrate_loops", "calibrate_warmups",
                     "recalibrate_warmups")


def sniff(head: str) -> bool:
    return bool(_HEAD.match(head.lstrip()))


def _warmups(raw: Any, path: Path, where: str) -> tuple[list[float], list[int]]:
    if not isinstance(raw, list):
        raise DataFormatError(str(path), f"'warmups' is {type(raw).__name__}, expected a list of "
                                         "[loops, value] pairs", where)
    values, loops = [], []
    for i, pair in enumerate(raw):
        w = f"{where}, warmups[{i}]"
        if not isinstance(pair, list) or len(pair) != 2:
            raise DataFormatError(str(path), f"expected a [loops, value] pair, got {pair!r}", w)
        loops.append(int(number(pair[0], path, w)))
        values.append(number(pair[1], path, w))
    return values, loops


def read(path: Path) -> list[Series]:
    """Read a pyperf JSON (or .json.gz) file; DataFormatError names the file and the place."""
    path = Path(path)
    data = read_json(path)
    version = data.get("version") if isinstance(data, dict) else None
    benches = field(data, "benchmarks", path, "top level", NAME, list)
    if not benches:
        raise DataFormatError(str(path), "the file holds no benchmark", "benchmarks")
    common = json_object(data, "metadata")
    names = Names(path, NAME, "; pyperf itself refuses that (give each benchmark its own --name)")
    out: list[Series] = []
    for b, bench in enumerate(benches):
        where = f"benchmarks[{b}]"
        own = bench.get("metadata") if isinstance(bench, dict) else None
        meta = {**common, **(own if isinstance(own, dict) else {})}
        runs = field(bench, "runs", path, where, NAME, list)
        name = str(meta.get("name") or (path.stem if len(benches) == 1 else f"{path.stem}#{b}"))
        names.add(name, where)
        unit = str(meta.get("unit", "second"))
        direction = LOWER if unit in _LOWER_UNITS else direction_for_unit(unit)
        calibration = 0
        load_warnings: list[str] = []
        found: list[tuple[int, np.ndarray, int, list[int], dict[str, Any]]] = []
        index = 0
        for r, run in enumerate(runs):
            w = f"{where}.runs[{r}]"
            if not isinstance(run, dict):
                raise DataFormatError(str(path), f"a run is {type(run).__name__}, expected an "
                                                 "object", w)
            if "values" not in run and "warmups" not in run and set(run) - {"metadata"}:
                field(run, "values", path, w, NAME, list)  # a renamed field: named error
            run_meta = json_object(run, "metadata")
            warm, loops = _warmups(run.get("warmups", []), path, w)
            vals = numbers(run.get("values", []), path, f"{w}.values")
            if len(vals) == 0:
                if warm or any(k in run_meta for k in _CALIBRATION_KEYS):
                    calibration += 1  # a calibration run: warm-ups only, not an execution
                    continue
                load_warnings.append(crashed(path, name, w, f"worker process {index} recorded "
                                                            "no value (crashed?)"))
                index += 1
                continue
            allv = np.concatenate([np.asarray(warm, dtype=np.float64), vals])
            found.append((index, allv, len(warm), loops, json_meta(run_meta)))
            index += 1
        if not found:
            raise DataFormatError(str(path), f"benchmark {name!r} has no run with values "
                                             f"({calibration} calibration run(s) only)", where)
        bench_meta = json_meta(meta)
        for k in ("name", "unit"):
            bench_meta.pop(k, None)
        for j, (idx, allv, nwarm, loops, run_meta) in enumerate(found):
            md: dict[str, Any] = {**bench_meta, **run_meta, "source": str(path), "format": NAME,
                                  "calibration_runs": calibration, "warmup_loops": loops}
            if version is not None:
                md["pyperf_format"] = str(version)
            if j == 0 and load_warnings:
                md["load_warnings"] = list(load_warnings)
            out.append(execution(allv, benchmark=name, index=idx, harness=NAME, unit=unit,
                                 direction=direction, warmup=nwarm, metadata=md))
    return out
