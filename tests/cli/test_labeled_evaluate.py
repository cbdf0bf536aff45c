"""``segview evaluate`` takes its truth from the data it is given (issue 13): a TCPD folder's
annotations.json scores change points (multivariate run_log included) and a segview export folder's
aggregated labels score onsets, without extra flags."""
from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

import segview
from segview.cli.main import main
from segview.core import export as ex
from segview.core.annotation.session import AnnotationSession
from segview.core.annotation.store import Store


@pytest.mark.shared
def test_tcpd_folder_is_its_own_change_point_truth(tcpd_copy, capsys):
    assert main(["evaluate", "--series", str(tcpd_copy), "-m", "pelt", "--format", "csv",
                 "--no-cache", "-j", "1"]) == 0
    out, err = capsys.readouterr()
    rows = {r["series_id"]: r for r in csv.DictReader(io.StringIO(out)) if r["row"] == "series"}
    assert set(rows) == {"run_log", "nile"}  # the multivariate set is scored under its own id
    assert 0.0 < float(rows["run_log"]["f1"]) <= 1.0
    assert "annotations of 2 series" in err


@pytest.mark.parametrize("fmt", ex.FORMATS)
def test_export_folder_is_its_own_onset_truth(tmp_path, capsys, fmt):
    rng = np.random.default_rng(3)
    series = [segview.Series(np.r_[np.linspace(5, 1, 60), 1 + 0.01 * rng.normal(size=240)],
                             id=f"s{k}") for k in range(3)]
    s = AnnotationSession.create(Store(tmp_path / "a.sqlite"), "t", series)
    for j in "abc":
        for x in series:
            s.record(s.judge(j, create=True), x.id, steady=True, onset=60)
    folder = ex.export_session(s, tmp_path / "exp", fmt)
    assert main(["evaluate", "--series", str(folder), "-m", "kbkssd", "--format", "json",
                 "--no-cache", "-j", "1"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scoring"]["n_series"] == 3 and "kbkssd" in data["methods"]
    assert main(["evaluate", "--truth", str(folder), "--series", str(folder), "-m", "kbkssd",
                 "--format", "json", "--no-cache", "-j", "1"]) == 0
    assert json.loads(capsys.readouterr().out) == data


def test_detect_joint_or_per_dimension(tmp_path, capsys):
    rng = np.random.default_rng(8)
    y = rng.normal(size=(120, 2)) + np.where(np.arange(120)[:, None] >= 60, [4.0, -4.0], 0.0)
    p = tmp_path / "runs.csv"
    p.write_text("series_id,index,Pace,Distance\n" + "".join(
        f"run_log,{i},{a!r},{b!r}\n" for i, (a, b) in enumerate(y.tolist())))
    assert main(["detect", str(p), "-m", "pelt", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    text = json.dumps(out)
    assert "run_log" in text and "run_log/Pace" not in text and "60" in text
    assert main(["detect", str(p), "-m", "kbkssd"]) != 0  # needs one dimension: named error
    assert "works on one dimension" in capsys.readouterr().err
    assert main(["detect", str(p), "-m", "kbkssd", "--per-dimension"]) == 0
    out = capsys.readouterr().out
    assert "run_log/Pace" in out and "run_log/Distance" in out


@pytest.mark.shared
def test_run_log_detect_then_evaluate_with_cp_truth(tcpd_copy, tmp_path, capsys):
    pred = tmp_path / "p.csv"
    data = tcpd_copy / "datasets" / "run_log.json"
    assert main(["detect", str(data), "-m", "pelt", "-o", str(pred), "-j", "1"]) == 0
    rows = list(csv.DictReader(open(pred, newline="")))
    assert [r["series_id"] for r in rows] == ["run_log"] and rows[0]["change_points"]
    capsys.readouterr()
    assert main(["evaluate", "--cp-truth", str(tcpd_copy / "annotations.json"), str(pred),
                 "--series", str(data), "--format", "csv"]) == 0
    got = [r for r in csv.DictReader(io.StringIO(capsys.readouterr().out)) if r["row"] == "series"]
    assert [r["series_id"] for r in got] == ["run_log"] and float(got[0]["cover"]) > 0
