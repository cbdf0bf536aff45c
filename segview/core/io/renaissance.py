"""Renaissance benchmark suite results (``--json FILE`` and ``--csv FILE``), as written by
``renaissance-harness/.../ResultWriter.scala`` (renaissance-benchmarks/renaissance; checked against
format_version 5 of releases 0.11-0.16.1 and format_version 6 of the main branch at 76d0733, 2026).

One file is one JVM run, that is **one process execution** of each benchmark it ran; each benchmark
*repetition* (an in-process iteration) is one entry/row with ``duration_ns`` (the measured operation's
wall-clock time) and ``uptime_ns`` (when it started, from JVM start), plus one column per plugin
metric. JSON::

    {"format_version": 6, "benchmarks": ["scrabble", ...],
     "environment": {"os": {...}, "vm": {"name": ..., "version": ..., "args": [...], ...}, "jre": {...}},
     "suite": {"git": {"commit_hash": ...}, "name": ..., "version": ...},
     "data": {"scrabble": {"results": [{"duration_ns": 123, "uptime_ns": 456, ...}, ...],
                           "termination": "normal" | "failure"}}}

CSV (rows of one benchmark together, in repetition order)::

    benchmark,duration_ns,uptime_ns,vm_start_unix_ms[,vm_start_ns]
    scrabble,178413937,1043126473,1718000000000,12345

Renaissance does not mark warm-up repetitions (``warmup=0``). A benchmark with ``termination``
``failure`` is a named :class:`~segview.core.errors.DataFormatWarning` (its repetitions are kept); one
without repetitions yields no series (warning). Series: benchmark = the benchmark's name, execution 0,
unit ``ns``, lower is better, id ``name/exec0``. Several runs of the suite are several files whose
executions all have index 0 (segview's benchmark grouping names the repeated index).
"""
from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import numpy as np

from ..benchmark import LOWER, execution
from ..errors import DataFormatError
from ..model import Series
from .loadwarn import report
from .readers import json_object, read_json, read_text

_JSON_MARKERS = ('"format_version"', '"duration_ns"', '"uptime_ns"', '"vm_start_unix_ms"',
                 '"compressed_oops_mode"', '"available_processors"')


def sniff_json(head: str) -> bool:
    """A JSON object with one of Renaissance's own keys in its head (its top-level keys come in
    the JVM's hash order, so the environment block may come first)."""
    return head.lstrip().startswith("{") and any(m in head for m in _JSON_MARKERS)


def _header(head: str) -> list[str]:
    first = head.lstrip("\ufeff").splitlines()[0] if head.strip() else ""
    return [c.strip() for c in first.split(",")]


def sniff_csv(head: str) -> bool:
    cols = _header(head)
    return len(cols) >= 2 and cols[0] == "benchmark" and (
        "duration_ns" in cols or "vm_start_unix_ms" in cols)


def _series(path: Path, bench: str, durations: list[Any], where: str, meta: dict[str, Any]
            ) -> Series:
    try:
        values = np.asarray(durations, dtype=np.float64)
    except (TypeError, ValueError):
        bad = next(i for i, v in enumerate(durations)
                   if isinstance(v, bool) or not isinstance(v, (int, float)))
        raise DataFormatError(str(path), f"duration_ns {durations[bad]!r} is not a number",
                              f"{where}, repetition {bad}") from None
    if not np.isfinite(values).all():
        bad = int(np.flatnonzero(~np.isfinite(values))[0])
        raise DataFormatError(str(path), "duration_ns is not finite", f"{where}, repetition {bad}")
    return execution(values, benchmark=bench, index=0, harness="renaissance", unit="ns",
                     direction=LOWER, metadata=meta)


def read_json_results(path: Path) -> list[Series]:
    """Read a Renaissance ``--json`` file (see the module docstring).

    Raises:
        DataFormatError: no ``data`` object, or a repetition without ``duration_ns`` (names the
            benchmark and repetition, and the keys found: a renamed field).
    """
    path = Path(path)
    doc = read_json(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("data"), dict):
        raise DataFormatError(str(path), "no 'data' object: not a Renaissance --json file",
                              "top level")
    env = json_object(doc, "environment")
    vm = json_object(env, "vm")
    jre = json_object(env, "jre")
    suite = json_object(doc, "suite")
    git = json_object(suite, "git")
    run: dict[str, Any] = {"source": str(path), "format": "renaissance-json"}
    for key, val in (("format_version", doc.get("format_version")), ("vm_name", vm.get("name")),
                     ("vm_version", vm.get("version")), ("vm_args", vm.get("args")),
                     ("vm_start_unix_ms", vm.get("start_unix_ms")),
                     ("jre_version", jre.get("version")), ("suite_version", suite.get("version")),
                     ("suite_commit", git.get("commit_hash"))):
        if isinstance(val, (str, int, float)) or (isinstance(val, list) and
                                                  all(isinstance(v, str) for v in val)):
            run[key] = val
    out: list[Series] = []
    pending: list[tuple[str, str, str]] = []
    for bench, tree in doc["data"].items():
        where = f"data[{bench!r}]"
        results = tree.get("results") if isinstance(tree, dict) else None
        if not isinstance(results, list):
            raise DataFormatError(str(path), "expected a 'results' list of repetitions", where)
        termination = tree.get("termination")
        durations = []
        for i, rep in enumerate(results):
            if not isinstance(rep, dict) or "duration_ns" not in rep:
                keys = ", ".join(sorted(rep)) if isinstance(rep, dict) else type(rep).__name__
                raise DataFormatError(str(path), f"a repetition without 'duration_ns' (it has "
                                      f"{keys or 'nothing'}): a renamed field?",
                                      f"{where}.results[{i}]")
            durations.append(rep["duration_ns"])
        if termination == "failure":
            pending.append((bench, f"benchmark {bench!r} failed (termination 'failure') after "
                            f"{len(durations)} repetitions" + ("; they are kept" if durations
                                                              else ""), where))
        if not durations:
            pending.append((bench, f"benchmark {bench!r} has no repetitions; it is left out", where))
            continue
        meta = {**run, "termination": termination} if isinstance(termination, str) else dict(run)
        uptime = [r.get("uptime_ns") for r in results]
        if uptime and all(isinstance(u, int) for u in uptime):
            meta["first_uptime_ns"] = uptime[0]
        out.append(_series(path, str(bench), durations, where, meta))
    if not out:
        raise DataFormatError(str(path), "no benchmark with repetitions in 'data'")
    for bench, reason, where in pending:
        report(out, bench, str(path), reason, where)
    return out


def read_csv_results(path: Path) -> list[Series]:
    """Read a Renaissance ``--csv`` file (see the module docstring).

    Raises:
        DataFormatError: no ``duration_ns`` column (a renamed field), a bad value (names the line),
            or a benchmark's rows not kept together.
    """
    path = Path(path)
    text = read_text(path)
    if not text.endswith("\n") and "\n" in text:
        text = text[:text.rfind("\n") + 1]  # a line still being written
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise DataFormatError(str(path), "the file is empty")
    header = [c.strip() for c in rows[0]]
    if "duration_ns" not in header:
        raise DataFormatError(str(path), "no 'duration_ns' column (columns: "
                              f"{', '.join(header)}): a renamed field?", "line 1")
    col, bcol = header.index("duration_ns"), header.index("benchmark")
    vcol = header.index("vm_start_unix_ms") if "vm_start_unix_ms" in header else None
    order: dict[str, list[float]] = {}
    first_line: dict[str, int] = {}
    vm_start: dict[str, str] = {}
    last = None
    for lineno, row in enumerate(rows[1:], start=2):
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise DataFormatError(str(path), f"{len(row)} cells for {len(header)} columns",
                                  f"line {lineno}")
        bench, cell = row[bcol].strip(), row[col].strip()
        if bench != last and bench in order:
            raise DataFormatError(str(path), f"rows of {bench!r} are not together (it appeared "
                                  f"at line {first_line[bench]}): repetitions out of order?",
                                  f"line {lineno}")
        last = bench
        first_line.setdefault(bench, lineno)
        try:
            order.setdefault(bench, []).append(float(cell))
        except ValueError:
            raise DataFormatError(str(path), f"duration_ns {cell!r} is not a number",
                                  f"line {lineno}") from None
        if vcol is not None:
            vm_start.setdefault(bench, row[vcol].strip())
    if not order:
        raise DataFormatError(str(path), "no repetition rows under the header")
    out = []
    for bench, durations in order.items():
        meta: dict[str, Any] = {"source": str(path), "format": "renaissance-csv",
                                "line": first_line[bench]}
        if vm_start.get(bench, "").isdigit():
            meta["vm_start_unix_ms"] = int(vm_start[bench])
        out.append(_series(path, bench, durations, f"line {first_line[bench]}", meta))
    return out
