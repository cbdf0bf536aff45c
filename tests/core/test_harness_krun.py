"""Krun results (.json.bz2) and warmup_stats CSV: the real JVM/PyPy warm-up data set, bad input.

The fixtures come from make_warmup_stats.sh (real runs of NBody.java on OpenJDK 17 and nbody.py on
PyPy 3). Facts are read from the files with bz2/json/csv here, never from segview's readers.
"""
from __future__ import annotations

import bz2
import csv
import json
from pathlib import Path
import shutil

import pytest

import segview
from segview.core.errors import DataFormatError, DataFormatWarning
from segview.core.io import load_file
from segview.core.io.readers import reader_for

DATA = Path(__file__).resolve().parents[1] / "data" / "harness"
KRUN = DATA / "krun" / "nbody_results.json.bz2"
CSVS = sorted((DATA / "warmup_stats").glob("*.csv"))


def krun_doc(path: Path = KRUN) -> dict:
    with bz2.open(path, "rb") as fh:
        return json.loads(fh.read())


def write_krun(path: Path, doc: dict) -> Path:
    with bz2.open(path, "wb") as fh:
        fh.write(json.dumps(doc, indent=1, sort_keys=True).encode())
    return path


def test_krun_fixture_loads_every_process_execution():
    doc = krun_doc()
    wct = doc["wallclock_times"]
    assert len(wct) == 2
    assert reader_for(KRUN).name == "krun"
    ds = segview.load(KRUN)
    benches = {b.name: b for b in ds.benchmarks()}
    assert set(benches) == set(wct)  # Krun's "bench:vm:variant" keys
    for key, pexecs in wct.items():
        b = benches[key]
        assert b.harness == "krun" and b.unit == "s" and b.direction == "lower" and not b.warnings
        assert len(b.executions) == len(pexecs) == 5
        for k, (s, times) in enumerate(zip(b.executions, pexecs)):
            assert s.metadata["execution"] == k and s.metadata["warmup"] == 0
            assert len(s) == len(times) == 200
            assert s.values[0] == times[0] and s.values[-1] == times[-1]
            assert s.metadata["pexec_flag"] == doc["pexec_flags"][key][k]
            assert s.metadata["vm"] == key.split(":")[1] and s.metadata["uname"] == doc["audit"]["uname"]


def test_warmup_stats_csv_fixtures_load_every_process_execution():
    assert len(CSVS) == 2
    for path in CSVS:
        with path.open(newline="") as fh:
            rows = list(csv.reader(fh))
        header, rows = rows[0], rows[1:]
        assert header[:2] == ["process_exec_idx", "bench_name"]
        assert reader_for(path).name == "warmup-stats"
        ds = segview.load(path)
        [b] = ds.benchmarks()
        assert {r[1] for r in rows} == {b.name}
        assert b.unit == "s" and b.direction == "lower" and b.harness == "warmup_stats"
        assert len(b.executions) == len(rows) == 5
        for s, row in zip(b.executions, rows):
            assert s.metadata["execution"] == int(row[0]) and s.metadata["warmup"] == 0
            assert len(s) == len(header) - 2 == len(row) - 2
            assert s.values[0] == float(row[2]) and s.values[-1] == float(row[-1])


def test_the_krun_file_and_the_csvs_hold_the_same_measurements():
    doc = krun_doc()
    for path in CSVS:
        with path.open(newline="") as fh:
            rows = list(csv.reader(fh))[1:]
        vm = "Hotspot" if "hotspot" in path.name else "PyPy"
        key = next(k for k in doc["wallclock_times"] if k.split(":")[1] == vm)
        assert [[float(c) for c in r[2:]] for r in rows] == doc["wallclock_times"][key]


def test_jvm_data_shows_a_warm_up():
    """The later analysis issue needs a visible warm-up: some process execution's first ten
    iterations take at least twice as long as its last fifty (read from the CSV itself)."""
    with (DATA / "warmup_stats" / "hotspot_nbody.csv").open(newline="") as fh:
        rows = [[float(c) for c in r[2:]] for r in list(csv.reader(fh))[1:]]
    ratios = [max(r[:10]) / (sorted(r[-50:])[25]) for r in rows]
    assert max(ratios) > 2


def test_a_crashed_krun_execution_is_reported_and_its_index_kept(tmp_path):
    doc = krun_doc()
    key = sorted(doc["wallclock_times"])[0]
    doc["wallclock_times"][key][1] = []
    doc["pexec_flags"][key][1] = "E"
    path = write_krun(tmp_path / "crash_results.json.bz2", doc)
    with pytest.warns(DataFormatWarning, match=rf"crash_results.json.bz2 .*process execution 1 of "
                                               rf"'{key}' crashed"):
        ds = segview.load(path)
    b = next(b for b in ds.benchmarks() if b.name == key)
    assert [s.metadata["execution"] for s in b.executions] == [0, 2, 3, 4]
    assert "crashed" in b.executions[0].metadata["load_warnings"][0]
    other = next(b for b in ds.benchmarks() if b.name != key)
    assert len(other.executions) == 5


def test_a_truncated_krun_file_is_a_named_error(tmp_path):
    raw = KRUN.read_bytes()
    path = tmp_path / "cut_results.json.bz2"
    path.write_bytes(raw[: len(raw) // 2])
    with pytest.raises(DataFormatError, match="cut_results.json.bz2.*not a complete bzip2"):
        load_file(path)


def test_a_renamed_krun_field_is_named(tmp_path):
    doc = krun_doc()
    doc["wallclock_time"] = doc.pop("wallclock_times")
    path = write_krun(tmp_path / "renamed_results.json.bz2", doc)
    with pytest.raises(DataFormatError, match=r"renamed_results.json.bz2 \(top level\).*"
                                              r"'wallclock_time'.*renamed"):
        load_file(path)
    doc["wallclock_times"] = {"b:vm:v": [[0.1, "x", 0.3]]}
    write_krun(path, doc)
    with pytest.raises(DataFormatError, match=r"process execution 0, iteration 1"):
        load_file(path)


def test_warmup_stats_csv_crash_rows_and_a_growing_file(tmp_path):
    src = DATA / "warmup_stats" / "pypy_nbody.csv"
    lines = src.read_text().splitlines()
    n = len(lines[1].split(",")) - 2
    bench = lines[1].split(",")[1]
    lines[2] = f"1,{bench},crash" + "," * (n - 1)  # warmup_stats' csv_to_krun_json convention
    path = tmp_path / "crash.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.warns(DataFormatWarning, match=r"crash.csv \(line 3\).*execution 1 .*crashed"):
        ds = segview.load(path)
    assert [s.metadata["execution"] for s in ds] == [0, 2, 3, 4]
    growing = tmp_path / "growing.csv"
    text = src.read_text()
    growing.write_text(text[: text.rindex(",") - 3])  # the last row is still being written
    with pytest.warns(DataFormatWarning, match=r"growing.csv \(line 6\).*still being written"):
        ds = segview.load(growing)
    assert len(ds) == 4 and all(len(s) == n for s in ds)


def test_warmup_stats_csv_bad_cells_are_named(tmp_path):
    src = (DATA / "warmup_stats" / "pypy_nbody.csv").read_text().splitlines()
    cells = src[3].split(",")
    cells[7] = "fast"
    path = tmp_path / "bad.csv"
    path.write_text("\n".join(src[:3] + [",".join(cells)] + src[4:]) + "\n")
    with pytest.raises(DataFormatError, match=r"bad.csv \(line 4, column 8\).*'fast'"):
        load_file(path)
    dup = tmp_path / "dup.csv"
    dup.write_text("\n".join(src[:3] + [src[2]]) + "\n")
    with pytest.raises(DataFormatError, match=r"dup.csv \(line 4\).*appears twice"):
        load_file(dup)


def test_detected_by_content_not_by_name(tmp_path):
    a = tmp_path / "results.csv"
    shutil.copy(CSVS[0], a)
    b = tmp_path / "krun_copy.bz2"
    shutil.copy(KRUN, b)
    assert reader_for(a).name == "warmup-stats" and reader_for(b).name == "krun"


def test_a_bzip2_file_that_is_not_krun_is_skipped_in_a_folder(tmp_path):
    (tmp_path / "raw.csv.bz2").write_bytes(bz2.compress(b"a,b\n1,2\n"))
    shutil.copy(KRUN, tmp_path / "k.json.bz2")
    ds = segview.load(tmp_path)
    assert not ds.problems and {s.metadata["format"] for s in ds} == {"krun"}
    with pytest.raises(DataFormatError, match="raw.csv.bz2.*not Krun results"):
        load_file(tmp_path / "raw.csv.bz2")
