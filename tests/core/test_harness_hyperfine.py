"""hyperfine --export-json / --export-csv: real files written by hyperfine 1.15.0
(tests/data/harness/make_hyperfine.sh); facts are read from the files with json/csv."""
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

DATA = Path(__file__).resolve().parents[1] / "data" / "harness" / "hyperfine"


@pytest.mark.parametrize("name", ["commands.json", "scan.json"])
def test_real_json_export(name):
    path = DATA / name
    doc = json.loads(path.read_text())
    assert reader_for(path).name == "hyperfine"
    benches = {b.name: b for b in segview.load(path).benchmarks()}
    assert list(benches) == [r["command"] for r in doc["results"]]
    for res in doc["results"]:
        b = benches[res["command"]]
        assert b.harness == "hyperfine" and b.unit == "s" and b.direction == LOWER
        assert len(b) == 1  # the runs are the iterations of one series (each its own process)
        ex = b.executions[0]
        assert ex.metadata["warmup"] == 0 and ex.metadata["iteration_is_process"] is True
        assert len(ex) == len(res["times"])
        assert ex.values[0] == res["times"][0] and ex.values[-1] == res["times"][-1]
        assert dict(b.params) == res.get("parameters", {})


def test_csv_export_points_to_json():
    path = DATA / "commands.csv"
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows and "times" not in rows[0]  # summaries only, one row per command
    assert reader_for(path).name == "hyperfine-csv"
    with pytest.raises(DataFormatError, match=r"commands.csv.*summary.*--export-json"):
        load_file(path)


def _write(tmp_path, doc):
    p = tmp_path / "hf.json"
    p.write_text(json.dumps(doc))
    return p


def test_truncated_file(tmp_path):
    text = (DATA / "commands.json").read_text()
    p = tmp_path / "cut.json"
    p.write_text(text[: len(text) // 2])
    with pytest.raises(DataFormatError, match=r"cut.json \(line \d+, column \d+\): invalid JSON"):
        load_file(p)


def test_renamed_and_missing_fields(tmp_path):
    doc = json.loads((DATA / "commands.json").read_text())
    doc["results"][1]["durations"] = doc["results"][1].pop("times")
    with pytest.raises(DataFormatError, match=r"results\[1\].*no 'times' field.*durations.*renamed"):
        load_file(_write(tmp_path, doc))


def test_duplicate_commands(tmp_path):
    doc = json.loads((DATA / "commands.json").read_text())
    doc["results"].append(doc["results"][0])
    with pytest.raises(DataFormatError, match=r"results\[2\].*'true' appears twice.*--command-name"):
        load_file(_write(tmp_path, doc))


def test_failed_runs_are_kept_and_reported(tmp_path):
    doc = json.loads((DATA / "commands.json").read_text())
    doc["results"][0]["exit_codes"][3] = 1
    with pytest.warns(SegviewWarning, match=r"exit_codes.*1 of 20 runs"):
        ss = load_file(_write(tmp_path, doc))
    assert len(ss[0]) == 20 and ss[0].metadata["failed_runs"] == 1
