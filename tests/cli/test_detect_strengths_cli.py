"""``segview detect`` writes each change point's strength (issue 28 point 2, docs/strengths.md)."""
import csv
import io
import json

import pytest

from segview.cli.main import main

# two levels, 12 samples each, alternating +-0.5 around 0 and 3: a change in mean of 3 at 12
LEFT = [0.5 if i % 2 else -0.5 for i in range(12)]
RIGHT = [3.5 if i % 2 else 2.5 for i in range(12)]
# the l2 cost decrease of one change between segments of lengths m1, m2 with means differing by d
# is m1 m2 / (m1 + m2) d^2 (the between-group sum of squares): 12*12/24 * 9 = 54
EXPECTED = 12 * 12 / 24 * 3.0 ** 2


@pytest.fixture
def series(tmp_path):
    path = tmp_path / "s.json"
    path.write_text(json.dumps([LEFT + RIGHT]))
    return path


@pytest.mark.parametrize("method", ["pelt", "op", "binseg"])
def test_csv_has_the_cost_decrease_of_each_change_point(series, capsys, method):
    rc = main(["detect", str(series), "-m", method, "-p", "scale=none", "-p", "penalty=bic"])
    assert rc == 0
    (row,) = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert row["change_points"] == "12"
    assert float(row["strengths"]) == pytest.approx(EXPECTED, rel=1e-5)
    assert row["strength_label"].startswith("cost decrease")


def test_json_strengths_and_blank_for_methods_without(series, tmp_path):
    out = tmp_path / "r.json"
    rc = main(["detect", str(series), "-m", "pelt,zero", "-p", "scale=none", "-p", "penalty=bic",
               "--format", "json", "-o", str(out)])
    assert rc == 0
    pelt, zero = json.loads(out.read_text())
    assert pelt["change_points"] == [12]
    assert pelt["strengths"] == pytest.approx([EXPECTED])
    assert zero["strengths"] is None and zero["strength_label"] == ""


def test_csv_blank_strength_cells_for_methods_without(series, capsys):
    assert main(["detect", str(series), "-m", "zero"]) == 0
    (row,) = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert row["strengths"] == "" and row["strength_label"] == ""


def test_tcpdbench_index_keeps_each_strength_with_its_change_point(series, capsys):
    rc = main(["detect", str(series), "-m", "pelt", "-p", "scale=none", "-p", "penalty=bic",
               "--cp-index", "tcpdbench"])
    assert rc == 0
    (row,) = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert row["change_points"] == "11"
    assert float(row["strengths"]) == pytest.approx(EXPECTED, rel=1e-5)


def test_cached_rows_keep_their_strengths(series, tmp_path, capsys):
    argv = ["detect", str(series), "-m", "pelt", "-p", "scale=none", "-p", "penalty=bic",
            "--cache", str(tmp_path / "cache")]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out.split("\n")[1].split(",")[7] == first.split("\n")[1].split(",")[7]
    (row,) = list(csv.DictReader(io.StringIO(first)))
    assert float(row["strengths"]) == pytest.approx(EXPECTED, rel=1e-5)
