"""A file is read once per load (issue 26, target (b): a folder of 20,000 small files).

Each file was opened three or four times (the size check, the sniffer's head, the reader's text,
the bulk JMH path's size check); :func:`segview.core.io.readers.opened` reads a small file once
for all of them. What the readers return and the errors they raise must not change: every case
below is read inside and outside ``opened`` and compared, the outside result being what
``Path.read_text`` and the file's own bytes give.
"""
from __future__ import annotations

import builtins
import bz2
import codecs
import gzip
import json
import os

import pytest

from segview.core.errors import DataFormatError
from segview.core.io import load, load_file, readers
from segview.core.io.readers import check_regular, opened, read_head, read_json, read_text

CASES = {
    "plain.json": b"[[1.5, 2.5], [3.5, 4.5]]",
    "crlf.csv": b"x,a\r\n1,2.5\r\n2,3.5\r\n",
    "lone_cr.csv": b"x,a\r1,2.5\r2,3.5\r",
    "bom.csv": codecs.BOM_UTF8 + b"x,a\n1,2\n",
    "utf16le.csv": codecs.BOM_UTF16_LE + "x,a\r\n1,2\r\n".encode("utf-16-le"),
    "utf16be.csv": codecs.BOM_UTF16_BE + "x,a\n1,2\n".encode("utf-16-be"),
    "utf32.csv": codecs.BOM_UTF32_LE + "x,a\n1,2\n".encode("utf-32-le"),
    "utf16_odd.csv": codecs.BOM_UTF16_LE + "x,a\n".encode("utf-16-le") + b"\x31",
    "bad_utf8.csv": b"x,a\n1,\xff\xfe2\n",
    "bad_utf8_after_bom.csv": codecs.BOM_UTF8 + b"x,a\n1,\xc3\n",
    "nul.csv": b"x,a\n1,\x002\n",
    "empty.json": b"",
    "blank.json": b"  \n ",
    "gzip.json.gz": gzip.compress(b"[[1.0, 2.0]]\r\n"),
    "cut_gzip.json.gz": gzip.compress(b"[[1.0, 2.0]]" * 50)[:20],
    "bz2.json.bz2": bz2.compress(b'{"wallclock_times": {}}'),
    "cut_bz2.json.bz2": bz2.compress(b'{"wallclock_times": {}}')[:12],
    "dup_key.json": b'{"a": 1, "a": 2}',
    "bom_json.json": codecs.BOM_UTF8 + b"[[1.0]]",
    "invalid.json": b"[[1.0, 2.0]",
}


def _outcome(fn, path):
    try:
        return ("ok", fn(path))
    except DataFormatError as err:
        return ("error", str(err))


@pytest.mark.parametrize("name", sorted(CASES))
def test_reading_inside_opened_gives_what_reading_outside_gives(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(CASES[name])
    for fn in (read_head, read_text, read_json, check_regular):
        outside = _outcome(fn, path)
        with opened(path):
            assert readers._snapshot(path) is not None and readers._snapshot(path).raw is not None
            inside = _outcome(fn, path)
        assert inside == outside, (fn.__name__, name)


def test_text_mode_newlines_are_what_read_text_of_the_file_gives(tmp_path):
    path = tmp_path / "n.csv"
    path.write_bytes(b"a\r\nb\rc\n\r\n")
    with opened(path):
        assert read_text(path) == "a\nb\nc\n\n" == path.read_text()


def test_a_large_file_is_left_to_its_reader(tmp_path, monkeypatch):
    monkeypatch.setattr(readers, "SNAPSHOT_MAX_BYTES", 8)
    path = tmp_path / "big.json"
    path.write_text("[[1.0, 2.0, 3.0]]")
    with opened(path):
        assert readers._snapshot(path).raw is None
        assert read_json(path) == [[1.0, 2.0, 3.0]]
    assert load_file(path)[0].values.tolist() == [1.0, 2.0, 3.0]


def test_errors_are_those_of_the_file_not_of_the_snapshot(tmp_path):
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(DataFormatError, match="not a regular file"):
        load_file(fifo)  # refused before it is opened (an open would block)
    with pytest.raises(DataFormatError, match="no such file"):
        load_file(tmp_path / "missing.json")
    with pytest.raises(DataFormatError, match="is a folder"):
        load_file(tmp_path)


def test_the_snapshot_is_per_thread_and_per_block(tmp_path):
    import threading

    path = tmp_path / "a.json"
    path.write_text("[[1.0]]")
    seen = []
    with opened(path):
        t = threading.Thread(target=lambda: seen.append(readers._snapshot(path)))
        t.start()
        t.join()
        assert readers._snapshot(path) is not None
    assert seen == [None] and readers._snapshot(path) is None


def test_a_folder_load_opens_each_small_file_once(tmp_path, monkeypatch):
    folder = tmp_path / "forks"
    folder.mkdir()
    for k in range(5):  # JMH fork lists as the benchmark of target (b) writes them
        (folder / f"s{k}.json").write_text(json.dumps([[100.0 + k, 101.5], [99.5, 100.25]]))
    opens: dict[str, int] = {}
    real_open = builtins.open

    def counting_open(file, *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and str(file).startswith(str(folder)):
            opens[str(file)] = opens.get(str(file), 0) + 1
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(readers, "open", counting_open, raising=False)
    ds = load(folder)
    assert len(ds.series) == 10 and not ds.problems
    assert ds.series[0].values.tolist() == [100.0, 101.5]  # from the file above
    assert opens == {str(folder / f"s{k}.json"): 1 for k in range(5)}
