"""``segview detect`` and benchmarks: benchmark/execution columns, --harness-warmup, --rollup."""
from __future__ import annotations

import csv
import io
import json

import pytest

from segview.cli.main import main
from segview.core.evaluation.tables import read_predictions
from tests.cli.test_formats_inspect_cli import fake_reader
from tests.fakes import FAKE_ONSET, registered

# FAKE_ONSET's rule (tests/fakes.py): onset = 1 + the last index whose |value| exceeds
# level * max|value| (level 0.5 by default); never steady when that is the series' end.

JMH = [{"benchmark": "org.b.Fib.run", "mode": "avgt", "params": {"n": "3"},
        "primaryMetric": {"scoreUnit": "ns/op",
                          "rawData": [[9, 1, 1, 1], [1, 9, 1, 1], [1, 1, 1, 1]]}}]


@pytest.fixture
def data(tmp_path):
    (tmp_path / "a.json").write_text("[[9, 1, 1, 1, 1]]")                 # fork list, one fork
    (tmp_path / "b.json").write_text("[[1, 1, 1, 9, 1], [1, 1, 1, 1, 1]]")  # two forks
    (tmp_path / "c.csv").write_text("col\n5\n1\n1\n")                      # a plain series
    (tmp_path / "r.json").write_text(json.dumps(JMH))                       # JMH -rf json
    return tmp_path


def _rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_detect_writes_benchmark_and_execution_last(data, capsys):
    with registered(FAKE_ONSET):
        assert main(["detect", str(data), "-m", "fake_onset"]) == 0
    out = capsys.readouterr().out
    header = out.splitlines()[0].split(",")
    assert header[:5] == ["series_id", "method", "steady_index", "change_points", "runtime_ms"]
    # new columns are appended after these (strengths came later: docs/outputs.md)
    assert header[5:7] == ["benchmark", "execution"]
    assert header[7:] == ["strengths", "strength_label"]
    got = {r["series_id"]: (r["benchmark"], r["execution"]) for r in _rows(out)}
    assert got == {"a": ("a", "0"), "b/fork0": ("b", "0"), "b/fork1": ("b", "1"),
                   "col": ("col", "0"),
                   "org.b.Fib.run[n=3]/fork0": ("org.b.Fib.run[n=3]", "0"),
                   "org.b.Fib.run[n=3]/fork1": ("org.b.Fib.run[n=3]", "1"),
                   "org.b.Fib.run[n=3]/fork2": ("org.b.Fib.run[n=3]", "2")}


def test_detect_json_entries_have_benchmark_execution_and_warmup_choice(data, capsys):
    with registered(FAKE_ONSET):
        assert main(["detect", str(data / "b.json"), "-m", "fake_onset", "--format",
                     "json"]) == 0
    entries = json.loads(capsys.readouterr().out)
    assert [(e["benchmark"], e["execution"], e["harness_warmup"], e["warmup"]) for e in entries] \
        == [("b", 0, "keep", 0), ("b", 1, "keep", 0)]


def test_the_new_columns_read_back_by_evaluate(data, tmp_path, capsys):
    out = tmp_path / "pred.csv"
    with registered(FAKE_ONSET):
        assert main(["detect", str(data / "b.json"), "-m", "fake_onset", "-o", str(out)]) == 0
    pred = read_predictions([out])
    assert pred.onsets == {"fake_onset": {"b/fork0": 4, "b/fork1": None}}
    truth = tmp_path / "truth.csv"
    truth.write_text("series_id,steady,reference_index,clustered\nb/fork0,1,4,1\nb/fork1,0,,\n")
    assert main(["evaluate", str(out), "--truth", str(truth), "--format", "json"]) == 0


def test_harness_warmup_keep_or_drop(tmp_path, capsys):
    # one execution: 2 warm-up iterations (9, 9), then 5 1 1 1 measured
    path = tmp_path / "w.fakebench"
    path.write_text("FAKEBENCH\nB;0;2;ns;9 9 5 1 1 1\n")
    with registered(FAKE_ONSET), fake_reader():
        assert main(["detect", str(path), "-m", "fake_onset", "--format", "json"]) == 0
        cap = capsys.readouterr()
        (keep,) = json.loads(cap.out)
        assert "harness warm-up" in cap.err and "kept" in cap.err
        assert main(["detect", str(path), "-m", "fake_onset", "--format", "json",
                     "--harness-warmup", "drop"]) == 0
        cap = capsys.readouterr()
        (drop,) = json.loads(cap.out)
        assert "dropped" in cap.err
    # all six values, max 9, level 4.5: last above is index 2 (5) -> onset 3
    assert (keep["steady_index"], keep["harness_warmup"], keep["warmup"]) == (3, "keep", 2)
    # measured only (5 1 1 1), max 5, level 2.5: last above is index 0 -> onset 1
    assert (drop["steady_index"], drop["harness_warmup"], drop["warmup"],
            drop["warmup_dropped"]) == (1, "drop", 0, 2)


def test_no_warmup_note_without_harness_warmup(data, capsys):
    with registered(FAKE_ONSET):
        main(["detect", str(data / "b.json"), "-m", "fake_onset"])
    assert "warm-up" not in capsys.readouterr().err


def test_rollup_table_and_file(data, tmp_path, capsys):
    roll = tmp_path / "roll.csv"
    with registered(FAKE_ONSET):
        assert main(["detect", str(data / "r.json"), str(data / "b.json"), "-m", "fake_onset",
                     "-o", str(tmp_path / "d.csv"), "--rollup", "--rollup-out", str(roll)]) == 0
    text = capsys.readouterr().out
    rows = {r["benchmark"]: r for r in _rows(roll.read_text())}
    # Fib.run forks: [9,1,1,1] -> onset 1, [1,9,1,1] -> onset 2, [1,1,1,1] -> never steady
    fib = rows["org.b.Fib.run[n=3]"]
    assert (fib["method"], fib["executions"], fib["analysed"], fib["steady"]) == (
        "fake_onset", "3", "3", "2")
    assert (fib["onset_median"], fib["onset_q1"], fib["onset_q3"], fib["onset_iqr"]) == (
        "1.5", "1.25", "1.75", "0.5")
    assert fib["change_points"] == "1;1;0"
    # b: [1,1,1,9,1] -> onset 4 (one change point), [1,1,1,1,1] -> never steady
    b = rows["b"]
    assert (b["steady"], b["onset_median"], b["onset_iqr"], b["change_points"]) == (
        "1", "4", "0", "1;0")
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["benchmark", "method", "executions"]
    assert lines[1].split()[:5] == ["org.b.Fib.run[n=3]", "fake_onset", "3", "3", "2"]


def test_rollup_out_json_and_no_overwrite(data, tmp_path, capsys):
    roll = tmp_path / "roll.json"
    with registered(FAKE_ONSET):
        assert main(["detect", str(data / "b.json"), "-m", "fake_onset", "--format", "json",
                     "-o", str(tmp_path / "d.json"), "--rollup-out", str(roll)]) == 0
        (entry,) = json.loads(roll.read_text())
        assert entry["benchmark"] == "b" and entry["change_points"] == [1, 0]
        assert main(["detect", str(data / "b.json"), "-m", "fake_onset", "--format", "json",
                     "-o", str(tmp_path / "d2.json"), "--rollup-out", str(roll)]) == 2
        assert "--force" in capsys.readouterr().err
