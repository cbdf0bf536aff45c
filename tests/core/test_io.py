"""Loaders: every bad-input case gets a clear error naming the file and the place."""
import json

import numpy as np
import pytest

import segview
from segview.core.errors import DataFormatError, InputError
from segview.core.io import load, load_file
from segview.core.io.labels_csv import read_labels


def write(path, text):
    path.write_text(text)
    return path


def test_single_fork_json_uses_stem(tmp_path):
    (s,) = load_file(write(tmp_path / "bench.json", "[[1.0, 2.0, 3.5]]"))
    assert s.id == "bench" and s.values.tolist() == [1.0, 2.0, 3.5]
    assert not s.values.flags.writeable and s.values.dtype == np.float64


def test_multi_fork_json_ids(tmp_path):
    series = load_file(write(tmp_path / "b.json", "[[1, 2], [3, 4, 5], [6]]"))
    assert [s.id for s in series] == ["b/fork0", "b/fork1", "b/fork2"]
    assert [len(s) for s in series] == [2, 3, 1]


def test_jmh_result_format(tmp_path):
    doc = [{"benchmark": "org.Foo.bar", "params": {"size": "10"},
            "primaryMetric": {"scoreUnit": "ns/op", "rawData": [[1, 2, 3], [4, 5, 6]]}}]
    series = load_file(write(tmp_path / "r.json", json.dumps(doc)))
    assert [s.id for s in series] == ["org.Foo.bar[size=10]/fork0", "org.Foo.bar[size=10]/fork1"]
    assert series[0].metadata["unit"] == "ns/op"


@pytest.mark.parametrize("text,fragment", [
    ("", "empty"),
    ("[[1, 2,", "invalid JSON"),
    ("[[1, \"x\", 3]]", "'x' is not a number"),
    ("[[1, NaN, 3]]", "not finite"),
    ("[[1, Infinity]]", "not finite"),
    ("[[1, 2], []]", "no measurements"),
    ("[[[1, 2]]]", "is not a number"),
    ("{\"a\": 1}", "JSON object"),
    ("[]", "non-empty list of forks"),
])
def test_malformed_json_names_file_and_place(tmp_path, text, fragment):
    path = write(tmp_path / "bad.json", text)
    with pytest.raises(DataFormatError) as exc:
        load_file(path)
    assert "bad.json" in str(exc.value) and fragment in str(exc.value)


def test_nan_error_gives_fork_and_index(tmp_path):
    path = write(tmp_path / "bad.json", "[[1, 2], [3, NaN]]")
    with pytest.raises(DataFormatError, match=r"fork 1, index 1"):
        load_file(path)


@pytest.mark.parametrize("text, where", [("[[1, 2], [3, true]]", "fork 1, index 1"),
                                         ('[[1, "2"]]', "fork 0, index 1"),
                                         ("[1, 2, Infinity]", "fork 0, index 2")])
def test_vectorised_fork_reader_still_names_bad_values(tmp_path, text, where):
    with pytest.raises(DataFormatError, match=where):
        load_file(write(tmp_path / "bad.json", text))


def test_vectorised_fork_reader_values(tmp_path):
    (s,) = load_file(write(tmp_path / "ok.json", "[1, 2.5, 10000000000000000000000, -3e-9]"))
    assert s.values.dtype == np.float64
    assert s.values.tolist() == [1.0, 2.5, 1e22, -3e-9]


def test_csv_wide_ragged_and_x(tmp_path):
    path = write(tmp_path / "w.csv", "x,a,b\n1,10,20\n2,11,21\n4,12,\n")
    a, b = load_file(path)
    assert (a.id, a.values.tolist(), a.x.tolist()) == ("a", [10, 11, 12], [1, 2, 4])
    assert (b.id, b.values.tolist(), b.x.tolist()) == ("b", [20, 21], [1, 2])


def test_csv_long(tmp_path):
    path = write(tmp_path / "l.csv", "series_id,index,value\nq,1,5\nq,0,4\nr,0,9\n")
    q, r = load_file(path)
    assert q.values.tolist() == [4, 5] and r.values.tolist() == [9]


@pytest.mark.parametrize("text,fragment", [
    ("a,b\n1,x\n", "line 2, column 'b'"),
    ("a,b\n1,2,3\n", "line 2"),
    ("a,b\n", "no measurements"),
    ("a,b\n1,\n2,3\n", "a value follows a blank cell"),
    ("a,b\n1,inf\n", "not finite"),
    ("series_id,index,value\nq,0,1\nq,0,2\n", "index 0 twice"),
    ("series_id,index,value\nq,0,1\nq,2,2\n", "indices are not 0..1"),
    ("series_id,index,value\nq,zero,1\n", "not a whole number"),
])
def test_malformed_csv(tmp_path, text, fragment):
    path = write(tmp_path / "bad.csv", text)
    with pytest.raises(DataFormatError) as exc:
        load_file(path)
    assert "bad.csv" in str(exc.value) and fragment in str(exc.value)


def test_folder_loads_good_files_and_reports_bad(tmp_path):
    write(tmp_path / "a.json", "[[1, 2, 3]]")
    write(tmp_path / "b.json", "[[1, oops]]")
    sub = tmp_path / "more"
    sub.mkdir()
    write(sub / "c.csv", "c\n1\n2\n")
    write(tmp_path / "labels.csv", "series_id,steady\na,1\n")
    write(tmp_path / "notes.md", "ignored")
    ds = load(tmp_path)
    assert [s.id for s in ds] == ["a", "c"]
    assert len(ds.problems) == 1 and "b.json" in str(ds.problems[0])
    assert [p.name for p in ds.label_files] == ["labels.csv"]


def test_missing_path_and_unknown_type(tmp_path):
    with pytest.raises(DataFormatError, match="no such file"):
        load(tmp_path / "nope.json")
    with pytest.raises(DataFormatError, match="unknown file type '.xyz'"):
        load(write(tmp_path / "data.xyz", "1 2 3"))
    with pytest.raises(DataFormatError, match="binary file"):
        (tmp_path / "bin.json").write_bytes(b"\x00\x01\x02")
        load(tmp_path / "bin.json")


def test_duplicate_ids_across_files_are_disambiguated(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    write(tmp_path / "x" / "s.json", "[[1, 2]]")
    write(tmp_path / "y" / "s.json", "[[3, 4]]")
    ids = [s.id for s in load(tmp_path)]
    assert len(set(ids)) == 2 and ids[0] == "s"


def test_series_validation():
    with pytest.raises(InputError, match="empty"):
        segview.Series([])
    with pytest.raises(InputError, match="index 1"):
        segview.Series([1.0, float("nan")])
    with pytest.raises(InputError, match="one-dimensional"):
        segview.Series([[1, 2], [3, 4]])
    with pytest.raises(InputError, match="2 x values for 3"):
        segview.Series([1, 2, 3], x=[1, 2])
    s = segview.Series(np.array([1, 2, 3]))
    assert s.values.dtype == np.float64 and len(s.content_hash) == 64


def test_caller_array_not_shared():
    arr = np.array([1.0, 2.0, 3.0])
    s = segview.Series(arr)
    arr[0] = 99
    assert s.values[0] == 1.0


def test_labels_reader_converts_sentinels(tmp_path):
    path = write(tmp_path / "labels.csv",
                 "series_id,source,steady,judge_a,judge_b,jagt_index,jagt_clustered,cpssd_published\n"
                 "s1,x,1,10,,10,1,-1\ns2,y,0,,,,,5\n")
    labels = read_labels(path)
    assert labels["s1"].judges == {"a": 10, "b": None}
    assert labels["s1"].onsets["cpssd_published"] is None and labels["s2"].onsets["cpssd_published"] == 5
    assert labels["s1"].jagt_clustered is True and labels["s2"].steady is False


def test_labels_reader_names_bad_cell(tmp_path):
    path = write(tmp_path / "labels.csv", "series_id,steady,judge_a\ns1,1,abc\n")
    with pytest.raises(DataFormatError, match=r"line 2, column 'judge_a'"):
        read_labels(path)


def test_shared_jmh_folder_loads(jmh_dir):
    ds = load(jmh_dir)
    assert len(ds) == 350 and not ds.problems and all(len(s) == 3000 for s in ds)
    assert [p.name for p in ds.label_files] == ["labels.csv"]


def test_bundled_sample_loads():
    from segview.core.resources import sample_dir
    ds = load(sample_dir())
    assert len(ds) == 10 and not ds.problems and len(ds.label_files) == 1


def test_folder_skips_companion_json_but_single_file_errors(tmp_path):
    write(tmp_path / "a.json", "[[1, 2, 3]]")
    write(tmp_path / "metadata.json", '{"session": "x", "segview_version": "0.1"}')
    ds = load(tmp_path)
    assert [s.id for s in ds] == ["a"] and ds.problems == []
    with pytest.raises(DataFormatError, match="JSON object, not a JMH fork list"):
        load(tmp_path / "metadata.json")
