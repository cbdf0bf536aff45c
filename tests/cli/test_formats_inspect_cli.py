"""``segview formats`` and ``segview inspect``: facts checked against files the tests write."""
from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from segview.cli.main import main
from segview.core.benchmark import execution
from segview.core.io import load_file
from segview.core.io import readers

# A harness format of the tests' own: "FAKEBENCH" then one line per execution,
# "benchmark;index;warm-up count;unit;v1 v2 ...", so that warm-up marking is exercised whatever
# harness readers are registered.
FAKE_TEXT = ("FAKEBENCH\n"
             "Fib.run;0;2;ns/op;9.5 8.25 1.5 1.25 1.125\n"
             "Fib.run;1;2;ns/op;7 6 2.5 2 1.75\n"
             "Sort.run;0;0;ops/s;100 110 120\n")


def _read_fake(path: Path):
    out = []
    for line in Path(path).read_text().splitlines()[1:]:
        name, idx, warm, unit, vals = line.split(";")
        out.append(execution([float(v) for v in vals.split()], benchmark=name, index=int(idx),
                             harness="fakebench", unit=unit, warmup=int(warm),
                             metadata={"source": str(path), "format": "fakebench"}))
    return out


FAKE_READER = readers.Reader("fakebench", "Fake harness (*.fakebench)", (".fakebench",),
                             lambda head: head.startswith("FAKEBENCH"), _read_fake,
                             harness="fakebench", example="FAKEBENCH\nb;0;1;ns;3 2 1",
                             checked="fakebench 0.1")


@contextlib.contextmanager
def fake_reader():
    readers.all_readers()  # the built-in ones first
    readers.register_reader(FAKE_READER)
    try:
        yield
    finally:
        readers._READERS.pop(FAKE_READER.name, None)


# --- formats ------------------------------------------------------------------------------------

def test_formats_lists_every_registered_reader_with_its_fields(capsys):
    with fake_reader():
        names = [r.name for r in readers.all_readers()]
        assert main(["formats", "--format", "json"]) == 0
        listed = json.loads(capsys.readouterr().out)["readers"]
        assert main(["formats"]) == 0
        text = capsys.readouterr().out
    assert [r["name"] for r in listed] == names
    assert {"jmh", "csv", "extrap", "tcpd", "fakebench"} <= set(names)
    fake = next(r for r in listed if r["name"] == "fakebench")
    assert fake == {"name": "fakebench", "harness": "fakebench", "extensions": [".fakebench"],
                    "label": "Fake harness (*.fakebench)", "checked": "fakebench 0.1",
                    "example": "FAKEBENCH\nb;0;1;ns;3 2 1", "priority": 0, "options": []}
    block = text.split("fakebench: Fake harness (*.fakebench)\n", 1)[1].split("\n\n")[0]
    assert "harness:    fakebench" in block and "extensions: .fakebench" in block
    assert "checked:    fakebench 0.1" in block
    assert "    FAKEBENCH\n    b;0;1;ns;3 2 1" in block
    for name in names:
        assert f"\n{name}: " in "\n" + text


def test_formats_one_reader_and_an_unknown_one(capsys):
    assert main(["formats", "csv", "--format", "json"]) == 0
    assert [r["name"] for r in json.loads(capsys.readouterr().out)["readers"]] == ["csv"]
    assert main(["formats", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "nosuch" in err and "jmh" in err


@pytest.mark.parametrize("name", ["jmh", "csv", "extrap", "tcpd"])
def test_builtin_readers_show_an_example_that_they_read(tmp_path, name):
    r = next(r for r in readers.all_readers() if r.name == name)
    assert r.example and r.checked
    path = tmp_path / f"example{r.extensions[0]}"
    path.write_text(r.example.split("\nor, ")[0] + "\n")
    assert readers.reader_for(path).name == name
    assert load_file(path)


# --- inspect -------------------------------------------------------------------------------------

JMH_RESULTS = [
    {"jmhVersion": "1.37", "benchmark": "org.sample.Fib.run", "mode": "avgt", "forks": 3,
     "params": {"n": "20"},
     "primaryMetric": {"score": 2.0, "scoreUnit": "ns/op",
                       "rawData": [[2.5, 2.25, 2.0], [3.0, 1.5, 1.75, 1.0], [4.0, 3.5]]}},
    {"jmhVersion": "1.37", "benchmark": "org.sample.Sort.run", "mode": "thrpt", "forks": 1,
     "primaryMetric": {"score": 10.0, "scoreUnit": "ops/ms", "rawData": [[9.0, 10.0, 11.0]]}},
]


def _expected_from_jmh(results):
    """What inspect must say, read from the JMH file's own fields."""
    out = []
    for entry in results:
        params = entry.get("params") or {}
        name = entry["benchmark"] + ("[" + ",".join(f"{k}={v}" for k, v in sorted(params.items()))
                                     + "]" if params else "")
        metric = entry["primaryMetric"]
        out.append({"name": name, "harness": "jmh", "unit": metric["scoreUnit"],
                    "direction": {"avgt": "lower", "thrpt": "higher"}[entry["mode"]],
                    "executions": [{"index": k, "warmup": 0, "measured": len(fork),
                                    "first": fork[0], "last": fork[-1]}
                                   for k, fork in enumerate(metric["rawData"])]})
    return out


def _core(doc):
    keys = ("index", "warmup", "measured", "first", "last")
    return [{**{k: b[k] for k in ("name", "harness", "unit", "direction")},
             "executions": [{k: e[k] for k in keys} for e in b["executions"]]}
            for b in doc["benchmarks"]]


def test_inspect_json_of_a_jmh_result_file(tmp_path, capsys):
    path = tmp_path / "jmh-result.json"
    path.write_text(json.dumps(JMH_RESULTS))
    assert main(["inspect", str(path), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert _core(doc) == _expected_from_jmh(json.loads(path.read_text()))
    assert doc["problems"] == []


def test_inspect_reports_harness_warmup_and_first_last_measured(tmp_path, capsys):
    path = tmp_path / "run.fakebench"
    path.write_text(FAKE_TEXT)
    with fake_reader():
        assert main(["inspect", str(path), "--format", "json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert main(["inspect", str(path)]) == 0
        text = capsys.readouterr().out
    expected = {}
    for line in FAKE_TEXT.splitlines()[1:]:  # the facts, from the file itself
        name, idx, warm, unit, vals = line.split(";")
        v = [float(x) for x in vals.split()]
        expected.setdefault(name, []).append({"index": int(idx), "warmup": int(warm),
                                              "measured": len(v) - int(warm),
                                              "first": v[int(warm)], "last": v[-1]})
    got = {b["name"]: b["executions"] for b in _core(doc)}
    assert got == expected
    assert [(b["unit"], b["direction"]) for b in doc["benchmarks"]] == [("ns/op", "lower"),
                                                                         ("ops/s", "higher")]
    assert "Fib.run: harness fakebench, unit ns/op, lower is better, 2 executions" in text
    assert "Sort.run: harness fakebench, unit ops/s, higher is better (throughput), 1 execution" \
        in text
    # exec 0 of Fib.run: 2 warm-up, 3 measured, first measured 1.5, last 1.125
    assert any(line.split()[:5] == ["0", "2", "3", "1.5", "1.125"] for line in text.splitlines())


def test_inspect_names_failed_files_prints_the_rest_and_exits_1(tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text("[[1, 2, 3]]")
    bad = tmp_path / "bad.json"
    bad.write_text("[[1, 2")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "ok.csv").write_text("a\n1\n2\n")
    (folder / "broken.json").write_text("[[1, NaN]]")
    rc = main(["inspect", str(good), str(bad), str(folder), str(tmp_path / "missing.json"),
               "--format", "json"])
    cap = capsys.readouterr()
    assert rc == 1
    for name in ("bad.json", "broken.json", "missing.json"):
        assert name in cap.err
    doc = json.loads(cap.out)
    assert [b["name"] for b in doc["benchmarks"]] == ["good", "a"]
    assert doc["benchmarks"][0]["executions"][0]["measured"] == 3
    assert sorted(Path(p["file"]).name for p in doc["problems"]) == ["bad.json", "broken.json",
                                                                     "missing.json"]


def test_inspect_without_files_is_a_usage_error(capsys):
    assert main(["inspect"]) == 2
    assert "FILE" in capsys.readouterr().err
