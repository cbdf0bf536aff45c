"""Column-mapping import: any CSV/TSV as benchmarks, with errors naming file, line and column.

Expected values are read off the tables written in each test (the literal rows), never from the
code under test.
"""
import csv
import io
import json
from datetime import datetime, timezone

import pytest

import segview
from segview.core.errors import DataFormatError, ParameterError, SegviewWarning
from segview.core.io import columns as cols
from segview.core.io import load
from segview.core.io.columns import ColumnMapping, parse_columns

LONG = """bench,fork,iter,ns,unit,phase
A,1,1,40.0,ns,measurement
A,1,0,50.0,ns,warmup
A,2,0,60.0,ns,warmup
A,2,1,35.0,ns,measurement
A,2,2,33.0,ns,measurement
B,1,0,9.5,ops/s,measurement
B,1,1,9.7,ops/s,measurement
"""


def write(path, text, encoding="utf-8"):
    path.write_text(text, encoding=encoding)
    return path


def table_rows(text, delimiter=","):
    rows = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    return rows[0], rows[1:]


# ------------------------------------------------------------------ parse_columns


def test_parse_columns_all_keys_and_round_trip():
    m = parse_columns("bench=b,exec=e,iter=i,value=v,unit=u,time=t,warmup=w,layout=long")
    assert (m.benchmark, m.execution, m.iteration, m.value, m.unit, m.time, m.warmup, m.layout) \
        == ("b", "e", "i", "v", "u", "t", "w", "long")
    assert parse_columns(m.spec()) == m


def test_parse_columns_wide_list_and_delimiter_names():
    m = parse_columns("layout=wide,value=a,b,c,delimiter=tab,unit_value=ms")
    assert m.value_columns() == ["a", "b", "c"] and m.delimiter == "\t" and m.unit_value == "ms"
    assert parse_columns(m.spec()) == m


@pytest.mark.parametrize("spec,fragment", [
    ("bench=a,foo=b,value=c", "unknown key 'foo'"),
    ("bench=a", "no value column"),
    ("value=a,value=b", "given twice"),
    ("value=a,b", "wide layout"),
    ("value=v,layout=tall", "layout must be long, wide or rows"),
    ("value=v,delimiter=ab", "not one character"),
    ("", "empty column mapping"),
])
def test_parse_columns_errors(spec, fragment):
    with pytest.raises(ParameterError, match=fragment):
        parse_columns(spec)


# ------------------------------------------------------------------ reading


def test_long_table_grouped_by_benchmark_and_execution(tmp_path):
    path = write(tmp_path / "t.csv", LONG)
    series = cols.read_mapped(path, "bench=bench,exec=fork,iter=iter,value=ns,unit=unit,"
                                    "warmup=phase")
    header, rows = table_rows(LONG)
    by = {}
    for r in rows:
        by.setdefault((r[0], r[1]), []).append(r)
    assert len(series) == len(by) == 3
    for s in series:
        key = (s.metadata["benchmark"], s.metadata["execution_label"])
        expect = sorted(by[key], key=lambda r: int(r[2]))  # ordered by the iteration column
        assert s.values.tolist() == [float(r[3]) for r in expect]
        assert s.metadata["warmup"] == sum(r[5] == "warmup" for r in expect)
        assert s.metadata["unit"] == expect[0][4]
    a = [s for s in series if s.metadata["benchmark"] == "A"]
    assert [s.metadata["execution"] for s in a] == [0, 1]          # labels 1, 2 -> 0, 1
    assert {s.metadata["direction"] for s in a} == {"lower"}         # ns
    (b,) = [s for s in series if s.metadata["benchmark"] == "B"]
    assert b.metadata["direction"] == "higher"                       # ops/s
    ds = segview.load(path, columns="bench=bench,exec=fork,iter=iter,value=ns,unit=unit,"
                                    "warmup=phase")
    benches = ds.benchmarks()
    assert [(x.name, len(x)) for x in benches] == [("A", 2), ("B", 1)]
    assert segview.load(path, columns="bench=bench,exec=fork,iter=iter,value=ns,warmup=phase",
                        harness_warmup="drop").by_id("A/exec1").values.tolist() == [35.0, 33.0]


def test_without_iteration_rows_keep_file_order_and_without_bench_the_file_names_it(tmp_path):
    text = "x,y\n1,3.5\n2,1.5\n3,2.5\n"
    path = write(tmp_path / "plain.csv", text)
    (s,) = cols.read_mapped(path, ColumnMapping(value="y"))
    assert s.id == "plain" and s.values.tolist() == [3.5, 1.5, 2.5]
    assert s.metadata["harness"] == "table" and s.metadata["unit"] == ""


def test_time_column_iso_and_numbers(tmp_path):
    text = "when,v\n2024-05-01T10:00:00,1\n2024-05-01T10:00:30Z,2\n"
    path = write(tmp_path / "t.csv", text)
    (s,) = cols.read_mapped(path, "time=when,value=v,unit_value=ms")
    t0 = datetime(2024, 5, 1, 10, 0, tzinfo=timezone.utc).timestamp()
    assert s.x.tolist() == [t0, t0 + 30] and s.metadata["unit"] == "ms"
    assert s.metadata["direction"] == "lower"


def test_wide_layout_star_and_ragged(tmp_path):
    text = "i,fast,slow\n0,1.0,10.0\n1,1.1,\n2,1.2,\n"
    path = write(tmp_path / "w.csv", text)
    series = cols.read_mapped(path, "iter=i,value=*,layout=wide")
    assert [(s.id, s.values.tolist()) for s in series] == [("fast", [1.0, 1.1, 1.2]),
                                                          ("slow", [10.0])]


def test_wide_layout_with_benchmark_column(tmp_path):
    text = "bench,run,t_ms,cycles\nA,0,1,100\nA,0,2,200\nB,0,3,300\n"
    path = write(tmp_path / "w.csv", text)
    series = cols.read_mapped(path, "bench=bench,exec=run,layout=wide,value=t_ms,cycles")
    assert sorted((s.metadata["benchmark"], s.values.tolist()) for s in series) == [
        ("A/cycles", [100.0, 200.0]), ("A/t_ms", [1.0, 2.0]), ("B/cycles", [300.0]),
        ("B/t_ms", [3.0])]


def test_tsv_with_bom_and_given_delimiter(tmp_path):
    text = "\ufeffname\tvalue\nx\t1.5\nx\t2.5\n"
    path = write(tmp_path / "t.tsv", text)
    (s,) = cols.read_mapped(path, "bench=name,value=value")
    assert s.values.tolist() == [1.5, 2.5] and s.metadata["benchmark"] == "x"
    (s2,) = cols.read_mapped(path, "bench=name,value=value,delimiter=tab")
    assert s2.values.tolist() == [1.5, 2.5]


def test_semicolon_table(tmp_path):
    path = write(tmp_path / "t.csv", "b;v\nq;1\nq;2\n")
    (s,) = cols.read_mapped(path, "bench=b,value=v")
    assert s.values.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("text,spec,where,fragment", [
    ("b,v\nA,1\nA,abc\n", "bench=b,value=v", "line 3, column 'v'", "'abc' is not a number"),
    ("b,v\nA,1\nA,\n", "bench=b,value=v", "line 3, column 'v'", "blank"),
    ("b,v\nA,1\n", "bench=b,value=nope", "line 1", "no column 'nope'"),
    ("b,v\nA,1\n", "bench=zzz,value=v", "line 1", "no column 'zzz'"),
    ("b,i,v\nA,0,1\nA,0,2\n", "bench=b,iter=i,value=v", "line 3, column 'i'", "also on line 2"),
    ("b,w,v\nA,0,1\nA,1,2\n", "bench=b,warmup=w,value=v", "line 3, column 'w'",
     "warm-up iteration after a measured one"),
    ("b,w,v\nA,maybe,1\n", "bench=b,warmup=w,value=v", "line 2, column 'w'", "does not say"),
    ("b,u,v\nA,ns,1\nA,ms,2\n", "bench=b,unit=u,value=v", "line 3, column 'u'", "differs"),
    ("b,v\nA,1\n\nA\n", "bench=b,value=v", "line 4", "cells"),
    ("b,v\n,1\n", "bench=b,value=v", "line 2, column 'b'", "benchmark name is blank"),
    ("t,v\nyesterday,1\n", "time=t,value=v", "line 2, column 't'", "ISO 8601"),
])
def test_errors_name_file_line_and_column(tmp_path, text, spec, where, fragment):
    path = write(tmp_path / "bad.csv", text)
    with pytest.raises(DataFormatError) as err:
        cols.read_mapped(path, spec)
    assert err.value.source == str(path)
    assert err.value.where == where
    assert fragment in err.value.reason


def test_blank_lines_do_not_shift_line_numbers(tmp_path):
    path = write(tmp_path / "bad.csv", "b,v\n\nA,1\n\nA,x\n")
    with pytest.raises(DataFormatError) as err:
        cols.read_mapped(path, "bench=b,value=v")
    assert err.value.where == "line 5, column 'v'"


# ------------------------------------------------------------------ guess and preview


def test_guess_mapping_from_header_names(tmp_path):
    path = write(tmp_path / "t.csv", LONG)
    m = cols.guess_mapping(path)
    assert m == ColumnMapping(value="ns", benchmark="bench", execution="fork", iteration="iter",
                              unit="unit", warmup="phase")


def test_guess_mapping_warmup_stats_like_and_perfherder_like(tmp_path):
    p1 = write(tmp_path / "k.csv", "process_exec_idx,bench_name,iteration,wallclock\n"
                                   "0,fib,0,1.5\n0,fib,1,1.2\n")
    m1 = cols.guess_mapping(p1)
    assert (m1.execution, m1.benchmark, m1.iteration, m1.value) == (
        "process_exec_idx", "bench_name", "iteration", "wallclock")
    p2 = write(tmp_path / "p.csv", "push_timestamp,value,revision\n1700000000,9.1,abc\n")
    m2 = cols.guess_mapping(p2)
    assert (m2.value, m2.time) == ("value", "push_timestamp")


def test_guess_mapping_wide_numeric_table(tmp_path):
    path = write(tmp_path / "w.csv", "a,b,c\n1,2,3\n4,5,6\n")
    assert cols.guess_mapping(path) == ColumnMapping(value="*", layout="wide")


def test_guess_mapping_none_without_numbers(tmp_path):
    assert cols.guess_mapping(write(tmp_path / "t.csv", "a,b\nx,y\n")) is None


def test_preview_rows_and_series_or_error(tmp_path):
    lines = ["b,v"] + [f"A,{k}" for k in range(30)]
    path = write(tmp_path / "t.csv", "\n".join(lines) + "\n")
    header, rows, result = cols.preview(path, "bench=b,value=v", rows=20)
    assert header == ["b", "v"] and len(rows) == 20 and rows[0] == ["A", "0"]
    (s,) = result
    assert len(s) == 30
    assert cols.summary(result) == "1 benchmark(s) x 1 execution(s) x 30 iterations"
    header, rows, result = cols.preview(path, "bench=b,value=nope")
    assert isinstance(result, str) and "no column 'nope'" in result and len(rows) == 20


# ------------------------------------------------------------------ remembered per folder


def test_remember_mapping_per_folder_in_given_config_dir(tmp_path):
    cfg = tmp_path / "cfg"
    data = tmp_path / "data"
    data.mkdir()
    m = parse_columns("bench=b,value=v")
    store = cols.remember_mapping(data / "one.csv", m, config_dir=cfg)
    assert store.parent == cfg and json.loads(store.read_text())  # written there, whole
    assert cols.remembered_mapping(data / "other.csv", config_dir=cfg) == m
    assert cols.remembered_mapping(data, config_dir=cfg) == m
    assert cols.remembered_mapping(tmp_path / "elsewhere.csv", config_dir=cfg) is None


def test_config_dir_comes_from_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("SEGVIEW_CONFIG_DIR", str(tmp_path / "c"))
    assert cols.user_config_dir() == tmp_path / "c"
    cols.remember_mapping(tmp_path / "x.csv", "value=v")
    assert (tmp_path / "c" / "column-mappings.json").is_file()


def test_damaged_store_reads_as_empty(tmp_path, monkeypatch):
    monkeypatch.setenv("SEGVIEW_CONFIG_DIR", str(tmp_path))
    (tmp_path / "column-mappings.json").write_text("{not json")
    assert cols.remembered_mapping(tmp_path / "x.csv") is None
    cols.remember_mapping(tmp_path / "x.csv", "value=v")  # replaces it whole
    assert cols.remembered_mapping(tmp_path / "x.csv") == ColumnMapping(value="v")


def test_load_uses_the_remembered_mapping_only_for_tables_it_fits(tmp_path, monkeypatch):
    monkeypatch.setenv("SEGVIEW_CONFIG_DIR", str(tmp_path / "cfg"))
    data = tmp_path / "data"
    data.mkdir()
    write(data / "mapped.csv", LONG)
    write(data / "plain.csv", "s1,s2\n1,2\n3,4\n")  # an ordinary wide CSV beside it
    before = load(data)
    assert {s.id for s in before} == {"s1", "s2"} | set() and len(before.problems) == 1
    cols.remember_mapping(data, "bench=bench,exec=fork,iter=iter,value=ns,warmup=phase")
    ds = load(data)
    assert not ds.problems
    assert {s.id for s in ds} == {"A/exec0", "A/exec1", "B/exec0", "s1", "s2"}
    assert ds.by_id("A/exec0").metadata["columns_source"] == "remembered"
    assert ds.by_id("s1").metadata["format"] == "csv-wide"
    off = load(data, remembered_columns=False)
    assert len(off.problems) == 1


def test_load_with_columns_on_a_folder_maps_only_fitting_tables(tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    write(data / "mapped.csv", LONG)
    write(data / "plain.csv", "s1,s2\n1,2\n3,4\n")
    ds = load(data, columns=ColumnMapping(value="ns", benchmark="bench", execution="fork"))
    assert not ds.problems
    assert {s.id for s in ds} == {"A/exec0", "A/exec1", "B/exec0", "s1", "s2"}
    assert ds.by_id("A/exec0").metadata["columns_source"] == "given"
    with pytest.raises(DataFormatError, match="no column 'ns'"):
        load(data / "plain.csv", columns="value=ns")  # a file named: the mapping must fit


@pytest.mark.parametrize("column,unit", [("wallclock_ms", "ms"), ("time (ns)", "ns"),
                                         ("duration_s", "s"), ("score", None), ("items", None)])
def test_guess_takes_the_unit_from_the_value_column_name(tmp_path, column, unit):
    path = write(tmp_path / "t.csv", f"bench,{column}\nA,1\n")
    m = cols.guess_mapping(path)
    assert m.value == column and m.unit_value == unit


ROWS = """process_exec_idx,bench_name,0,1,2,3
0,fib,1.5,1.2,1.1,1.1
1,fib,1.6,1.3,1.1,
2,fib,,,,
0,sort,0.5,0.4,0.4,0.4
"""


def test_rows_layout_each_row_one_execution(tmp_path):
    path = write(tmp_path / "ws.csv", ROWS)
    m = cols.guess_mapping(path)
    assert m == ColumnMapping(value="*", layout="rows", execution="process_exec_idx",
                              benchmark="bench_name")
    header, rows = table_rows(ROWS)
    with pytest.warns(SegviewWarning, match="line 4: execution '2' of 'fib' has no values"):
        series = cols.read_mapped(path, m)
    got = {(s.metadata["benchmark"], s.metadata["execution_label"]): s for s in series}
    expect = {(r[1], r[0]): [float(c) for c in r[2:] if c] for r in rows}
    assert {k: s.values.tolist() for k, s in got.items()} == {k: v for k, v in expect.items()
                                                               if v}
    assert [got[("fib", "0")].metadata["execution"], got[("fib", "1")].metadata["execution"]] \
        == [0, 1]
    assert "has no values" in got[("fib", "0")].metadata["load_warnings"][0]


@pytest.mark.parametrize("text,spec,where,fragment", [
    ("e,b,0,1,2\n0,f,1,,2\n", "exec=e,bench=b,value=*,layout=rows", "line 2, column '2'",
     "after the blank cell"),
    ("e,b,0,1\n0,f,1,2\n0,f,3,4\n", "exec=e,bench=b,value=*,layout=rows", "line 3",
     "also on line 2"),
])
def test_rows_layout_errors(tmp_path, text, spec, where, fragment):
    path = write(tmp_path / "r.csv", text)
    with pytest.raises(DataFormatError) as err:
        cols.read_mapped(path, spec)
    assert err.value.where == where and fragment in err.value.reason


def test_rows_layout_refuses_iteration_roles(tmp_path):
    path = write(tmp_path / "r.csv", "e,i,0,1\n0,0,1,2\n")
    with pytest.raises(ParameterError, match="not used in the rows layout"):
        cols.read_mapped(path, "exec=e,iter=i,value=0,1,layout=rows")


def test_preview_of_a_crashed_row_says_so_without_warning(tmp_path, recwarn):
    path = write(tmp_path / "ws.csv", ROWS)
    _, _, result = cols.preview(path, "exec=process_exec_idx,bench=bench_name,value=*,layout=rows")
    assert not [w for w in recwarn if issubclass(w.category, SegviewWarning)]
    text = cols.summary(result)
    assert text.startswith("2 benchmark(s) x 3 execution(s)") and "1 warning(s)" in text
    assert "line 4" in text
