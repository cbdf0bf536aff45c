"""Google Benchmark JSON and CSV: real files written by libbenchmark 1.7.1
(tests/data/harness/make_gbench.sh, tests/data/harness/gbench_tiny.cc); facts are read from the
files with json/csv."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import segview
from segview.core.benchmark import LOWER
from segview.core.errors import DataFormatError, SegviewWarning
from segview.core.io import load_file
from segview.core.io.readers import reader_for

DATA = Path(__file__).resolve().parents[1] / "data" / "harness" / "gbench"
AGG = ("_mean", "_median", "_stddev", "_cv")


def _json_facts(doc, key="real_time"):
    out = {}
    for row in doc["benchmarks"]:
        if row["run_type"] == "iteration":
            out.setdefault(row["run_name"], []).append((row["repetition_index"], row[key],
                                                        row["time_unit"]))
    return {k: sorted(v) for k, v in out.items()}


@pytest.mark.parametrize("time,key", [("real", "real_time"), ("cpu", "cpu_time")])
def test_real_json(time, key):
    path = DATA / "repetitions.json"
    doc = json.loads(path.read_text())
    facts = _json_facts(doc, key)
    assert reader_for(path).name == "gbench"
    ss = load_file(path, time=time) if time == "cpu" else segview.load(path).series
    benches = {b.name: b for b in segview.core.benchmark.group(ss)}
    assert list(benches) == list(facts)
    for name, rows in facts.items():
        b = benches[name]
        assert b.harness == "gbench" and b.direction == LOWER
        assert b.unit == rows[0][2]
        assert len(b) == 1  # repetitions run in one process: one execution
        ex = b.executions[0]
        assert ex.metadata["warmup"] == 0 and len(ex) == len(rows)
        assert ex.values[0] == rows[0][1] and ex.values[-1] == rows[-1][1]
        assert ex.metadata["time"] == key
    assert benches["BM_Sum"].metadata["context"]["num_cpus"] == doc["context"]["num_cpus"]


def test_real_csv():
    path = DATA / "repetitions.csv"
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    facts = {}
    for r in rows:
        if not r["name"].endswith(AGG):
            facts.setdefault(r["name"], []).append(r)
    assert reader_for(path).name == "gbench-csv"
    benches = {b.name: b for b in segview.load(path).benchmarks()}
    assert list(benches) == list(facts)
    for name, reps in facts.items():
        ex = benches[name].executions[0]
        assert len(benches[name]) == 1 and benches[name].unit == reps[0]["time_unit"]
        assert len(ex) == len(reps) and ex.metadata["warmup"] == 0
        assert ex.values[0] == float(reps[0]["real_time"])
        assert ex.values[-1] == float(reps[-1]["real_time"])


def test_aggregates_only_says_how_to_rerun():
    path = DATA / "aggregates_only.json"
    doc = json.loads(path.read_text())
    assert {r["run_type"] for r in doc["benchmarks"]} == {"aggregate"}
    with pytest.raises(DataFormatError, match=r"aggregates only.*--benchmark_repetitions=N.*"
                                              r"without --benchmark_report_aggregates_only"):
        load_file(path)


def test_aggregates_only_csv(tmp_path):
    lines = (DATA / "repetitions.csv").read_text().splitlines()
    p = tmp_path / "agg.csv"
    p.write_text("\n".join([lines[0]] + [ln for ln in lines[1:]
                                         if ln.split(",")[0].strip('"').endswith(AGG)]) + "\n")
    with pytest.raises(DataFormatError, match="aggregates only.*--benchmark_repetitions"):
        load_file(p)


def test_truncated_files(tmp_path):
    text = (DATA / "repetitions.json").read_text()
    p = tmp_path / "cut.json"
    p.write_text(text[: len(text) // 2])
    with pytest.raises(DataFormatError, match=r"cut.json \(line \d+, column \d+\): invalid JSON"):
        load_file(p)
    text = (DATA / "repetitions.csv").read_text()
    p = tmp_path / "cut.csv"
    p.write_text(text[: text.index("\n", len(text) // 2) - 10])  # the last row is cut
    with pytest.raises(DataFormatError, match=r"cut.csv \(line \d+\): .*truncated"):
        load_file(p)


def test_renamed_field_is_named(tmp_path):
    doc = json.loads((DATA / "repetitions.json").read_text())
    doc["benchmarks"][4]["wall_time"] = doc["benchmarks"][4].pop("real_time")
    p = tmp_path / "g.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(DataFormatError, match=r"benchmarks\[4\].*no 'real_time' field.*wall_time"):
        load_file(p)
    text = (DATA / "repetitions.csv").read_text().replace(",real_time,", ",wall_time,", 1)
    p = tmp_path / "g.csv"
    p.write_text(text)
    with pytest.raises(DataFormatError, match=r"line 1.*no 'real_time' column"):
        load_file(p)


def test_duplicate_repetitions(tmp_path):
    doc = json.loads((DATA / "repetitions.json").read_text())
    doc["benchmarks"].append(doc["benchmarks"][0])
    p = tmp_path / "g.json"
    p.write_text(json.dumps(doc))
    with pytest.raises(DataFormatError, match=r"'BM_Sum' repetition 0 appears twice"):
        load_file(p)


def test_failed_repetitions_are_reported(tmp_path):
    doc = json.loads((DATA / "repetitions.json").read_text())
    for row in doc["benchmarks"]:
        if row["run_name"] == "BM_Sum" and row["run_type"] == "iteration":
            row["error_occurred"], row["error_message"] = True, "out of memory"
    p = tmp_path / "g.json"
    p.write_text(json.dumps(doc))
    with pytest.warns(SegviewWarning, match="BM_Sum.*out of memory.*crashed"):
        ss = load_file(p)
    assert "BM_Sum" not in {s.metadata["benchmark"] for s in ss} and len(ss) == 2


def test_bad_value_is_named(tmp_path):
    doc = json.loads((DATA / "repetitions.json").read_text())
    doc["benchmarks"][2]["real_time"] = float("inf")
    p = tmp_path / "g.json"
    p.write_text(json.dumps(doc))  # Python's json writes Infinity, and reads it back
    with pytest.raises(DataFormatError, match=r"benchmarks\[2\]\.real_time.*not finite"):
        load_file(p)
    doc["benchmarks"][2]["real_time"] = "fast"
    p.write_text(json.dumps(doc))
    with pytest.raises(DataFormatError, match=r"benchmarks\[2\].*'real_time' is str"):
        load_file(p)
