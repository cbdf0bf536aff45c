"""One folder holding a file of every harness segview reads loads completely: each file goes to its
own reader (detected by content), nothing is a problem, and every harness's benchmarks are there."""
from __future__ import annotations

import shutil
from pathlib import Path

import segview
from segview.core.io.readers import reader_for

HARNESS = Path(__file__).resolve().parents[1] / "data" / "harness"

# file in tests/data/harness -> the reader that must take it (the harness's own fixture)
FILES = {
    "jmh/run.log": "jmh-log",
    "pyperf/timeit.json": "pyperf",
    "pyperf/two_benchmarks.json.gz": "pyperf",
    "pytest_benchmark/saved_data.json": "pytest-benchmark",
    "hyperfine/commands.json": "hyperfine",
    "gbench/repetitions.json": "gbench",
    "gbench/repetitions.csv": "gbench-csv",
    "criterion/target/criterion/sum/10/new/sample.json": "criterion",
    "criterion_csv/raw.csv": "criterion-csv",
    "benchmarkdotnet/Sorting.SortBench-report-full-compressed.json": "bdn-json",
    "renaissance/run.json": "renaissance-json",
    "krun/nbody_results.json.bz2": "krun",
    "warmup_stats/hotspot_nbody.csv": "warmup-stats",
    "perf_stat/perf_runs.csv": "perf-stat",
    "prometheus/scrapes.prom": "prometheus",
    "influx/iterations.lp": "influx",
    "perfherder/perfherder_api.csv": "perfherder",
}


def test_every_fixture_goes_to_its_own_reader():
    for rel, name in FILES.items():
        assert reader_for(HARNESS / rel).name == name, rel


def test_a_folder_with_one_file_of_each_harness_loads_completely(tmp_path):
    for k, rel in enumerate(FILES):
        src = HARNESS / rel
        # flat names: a unique prefix each; the suffixes (.json.gz, .json.bz2, -measurements.csv)
        # are kept, the reader is chosen by content
        shutil.copy(src, tmp_path / f"f{k:02d}_{src.name}")
    ds = segview.load(tmp_path)
    assert ds.problems == []
    harnesses = {b.harness for b in ds.benchmarks()}
    expected = {"jmh", "pyperf", "pytest-benchmark", "hyperfine", "gbench", "criterion",
                "benchmarkdotnet", "renaissance", "krun", "warmup_stats", "perf", "prometheus",
                "influx", "perfherder"}
    assert expected <= harnesses, expected - harnesses
    for b in ds.benchmarks():
        assert len(b.executions) >= 1 and all(len(s) >= 1 for s in b.executions), b.name
