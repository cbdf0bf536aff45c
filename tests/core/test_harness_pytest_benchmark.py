"""pytest-benchmark JSON: real files written by pytest-benchmark 5.3.1
(tests/data/harness/make_pytest_benchmark.sh); facts are read from the files with json."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import segview
from segview.core.benchmark import LOWER
from segview.core.errors import DataFormatError
from segview.core.io import load_file
from segview.core.io.readers import reader_for

DATA = Path(__file__).resolve().parents[1] / "data" / "harness" / "pytest_benchmark"


def test_real_saved_data_file():
    path = DATA / "saved_data.json"
    doc = json.loads(path.read_text())
    assert reader_for(path).name == "pytest-benchmark"
    benches = {b.name: b for b in segview.load(path).benchmarks()}
    assert list(benches) == [e["fullname"] for e in doc["benchmarks"]]
    for entry in doc["benchmarks"]:
        b = benches[entry["fullname"]]
        data = entry["stats"]["data"]
        assert b.harness == "pytest-benchmark" and b.unit == "s" and b.direction == LOWER
        assert len(b) == 1  # one pytest process: one execution
        ex = b.executions[0]
        assert ex.metadata["warmup"] == 0 and len(ex) == len(data) == entry["stats"]["rounds"]
        assert ex.values[0] == data[0] and ex.values[-1] == data[-1]
        assert dict(b.params) == (entry["params"] or {})
        assert ex.metadata["name"] == entry["name"]
        assert ex.metadata["commit_info"] == doc["commit_info"]


def test_summaries_only_names_the_fix():
    path = DATA / "summaries_only.json"
    doc = json.loads(path.read_text())
    assert "data" not in doc["benchmarks"][0]["stats"]  # what the fixture is about
    with pytest.raises(DataFormatError, match=r"summaries only.*test_sum.*--benchmark-save-data"):
        load_file(path)


def _write(tmp_path, doc):
    p = tmp_path / "pb.json"
    p.write_text(json.dumps(doc))
    return p


def test_truncated_file(tmp_path):
    text = (DATA / "saved_data.json").read_text()
    p = tmp_path / "cut.json"
    p.write_text(text[: int(len(text) * 0.8)])
    with pytest.raises(DataFormatError, match=r"cut.json \(line \d+, column \d+\): invalid JSON"):
        load_file(p)


def test_renamed_field_is_named(tmp_path):
    doc = json.loads((DATA / "saved_data.json").read_text())
    doc["benchmarks"][1]["full_name"] = doc["benchmarks"][1].pop("fullname")
    with pytest.raises(DataFormatError, match=r"benchmarks\[1\].*no 'fullname' field.*renamed"):
        load_file(_write(tmp_path, doc))
    doc = json.loads((DATA / "saved_data.json").read_text())
    doc["benchmarks"][2]["stats"]["raw"] = doc["benchmarks"][2]["stats"].pop("data")
    doc["benchmarks"][2]["stats"] = {"raw": doc["benchmarks"][2]["stats"]["raw"]}
    with pytest.raises(DataFormatError, match=r"benchmarks\[2\]\.stats.*no 'data' field"):
        load_file(_write(tmp_path, doc))


def test_duplicate_benchmark_names(tmp_path):
    doc = json.loads((DATA / "saved_data.json").read_text())
    doc["benchmarks"].append(doc["benchmarks"][0])
    with pytest.raises(DataFormatError, match=r"benchmarks\[3\].*test_sum' appears twice"):
        load_file(_write(tmp_path, doc))
