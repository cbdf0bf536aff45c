"""A folder with one real file of each harness format of this group (pyperf, pytest-benchmark,
hyperfine, Google Benchmark JSON and CSV, Criterion.rs sample.json and raw.csv) loads completely:
every file's benchmarks are there, each file read by its own reader, and only hyperfine's CSV
summaries are refused, by name. Expected names are read from the files with json/csv/gzip."""
from __future__ import annotations

import csv
import gzip
import json
import shutil
from pathlib import Path

import segview

HERE = Path(__file__).resolve().parents[1] / "data" / "harness"


def _names(path: Path) -> set[str]:
    if path.name == "raw.csv":
        with open(path, newline="") as fh:
            return {"/".join(p for p in (r["group"], r["function"], r["value"]) if p)
                    for r in csv.DictReader(fh)}
    if path.suffix == ".csv":  # Google Benchmark CSV
        with open(path, newline="") as fh:
            return {r["name"] for r in csv.DictReader(fh)
                    if not r["name"].endswith(("_mean", "_median", "_stddev", "_cv"))}
    if path.name == "sample.json":
        return {json.loads((path.parent / "benchmark.json").read_text())["full_id"]}
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as fh:
        doc = json.load(fh)
    if "results" in doc:
        return {r["command"] for r in doc["results"]}
    if "context" in doc:
        return {r["run_name"] for r in doc["benchmarks"] if r["run_type"] == "iteration"}
    if "machine_info" in doc:
        return {b["fullname"] for b in doc["benchmarks"]}
    return {b.get("metadata", {}).get("name") or doc["metadata"]["name"]
            for b in doc["benchmarks"]}


def test_mixed_folder_loads_completely(tmp_path):
    files = {
        "pyperf.json": HERE / "pyperf" / "timeit.json",
        "pyperf2.json.gz": HERE / "pyperf" / "two_benchmarks.json.gz",
        "pytest.json": HERE / "pytest_benchmark" / "saved_data.json",
        "hyperfine.json": HERE / "hyperfine" / "scan.json",
        "gbench.json": HERE / "gbench" / "repetitions.json",
        "gbench.csv": HERE / "gbench" / "repetitions.csv",
        "criterion/raw.csv": HERE / "criterion_csv" / "raw.csv",
    }
    for dst, src in files.items():
        (tmp_path / dst).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, tmp_path / dst)
    shutil.copytree(HERE / "criterion" / "target", tmp_path / "target")
    shutil.copy(HERE / "hyperfine" / "commands.csv", tmp_path / "hyperfine.csv")
    ds = segview.load(tmp_path)
    assert [Path(p.source).name for p in ds.problems] == ["hyperfine.csv"]
    assert "--export-json" in str(ds.problems[0])
    expected = {str(tmp_path / dst): _names(tmp_path / dst) for dst in files}
    for sample in (tmp_path / "target").rglob("new/sample.json"):
        expected[str(sample)] = _names(sample)
    got: dict[str, set[str]] = {}
    for s in ds:
        got.setdefault(s.metadata["source"], set()).add(s.metadata["benchmark"])
    assert got == expected
    formats = {s.metadata["format"] for s in ds}
    assert formats == {"pyperf", "pytest-benchmark", "hyperfine", "gbench", "gbench-csv",
                       "criterion", "criterion-csv"}
