"""BenchmarkDotNet full JSON export and measurements CSV: launches are executions, warm-up stages
marked, Overhead/Result left out of the values; bad input.

Facts are read from the fixture files with json/csv here, never from segview's readers.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path
import shutil

import pytest

import segview
from segview.core.benchmark import measured
from segview.core.errors import DataFormatError, DataFormatWarning
from segview.core.io import load_file
from segview.core.io.readers import reader_for

DIR = Path(__file__).resolve().parents[1] / "data" / "harness" / "benchmarkdotnet"
JSON = DIR / "Sorting.SortBench-report-full-compressed.json"
CSV = DIR / "Sorting.SortBench-measurements.csv"
WARM = ("Jitting", "Pilot", "Warmup")


def expected(measurements: list[dict]) -> dict[int, tuple[list[float], list[float], int]]:
    """launch -> (warm-up ns/op, measured ns/op, overhead count), from the BDN docs' rules."""
    out: dict[int, tuple[list[float], list[float], int]] = {}
    for m in measurements:
        warm, meas, over = out.setdefault(int(m["LaunchIndex"]), ([], [], 0))
        per_op = float(m["Nanoseconds"]) / float(m["Operations"])
        if m["IterationMode"] == "Overhead":
            out[int(m["LaunchIndex"])] = (warm, meas, over + 1)
        elif m["IterationStage"] in WARM:
            warm.append(per_op)
        elif m["IterationStage"] == "Actual":
            meas.append(per_op)
    return out


def check(b, launches):
    assert b.harness == "benchmarkdotnet" and b.unit == "ns" and b.direction == "lower"
    assert len(b.executions) == len(launches)
    for s, (launch, (warm, meas, over)) in zip(b.executions, sorted(launches.items())):
        assert s.metadata["execution"] == launch - 1 and s.metadata["warmup"] == len(warm) > 0
        assert s.values[: len(warm)].tolist() == pytest.approx(warm, rel=1e-12)
        m = measured(s)
        assert len(m) == len(meas)
        assert m.values[0] == pytest.approx(meas[0], rel=1e-12)
        assert m.values[-1] == pytest.approx(meas[-1], rel=1e-12)
        assert s.metadata["overhead_iterations"] == over > 0


def test_bdn_json_fixture():
    doc = json.loads(JSON.read_text())
    assert reader_for(JSON).name == "bdn-json"
    ds = segview.load(JSON)
    benches = {b.name: b for b in ds.benchmarks()}
    assert len(benches) == len(doc["Benchmarks"]) == 2
    for entry in doc["Benchmarks"]:
        name = f"{entry['Type']}.{entry['MethodTitle']}[{entry['Parameters'].replace('&', ',')}]"
        check(benches[name], expected(entry["Measurements"]))
        assert benches[name].params == dict(p.split("=") for p in entry["Parameters"].split("&"))


def test_bdn_measurements_csv_fixture():
    with CSV.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert reader_for(CSV).name == "bdn-csv"
    ds = segview.load(CSV)
    [b] = ds.benchmarks()
    assert b.name == f"{rows[0]['Target']}[{rows[0]['Params']}]"
    check(b, expected([{k.removeprefix("Measurement_"): v for k, v in r.items()} for r in rows]))


def test_a_brief_export_and_a_renamed_field_are_named(tmp_path):
    doc = json.loads(JSON.read_text())
    brief = json.loads(JSON.read_text())
    for b in brief["Benchmarks"]:
        del b["Measurements"]
    path = tmp_path / "brief.json"
    path.write_text(json.dumps(brief))
    with pytest.raises(DataFormatError, match=r"brief.json: a brief export.*JsonExporter.Full"):
        load_file(path)
    m = doc["Benchmarks"][1]["Measurements"][4]
    m["Duration"] = m.pop("Nanoseconds")
    renamed = tmp_path / "renamed.json"
    renamed.write_text(json.dumps(doc))
    with pytest.raises(DataFormatError, match=r"renamed.json \(Benchmarks\[1\].Measurements\[4\]\)"
                                              r".*without Nanoseconds.*Duration"):
        load_file(renamed)
    bad_csv = tmp_path / "renamed-measurements.csv"
    bad_csv.write_text(CSV.read_text().replace("Measurement_Nanoseconds", "Measurement_Duration", 1))
    with pytest.raises(DataFormatError, match=r"\(line 1\).*Measurement_Nanoseconds"):
        load_file(bad_csv)


def test_a_crashed_launch_is_a_named_warning(tmp_path):
    doc = json.loads(JSON.read_text())
    entry = doc["Benchmarks"][0]
    # launch 2 died during its warm-up: no Actual or Result iterations were recorded
    entry["Measurements"] = [m for m in entry["Measurements"]
                             if m["LaunchIndex"] == 1 or m["IterationStage"] in ("Jitting", "Pilot")]
    path = tmp_path / "crash.json"
    path.write_text(json.dumps(doc))
    with pytest.warns(DataFormatWarning, match=r"crash.json \(Benchmarks\[0\].*launch 2\).*no "
                                               r"Workload Actual"):
        ds = segview.load(path)
    first = ds.benchmarks()[0]
    assert [s.metadata["execution"] for s in first.executions] == [0]
    assert "launch 2" in first.executions[0].metadata["load_warnings"][0]
    assert len(ds.benchmarks()[1].executions) == 2


def test_a_truncated_export_is_named_and_a_growing_csv_loads(tmp_path):
    text = JSON.read_text()
    cut = tmp_path / "cut.json"
    cut.write_text(text[: len(text) // 3])
    with pytest.raises(DataFormatError, match=r"cut.json \(line 1, column \d+\): invalid JSON"):
        load_file(cut)
    csv_text = CSV.read_text()
    growing = tmp_path / "growing-measurements.csv"
    growing.write_text(csv_text[: csv_text.rindex(",") - 1])
    ds = segview.load(growing)
    with CSV.open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    last_actual = [r for r in rows if r["Measurement_IterationStage"] == "Actual"
                   and r["Measurement_IterationMode"] == "Workload"][-1]
    # the cut last row was a Result row: every Actual iteration is still there
    assert rows[-1]["Measurement_IterationStage"] == "Result"
    assert measured(ds[-1]).values[-1] == pytest.approx(
        float(last_actual["Measurement_Nanoseconds"]) / float(last_actual["Measurement_Operations"]))


def test_decimal_comma_csv_and_the_0_10_layout(tmp_path):
    with CSV.open(newline="") as fh:
        rows = list(csv.reader(fh))
    semi = tmp_path / "ru-measurements.csv"  # BDN in a decimal-comma culture: ";" and ","
    with semi.open("w", newline="") as fh:
        w = csv.writer(fh, delimiter=";")
        for r in rows:
            w.writerow([c.replace(".", ",") if c.replace(".", "").isdigit() else c for c in r])
    assert [s.values.tolist() for s in segview.load(semi)] == \
        [s.values.tolist() for s in segview.load(CSV)]
    doc = json.loads(JSON.read_text())
    old_names = {("Workload", "Pilot"): "Pilot", ("Overhead", "Warmup"): "IdleWarmup",
                 ("Overhead", "Actual"): "IdleTarget", ("Workload", "Warmup"): "MainWarmup",
                 ("Workload", "Actual"): "MainTarget", ("Workload", "Result"): "Result"}
    for b in doc["Benchmarks"]:
        b["Measurements"] = [m for m in b["Measurements"] if m["IterationStage"] != "Jitting"]
        for m in b["Measurements"]:
            m["IterationMode"] = old_names[m["IterationMode"], m.pop("IterationStage")]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc))
    got = segview.load(old)
    new = [s for s in segview.load(JSON)]
    for a, b in zip(got, new):
        assert measured(a).values.tolist() == measured(b).values.tolist()
        assert a.metadata["warmup"] == b.metadata["warmup"] - 1  # no Jitting stage in 0.10


def test_detected_by_content_not_by_name(tmp_path):
    a, b = tmp_path / "results.json", tmp_path / "results.csv"
    shutil.copy(JSON, a)
    shutil.copy(CSV, b)
    assert reader_for(a).name == "bdn-json" and reader_for(b).name == "bdn-csv"


def test_one_benchmark_in_two_jobs_is_two_benchmarks(tmp_path):
    doc = json.loads(JSON.read_text())
    entry = json.loads(json.dumps(doc["Benchmarks"][0]))
    entry["DisplayInfo"] = entry["DisplayInfo"].replace("Job-QXBPFT(", "ShortRun(")
    doc["Benchmarks"].append(entry)
    path = tmp_path / "jobs.json"
    path.write_text(json.dumps(doc))
    names = [b.name for b in segview.load(path).benchmarks()]
    base = f"{entry['Type']}.{entry['MethodTitle']}[{entry['Parameters']}]"
    assert names == [f"{base} (Job-QXBPFT)", names[1], f"{base} (ShortRun)"] and "(" not in names[1]
