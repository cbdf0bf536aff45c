"""pytest-benchmark JSON (``pytest --benchmark-json=FILE --benchmark-save-data``, or the files
``--benchmark-autosave`` keeps under ``.benchmarks/``; checked against pytest-benchmark 5.3.1).

Layout::

    {"machine_info": {...}, "commit_info": {...},
     "benchmarks": [{"group", "name", "fullname", "params", "param", "extra_info", "options",
                     "stats": {"min", "max", "mean", ..., "rounds", "iterations", "data": [...]}}],
     "datetime": "...", "version": "5.3.1"}

* **Raw timings** are in ``stats.data``, one value per *round*, in seconds per call (pytest-benchmark
  divides each round's time by its ``iterations``). ``--benchmark-json`` always writes them (5.x);
  the files of ``--benchmark-save``/``--benchmark-autosave`` have them only with
  ``--benchmark-save-data``. A file without them holds summaries only, which segview cannot
  analyse: a named error says to rerun with ``--benchmark-save-data``.
* pytest runs every benchmark in **one process**: each benchmark is one execution (index 0) whose
  iterations are its rounds. pytest-benchmark's own warm-up rounds (``--benchmark-warmup``,
  ``warmup_rounds``) are not saved, so no value is marked as warm-up.
* The benchmark's name is ``fullname`` (``test_mod.py::test_sorted[10]``: unique within a run;
  ``name`` and ``group`` go into the metadata), its ``params`` are the parameters; the unit is
  ``s`` and lower is better. ``machine_info`` and ``commit_info`` are kept as metadata.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..benchmark import LOWER, execution
from ..errors import DataFormatError
from ..model import Series
from .harness_common import Names, field, json_meta, numbers
from .readers import read_json

NAME = "pytest-benchmark"
_HEAD = re.compile(r'^\{\s*"machine_info"\s*:\s*\{')
RERUN = ("rerun pytest with --benchmark-save-data (with --benchmark-save/--benchmark-autosave) or "
         "with --benchmark-json=FILE, which keep each round's time")


def sniff(head: str) -> bool:
    return bool(_HEAD.match(head.lstrip()))


def read(path: Path) -> list[Series]:
    """Read a pytest-benchmark JSON file; DataFormatError names the file and the place."""
    path = Path(path)
    data = read_json(path)
    benches = field(data, "benchmarks", path, "top level", NAME, list)
    if not benches:
        raise DataFormatError(str(path), "the file holds no benchmark", "benchmarks")
    run_meta = {k: data[k] for k in ("machine_info", "commit_info", "datetime", "version")
                if k in data}
    run_meta = json_meta(run_meta)
    if "version" in run_meta:
        run_meta["pytest_benchmark_version"] = run_meta.pop("version")
    names = Names(path, NAME)
    out: list[Series] = []
    summaries_only = []
    for b, bench in enumerate(benches):
        where = f"benchmarks[{b}]"
        stats = field(bench, "stats", path, where, NAME, dict)
        name = str(field(bench, "fullname", path, where, NAME, str))
        names.add(name, where)
        if "data" not in stats:
            if any(k in stats for k in ("mean", "min", "median")):
                summaries_only.append(name)
                continue
            field(stats, "data", path, f"{where}.stats", NAME, list)  # names the missing field
        vals = numbers(stats["data"], path, f"{where}.stats.data")
        if len(vals) == 0:
            raise DataFormatError(str(path), f"benchmark {name!r} holds no round", f"{where}.stats.data")
        params = bench.get("params") if isinstance(bench.get("params"), dict) else None
        md = {**run_meta, "source": str(path), "format": NAME,
              **json_meta({k: bench[k] for k in ("name", "group", "param", "extra_info", "options")
                           if k in bench}),
              **({"call_iterations": stats["iterations"]}
                 if isinstance(stats.get("iterations"), int) else {})}
        out.append(execution(vals, benchmark=name, index=0, harness=NAME, unit="s",
                             direction=LOWER, params=json_meta(params) or None, metadata=md))
    if summaries_only:
        raise DataFormatError(str(path), f"summaries only: {len(summaries_only)} benchmark(s) "
                                         f"({', '.join(summaries_only[:3])}"
                                         f"{', ...' if len(summaries_only) > 3 else ''}) have no "
                                         f"raw timings (stats.data); {RERUN}", "benchmarks[].stats")
    return out
