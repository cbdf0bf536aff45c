"""``segview evaluate``: formats, output file, plots, errors, and running a detector via the batch
engine (spec's worked mini-example, evaluation.md §2.4)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from segview.cli.main import main
from segview.core import registry
from segview.core.params import ParamSpec
from segview.core.registry import DetectorSpec
from segview.core.result import DetectionResult

TRUTH = """series_id,steady,reference_index,clustered
s1,1,100,1
s2,1,500,0
s3,0,,
s4,1,1000,0
"""
PRED = """series_id,method,steady_index,change_points,runtime_ms
s1,KB,90,,1
s2,KB,-1,,1
s3,KB,20,,1
s4,KB,1200,,1
s1,CP,130,,1
s2,CP,450,,1
s3,CP,-1,,1
s4,CP,1000,,1
"""


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "gt.csv").write_text(TRUTH)
    (tmp_path / "pred.csv").write_text(PRED)
    return tmp_path


def test_json_mini_example(files, capsys):
    assert main(["evaluate", "--truth", str(files / "gt.csv"), str(files / "pred.csv"),
                 "--format", "json"]) == 0
    js = json.loads(capsys.readouterr().out)
    kb, cp = js["methods"]["KB"], js["methods"]["CP"]
    assert (kb["agreement"], kb["false_positive"], kb["false_negative"]) == (2, 1, 1)
    assert (cp["agreement"], cp["false_positive"], cp["false_negative"]) == (4, 0, 0)
    assert kb["n_common"] == 2
    assert (kb["total_abs_error"], kb["clustered_abs_error"], kb["scattered_abs_error"]) == (210, 10, 200)
    assert (cp["total_abs_error"], cp["clustered_abs_error"], cp["scattered_abs_error"]) == (30, 30, 0)
    assert isinstance(js["tests"], list)


def test_text_csv_out_and_plots(files, capsys):
    out = files / "report.csv"
    assert main(["evaluate", "--truth", str(files / "gt.csv"), str(files / "pred.csv"),
                 "--format", "csv", "--out", str(out), "--plots", str(files / "plots")]) == 0
    lines = out.read_text().splitlines()
    assert lines[0].startswith("method,agreement,false_positive")
    assert lines[1].startswith("KB,2,1,1,")
    for stem in ("error_histograms", "agreement_bars", "paired_KB_vs_CP"):
        for ext in ("png", "svg"):
            assert (files / "plots" / f"{stem}.{ext}").stat().st_size > 0
    assert main(["evaluate", "--truth", str(files / "gt.csv"), str(files / "pred.csv")]) == 0
    text = capsys.readouterr().out
    assert "total |error|" in text and "210" in text


def test_own_scoring(files, capsys):
    assert main(["evaluate", "--truth", str(files / "gt.csv"), str(files / "pred.csv"),
                 "--format", "json", "--scoring", "own"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["methods"]["CP"]["n_common"] == 3 and js["methods"]["CP"]["total_abs_error"] == 80
    assert js["scoring"]["mode"] == "own"


def test_errors_exit_2(files, capsys):
    (files / "bad.csv").write_text("series_id,method\ns1,KB\n")
    assert main(["evaluate", "--truth", str(files / "gt.csv"), str(files / "bad.csv")]) == 2
    assert "steady_index" in capsys.readouterr().err
    (files / "short.csv").write_text(PRED.replace("s4,KB,1200,,1\n", ""))
    assert main(["evaluate", "--truth", str(files / "gt.csv"), str(files / "short.csv")]) == 2
    assert "s4" in capsys.readouterr().err
    assert main(["evaluate", "--truth", str(files / "gt.csv"), str(files / "pred.csv"),
                 "--methods", "KB,XX"]) == 2


def test_cp_truth_f1(files, capsys):
    pred = files / "cp.csv"
    pred.write_text("series_id,method,steady_index,change_points,runtime_ms\n"
                    "s1,pelt,,50;80,1\n")
    (files / "ann.json").write_text(json.dumps({"s1": {"a": [50], "b": [52, 80]}}))
    assert main(["evaluate", "--truth", str(files / "gt.csv"), str(files / "pred.csv"), str(pred),
                 "--cp-truth", str(files / "ann.json"), "--format", "json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["tcpd"]["pelt"]["f1"] == 1.0
    assert "pelt" not in js["methods"]


CALLS: list[int] = []


def _thresh_run(values, params, ctx):
    CALLS.append(1)
    hits = np.flatnonzero(values <= params["level"])
    return DetectionResult("fake_eval", params, np.zeros(0, np.int64),
                           int(hits[0]) if hits.size else None)


@pytest.fixture()
def fake_detector():
    registry.register(DetectorSpec("fake_eval", "Fake", "1", "onset",
                                   (ParamSpec("level", "float", 0.0),), _thresh_run))
    CALLS.clear()
    yield
    registry._REGISTRY.pop("fake_eval", None)


def test_method_runs_through_batch_engine_and_cache(files, fake_detector, capsys):
    sdir = files / "series"
    sdir.mkdir()
    # steady ramps down to 0 at the truth index; s3 never reaches 0
    for sid, n, g in (("s1", 300, 100), ("s2", 700, 500), ("s3", 300, None), ("s4", 1500, 1000)):
        y = np.maximum(np.arange(n, dtype=float)[::-1] - (n - 1 - g), 0) if g else np.ones(n)
        (sdir / f"{sid}.json").write_text(json.dumps([y.tolist()]))  # JMH layout: id = stem
    argv = ["evaluate", "--truth", str(files / "gt.csv"), str(files / "pred.csv"), "--format", "json",
            "-m", "fake_eval", "-p", "level=0", "--series", str(sdir), "-j", "1",
            "--cache-dir", str(files / "cache")]
    assert main(argv) == 0, capsys.readouterr().err
    js = json.loads(capsys.readouterr().out)
    fake = js["methods"]["fake_eval"]
    assert (fake["agreement"], fake["false_positive"], fake["false_negative"]) == (4, 0, 0)
    assert fake["total_abs_error"] == 0
    assert len(CALLS) == 4
    assert main(argv) == 0
    assert len(CALLS) == 4  # second run served from the cache


def _ramp_files(tmp_path):
    sdir = tmp_path / "series"
    sdir.mkdir()
    for sid, n, g in (("s1", 300, 100), ("s2", 700, 500), ("s3", 300, None), ("s4", 1500, 1000)):
        y = np.maximum(np.arange(n, dtype=float)[::-1] - (n - 1 - g), 0) if g else np.ones(n)
        (sdir / f"{sid}.json").write_text(json.dumps([y.tolist()]))
    return sdir


def test_sensitivity_cli(files, fake_detector, capsys):
    sdir = _ramp_files(files)
    argv = ["sensitivity", str(sdir), "--truth", str(files / "gt.csv"), "-m", "fake_eval",
            "--range", "level=0:50", "-N", "8", "--seed", "1", "--format", "json", "-j", "1",
            "--no-cache"]
    assert main(argv) == 0, capsys.readouterr().err
    js = json.loads(capsys.readouterr().out)
    assert js["parameters"] == ["level"] and js["n_evaluations"] == 8 * 4
    assert js["ST"][0] > 0.9  # the only parameter explains everything
    assert main(argv[:-5] + ["-j", "1", "--no-cache"]) == 0
    assert "Sobol analysis of fake_eval" in capsys.readouterr().out
    assert main(["sensitivity", str(sdir), "--truth", str(files / "gt.csv"), "-m", "fake_eval",
                 "-j", "1"]) == 2
    assert "default ranges" in capsys.readouterr().err


def test_tune_cli(files, fake_detector, capsys):
    sdir = _ramp_files(files)
    argv = ["tune", str(sdir), "--truth", str(files / "gt.csv"), "-m", "fake_eval",
            "--grid", "level=0:20:10", "--reference", f"{files / 'pred.csv'}:CP",
            "--format", "json", "-j", "1", "--no-cache"]
    assert main(argv) == 0, capsys.readouterr().err
    js = json.loads(capsys.readouterr().out)
    assert len(js["rows"]) == 3
    # level 0 finds every onset exactly: sum |e| = 0 over s1, s2, s4 (CP steady there too)
    assert js["best"]["level"] == 0.0 and js["best"]["manhattan"] == 0
    assert js["best"]["n_scored"] == 3
    assert main(argv[:-5] + ["--objective", "weighted", "--weights", "fn=1,mae=2", "-j", "1",
                             "--no-cache"]) == 0
    assert "objective weighted" in capsys.readouterr().out


def test_scheduler_option_runs_on_dask(files, fake_detector, capsys):
    distributed = pytest.importorskip("distributed")
    sdir = _ramp_files(files)
    base = ["evaluate", "--truth", str(files / "gt.csv"), "--format", "json", "-m", "fake_eval",
            "--series", str(sdir), "--no-cache", "--methods", "fake_eval"]
    assert main(base + ["-j", "1"]) == 0
    local = json.loads(capsys.readouterr().out)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        assert main(base + ["--scheduler", cluster.scheduler_address]) == 0
    remote = json.loads(capsys.readouterr().out)
    assert remote["methods"] == local["methods"]
    assert local["methods"]["fake_eval"]["agreement"] == 4
