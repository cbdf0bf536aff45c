"""perf stat, Prometheus, InfluxDB line protocol and Perfherder fixtures: what segview reads matches
the files parsed here independently (csv module, string splitting), never the code under test."""
import csv
import re
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path

import pytest

import segview
from segview.core.errors import DataFormatError, SegviewWarning
from segview.core.io import load_file
from segview.core.io.readers import reader_for

DATA = Path(__file__).resolve().parents[1] / "data" / "harness"


def benchmarks(path):
    return {b.name: b for b in segview.load(path).benchmarks()}


# ------------------------------------------------------------------ perf stat


def perf_lines(path):
    """[(run_index, fields)] of a perf stat -x, file: runs start at '# started on'."""
    run, out = -1, []
    for line in path.read_text().splitlines():
        if line.startswith("# started on"):
            run += 1
        elif line.strip() and not line.startswith("#"):
            out.append((run, next(csv.reader([line.strip()]))))
    return out


def test_perf_stat_runs_file_one_value_per_run_and_event():
    path = DATA / "perf_stat" / "perf_runs.csv"
    assert reader_for(path).name == "perf-stat"
    lines = perf_lines(path)
    expect = defaultdict(list)
    units = {}
    for _, f in lines:
        expect[f[2]].append(float(f[0]))
        units[f[2]] = f[1]
    got = benchmarks(path)
    assert set(got) == {f"perf_runs/{e}" for e in expect}
    for event, values in expect.items():
        b = got[f"perf_runs/{event}"]
        assert len(b) == 1 and b.harness == "perf"
        (s,) = b.executions
        assert s.values.tolist() == values
        assert s.values[0] == values[0] and s.values[-1] == values[-1]
        assert b.unit == units[event]
        assert s.metadata["mean_of_repeats"] is True  # written with -r 3: a variance% field
    assert got["perf_runs/task-clock"].direction == "lower"  # msec
    assert got["perf_runs/page-faults"].direction is None     # a count


def test_perf_stat_interval_file_each_run_one_execution():
    path = DATA / "perf_stat" / "perf_interval.csv"
    lines = perf_lines(path)
    expect = defaultdict(lambda: defaultdict(list))
    for run, f in lines:
        expect[f[3]][run].append((float(f[0]), float(f[1])))
    got = benchmarks(path)
    assert set(got) == {f"perf_interval/{e}" for e in expect}
    for event, runs in expect.items():
        b = got[f"perf_interval/{event}"]
        assert [s.metadata["execution"] for s in b.executions] == sorted(runs)
        for s in b.executions:
            pts = runs[s.metadata["execution"]]
            assert s.values.tolist() == [v for _, v in pts]
            assert s.x.tolist() == [t for t, _ in pts]


def test_perf_stat_not_counted_is_left_out_with_a_warning(tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("# started on x\n\n"
                    "     0.1,1.5,msec,task-clock,1000,100.00,,\n"
                    "     0.2,<not counted>,msec,task-clock,0,100.00,,\n"
                    "     0.3,2.5,msec,task-clock,1000,100.00,,\n"
                    "     0.1,<not supported>,,cycles,0,100.00,,\n"
                    "     0.2,<not supported>,,cycles,0,100.00,,\n"
                    "     0.3,<not supported>,,cycles,0,100.00,,\n")
    with pytest.warns(SegviewWarning) as rec:
        (s,) = load_file(path)
    text = " ".join(str(w.message) for w in rec)
    assert "line 4: <not counted>" in text and "'cycles' was never counted" in text
    assert s.values.tolist() == [1.5, 2.5] and s.x.tolist() == [0.1, 0.3]
    assert "line 4" in s.metadata["load_warnings"][0]


def test_perf_stat_bad_line_named(tmp_path):
    from segview.core.io import perf_stat

    path = tmp_path / "p.txt"
    path.write_text("1.0,msec,task-clock,100,100.00\n1.1,msec,task-clock,100,100.00\ngarbage\n")
    with pytest.raises(DataFormatError) as err:
        perf_stat.read(path)
    assert err.value.where == "line 3"


def test_unsniffed_files_still_go_to_the_general_reader_of_their_extension(tmp_path):
    one = tmp_path / "one.csv"
    one.write_text("value\n1\n2\n")  # one column: no separator for any sniffer to see
    assert reader_for(one).name == "csv"
    (s,) = load_file(one)
    assert s.values.tolist() == [1.0, 2.0]
    txt = tmp_path / "x.txt"
    txt.write_text("not, a perf line\n")
    assert reader_for(txt).name == "extrap"


# ------------------------------------------------------------------ Prometheus


def prom_samples(path):
    out = defaultdict(list)
    for line in path.read_text().splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            out[key].append(float(value))
    return out


def test_prometheus_scrapes_one_series_per_metric_and_labels():
    path = DATA / "prometheus" / "scrapes.prom"
    assert reader_for(path).name == "prometheus"
    expect = prom_samples(path)
    got = benchmarks(path)
    assert set(got) == set(expect)
    scrapes = path.read_text().count("# TYPE bench_rounds_total counter")
    for key, values in expect.items():
        (s,) = got[key].executions
        assert s.values.tolist() == values and len(values) == scrapes
    fib = got['bench_iteration_seconds{benchmark="fib"}']
    assert fib.unit == "s" and fib.direction == "lower" and fib.params == {"benchmark": "fib"}
    assert got["bench_rounds_total"].direction is None
    assert got["bench_rounds_total"].executions[0].values.tolist() == list(
        map(float, range(1, scrapes + 1)))


def test_prometheus_labels_escapes_timestamps_and_nan(tmp_path):
    path = tmp_path / "m.prom"
    path.write_text('# TYPE q gauge\nq{a="x\\"y",b="1"} 1.5 1700000000000\n'
                    'q{a="x\\"y",b="1"} NaN 1700000001000\nq{a="x\\"y",b="1"} 2.5 1700000002000\n')
    with pytest.warns(SegviewWarning, match="line 3: NaN"):
        (s,) = load_file(path)
    assert s.metadata["params"] == {"a": 'x"y', "b": "1"}
    assert s.values.tolist() == [1.5, 2.5] and s.x.tolist() == [1700000000.0, 1700000002.0]


def test_prometheus_sniff_does_not_take_extrap_or_csv(tmp_path):
    from segview.core.io import prometheus_text

    assert not prometheus_text.sniff("PARAMETER p\nPOINTS 1 2 3\nDATA 1 2 3\n")
    assert not prometheus_text.sniff("a,b\n1,2\n")
    assert not prometheus_text.sniff("cpu,host=a value=1 1700000000\n")


# ------------------------------------------------------------------ InfluxDB line protocol


def influx_points(path):
    out = defaultdict(list)
    for line in path.read_text().splitlines():
        parts = re.split(r"(?<!\\) ", line)  # measurement+tags, fields, timestamp
        head = parts[0].replace("\\ ", " ")
        measurement, *tags = head.split(",")
        for f in parts[1].split(","):
            k, v = f.split("=", 1)
            if v.endswith("i"):
                out[(measurement, tuple(tags), k)].append((float(v[:-1]), int(parts[2])))
            elif re.fullmatch(r"[0-9.e+-]+", v):
                out[(measurement, tuple(tags), k)].append((float(v), int(parts[2])))
    return out


def test_influx_line_protocol_numeric_fields_are_benchmarks():
    path = DATA / "influx" / "iterations.lp"
    assert reader_for(path).name == "influx"
    expect = influx_points(path)
    got = benchmarks(path)
    assert len(got) == len(expect) == 4
    for (measurement, tags, field), pts in expect.items():
        name = f"{measurement}[{','.join(sorted(tags))}].{field}"
        (s,) = got[name].executions
        assert s.values.tolist() == [v for v, _ in pts]
        assert s.x.tolist() == [float(t) for _, t in pts]
        assert s.metadata["ignored_fields"] == ["ok", "phase"]
    assert any("sort list" in n for n in got)  # the escaped space in a tag value


def test_influx_bad_line_named(tmp_path):
    path = tmp_path / "x.lp"
    path.write_text("m,t=a v=1 10\nm,t=a v=oops 11\n")
    with pytest.raises(DataFormatError) as err:
        load_file(path)
    assert err.value.where == "line 2" and "'oops'" in err.value.reason


# ------------------------------------------------------------------ Perfherder


def test_perfherder_api_csv():
    path = DATA / "perfherder" / "perfherder_api.csv"
    assert reader_for(path).name == "perfherder"
    rows = list(csv.DictReader(path.open()))
    rows.sort(key=lambda r: int(r["push_timestamp"]))
    got = benchmarks(path)
    assert list(got) == [f"signature {rows[0]['signature_id']}"]
    (s,) = got[f"signature {rows[0]['signature_id']}"].executions
    assert s.values.tolist() == [float(r["value"]) for r in rows]
    assert s.x.tolist() == [float(r["push_timestamp"]) for r in rows]
    assert s.metadata["revisions"] == [r["revision"] for r in rows]


def test_perfherder_signatures_csv_two_platforms_and_retriggers():
    path = DATA / "perfherder" / "perfherder_signatures.csv"
    rows = list(csv.DictReader(path.open()))
    by = defaultdict(list)
    for r in rows:
        by[r["signature_hash"]].append(r)
    got = benchmarks(path)
    assert len(got) == len(by) == 2
    for sig, rs in by.items():
        rs.sort(key=lambda r: r["push_timestamp"])  # ISO strings sort as times; stable
        name = f"{rs[0]['name']} [{rs[0]['machine_platform']}]"
        b = got[name]
        (s,) = b.executions
        assert s.values.tolist() == [float(r["value"]) for r in rs]
        assert s.values[0] == float(rs[0]["value"]) and s.values[-1] == float(rs[-1]["value"])
        t0 = datetime.fromisoformat(rs[0]["push_timestamp"]).replace(tzinfo=timezone.utc)
        assert s.x[0] == t0.timestamp()
        assert b.unit == rs[0]["measurement_unit"]
        assert b.direction == ("lower" if rs[0]["lower_is_better"] == "True" else "higher")
        assert len(set(r["revision"] for r in rs)) < len(rs)  # a retriggered push is kept


def test_formats_are_sniffed_by_content_not_name(tmp_path):
    for src, name in [(DATA / "perf_stat" / "perf_runs.csv", "perf-stat"),
                      (DATA / "prometheus" / "scrapes.prom", "prometheus"),
                      (DATA / "influx" / "iterations.lp", "influx")]:
        p = tmp_path / (src.stem + ".txt")
        p.write_text(src.read_text())
        assert reader_for(p).name == name
    plain = tmp_path / "plain.csv"
    plain.write_text("a,b\n1,2\n")
    assert reader_for(plain).name == "csv"
