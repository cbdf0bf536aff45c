"""Fuzz (issue 17 style) for the table formats of issue 26: perf stat, Prometheus, InfluxDB line
protocol, Perfherder CSV and the column mapping. Every case ends in series that keep segview's
promises or in a named error naming the file; never another exception."""
from __future__ import annotations

import warnings
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import segview
from segview.core.errors import DataFormatError, ParameterError, SegviewWarning
from segview.core.io import columns as cols

from .test_fuzz import FUZZ, _check_dataset, numbers

cells = st.one_of(st.sampled_from(["", "x", "nan", "inf", "1e400", "-1", "<not counted>",
                                   "<not supported>", "msec", "task-clock", "12i", '"s"', "t",
                                   "{a=\"b\"}", "# started on x", "1,5", "=1", "\\ ", "0.5"]),
                  numbers.map(repr))


def _load_or_named_error(path: Path, **kw) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SegviewWarning)  # left-out points are warned, by design
        try:
            _check_dataset(segview.load(path, **kw))
        except DataFormatError as err:
            assert path.name in str(err)


@FUZZ
@given(lines=st.lists(st.lists(cells, min_size=0, max_size=9), max_size=8),
       sep=st.sampled_from([",", ";", " ", "\t"]),
       name=st.sampled_from(["perf.csv", "m.prom", "points.lp", "out.txt"]))
def test_fuzz_line_formats(tmp_path_factory, lines, sep, name):
    path = tmp_path_factory.mktemp("t") / name
    path.write_text("\n".join(sep.join(r) for r in lines) + "\n")
    _load_or_named_error(path)


@FUZZ
@given(rows=st.lists(st.lists(cells, min_size=0, max_size=7), max_size=8))
def test_fuzz_perfherder(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("p") / "ph.csv"
    head = "id,signature_id,push_timestamp,value,revision,lower_is_better,measurement_unit"
    path.write_text("\n".join([head] + [",".join(r) for r in rows]) + "\n")
    _load_or_named_error(path)


@FUZZ
@given(rows=st.lists(st.lists(cells, min_size=0, max_size=5), max_size=8),
       spec=st.lists(st.tuples(st.sampled_from(["bench", "exec", "iter", "value", "unit", "time",
                                                "warmup", "layout", "nope"]),
                               st.sampled_from(["a", "b", "c", "d", "e", "*", "wide", "long", "rows",
                                                ""])),
                     max_size=5))
def test_fuzz_column_mapping(tmp_path_factory, rows, spec):
    path = tmp_path_factory.mktemp("m") / "table.csv"
    path.write_text("\n".join(["a,b,c,d,e"] + [",".join(r) for r in rows]) + "\n")
    text = ",".join(f"{k}={v}" for k, v in spec)
    try:
        mapping = cols.parse_columns(text)
    except ParameterError:
        return
    _load_or_named_error(path, columns=mapping)
    header, shown, result = cols.preview(path, mapping)  # never warns: its notes are in the text
    assert isinstance(result, str) or all(len(s) >= 1 for s in result)


@FUZZ
@given(lines=st.lists(st.tuples(st.one_of(st.just(""), numbers.map(repr)), cells,
                                st.sampled_from(["msec", "", "x"]),
                                st.sampled_from(["task-clock", "cycles", "1", ""]),
                                st.sampled_from(["", "3.2%"]), cells),
                      min_size=1, max_size=8),
       started=st.booleans())
def test_fuzz_perf_stat_shaped(tmp_path_factory, lines, started):
    path = tmp_path_factory.mktemp("s") / "perf.csv"
    out = ["# started on Thu Nov 26 13:55:24 2026", ""] if started else []
    for t, v, unit, event, var, runtime in lines:
        fields = ([t] if t else []) + [v, unit, event] + ([var] if var else []) + [runtime,
                                                                                  "100.00"]
        out.append(",".join(fields))
    path.write_text("\n".join(out) + "\n")
    _load_or_named_error(path)
