"""Renaissance --json and --csv: one file = one JVM = one process execution; bad input.

Facts are read from the fixture files with json/csv here, never from segview's readers.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path
import shutil

import pytest

import segview
from segview.core.errors import DataFormatError, DataFormatWarning
from segview.core.io import load_file
from segview.core.io.readers import reader_for

DIR = Path(__file__).resolve().parents[1] / "data" / "harness" / "renaissance"
JSON, CSV = DIR / "run.json", DIR / "run.csv"


def test_renaissance_json_fixture():
    doc = json.loads(JSON.read_text())
    assert reader_for(JSON).name == "renaissance-json"
    ds = segview.load(JSON)
    benches = {b.name: b for b in ds.benchmarks()}
    assert set(benches) == set(doc["data"]) == set(doc["benchmarks"])
    for name, tree in doc["data"].items():
        b = benches[name]
        assert b.harness == "renaissance" and b.unit == "ns" and b.direction == "lower"
        [s] = b.executions
        durations = [r["duration_ns"] for r in tree["results"]]
        assert s.metadata["execution"] == 0 and s.metadata["warmup"] == 0
        assert len(s) == len(durations) and s.values[0] == durations[0] and s.values[-1] == durations[-1]
        assert s.metadata["vm_version"] == doc["environment"]["vm"]["version"]
        assert s.metadata["format_version"] == doc["format_version"]


def test_renaissance_csv_fixture():
    with CSV.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert reader_for(CSV).name == "renaissance-csv"
    ds = segview.load(CSV)
    names = list(dict.fromkeys(r["benchmark"] for r in rows))
    assert [b.name for b in ds.benchmarks()] == names
    for b in ds.benchmarks():
        mine = [float(r["duration_ns"]) for r in rows if r["benchmark"] == b.name]
        [s] = b.executions
        assert b.unit == "ns" and b.direction == "lower" and s.metadata["warmup"] == 0
        assert len(s) == len(mine) and s.values[0] == mine[0] and s.values[-1] == mine[-1]


def test_a_failed_benchmark_is_a_named_warning(tmp_path):
    doc = json.loads(JSON.read_text())
    first, second = list(doc["data"])
    doc["data"][first]["termination"] = "failure"
    doc["data"][first]["results"] = doc["data"][first]["results"][:3]
    doc["data"][second]["results"] = []
    path = tmp_path / "failed.json"
    path.write_text(json.dumps(doc, indent=2))
    with pytest.warns(DataFormatWarning) as rec:
        ds = segview.load(path)
    texts = [str(w.message) for w in rec]
    assert any(f"failed.json (data['{first}']): benchmark '{first}' failed" in t for t in texts)
    assert any(f"'{second}' has no repetitions" in t for t in texts)
    assert [s.metadata["benchmark"] for s in ds] == [first] and len(ds[0]) == 3
    assert len(ds[0].metadata["load_warnings"]) == 2


def test_renamed_fields_are_named(tmp_path):
    doc = json.loads(JSON.read_text())
    name = next(iter(doc["data"]))
    rep = doc["data"][name]["results"][0]
    rep["duration"] = rep.pop("duration_ns")
    path = tmp_path / "renamed.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(DataFormatError, match=rf"renamed.json \(data\['{name}'\].results\[0\]\).*"
                                              r"'duration_ns'.*duration, uptime_ns.*renamed"):
        load_file(path)
    bad_csv = tmp_path / "renamed.csv"
    bad_csv.write_text(CSV.read_text().replace("duration_ns", "duration_us", 1))
    with pytest.raises(DataFormatError, match=r"renamed.csv \(line 1\).*'duration_ns'"):
        load_file(bad_csv)


def test_truncated_files(tmp_path):
    cut_json = tmp_path / "cut.json"
    text = JSON.read_text()
    cut_json.write_text(text[: len(text) // 2])
    with pytest.raises(DataFormatError, match=r"cut.json \(line \d+, column \d+\): invalid JSON"):
        load_file(cut_json)
    cut_csv = tmp_path / "cut.csv"
    text = CSV.read_text()
    cut_csv.write_text(text[: text.rindex(",") - 2])  # the last row still being written
    with CSV.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    ds = segview.load(cut_csv)
    assert sum(len(s) for s in ds) == len(rows) - 1


def test_detected_by_content_not_by_name(tmp_path):
    a, b = tmp_path / "out.json", tmp_path / "out.csv"
    shutil.copy(JSON, a)
    shutil.copy(CSV, b)
    assert reader_for(a).name == "renaissance-json" and reader_for(b).name == "renaissance-csv"
