"""JMH console/-o log: forks, warm-up iterations kept and marked, a growing log, bad input.

Facts are read from the fixture with a few lines of independent parsing (regular expressions over
the documented line shapes), never from segview's reader.
"""
from __future__ import annotations

from pathlib import Path
import re

import pytest

import segview
from segview.core.benchmark import measured
from segview.core.errors import DataFormatError, DataFormatWarning
from segview.core.follow import SeriesFollower
from segview.core.io import load_file
from segview.core.io.readers import reader_for

LOG = Path(__file__).resolve().parents[1] / "data" / "harness" / "jmh" / "run.log"
MODES = {"Throughput, ops/time": "higher", "Average time, time/op": "lower"}


def facts(text: str) -> dict[str, dict]:
    """benchmark -> mode, params, and per (non-warm-up) fork its warm-up and measured values/unit."""
    out: dict[str, dict] = {}
    bench = params = mode = None
    fork = None
    for line in text.splitlines():
        if line.startswith("# Benchmark mode: "):
            mode = MODES[line.split(": ", 1)[1]]
        elif line.startswith("# Benchmark: "):
            bench, params = line.split(": ", 1)[1], ""
        elif line.startswith("# Parameters: "):
            pairs = sorted(p.split(" = ") for p in line[len("# Parameters: ("):-1].split(", "))
            params = "[" + ",".join(f"{k}={v}" for k, v in pairs) + "]"
        elif m := re.match(r"# (Warmup )?Fork: (\d+) of (\d+)", line):
            b = out.setdefault(bench + params, {"direction": mode, "forks": []})
            fork = None if m.group(1) else {"warm": [], "meas": [], "units": set()}
            if fork is not None:
                b["forks"].append(fork)
        elif m := re.match(r"(# Warmup )?Iteration +\d+: (\S+) (\S+)$", line):
            if fork is not None:
                fork["warm" if m.group(1) else "meas"].append(float(m.group(2)))
                fork["units"].add(m.group(3))
    return out


def test_jmh_log_fixture_loads_every_fork_with_its_warmup():
    want = facts(LOG.read_text(encoding="utf-8"))
    assert len(want) == 2  # the fixture: two benchmarks
    assert reader_for(LOG).name == "jmh-log"
    ds = segview.load(LOG)
    benches = {b.name: b for b in ds.benchmarks()}
    assert set(benches) == set(want)
    for name, w in want.items():
        b = benches[name]
        assert b.harness == "jmh" and b.direction == w["direction"] and not b.warnings
        assert len(b.executions) == len(w["forks"])
        for k, (s, f) in enumerate(zip(b.executions, w["forks"])):
            assert s.metadata["execution"] == k and s.id == f"{name}/fork{k}"
            assert s.metadata["unit"] == b.unit and f["units"] == {b.unit}
            assert s.metadata["warmup"] == len(f["warm"]) > 0
            m = measured(s)
            assert len(m) == len(f["meas"])
            assert m.values[0] == f["meas"][0] and m.values[-1] == f["meas"][-1]
            assert s.values[0] == f["warm"][0]  # warm-up kept, first
            assert s.metadata["complete"] is True
    thrpt = next(b for b in benches.values() if b.direction == "higher")
    assert thrpt.unit == "ops/ms" and thrpt.executions[0].metadata["warmup_forks_skipped"] == 1
    dropped = segview.load(LOG, harness_warmup="drop")
    assert sum(len(s) for s in dropped) == sum(len(f["meas"]) for w in want.values()
                                               for f in w["forks"])


def test_a_log_still_being_written_loads_up_to_its_last_complete_line(tmp_path):
    text = LOG.read_text(encoding="utf-8")
    # cut in the middle of the fourth measured iteration line of the second fork of benchmark 1
    start = text.index("# Fork: 2 of 3")
    cut = text.index("\nIteration   4: ", start) + len("\nIteration   4: 25.")
    path = tmp_path / "growing.log"
    path.write_text(text[:cut], encoding="utf-8")
    ds = segview.load(path)
    assert [s.metadata["execution"] for s in ds] == [0, 1]
    first, running = ds.series
    assert first.metadata["complete"] is True and running.metadata["complete"] is False
    assert len(measured(running)) == 3  # the cut fourth line is ignored, not an error
    want = facts(text[:text.rindex("\n", 0, cut)])
    assert measured(running).values[-1] == list(want.values())[0]["forks"][1]["meas"][-1]
    # only warm-up so far: a named error, not an empty load
    warm_only = tmp_path / "warm.log"
    warm_only.write_text(text[:text.index("\nIteration   1:") + 1], encoding="utf-8")
    with pytest.raises(DataFormatError, match="no measured iteration yet"):
        load_file(warm_only)


def test_a_failed_fork_is_a_named_warning_and_the_other_forks_load(tmp_path):
    text = LOG.read_text(encoding="utf-8")
    start = text.index("# Fork: 2 of 3")
    end = text.index("# Run progress", start)
    failed = ("# Fork: 2 of 3\n# Warmup Iteration   1: 48.100 us/op\n# Warmup Iteration   2: <failure>\n"
              "\njava.lang.OutOfMemoryError: Java heap space\n\tat org.sample.FibBench.fib\n\n")
    path = tmp_path / "failed.log"
    path.write_text(text[:start] + failed + text[end:], encoding="utf-8")
    with pytest.warns(DataFormatWarning, match=r"fork 2 of 'org.sample.FibBench.fib\[n=20\]' failed"):
        ds = segview.load(path)
    fib = next(b for b in ds.benchmarks() if b.name.startswith("org.sample.FibBench"))
    assert [s.metadata["execution"] for s in fib.executions] == [0, 2]  # the gap stays visible
    assert "failed.log" in fib.executions[0].metadata["load_warnings"][0]
    assert "line " in fib.executions[0].metadata["load_warnings"][0]


def test_mixed_units_in_one_benchmark_are_a_named_error(tmp_path):
    text = LOG.read_text(encoding="utf-8")
    start = text.index("# Fork: 3 of 3")
    line = text.index("\nIteration   2:", start) + 1
    end = text.index("\n", line)
    path = tmp_path / "mixed.log"
    path.write_text(text[:line] + "Iteration   2: 0.025 ms/op" + text[end:], encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"mixed\.log \(line \d+\).*'ms/op'.*mixed units"):
        load_file(path)


def test_renamed_iteration_lines_and_approximate_values_are_named_errors(tmp_path):
    text = LOG.read_text(encoding="utf-8")
    renamed = tmp_path / "renamed.log"  # a JMH that would print "Measurement N:" instead
    renamed.write_text(re.sub(r"(?m)^(# Warmup )?Iteration", "Measurement", text), encoding="utf-8")
    with pytest.raises(DataFormatError, match="renamed.log.*without any measured iteration"):
        load_file(renamed)
    approx = tmp_path / "approx.log"
    approx.write_text(text.replace("\nIteration   3: 25.", "\nIteration   3: \u2248 10\u207b\u2074 us/op #", 1),
                      encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"approx\.log \(line \d+\).*-tu ns"):
        load_file(approx)


def test_a_log_that_is_not_jmh_output_is_skipped_in_a_folder(tmp_path):
    (tmp_path / "server.log").write_text("started\nlistening on 8080\n")
    (tmp_path / "run.log").write_text(LOG.read_text(encoding="utf-8"), encoding="utf-8")
    ds = segview.load(tmp_path)
    assert not ds.problems and {s.metadata["source"] for s in ds} == {str(tmp_path / "run.log")}
    with pytest.raises(DataFormatError, match="not JMH console output"):
        load_file(tmp_path / "server.log")


def test_watch_follows_the_fork_the_reader_names(tmp_path):
    """segview watch parses through the reader's JmhLogParser: same fork names and values."""
    path = tmp_path / "run.log"
    path.write_text(LOG.read_text(encoding="utf-8"), encoding="utf-8")
    series = load_file(path)
    f = SeriesFollower(path, series=series[1].id)
    got = f.poll()
    assert f.name == series[1].id and f.complete
    assert got.tolist() == measured(series[1]).values.tolist()
