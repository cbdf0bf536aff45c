"""Issue 30, item 12 (loaders): text in UTF-16 with a byte-order mark is read, not called binary;
a key repeated in one JSON object is an error naming the file and the key (JSON leaves it
undefined and Python kept the last value silently); a TCPD ``time.index`` whose length is not
``n_obs`` is an error naming both numbers.
"""
from __future__ import annotations

import json

import pytest

import segview
from segview.core.errors import DataFormatError
from segview.core.evaluation.tables import read_cp_truth
from segview.core.io.tcpd_json import read_annotations

CSV = "a,b\n1.5,10\n2.5,20\n3.5,30\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_csv_with_bom_is_read(tmp_path, encoding):
    path = tmp_path / "u.csv"
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}.get(encoding, b"")
    path.write_bytes(bom + CSV.encode(encoding))
    ds = segview.load(path)
    assert [s.id for s in ds] == ["a", "b"]
    assert ds[0].values.tolist() == [1.5, 2.5, 3.5] and ds[1].values.tolist() == [10, 20, 30]


def test_utf16_json_with_bom_is_read(tmp_path):
    path = tmp_path / "f.json"
    path.write_bytes(b"\xff\xfe" + "[[1, 2, 3], [4, 5, 6]]".encode("utf-16-le"))
    assert [s.values.tolist() for s in segview.load(path)] == [[1, 2, 3], [4, 5, 6]]


def test_nul_bytes_without_a_bom_are_still_binary(tmp_path):
    path = tmp_path / "b.csv"
    path.write_bytes(b"a,b\x00\x01\x02")
    with pytest.raises(DataFormatError, match="binary file"):
        segview.load(path)


TCPD = {"name": "t", "longname": "t", "n_obs": 4, "n_dim": 1,
        "time": {"type": "int", "format": "%Y", "index": [0, 1, 2, 3]},
        "series": [{"label": "V1", "type": "float", "raw": [1.0, 2.0, 3.0, 4.0]}]}


@pytest.mark.parametrize("text, key", [
    ('{"name": "t", "n_obs": 4, "n_obs": 3, "series": []}', "n_obs"),
    ('[{"benchmark": "b", "primaryMetric": {"rawData": [[1]]}, "primaryMetric": {}}]',
     "primaryMetric"),
])
def test_a_repeated_json_key_is_an_error_naming_file_and_key(tmp_path, text, key):
    path = tmp_path / "d.json"
    path.write_text(text)
    with pytest.raises(DataFormatError, match=rf"d\.json: .*key '{key}' appears twice"):
        segview.load(path)


def test_repeated_keys_in_annotations_and_truth_files_are_errors(tmp_path):
    ann = tmp_path / "annotations.json"
    ann.write_text('{"t": {"j1": [2], "j1": [3]}}')
    with pytest.raises(DataFormatError, match=r"annotations\.json: .*key 'j1' appears twice"):
        read_annotations(ann)
    truth = tmp_path / "truth.json"
    truth.write_text('{"s": {"a": [1]}, "s": {"a": [2]}}')
    with pytest.raises(DataFormatError, match=r"truth\.json: .*key 's' appears twice"):
        read_cp_truth(truth)


def test_tcpd_time_index_length_must_match_n_obs(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(TCPD))
    assert segview.load(path)[0].values.tolist() == [1, 2, 3, 4]
    bad = {**TCPD, "time": {**TCPD["time"], "index": [0, 1, 2]}}
    path.write_text(json.dumps(bad))
    with pytest.raises(DataFormatError, match=r"t\.json \(time\): time\.index has 3 entries but "
                                              r"n_obs is 4"):
        segview.load(path)
