"""Extra-P text loader (spec nrss.md §7): parsing, aggregation, errors with file and line."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import segview
from segview.core.errors import DataFormatError
from segview.core.io import extrap_text

# Layout of Extra-P's test file one_parameter_segmented_5.txt (regions without METRIC, mixed
# repetition counts, single-line POINTS).
FILE_5 = """PARAMETER p
POINTS (1000) (2000) (3000) (4000) (5000) (6000) (7000) (8000) (9000)

REGION met1
DATA 4.1 3.9 4.0 4.0 4.1
DATA 4.1 3.9 4.0 4.0 4.1
DATA 4.1 3.9 4.3 4.0 4.1
DATA 4.1 3.9 4.0 4.0 4.1
DATA 4.1 3.9 4.9 4.0 4.1
DATA 4.1 3.9 4.0 4.0 4.1
DATA 4.1 3.9 4.3 4.0 4.1
DATA 4.1 3.9 4.0 4.0 4.1
DATA 4.1 3.9 4.9 4.0 4.1

REGION met2
DATA 1
DATA 2
DATA 3
DATA 4
DATA 5
DATA 6
DATA 7
DATA 8
DATA 9
"""


def _write(tmp_path: Path, text: str, name: str = "exp.txt") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_regions_become_series_with_x(tmp_path):
    series = segview.load(_write(tmp_path, FILE_5))
    assert [s.id for s in series] == ["met1", "met2"]
    met1, met2 = series
    np.testing.assert_array_equal(met1.x, np.arange(1000, 10000, 1000))
    np.testing.assert_allclose(met1.values[[0, 2, 4]], [4.02, 4.08, 4.2], rtol=1e-12)
    np.testing.assert_array_equal(met2.values, np.arange(1, 10))
    assert met1.metadata["format"] == "extrap" and met1.metadata["metric"] == ""


def test_median_option(tmp_path):
    met1 = extrap_text.read(_write(tmp_path, FILE_5), measure="median")[0]
    np.testing.assert_allclose(met1.values, [4.0, 4.0, 4.1, 4.0, 4.1, 4.0, 4.1, 4.0, 4.1])


def test_metric_and_point_forms(tmp_path):
    text = ("# comment\nPARAMETER n\nPOINTS ( 1 )( 2 )\nPOINTS 4 8\n"
            "REGION main->foo\nMETRIC time\nDATA 1 3\nDATA 2\nDATA 3\nDATA 4\n"
            "METRIC visits\nDATA 5\nDATA 6\nDATA 7\nDATA 8\n")
    s = extrap_text.read(_write(tmp_path, text))
    assert [x.id for x in s] == ["main->foo/time", "main->foo/visits"]
    np.testing.assert_array_equal(s[0].x, [1, 2, 4, 8])
    np.testing.assert_array_equal(s[0].values, [2, 2, 3, 4])


def test_two_parameters_keep_coordinates(tmp_path):
    text = "PARAMETER p\nPARAMETER q\nPOINTS ( 10 2 ) (20 4)\nREGION r\nDATA 1\nDATA 2\n"
    (s,) = extrap_text.read(_write(tmp_path, text))
    assert s.x is None
    assert s.metadata["coordinates"] == [(10.0, 2.0), (20.0, 4.0)]


def test_sniff():
    assert extrap_text.sniff("\n# x\nPARAMETER p\n")
    assert not extrap_text.sniff("a,b\n1,2\n")


@pytest.mark.parametrize("text, line, words", [
    ("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\nDATA x\n", "line 5", "not a number"),
    ("PARAMETER p\nPOINTS 1 2\nREGION r\nDATA 1\nDATA 2\nDATA 3\n", "line 6", "more DATA"),
    ("POINTS 1 2\n", "line 1", "before any PARAMETER"),
    ("PARAMETER p\nPOINTS 1 2\nFOO r\n", "line 3", "unknown keyword"),
    ("PARAMETER p\nPOINTS 1 2\nDATA 1\n", "line 3", "before any REGION"),
    ("PARAMETER p q\nPOINTS (1) (2)\n", "line 2", "coordinate"),
    ("PARAMETER a b c\nPARAMETER d e\n", "line 2", "at most 4"),
])
def test_malformed_files_name_file_and_line(tmp_path, text, line, words):
    path = _write(tmp_path, text)
    with pytest.raises(DataFormatError) as err:
        extrap_text.read(path)
    assert err.value.where == line
    assert words in err.value.reason
    assert str(path) in str(err.value)


def test_missing_data_lines(tmp_path):
    path = _write(tmp_path, "PARAMETER p\nPOINTS 1 2 3\nREGION r\nDATA 1\nDATA 2\n")
    with pytest.raises(DataFormatError, match="2 DATA lines for 3 points"):
        extrap_text.read(path)
