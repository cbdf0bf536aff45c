"""A folder with one file of each harness-a format (JMH log, Krun, warmup_stats CSV, Renaissance
JSON and CSV, BenchmarkDotNet JSON and CSV) loads completely, each file by its own reader."""
from __future__ import annotations

import bz2
import csv
import json
from pathlib import Path
import re
import shutil

import segview

DATA = Path(__file__).resolve().parents[1] / "data" / "harness"
FILES = {  # fixture -> neutral name in the folder (content, not name, picks the reader)
    DATA / "jmh" / "run.log": "a.log",
    DATA / "krun" / "nbody_results.json.bz2": "b.json.bz2",
    DATA / "warmup_stats" / "pypy_nbody.csv": "c.csv",
    DATA / "renaissance" / "run.json": "d.json",
    DATA / "renaissance" / "run.csv": "e.csv",
    DATA / "benchmarkdotnet" / "Sorting.SortBench-report-full-compressed.json": "f.json",
    DATA / "benchmarkdotnet" / "Sorting.SortBench-measurements.csv": "g.csv",
}
FORMATS = {"a.log": "jmh-log", "b.json.bz2": "krun", "c.csv": "warmup-stats",
           "d.json": "renaissance-json", "e.csv": "renaissance-csv", "f.json": "bdn-json",
           "g.csv": "bdn-csv"}


def values_in(src: Path) -> int:
    """How many iteration values each fixture holds, counted from the file itself."""
    text = src.read_bytes()
    if src.suffix == ".bz2":
        doc = json.loads(bz2.decompress(text))
        return sum(len(p) for pexecs in doc["wallclock_times"].values() for p in pexecs)
    text = text.decode()
    if src.suffix == ".log":  # iteration lines, except those of warm-up forks (JMH discards them)
        count, in_warmup_fork = 0, False
        for line in text.splitlines():
            if line.startswith(("# Warmup Fork: ", "# Fork: ")):
                in_warmup_fork = line.startswith("# Warmup Fork: ")
            elif re.match(r"(# Warmup )?Iteration +\d+: ", line) and not in_warmup_fork:
                count += 1
        return count
    if src.suffix == ".json":
        doc = json.loads(text)
        if "data" in doc:
            return sum(len(t["results"]) for t in doc["data"].values())
        return sum(1 for b in doc["Benchmarks"] for m in b["Measurements"]
                   if m["IterationMode"] == "Workload" and m["IterationStage"] != "Result")
    rows = list(csv.DictReader(text.splitlines()))
    if "Measurement_IterationMode" in rows[0]:
        return sum(1 for r in rows if r["Measurement_IterationMode"] == "Workload"
                   and r["Measurement_IterationStage"] != "Result")
    if "duration_ns" in rows[0]:
        return len(rows)
    return sum(len(r) - 2 for r in csv.reader(text.splitlines()[1:]))


def test_mixed_folder_loads_completely(tmp_path):
    for src, name in FILES.items():
        shutil.copy(src, tmp_path / name)
    (tmp_path / "notes.log").write_text("not benchmark output\n")  # skipped, not a problem
    ds = segview.load(tmp_path)
    assert ds.problems == []
    by_file: dict[str, list] = {}
    for s in ds:
        by_file.setdefault(Path(s.metadata["source"]).name, []).append(s)
    assert set(by_file) == set(FILES.values())
    for src, name in FILES.items():
        got = by_file[name]
        assert {s.metadata["format"] for s in got} == {FORMATS[name]}
        assert sum(len(s) for s in got) == values_in(src), name
    harnesses = {b.harness for b in ds.benchmarks()}
    assert harnesses == {"jmh", "krun", "warmup_stats", "renaissance", "benchmarkdotnet"}


def test_one_benchmark_name_in_two_units_is_named(tmp_path):
    """warmup_stats (seconds) and Renaissance (ns) files that name the same benchmark: grouped,
    and the benchmark names the mixed units instead of comparing s with ns."""
    shutil.copy(DATA / "renaissance" / "run.csv", tmp_path / "ren.csv")
    bench = next(csv.DictReader((DATA / "renaissance" / "run.csv").open()))["benchmark"]
    rows = (DATA / "warmup_stats" / "pypy_nbody.csv").read_text().splitlines()
    (tmp_path / "ws.csv").write_text("\n".join(
        [rows[0]] + [",".join([r.split(",")[0], bench] + r.split(",")[2:]) for r in rows[1:]]) + "\n")
    ds = segview.load(tmp_path)
    b = next(b for b in ds.benchmarks() if b.name == bench)
    assert b.unit == "" and any("different units (ns, s)" in w for w in b.warnings)
