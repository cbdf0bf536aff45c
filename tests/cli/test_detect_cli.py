import csv
import io
import json

import pytest

from segview.cli.main import main
from segview.cli.progress import ProgressBar
from tests.fakes import FAKE_ONSET, registered


@pytest.fixture
def data(tmp_path):
    (tmp_path / "a.json").write_text("[[9, 1, 1, 1, 1]]")
    (tmp_path / "b.json").write_text("[[1, 1, 1, 9, 1], [1, 1, 1, 1, 1]]")
    return tmp_path


def test_detect_csv(data, capsys):
    with registered(FAKE_ONSET):
        rc = main(["detect", str(data), "--method", "fake_onset"])
    out = capsys.readouterr().out
    assert rc == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert list(rows[0].keys()) == ["series_id", "method", "steady_index", "change_points",
                                    "runtime_ms", "benchmark", "execution", "strengths",
                                    "strength_label"]
    got = {(r["series_id"], r["steady_index"], r["change_points"]) for r in rows}
    assert got == {("a", "1", "1"), ("b/fork0", "4", "4"), ("b/fork1", "-1", "")}


def test_detect_param_json_and_out(data, tmp_path):
    out = tmp_path / "res.json"
    with registered(FAKE_ONSET):
        rc = main(["detect", str(data / "a.json"), "-m", "fake_onset", "--param", "level=0.05",
                   "--format", "json", "--out", str(out)])
    assert rc == 0
    (entry,) = json.loads(out.read_text())
    assert entry["params"] == {"level": 0.05} and entry["steady_index"] is None


def test_never_steady_is_minus_one(data, capsys):
    with registered(FAKE_ONSET):
        main(["detect", str(data / "a.json"), "-m", "fake_onset", "-p", "level=0.05"])
    row = next(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert row["steady_index"] == "-1"


@pytest.mark.parametrize("argv,fragment", [
    (["--method", "nosuch"], "unknown method 'nosuch'"),
    (["--method", "fake_onset", "--param", "level=7"], "above the maximum"),
    (["--method", "fake_onset", "--param", "window=7"], "no selected method"),
    (["--method", "fake_onset", "--param", "level"], "KEY=VALUE"),
    (["--method", ","], "choose a detector"),
])
def test_usage_errors_exit_2(data, capsys, argv, fragment):
    with registered(FAKE_ONSET):
        rc = main(["detect", str(data), *argv])
    assert rc == 2 and fragment in capsys.readouterr().err


def test_without_method_runs_the_default_change_point_method(data, capsys):
    """No --method: the default change-point detector auto runs (issue 28), and the help says so."""
    rc = main(["detect", str(data / "a.json")])
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rc == 0 and [r["method"] for r in rows] == ["auto"]
    try:
        main(["detect", "--help"])
    except SystemExit:
        pass
    assert "Default: auto" in " ".join(capsys.readouterr().out.split())


def test_bad_file_in_folder_reported_others_written(data, capsys):
    (data / "c.json").write_text("[[1, 2")
    with registered(FAKE_ONSET):
        rc = main(["detect", str(data), "-m", "fake_onset"])
    cap = capsys.readouterr()
    assert rc == 1 and "c.json" in cap.err and "invalid JSON" in cap.err
    assert len(list(csv.DictReader(io.StringIO(cap.out)))) == 3


def test_bad_single_file_exit_2(tmp_path, capsys):
    (tmp_path / "c.json").write_text("[[1, NaN]]")
    with registered(FAKE_ONSET):
        rc = main(["detect", str(tmp_path / "c.json"), "-m", "fake_onset"])
    assert rc == 2 and "c.json" in capsys.readouterr().err


def test_too_short_series_reported_per_series(tmp_path, capsys):
    (tmp_path / "s.json").write_text("[[1], [1, 2, 3]]")
    with registered(FAKE_ONSET):
        rc = main(["detect", str(tmp_path), "-m", "fake_onset"])
    cap = capsys.readouterr()
    assert rc == 1 and "s/fork0, fake_onset" in cap.err and "s/fork1" in cap.out


def test_help_params(capsys):
    with registered(FAKE_ONSET):
        assert main(["detect", "-m", "fake_onset", "--help-params"]) == 0
    assert "--param level=VALUE" in capsys.readouterr().out


def test_methods_lists_registered(capsys):
    with registered(FAKE_ONSET):
        assert main(["methods"]) == 0
        assert "fake_onset" in capsys.readouterr().out
        assert main(["methods", "--json"]) == 0
        assert '"name": "level"' in capsys.readouterr().out


def test_progress_bar_draws_only_when_enabled():
    buf = io.StringIO()
    with ProgressBar(3, "x", stream=buf) as bar:  # StringIO is not a TTY
        bar.update(3)
    assert buf.getvalue() == ""
    buf = io.StringIO()
    with ProgressBar(2, "x", stream=buf, enabled=True) as bar:
        bar.update(2)
    assert "2/2" in buf.getvalue()


def test_detect_preset_and_override(tmp_path, capsys):
    import numpy as np
    y = np.r_[np.zeros(50), np.full(50, 40.0)] + np.random.default_rng(0).normal(0, 1, 100)
    (tmp_path / "s.json").write_text(json.dumps([list(y)]))
    rc = main(["detect", str(tmp_path / "s.json"), "-m", "binseg", "--preset", "tcpdbench",
               "--format", "json"])
    (entry,) = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert entry["params"]["scale"] == "zscore" and entry["params"]["max_bkps"] == 5
    assert entry["change_points"] == [50]
    rc = main(["detect", str(tmp_path / "s.json"), "-m", "binseg", "--preset", "tcpdbench",
               "-p", "max_bkps=2", "--format", "json"])
    assert rc == 0 and json.loads(capsys.readouterr().out)[0]["params"]["max_bkps"] == 2


def test_detect_unknown_preset_names_method(tmp_path, capsys):
    (tmp_path / "s.json").write_text("[[1, 2, 3, 4, 5, 6]]")
    rc = main(["detect", str(tmp_path / "s.json"), "-m", "pelt", "--preset", "nope"])
    err = capsys.readouterr().err
    assert rc == 2 and "pelt" in err and "faithful" in err and "tcpdbench" in err


def test_methods_lists_presets(capsys):
    assert main(["methods", "pelt"]) == 0
    out = capsys.readouterr().out
    assert "presets" in out
    assert "tcpdbench: scale=zscore cost=l2 penalty=mbic min_size=1" in out
    assert main(["methods", "binseg", "--json"]) == 0
    (spec,) = json.loads(capsys.readouterr().out)
    presets = {p["name"]: p["values"] for p in spec["presets"]}
    assert presets["tcpdbench"]["max_bkps"] == 5 and presets["faithful"]["scale"] == "none"
