"""A TCPD data set with missing values on the command line: the error names ``--fill-missing``
(the option the command has), the option fills the gaps, and the library keeps naming its own
``fill_missing=`` argument (issue 29: each front end names what it offers)."""
import csv
import io
import json

import pytest

import segview
from segview.cli.main import main
from segview.core.errors import MissingValuesError
from tests.fakes import FAKE_ONSET, registered


@pytest.fixture
def gappy(tmp_path):
    values = [float(i % 5) for i in range(30)]
    values[4] = None
    path = tmp_path / "data" / "gappy.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"name": "gappy", "n_obs": 30, "n_dim": 1,
                                "series": [{"label": "V1", "type": "float", "raw": values}]}))
    return path


@pytest.mark.parametrize("command", [["detect", "-m", "fake_onset"], ["inspect"]])
def test_the_error_names_the_commands_option(gappy, capsys, command):
    with registered(FAKE_ONSET):
        rc = main([command[0], str(gappy), *command[1:]])
    err = capsys.readouterr().err
    assert rc != 0 and "gappy.json" in err and "index 4" in err
    assert "--fill-missing linear" in err and "fill_missing=" not in err


def test_a_skipped_file_in_a_folder_names_the_option_too(gappy, capsys):
    (gappy.parent / "complete.json").write_text("[[1, 2, 3, 4, 5, 6]]")
    with registered(FAKE_ONSET):
        rc = main(["detect", str(gappy.parent), "-m", "fake_onset"])
    err = capsys.readouterr().err
    assert rc == 1 and "skipped" in err and "--fill-missing linear" in err  # 1: a file skipped


def test_fill_missing_fills_the_gap(gappy, capsys):
    with registered(FAKE_ONSET):
        rc = main(["detect", str(gappy), "-m", "fake_onset", "--fill-missing", "previous"])
    assert rc == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [r["series_id"] for r in rows] == ["gappy"]


def test_the_library_names_its_argument(gappy):
    with pytest.raises(MissingValuesError, match="fill_missing=linear or previous") as caught:
        segview.load(gappy)
    assert caught.value.rules == ("linear", "previous") and caught.value.where.endswith("index 4")
    (s,) = segview.load(gappy, fill_missing="linear")
    assert s.values[4] == pytest.approx(1.5)  # between 3.0 and 0.0
