"""Criterion.rs sample.json / raw.csv: real files written by criterion 0.3.6 (Debian's packaged
crate, built offline; tests/data/harness/make_criterion.sh); facts are read with json/csv."""
from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

import segview
from segview.core.benchmark import LOWER
from segview.core.errors import DataFormatError
from segview.core.io import load_file
from segview.core.io.readers import NotSeriesFile, reader_for

HERE = Path(__file__).resolve().parents[1] / "data" / "harness"
ROOT = HERE / "criterion" / "target" / "criterion"
RAW = HERE / "criterion_csv" / "raw.csv"


def _samples():
    """benchmark full_id -> (per-iteration values) from every new/sample.json + benchmark.json."""
    out = {}
    for sample in sorted(ROOT.rglob("new/sample.json")):
        doc = json.loads(sample.read_text())
        bench = json.loads((sample.parent / "benchmark.json").read_text())
        out[bench["full_id"]] = (bench, [t / i for t, i in zip(doc["times"], doc["iters"])])
    return out


def test_real_criterion_folder():
    facts = _samples()
    assert len(facts) == 3
    ds = segview.load(ROOT)
    assert ds.problems == []  # base/ copies, raw.csv beside sample.json, summaries: skipped
    benches = {b.name: b for b in ds.benchmarks()}
    assert sorted(benches) == sorted(facts)
    for name, (bench, vals) in facts.items():
        b = benches[name]
        assert b.harness == "criterion" and b.unit == "ns" and b.direction == LOWER
        assert len(b) == 1  # all samples in one process: one execution
        ex = b.executions[0]
        assert ex.metadata["warmup"] == 0 and len(ex) == len(vals)
        assert ex.values[0] == vals[0] and ex.values[-1] == vals[-1]
        assert dict(b.params) == ({"value": bench["value_str"]} if bench["value_str"] else {})


def test_name_from_folders_without_benchmark_json(tmp_path):
    dst = tmp_path / "target" / "criterion" / "grp" / "f" / "new"
    dst.mkdir(parents=True)
    shutil.copy(ROOT / "sum" / "100" / "new" / "sample.json", dst / "sample.json")
    ss = load_file(dst / "sample.json")
    assert ss[0].metadata["benchmark"] == "grp/f"


def test_real_raw_csv():
    with open(RAW, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert reader_for(RAW).name == "criterion-csv"
    ss = load_file(RAW)
    assert len(ss) == 1
    name = "/".join(p for p in (rows[0]["group"], rows[0]["function"], rows[0]["value"]) if p)
    s = ss[0]
    assert s.metadata["benchmark"] == name and s.metadata["unit"] == rows[0]["unit"]
    assert len(s) == len(rows) and s.metadata["warmup"] == 0
    assert s.values[0] == float(rows[0]["sample_measured_value"]) / float(rows[0]["iteration_count"])
    assert s.values[-1] == (float(rows[-1]["sample_measured_value"])
                            / float(rows[-1]["iteration_count"]))


def test_companions_and_copies_are_not_series():
    for name in ("benchmark.json", "estimates.json", "tukey.json"):
        with pytest.raises(NotSeriesFile):
            load_file(ROOT / "sum" / "10" / "new" / name)
    with pytest.raises(NotSeriesFile, match="copy of ../new/sample.json"):
        load_file(ROOT / "sum" / "10" / "base" / "sample.json")
    with pytest.raises(NotSeriesFile, match="same samples as sample.json"):
        load_file(ROOT / "sum" / "10" / "new" / "raw.csv")


def test_four_number_fork_list_is_still_jmh(tmp_path):
    p = tmp_path / "fork.json"
    p.write_text("[1.5, 2.5, 3.5, 4.5]")
    ss = load_file(p)
    assert ss[0].values.tolist() == [1.5, 2.5, 3.5, 4.5] and ss[0].metadata["harness"] == "jmh"


def test_older_baseline_loads_as_its_own_benchmark(tmp_path):
    shutil.copytree(ROOT / "sum" / "10", tmp_path / "criterion" / "sum" / "10")
    base = tmp_path / "criterion" / "sum" / "10" / "base" / "sample.json"
    doc = json.loads(base.read_text())
    doc["times"] = [t * 2 for t in doc["times"]]
    base.write_text(json.dumps(doc))
    names = sorted(b.name for b in segview.load(tmp_path).benchmarks())
    assert names == ["sum/10", "sum/10@base"]


def test_bad_input(tmp_path):
    text = (ROOT / "sum" / "10" / "new" / "sample.json").read_text()
    p = tmp_path / "sample.json"
    p.write_text(text[: len(text) // 2])
    with pytest.raises(DataFormatError, match=r"sample.json \(line 1, column \d+\): invalid JSON"):
        load_file(p)
    p.write_text(text.replace('"times"', '"durations"'))
    with pytest.raises(DataFormatError, match=r"top level.*no 'times' field.*durations.*renamed"):
        load_file(p)
    doc = json.loads(text)
    doc["iters"] = doc["iters"][:-1]
    p.write_text(json.dumps(doc))
    with pytest.raises(DataFormatError, match="9 iteration counts for 10 times"):
        load_file(p)
    raw = RAW.read_text()
    (tmp_path / "csv").mkdir()
    c = tmp_path / "csv" / "raw.csv"
    c.write_text(raw[: raw.rindex(",")])  # the last row is cut
    with pytest.raises(DataFormatError, match=r"raw.csv \(line 11\).*truncated"):
        load_file(c)
    c.write_text(raw.replace("sample_measured_value", "measured", 1))
    with pytest.raises(DataFormatError, match=r"line 1.*no 'sample_measured_value' column"):
        load_file(c)
