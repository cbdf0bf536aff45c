"""The bulk rawData path of the JMH result reader gives the ordinary reader's series, bit for bit,
and leaves every unusual file to the ordinary reader (same result or same error)."""
from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest

from segview.core.errors import DataFormatError
from segview.core.io import jmh_json
from segview.core.io.readers import read_json


@pytest.fixture(autouse=True)
def every_size(monkeypatch):
    monkeypatch.setattr(jmh_json, "FAST_MIN_BYTES", 0)


def _number(rs: random.Random) -> str:
    v = rs.uniform(-1, 1) * 10.0 ** rs.randint(-300, 300)
    return rs.choice([repr(v), f"{v:.17g}", f"{v:.25g}", f"{v:.6g}", str(rs.randint(-10**6, 10**6)),
                      "-0", "0", "4.9e-324", "1.7976931348623157e308", "1E5", "-2.5e-3",
                      str(rs.randint(10**17, 10**19)), repr(rs.uniform(1e3, 1e4))])


def _file(rs: random.Random, pretty: bool, n_bench=4) -> str:
    entries = []
    for b in range(n_bench):
        forks = [[_number(rs) for _ in range(rs.randint(1, 40))] for _ in range(rs.randint(1, 4))]
        entry = {"jmhVersion": "1.37", "benchmark": f"org.x.B.m{b}", "mode": rs.choice(
            ["avgt", "thrpt", "ss"]), "params": {"n": str(b)} if b % 2 else {},
            "primaryMetric": {"score": 1.0, "scoreUnit": "ns/op", "rawData": "RAW"},
            "secondaryMetrics": {"gc": {"score": 2.0, "rawData": "RAW2"}}}
        text = json.dumps(entry, indent=4 if pretty else None)
        ws = "\n" + " " * 16 if pretty else rs.choice(["", " ", "\t", "\r\n "])
        raw = "[" + ",".join(ws + "[" + ",".join(ws + v for v in f) + ws + "]" for f in forks) + "]"
        entries.append(text.replace('"RAW"', raw).replace('"RAW2"', "[[1.0, 2.0]]"))
    return "[" + ",\n".join(entries) + "]\n"


def _same(a, b):
    assert [s.id for s in a] == [s.id for s in b]
    for x, y in zip(a, b):
        assert x.values.view(np.int64).tolist() == y.values.view(np.int64).tolist()
        assert x.metadata == y.metadata


@pytest.mark.parametrize("seed", range(12))
def test_bulk_path_equals_the_ordinary_reader(tmp_path, seed):
    rs = random.Random(seed)
    path = tmp_path / "r.json"
    path.write_text(_file(rs, pretty=seed % 2 == 0))
    fast = jmh_json._read_results_fast(path)
    assert fast is not None
    _same(fast, jmh_json._read_jmh_results(read_json(path), path))
    _same(jmh_json.read(path), fast)


GOOD = _file(random.Random(99), pretty=True, n_bench=2)


def _in_first_fork(text: str) -> str:
    """GOOD with ``text`` put at the start of its first fork."""
    return re.sub(r'("rawData": \[\s*\[)', lambda m: m.group(1) + text, GOOD, count=1)


def _ordinary(path):
    """What the reader gives without the bulk path: the series, or the error's text."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(jmh_json, "FAST_MIN_BYTES", float("inf"))
        try:
            return jmh_json.read(path)
        except DataFormatError as err:
            return str(err)


@pytest.mark.parametrize("bad", [
    _in_first_fork("NaN, "),
    _in_first_fork("1e400, "),                                   # overflows to inf
    _in_first_fork('"1.5", '),                                   # a string
    _in_first_fork("null, "),
    _in_first_fork("[1.0], "),                                   # nested list
    _in_first_fork("], ["),                                      # an empty fork
    _in_first_fork("1.0,, "),                                    # two commas
    _in_first_fork("1.0 2.0, "),                                 # no comma
    _in_first_fork("true, "),
    GOOD.replace('"primaryMetric"', '"primary"', 1),             # no primaryMetric
    GOOD.replace('"rawData": [', '"rawData": 7, "x": [', 1),     # rawData not a list
    GOOD[: len(GOOD) // 2],                                      # truncated
    GOOD.replace('"benchmark": "org.x.B.m0"', '"benchmark": "\\"rawData\\": [[1]]"', 1),
])
def test_unusual_files_go_to_the_ordinary_reader(tmp_path, bad):
    path = tmp_path / "r.json"
    path.write_text(bad)
    expected = _ordinary(path)
    if isinstance(expected, str):  # an error: the bulk path declines, read() gives the same error
        assert jmh_json._read_results_fast(path) is None
        with pytest.raises(DataFormatError) as got:
            jmh_json.read(path)
        assert str(got.value) == expected
    else:  # still a valid file (e.g. a "rawData" inside a string): same series
        _same(jmh_json.read(path), expected)


def test_small_files_skip_the_bulk_path(tmp_path, monkeypatch):
    monkeypatch.setattr(jmh_json, "FAST_MIN_BYTES", 1 << 20)
    path = tmp_path / "r.json"
    path.write_text(GOOD)
    assert jmh_json._read_results_fast(path) is None
    assert jmh_json.read(path)


def test_fork_lists_and_objects_are_not_taken(tmp_path):
    (tmp_path / "f.json").write_text("[[1, 2, 3], [4, 5]]")
    (tmp_path / "o.json").write_text('{"rawData": [[1]]}')
    assert jmh_json._read_results_fast(tmp_path / "f.json") is None
    assert jmh_json._read_results_fast(tmp_path / "o.json") is None


def _layout_file(rs: random.Random, sep) -> str:
    """A JMH result file whose rawData values are separated by ``sep(rs)`` (a function, so a
    layout may vary from value to value)."""
    entries = []
    for b in range(3):
        forks = [[_number(rs) for _ in range(rs.randint(1, 30))] for _ in range(rs.randint(1, 5))]
        raw = "[" + ",".join(sep(rs) + "[" + ",".join(sep(rs) + v for v in f) + sep(rs) + "]"
                             for f in forks) + sep(rs) + "]"
        entries.append(json.dumps({"benchmark": f"org.x.B.m{b}", "mode": "avgt",
                                   "primaryMetric": {"scoreUnit": "ns/op", "rawData": "RAW"}},
                                  indent=4).replace('"RAW"', raw))
    return "[" + ",\n".join(entries) + "]\n"


UNIFORM = {"jmh": lambda rs: "\n" + " " * 16, "compact": lambda rs: "", "space": lambda rs: " ",
           "tab": lambda rs: "\t", "crlf": lambda rs: "\r\n    "}
MIXED = {"indent varies": lambda rs: "\n" + " " * rs.randint(0, 20),
         "ws varies": lambda rs: rs.choice(["", " ", "\n", "\t ", "\r\n"])}


@pytest.mark.parametrize("layout", sorted(UNIFORM) + sorted(MIXED))
def test_every_layout_gives_the_ordinary_readers_series(tmp_path, monkeypatch, layout):
    """JMH's own layout (one value per line, one indent) is read without trimming
    (``_parse_uniform``); a file whose whitespace varies from value to value is trimmed
    (``_parse_any``); both give the ordinary reader's values bit for bit."""
    sep = {**UNIFORM, **MIXED}[layout]
    path = tmp_path / "r.json"
    trimmed = []
    real_any = jmh_json._parse_any
    monkeypatch.setattr(jmh_json, "_parse_any", lambda *a: trimmed.append(1) or real_any(*a))
    for seed in range(6):
        path.write_text(_layout_file(random.Random(seed), sep))
        trimmed.clear()
        fast = jmh_json._read_results_fast(path)
        assert fast is not None
        _same(fast, jmh_json._read_jmh_results(read_json(path), path))
        if layout in UNIFORM:
            assert not trimmed  # every rawData read without trimming
    if layout in MIXED:
        assert trimmed


@pytest.mark.parametrize("bad", [
    GOOD.replace(",\n                ", " ,\n                ", 1),   # a space before a comma
    GOOD.replace(",\n                ", ",\n               x", 1),   # a letter in the indent
    GOOD.replace(",\n                ", ",\n                 ", 1),  # one more space: trimmed
    GOOD.replace(",\n                ", ",\n               ", 1),    # one less: trimmed
    GOOD.replace(",\n                ", ",\n                -", 1),  # a sign: still a number
    GOOD.replace(",\n                ", ",\n                [", 1),  # a nested list
    GOOD[::-1].replace("]", "]]", 3)[::-1],                        # a list inside the last fork
])
def test_an_irregular_value_is_not_misread(tmp_path, bad):
    """A value whose surroundings differ from the others' is never cut at the wrong place: the
    file gives what the ordinary reader gives (its series or its error)."""
    path = tmp_path / "r.json"
    path.write_text(bad)
    expected = _ordinary(path)
    if isinstance(expected, str):
        with pytest.raises(DataFormatError) as got:
            jmh_json.read(path)
        assert str(got.value) == expected
    else:
        _same(jmh_json.read(path), expected)
