"""``segview detect --penalty-path`` writes the CROPS path (issue 28 point 3, docs/penalty-path.md)."""
import csv
import io
import json

import pytest

from segview.cli.main import main

# two levels 3 apart, 12 samples each, alternating +-0.5: the squared error is 24 * 0.25 = 6 with
# the change at 12 and 6 + 12*12/24 * 3^2 = 60 without; the two lines 6 + 1 beta and 60 cross at 54.
# Any further change gains less than 1 (it only splits the +-0.5 alternation), so over [1, 100]
# the path is: one change at 12 on [1, 54], none on [54, 100].
LEFT = [0.5 if i % 2 else -0.5 for i in range(12)]
RIGHT = [3.5 if i % 2 else 2.5 for i in range(12)]


@pytest.fixture
def series(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps([LEFT + RIGHT]))
    return path


@pytest.mark.parametrize("method", ["pelt", "op"])
def test_csv_path(series, capsys, method):
    rc = main(["detect", str(series), "-m", method, "-p", "scale=none", "--penalty-path", "1,100"])
    assert rc == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    got = [(float(r["penalty_low"]), float(r["penalty_high"]), int(r["n_changes"]),
            float(r["cost"]), r["change_points"]) for r in rows]
    assert [g[2] for g in got] == [1, 0] and [g[4] for g in got] == ["12", ""]
    assert [g[3] for g in got] == pytest.approx([6.0, 60.0])
    assert [g[:2] for g in got] == [(1.0, pytest.approx(54.0)), (pytest.approx(54.0), 100.0)]
    assert all(float(r["penalty_low"]) < float(r["penalty"]) < float(r["penalty_high"])
               for r in rows)
    assert rows[0]["series_id"] == "s" and rows[0]["method"] == method


def test_json_path_to_file(series, tmp_path):
    out = tmp_path / "path.json"
    rc = main(["detect", str(series), "-m", "pelt", "-p", "scale=none", "--penalty-path", "1,100",
               "--format", "json", "-o", str(out)])
    assert rc == 0
    (entry,) = json.loads(out.read_text())
    assert (entry["beta_min"], entry["beta_max"]) == (1.0, 100.0)
    assert [r["change_points"] for r in entry["path"]] == [[12], []]
    assert entry["path"][0]["penalty_high"] == pytest.approx(54.0)
    assert entry["elbow"] is None  # two segmentations have no elbow


@pytest.mark.parametrize("argv,fragment", [
    (["-m", "binseg", "--penalty-path"], "exact solver"),
    (["-m", "pelt", "--penalty-path", "5"], "LOW,HIGH"),
    (["-m", "pelt", "--penalty-path", "a,b"], "numbers"),
])
def test_usage_errors_exit_2(series, capsys, argv, fragment):
    assert main(["detect", str(series), *argv]) == 2
    assert fragment in capsys.readouterr().err


def test_bad_range_is_reported_per_series_and_exits_1(series, capsys):
    assert main(["detect", str(series), "-m", "pelt", "--penalty-path", "9,3"]) == 1
    assert "must be below" in capsys.readouterr().err
