"""hyperfine ``--export-json`` results (checked against hyperfine 1.15.0), and its
``--export-csv`` summaries (refused with a pointer to the JSON export).

JSON layout::

    {"results": [{"command": "sleep 0.001", "mean", "stddev", "median", "user", "system",
                  "min", "max", "times": [seconds, ...], "exit_codes": [0, ...],
                  "parameters": {"ms": "1"}}, ...]}

* **One benchmark per command** (its name is ``command``: the command line, or the name given
  with ``--command-name``; a ``--parameter-scan``/``--parameter-list`` run has one result per
  parameter value, its ``parameters`` become the benchmark's params).
* **Each entry of ``times`` is one run, and hyperfine starts every run as its own process.**
  segview loads a command as *one execution whose iterations are its runs*, in the order they ran:
  the warm-up a hyperfine user studies is the one across runs (disk cache, CPU frequency, JIT
  caches on disk), and that sequence is the series. ``metadata["iteration_is_process"]`` is True
  to say so. hyperfine does not export its ``--warmup N`` runs, so no value is marked as warm-up.
* Values are wall-clock seconds (``unit="s"``, lower is better). A run with a non-zero exit code
  (possible with ``--ignore-failure``) is kept and counted in ``failed_runs``, with a warning.

The CSV export (``command,mean,stddev,median,user,system,min,max``) holds one summary row per
command and no run times: reading it is a named error that points to ``--export-json``.
"""
from __future__ import annotations

import re
from pathlib import Path

from ..benchmark import LOWER, execution
from ..errors import DataFormatError
from ..model import Series
from .harness_common import Names, crashed, field, json_meta, numbers
from .readers import read_json

NAME = "hyperfine"
_HEAD = re.compile(r'^\{\s*"results"\s*:\s*\[\s*(\{\s*"command"\s*:|\])')
_CSV_HEAD = re.compile(r"^command,mean,stddev,median,(user,system,)?min,max")
EXPORT_JSON = ("rerun hyperfine with --export-json FILE.json: its JSON export keeps every run's "
               "time")


def sniff(head: str) -> bool:
    return bool(_HEAD.match(head.lstrip()))


def sniff_csv(head: str) -> bool:
    return bool(_CSV_HEAD.match(head.lstrip()))


def read_csv(path: Path) -> list[Series]:
    """hyperfine's CSV export holds summaries only: always a DataFormatError saying so."""
    raise DataFormatError(str(path), "a hyperfine --export-csv file holds one summary row per "
                                     f"command (mean, stddev, min, max), not the runs; {EXPORT_JSON}",
                          "header")


def read(path: Path) -> list[Series]:
    """Read a hyperfine --export-json file; DataFormatError names the file and the place."""
    path = Path(path)
    data = read_json(path)
    results = field(data, "results", path, "top level", NAME, list)
    if not results:
        raise DataFormatError(str(path), "the file holds no result", "results")
    names = Names(path, NAME, " (give each command its own name with --command-name)")
    out: list[Series] = []
    for r, res in enumerate(results):
        where = f"results[{r}]"
        command = str(field(res, "command", path, where, NAME, str))
        names.add(command, where)
        times = numbers(field(res, "times", path, where, NAME, list), path, f"{where}.times")
        if len(times) == 0:
            raise DataFormatError(str(path), f"command {command!r} has no run", f"{where}.times")
        params = res.get("parameters") if isinstance(res.get("parameters"), dict) else None
        md = {"source": str(path), "format": NAME, "iteration_is_process": True,
              **json_meta({k: res[k] for k in ("user", "system") if k in res})}
        codes = res.get("exit_codes")
        if isinstance(codes, list):
            failed = len(codes) - codes.count(0) - codes.count(None)  # C speed, no loop
            if failed:
                md["failed_runs"] = failed
                md["load_warnings"] = [crashed(path, command, f"{where}.exit_codes",
                                               f"{failed} of {len(codes)} runs exited with a "
                                               "non-zero code (kept)")]
        out.append(execution(times, benchmark=command, index=0, harness=NAME, unit="s",
                             direction=LOWER, params=json_meta(params) or None, metadata=md))
    return out
