"""TCPDBench's published default experiment, reproduced through the command line, bit for bit:
``segview detect --preset tcpdbench --cp-index tcpdbench`` then ``segview evaluate --cp-truth``.
Expected values come from ``shared/data/tcpd/tcpdbench_default_results.json`` (the benchmark's
published F1 and cover), never from segview."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from segview.cli.main import main


def _expected(tcpd_dir: Path) -> dict[tuple[str, str], tuple[float, float]]:
    """(data set, method) -> published (f1, cover), univariate complete data sets only."""
    published = json.loads((tcpd_dir / "tcpdbench_default_results.json").read_text())
    out = {}
    for name, entry in published.items():
        if entry["n_dim"] != 1 or entry["methods"]["pelt"]["status"] != "SUCCESS":
            continue  # run_log (2-D, SKIP) and uk_coal_employ (missing values, FAIL)
        for method in ("binseg", "pelt", "zero"):
            m = entry["methods"][method]
            out[(name, method)] = (m["f1"], m["cover"])
    return out


def _scores(js: dict) -> dict[tuple[str, str], tuple[float, float]]:
    return {(r["series_id"], r["method"]): (r["f1"], r["cover"]) for r in js["series"]}


@pytest.mark.parametrize("where", ["detect", "evaluate"])
def test_published_f1_and_cover_reproduced_exactly(tcpd_dir, tmp_path, capsys, where):
    pred, out = tmp_path / "pred.csv", tmp_path / "scores.json"
    datasets = str(tcpd_dir / "datasets")
    convert = ["--cp-index", "tcpdbench"]
    rc = main(["detect", datasets, "-m", "binseg,pelt,zero", "--preset", "tcpdbench", "-o",
               str(pred), *(convert if where == "detect" else [])])
    assert rc == 1  # uk_coal_employ has missing values: named on stderr, the rest written
    assert "uk_coal_employ" in capsys.readouterr().err
    rc = main(["evaluate", "--cp-truth", str(tcpd_dir / "annotations.json"), str(pred),
               "--series", datasets, "--format", "json", "-o", str(out),
               *(convert if where == "evaluate" else [])])
    assert rc == 1 and "uk_coal_employ" in capsys.readouterr().err  # reported as detect does
    js = json.loads(out.read_text())
    got = _scores(js)
    expected = _expected(tcpd_dir)
    assert len(expected) == 36
    for key, (f1, cover) in expected.items():
        assert got[key][0] == f1, key
        assert got[key][1] == cover, key
    for method in ("binseg", "pelt", "zero"):
        assert js["methods"][method]["n_series"] >= 12
        assert js["methods"][method]["n_cover"] == js["methods"][method]["n_series"]


def test_cp_only_evaluation_writes_per_series_rows(tmp_path, capsys):
    (tmp_path / "ann.json").write_text(json.dumps({"s1": {"a": [50], "b": [52, 80]},
                                                   "s2": {"a": []}}))
    (tmp_path / "p.csv").write_text("series_id,method,steady_index,change_points,runtime_ms\n"
                                    "s1,pelt,,50;80,1\ns2,pelt,,30,1\n")
    rc = main(["evaluate", "--cp-truth", str(tmp_path / "ann.json"), str(tmp_path / "p.csv"),
               "--format", "csv", "-o", str(tmp_path / "out.csv")])
    assert rc == 0
    lines = (tmp_path / "out.csv").read_text().splitlines()
    assert lines[0].startswith("row,series_id,method,n_obs,n_annotators,n_predicted,f1,")
    assert [ln.split(",")[:3] for ln in lines[1:]] == [["series", "s1", "pelt"],
                                                        ["series", "s2", "pelt"],
                                                        ["mean", "", "pelt"]]
    assert lines[-1].endswith(",2,0")  # the means are over 2 series; cover over none
    assert main(["evaluate", "--cp-truth", str(tmp_path / "ann.json"), str(tmp_path / "p.csv")]) == 0
    text = capsys.readouterr().out
    assert "over 2 series" in text and "cover needs the series lengths" in text
    # neither truth given: a usage error
    assert main(["evaluate", str(tmp_path / "p.csv")]) == 2


def test_evaluate_runs_detectors_with_a_preset(tcpd_dir, tmp_path):
    # the batch path of evaluate (--method/--series) takes --preset like detect does
    nile = str(tcpd_dir / "datasets" / "nile.json")
    out = tmp_path / "s.json"
    rc = main(["evaluate", "--cp-truth", str(tcpd_dir / "annotations.json"), "--series", nile,
               "-m", "binseg", "--preset", "tcpdbench", "--cp-index", "tcpdbench", "-j", "1",
               "--no-cache", "--format", "json", "-o", str(out)])
    assert rc == 0
    (row,) = json.loads(out.read_text())["series"]
    published = json.loads((tcpd_dir / "tcpdbench_default_results.json").read_text())
    assert (row["f1"], row["cover"]) == (published["nile"]["methods"]["binseg"]["f1"],
                                         published["nile"]["methods"]["binseg"]["cover"])
