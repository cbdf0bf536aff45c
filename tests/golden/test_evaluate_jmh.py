"""Acceptance (issue 7): ``segview evaluate`` on the 350 JMH series reproduces the published RQ1
figures for KB-KSSD and CP-SSD. Truth = labels.csv (steady, jagt_index, jagt_clustered); KB-KSSD =
``kbkssd_reference`` (and, once registered, the real detector), CP-SSD = ``cpssd_published``.
Expected numbers are from the issue's acceptance list, not from this code."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from segview.cli.main import main

pytestmark = [pytest.mark.shared]

EXPECTED = {  # method: (agreement, FP, FN, total |e|, clustered |e|)
    "kbkssd": (245, 102, 3, 86569, 40930),
    "cpssd": (248, 84, 18, 93649, 41246),
}


def _write_truth(labels: Path, out: Path) -> None:
    with open(labels, newline="") as fh, open(out, "w", newline="") as fo:
        w = csv.writer(fo)
        w.writerow(["series_id", "steady", "reference_index", "clustered"])
        for r in csv.DictReader(fh):
            steady = r["steady"] == "1"
            w.writerow([r["series_id"], int(steady), r["jagt_index"] if steady else "",
                        r["jagt_clustered"] if steady else ""])


def _write_predictions(labels: Path, out: Path) -> None:
    with open(labels, newline="") as fh, open(out, "w", newline="") as fo:
        w = csv.writer(fo)
        w.writerow(["series_id", "method", "steady_index", "change_points", "runtime_ms"])
        for r in csv.DictReader(fh):
            for method, col in (("kbkssd", "kbkssd_reference"), ("cpssd", "cpssd_published")):
                w.writerow([r["series_id"], method, r[col], "", 0])


def _check(js: dict, names: dict[str, str]) -> None:
    for key, (agree, fp, fn, total, clustered) in EXPECTED.items():
        m = js["methods"][names[key]]
        assert (m["agreement"], m["false_positive"], m["false_negative"]) == (agree, fp, fn)
        assert m["n_common"] == 226
        assert m["total_abs_error"] == total
        assert m["clustered_abs_error"] == clustered
        assert m["scattered_abs_error"] == total - clustered
    assert js["details"][names["kbkssd"]]["n_clustered"] == 125


def test_evaluate_jmh_published(jmh_dir, tmp_path, capsys):
    truth, pred = tmp_path / "truth.csv", tmp_path / "pred.csv"
    _write_truth(jmh_dir / "labels.csv", truth)
    _write_predictions(jmh_dir / "labels.csv", pred)
    code = main(["evaluate", "--truth", str(truth), str(pred), "--format", "json",
                 "--methods", "kbkssd,cpssd"])
    assert code == 0
    js = json.loads(capsys.readouterr().out)
    assert set(js) >= {"methods", "tests"}
    _check(js, {"kbkssd": "kbkssd", "cpssd": "cpssd"})
    tests = {(t["family"], t["test"]) for t in js["tests"]}
    assert ("raw", "sign") in tests and ("raw", "levene") in tests


def test_evaluate_jmh_labels_csv_as_truth(jmh_dir, tmp_path, capsys):
    pred = tmp_path / "pred.csv"
    _write_predictions(jmh_dir / "labels.csv", pred)
    assert main(["evaluate", "--truth", str(jmh_dir / "labels.csv"), str(pred),
                 "--format", "json"]) == 0
    _check(json.loads(capsys.readouterr().out), {"kbkssd": "kbkssd", "cpssd": "cpssd"})


@pytest.mark.slow
def test_evaluate_jmh_real_kbkssd(jmh_dir, tmp_path, capsys):
    from segview.core import registry
    from segview.core.errors import UnknownMethodError
    try:
        registry.get("kbkssd")
    except UnknownMethodError:
        pytest.skip("the kbkssd detector is not registered yet")
    truth, pred = tmp_path / "truth.csv", tmp_path / "pred.csv"
    _write_truth(jmh_dir / "labels.csv", truth)
    with open(jmh_dir / "labels.csv", newline="") as fh, open(pred, "w", newline="") as fo:
        w = csv.writer(fo)
        w.writerow(["series_id", "method", "steady_index", "change_points", "runtime_ms"])
        for r in csv.DictReader(fh):
            w.writerow([r["series_id"], "cpssd", r["cpssd_published"], "", 0])
    code = main(["evaluate", "--truth", str(truth), str(pred), "--format", "json",
                 "--method", "kbkssd", "--series", str(jmh_dir / "series"),
                 "--cache-dir", str(tmp_path / "cache"), "--methods", "kbkssd,cpssd"])
    assert code == 0
    _check(json.loads(capsys.readouterr().out), {"kbkssd": "kbkssd", "cpssd": "cpssd"})
