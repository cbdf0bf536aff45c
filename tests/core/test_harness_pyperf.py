"""pyperf JSON: real files written by pyperf 2.11.0 (tests/data/harness/make_pyperf.sh); every fact
checked here is read from the file with json/gzip, not from segview."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import segview
from segview.core.benchmark import LOWER, measured
from segview.core.errors import DataFormatError, SegviewWarning
from segview.core.io import load_file
from segview.core.io.readers import reader_for

DATA = Path(__file__).resolve().parents[1] / "data" / "harness" / "pyperf"


def _facts(doc):
    """Per benchmark name: (unit, [(warmup values, measured values) per measuring run],
    calibration runs), from the pyperf document itself."""
    out = {}
    for bench in doc["benchmarks"]:
        meta = {**doc["metadata"], **bench.get("metadata", {})}
        runs = [([w[1] for w in r.get("warmups", [])], r["values"]) for r in bench["runs"]
                if r.get("values")]
        calib = sum(1 for r in bench["runs"] if not r.get("values"))
        out[meta["name"]] = (meta.get("unit", "second"), runs, calib)
    return out


@pytest.mark.parametrize("name,opener", [("timeit.json", open),
                                         ("two_benchmarks.json.gz", gzip.open)])
def test_real_pyperf_files(name, opener):
    path = DATA / name
    with opener(path, "rt") as fh:
        facts = _facts(json.load(fh))
    assert reader_for(path).name == "pyperf"
    ds = segview.load(path)
    benches = {b.name: b for b in ds.benchmarks()}
    assert list(benches) == list(facts)
    for bname, (unit, runs, calib) in facts.items():
        b = benches[bname]
        assert b.harness == "pyperf" and b.unit == unit and b.direction == LOWER
        assert len(b) == len(runs)
        for ex, (warm, vals) in zip(b.executions, runs):
            assert ex.metadata["warmup"] == len(warm)
            assert ex.values[:len(warm)].tolist() == warm
            m = measured(ex)
            assert len(m) == len(vals)
            assert m.values[0] == vals[0] and m.values[-1] == vals[-1]
            assert ex.metadata["calibration_runs"] == calib


def test_calibration_run_is_not_an_execution():
    with gzip.open(DATA / "two_benchmarks.json.gz", "rt") as fh:
        doc = json.load(fh)
    first = doc["benchmarks"][0]
    calib = [r for r in first["runs"] if "values" not in r]
    assert calib and "calibrate_loops" in calib[0]["metadata"]  # the fixture has one
    ss = [s for s in load_file(DATA / "two_benchmarks.json.gz")
          if s.metadata["benchmark"] == first["metadata"]["name"]]
    assert len(ss) == len(first["runs"]) - len(calib)
    assert [s.metadata["execution"] for s in ss] == list(range(len(ss)))


def test_harness_warmup_drop():
    doc = json.loads((DATA / "timeit.json").read_text())
    ds = segview.load(DATA / "timeit.json", harness_warmup="drop")
    assert [s.values.tolist() for s in ds] == [r["values"] for r in doc["benchmarks"][0]["runs"]]


def _write(tmp_path, doc, name="b.json"):
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p


def test_truncated_file(tmp_path):
    text = (DATA / "timeit.json").read_text()
    p = tmp_path / "cut.json"
    p.write_text(text[: len(text) // 2])
    assert reader_for(p).name == "pyperf"
    with pytest.raises(DataFormatError, match=r"cut.json \(line 1, column \d+\): invalid JSON"):
        load_file(p)
    gz = tmp_path / "cut.json.gz"
    gz.write_bytes((DATA / "two_benchmarks.json.gz").read_bytes()[:-200])
    with pytest.raises(DataFormatError, match="cut.json.gz.*cannot be read"):
        load_file(gz)


def test_renamed_field_is_named(tmp_path):
    doc = json.loads((DATA / "timeit.json").read_text())
    run = doc["benchmarks"][0]["runs"][1]
    run["samples"] = run.pop("values")
    run.pop("warmups")
    with pytest.raises(DataFormatError, match=r"benchmarks\[0\]\.runs\[1\].*no 'values' field.*"
                                              r"samples.*renamed"):
        load_file(_write(tmp_path, doc))


def test_duplicate_benchmark_names(tmp_path):
    doc = json.loads((DATA / "timeit.json").read_text())
    bench = doc["benchmarks"][0]
    bench["metadata"] = {"name": "same"}
    doc["benchmarks"] = [bench, json.loads(json.dumps(bench))]
    with pytest.raises(DataFormatError, match=r"benchmarks\[1\].*'same' appears twice.*"
                                              r"benchmarks\[0\]"):
        load_file(_write(tmp_path, doc))


def test_crashed_worker_is_reported_not_dropped(tmp_path):
    doc = json.loads((DATA / "timeit.json").read_text())
    doc["benchmarks"][0]["runs"][1] = {"metadata": {}}
    with pytest.warns(SegviewWarning, match=r"runs\[1\].*recorded no value"):
        ss = load_file(_write(tmp_path, doc))
    assert [s.metadata["execution"] for s in ss] == [0, 2, 3]  # the gap stays visible
    assert "crashed" in ss[0].metadata["load_warnings"][0]


def test_only_calibration_runs(tmp_path):
    doc = {"benchmarks": [{"metadata": {"name": "x"},
                           "runs": [{"metadata": {"calibrate_loops": 8}, "warmups": [[1, 1e-6]]}]}],
           "metadata": {"unit": "second"}, "version": "1.0"}
    with pytest.raises(DataFormatError, match="no run with values.*1 calibration"):
        load_file(_write(tmp_path, doc))


def test_gzip_found_by_content_not_name(tmp_path):
    p = tmp_path / "renamed.json"  # gzip data under a plain .json name
    p.write_bytes((DATA / "two_benchmarks.json.gz").read_bytes())
    assert reader_for(p).name == "pyperf"
    assert len(load_file(p)) == len(load_file(DATA / "two_benchmarks.json.gz"))


def test_unknown_gzip_is_named_and_folder_goes_on(tmp_path):
    with gzip.open(tmp_path / "other.json.gz", "wt") as fh:
        fh.write('{"something": "else"}')
    (tmp_path / "timeit.json").write_bytes((DATA / "timeit.json").read_bytes())
    with pytest.raises(DataFormatError, match="other.json.gz.*not a file segview recognises"):
        load_file(tmp_path / "other.json.gz")
    ds = segview.load(tmp_path)
    assert len(ds.problems) == 1 and len(ds.benchmarks()) == 1


def test_unrecognised_json_still_goes_to_the_generic_reader(tmp_path):
    # The harness readers' high priority must not make them the fallback for .json files that no
    # sniff accepts: a JSON object beside series stays a skipped companion, as before.
    (tmp_path / "notes.json").write_text('{"a": 1}')
    (tmp_path / "timeit.json").write_bytes((DATA / "timeit.json").read_bytes())
    assert reader_for(tmp_path / "notes.json").name == "jmh"
    ds = segview.load(tmp_path)
    assert ds.problems == [] and len(ds.benchmarks()) == 1


def test_gzip_bomb_is_bounded(tmp_path, monkeypatch):
    p = tmp_path / "big.json.gz"
    with gzip.open(p, "wt") as fh:
        fh.write('{"benchmarks": [{"runs": [], "x": "' + "a" * (3 * 2**20) + '"}]}')
    assert p.stat().st_size < 2**20 / 10  # small on disk
    monkeypatch.setenv("SEGVIEW_MAX_FILE_MB", "1")
    with pytest.raises(DataFormatError, match="big.json.gz.*decompresses to more than the 1 MB"):
        load_file(p)
