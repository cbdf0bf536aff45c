"""``segview compare BEFORE AFTER``: acceptance on the real JVM/PyPy fixtures with one benchmark
deliberately slowed; units; one-side benchmarks; exit codes."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from segview.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "data" / "harness" / "warmup_stats"


def scaled_copy(src: Path, dst: Path, factor: float) -> None:
    """A warmup_stats CSV with every iteration time multiplied by ``factor``."""
    with open(src, newline="") as fh:
        rows = list(csv.reader(fh))
    out = [rows[0]] + [r[:2] + [repr(float(v) * factor) for v in r[2:]] for r in rows[1:]]
    with open(dst, "w", newline="") as fh:
        csv.writer(fh).writerows(out)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("cmp")
    before, after = root / "before", root / "after"
    before.mkdir()
    after.mkdir()
    for name in ("hotspot_nbody.csv", "pypy_nbody.csv"):
        scaled_copy(DATA / name, before / name, 1.0)
    # PyPy deliberately slowed by 30 %; HotSpot moved by 2 %, far inside the spread between its
    # five processes (their steady means differ by about 10x more)
    scaled_copy(DATA / "pypy_nbody.csv", after / "pypy_nbody.csv", 1.3)
    scaled_copy(DATA / "hotspot_nbody.csv", after / "hotspot_nbody.csv", 1.02)
    return before, after


def test_exactly_the_slowed_benchmark_is_slower(runs, tmp_path, capsys):
    before, after = runs
    out = tmp_path / "cmp.json"
    rc = main(["compare", str(before), str(after), "--json", str(out), "--seed", "5"])
    text = capsys.readouterr().out
    assert rc == 0
    doc = json.loads(out.read_text())
    by = {b["name"]: b for b in doc["benchmarks"]}
    assert set(by) == {"nbody-hotspot", "nbody-pypy"}
    slower = [n for n, b in by.items() if b["verdict"] == "slower"]
    assert slower == ["nbody-pypy"]
    p = by["nbody-pypy"]
    assert p["ci"][0] > 1.0                               # the interval excludes 1
    assert p["ci"][0] <= p["ratio"] <= p["ci"][1]
    assert by["nbody-hotspot"]["verdict"] == "no significant difference"
    assert by["nbody-hotspot"]["ci"][0] < 1.0 < by["nbody-hotspot"]["ci"][1]
    assert doc["only_before"] == [] and doc["only_after"] == []
    line = next(x for x in text.splitlines() if x.startswith("nbody-pypy"))
    assert line.rstrip().endswith("slower")


def test_one_side_only_listed(runs, tmp_path, capsys):
    before, _ = runs
    after = tmp_path / "after"
    after.mkdir()
    scaled_copy(DATA / "pypy_nbody.csv", after / "pypy_nbody.csv", 1.0)
    out = tmp_path / "c.json"
    assert main(["compare", str(before), str(after), "--json", str(out),
                 "--resamples", "500"]) == 0
    doc = json.loads(out.read_text())
    assert doc["only_before"] == ["nbody-hotspot"] and doc["only_after"] == []
    assert [b["name"] for b in doc["benchmarks"]] == ["nbody-pypy"]
    assert doc["benchmarks"][0]["verdict"] == "no significant difference"   # same data
    assert "only before: nbody-hotspot" in capsys.readouterr().out


def _jmh(path, unit, mode, forks):
    path.write_text(json.dumps([{"benchmark": "org.B.run", "mode": mode, "params": {},
                                 "primaryMetric": {"scoreUnit": unit,
                                                   "rawData": [list(f) for f in forks]}}]))


def _forks(mean, seed):
    rng = np.random.default_rng(seed)
    return [mean * (1 + 0.01 * rng.standard_normal(60)) for _ in range(3)]


def test_time_units_converted_between_sides(tmp_path):
    forks = _forks(5.0, 1)
    _jmh(tmp_path / "b.json", "us/op", "avgt", forks)
    _jmh(tmp_path / "a.json", "ns/op", "avgt", [f * 1000 for f in forks])
    out = tmp_path / "c.json"
    assert main(["compare", str(tmp_path / "b.json"), str(tmp_path / "a.json"), "--json",
                 str(out), "--resamples", "500", "--delta", "0.1"]) == 0
    (b,) = json.loads(out.read_text())["benchmarks"]
    assert b["after_unit_factor"] == pytest.approx(1e-3)
    assert b["ratio"] == pytest.approx(1.0) and b["verdict"] == "no significant difference"


def test_units_that_disagree_are_a_named_error(tmp_path, capsys):
    _jmh(tmp_path / "b.json", "us/op", "avgt", _forks(5.0, 1))
    _jmh(tmp_path / "a.json", "ops/s", "thrpt", _forks(2e5, 2))
    out = tmp_path / "c.json"
    rc = main(["compare", str(tmp_path / "b.json"), str(tmp_path / "a.json"), "--json", str(out),
               "--resamples", "200"])
    assert rc == 1                                        # that benchmark failed, file written
    assert "UnitMismatchError" in capsys.readouterr().err
    (b,) = json.loads(out.read_text())["benchmarks"]
    assert b["error"] and b["ratio"] is None


def test_throughput_higher_is_faster(tmp_path):
    forks = _forks(2e5, 3)
    _jmh(tmp_path / "b.json", "ops/s", "thrpt", forks)
    _jmh(tmp_path / "a.json", "ops/s", "thrpt", [f * 1.3 for f in forks])
    out = tmp_path / "c.json"
    assert main(["compare", str(tmp_path / "b.json"), str(tmp_path / "a.json"), "--json",
                 str(out), "--resamples", "500", "--delta", "1000"]) == 0
    (b,) = json.loads(out.read_text())["benchmarks"]
    assert b["verdict"] == "faster" and b["ci"][0] > 1


def test_usage_errors(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:              # argparse: AFTER missing
        main(["compare", str(DATA / "pypy_nbody.csv")])
    assert stop.value.code == 2
    assert main(["compare", str(DATA / "pypy_nbody.csv"), str(DATA / "pypy_nbody.csv"),
                 "--method", "nope"]) == 2
    capsys.readouterr()


def _warmup_json(src, dst) -> None:
    assert main(["warmup", str(src), "--json", str(dst), "-q", "--seed", "5"]) == 0


def test_warmup_json_inputs_compare_exactly_as_the_result_files(runs, tmp_path, capsys):
    # the JSON carries the executions' steady iterations, so the ratio, its interval and the
    # verdicts are the ones of the result files themselves, to the last bit
    before, after = runs
    _warmup_json(before, tmp_path / "b.json")
    _warmup_json(after, tmp_path / "a.json")
    direct, via_json, mixed = (tmp_path / n for n in ("d.json", "j.json", "m.json"))
    assert main(["compare", str(before), str(after), "--json", str(direct), "--seed", "5"]) == 0
    assert main(["compare", str(tmp_path / "b.json"), str(tmp_path / "a.json"), "--json",
                 str(via_json), "--seed", "5"]) == 0
    assert main(["compare", str(tmp_path / "b.json"), str(after), "--json", str(mixed),
                 "--seed", "5"]) == 0
    capsys.readouterr()
    want = json.loads(direct.read_text())["benchmarks"]
    for out in (via_json, mixed):
        got = json.loads(out.read_text())["benchmarks"]
        assert got == want
    by = {b["name"]: b["verdict"] for b in want}
    assert by == {"nbody-pypy": "slower", "nbody-hotspot": "no significant difference"}
    # the warmup JSON's fields: warmup_stats' names per execution, plus the steady iterations
    doc = json.loads((tmp_path / "b.json").read_text())
    assert doc["format"] == "segview warmup" and doc["format_version"] == 2
    e = doc["benchmarks"][0]["executions"][0]
    assert {"index", "classification", "changepoints", "outliers", "segment_means",
            "steady_values"} <= set(e)
    assert len(e["steady_values"]) > 0 and e["steady_mean"] == pytest.approx(
        np.mean(e["steady_values"]), rel=0.05)


def test_warmup_json_read_back_is_the_same_analysis(runs, tmp_path):
    from segview.core.warmup import from_json
    before, _ = runs
    _warmup_json(before, tmp_path / "b.json")
    doc = json.loads((tmp_path / "b.json").read_text())
    assert [r.to_dict() for r in from_json(doc, "b.json")] == doc["benchmarks"]


def test_a_warmup_json_of_format_1_is_read_and_named_as_lacking_the_steady_iterations(
        runs, tmp_path, capsys):
    before, after = runs
    _warmup_json(before, tmp_path / "b.json")
    doc = json.loads((tmp_path / "b.json").read_text())
    del doc["format"], doc["format_version"]                 # as segview wrote it before
    for b in doc["benchmarks"]:
        for e in b["executions"]:
            del e["steady_values"]
    (tmp_path / "old.json").write_text(json.dumps(doc))
    out = tmp_path / "c.json"
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "old.json"), str(after), "--json", str(out),
                 "--resamples", "200"]) == 0
    err = capsys.readouterr().err
    rows = json.loads(out.read_text())["benchmarks"]
    assert {b["name"] for b in rows} == {"nbody-pypy", "nbody-hotspot"}
    for b in rows:                                            # classes compared, no ratio
        assert b["verdict"] == "not comparable" and "format_version 2" in b["reason"]
        assert b["before_class"] is not None
    assert "run segview warmup --json again" in err


def test_a_broken_warmup_json_is_a_named_input_error(runs, tmp_path, capsys):
    before, after = runs
    _warmup_json(before, tmp_path / "b.json")
    doc = json.loads((tmp_path / "b.json").read_text())
    del doc["benchmarks"][1]["executions"][0]["index"]
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "bad.json"), str(after)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "benchmarks[1]" in err and "index" in err
    # a key given twice is refused too
    (tmp_path / "dup.json").write_text('{"format": "segview warmup", "format": "x", '
                                       '"benchmarks": []}')
    assert main(["compare", str(tmp_path / "dup.json"), str(after)]) == 2
    assert "twice" in capsys.readouterr().err
