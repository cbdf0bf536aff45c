"""What segview read (describe) and per-benchmark roll-ups of detection results."""
from __future__ import annotations

import json

import numpy as np
import pytest

import segview
from segview.core.benchmark import describe, describe_execution, execution, group, rollup
from segview.core.result import DetectionResult


def _res(onset, cps):
    return DetectionResult("m", {}, np.array(cps, dtype=np.int64), onset)


def _bench(n_exec=5, unit="ms"):
    return group([execution(np.arange(1.0, 11.0), benchmark="b", index=k, harness="h", unit=unit,
                            warmup=2) for k in range(n_exec)])[0]


def test_describe_counts_warmup_and_measured_and_reads_first_last_measured():
    s = execution([9.0, 8.0, 1.5, 1.1, 0.9], benchmark="Fib.run", index=3, harness="jmh",
                  unit="ns/op", warmup=2, metadata={"source": "f.log", "vm": "pypy"})
    (b,) = group([s])
    d = describe(b)
    assert (d["name"], d["harness"], d["unit"], d["direction"]) == ("Fib.run", "jmh", "ns/op",
                                                                    "lower")
    (e,) = d["executions"]
    # 2 warm-up iterations (9, 8), then 1.5 ... 0.9 measured
    assert {k: e[k] for k in ("index", "warmup", "measured", "first", "last")} == {
        "index": 3, "warmup": 2, "measured": 3, "first": 1.5, "last": 0.9}
    assert e["source"] == "f.log" and d["metadata"] == {"vm": "pypy"}
    json.dumps(d, allow_nan=False)  # JSON-ready


def test_describe_after_dropping_warmup_says_how_many_were_dropped():
    s = execution([9.0, 8.0, 1.5, 1.1], benchmark="b", index=0, harness="h", warmup=2)
    e = describe_execution(segview.core.benchmark.measured(s))
    assert (e["warmup"], e["measured"], e["first"], e["warmup_dropped"]) == (0, 2, 1.5, 2)


def test_describe_all_warmup_has_no_first_or_last():
    e = describe_execution(execution([3.0, 2.0], benchmark="b", index=0, harness="h", warmup=2))
    assert (e["measured"], e["first"], e["last"]) == (0, None, None)


def test_describe_plain_and_multivariate_series():
    plain = segview.Series([4.0, 5.0, 6.0], id="col")
    mv = segview.Series([[1.0, 2.0], [3.0, 4.0]], id="mv", dims=["a", "b"])
    d_plain, d_mv = (describe(b) for b in group([plain, mv]))
    assert d_plain["name"] == "col" and d_plain["direction"] is None
    e = d_plain["executions"][0]
    assert {k: e[k] for k in ("index", "warmup", "measured", "first", "last")} == {
        "index": 0, "warmup": 0, "measured": 3, "first": 4.0, "last": 6.0}
    assert d_mv["executions"][0]["first"] == [1.0, 2.0]
    assert d_mv["executions"][0]["last"] == [3.0, 4.0]


def test_describe_collects_load_warnings_of_executions():
    a = execution([1.0, 2.0], benchmark="b", index=0, harness="krun",
                  metadata={"load_warnings": ["execution 1 crashed (empty)"]})
    c = execution([1.0, 2.0], benchmark="b", index=2, harness="krun")
    d = describe(group([a, c])[0])
    assert d["warnings"] == ["execution 1 crashed (empty)"]
    assert [e["index"] for e in d["executions"]] == [0, 2]
    assert "load_warnings" not in d["metadata"]


def test_rollup_median_iqr_and_change_points_per_execution():
    b = _bench(5)
    ids = [s.id for s in b.executions]
    results = {ids[0]: _res(10, [10]), ids[1]: _res(30, [5, 30]), ids[2]: _res(20, []),
               ids[3]: _res(None, [1, 2, 3])}  # execution 4 has no result
    r = rollup(b, results)
    # onsets of the steady executions: 10, 20, 30 -> median 20; quartiles by linear interpolation
    # between order statistics: q1 = 10 + 0.5 * (20 - 10) = 15, q3 = 25
    assert (r["benchmark"], r["executions"], r["analysed"], r["steady"]) == ("b", 5, 4, 3)
    assert (r["onset_median"], r["onset_q1"], r["onset_q3"], r["onset_iqr"]) == (20, 15, 25, 10)
    assert r["change_points"] == [1, 2, 0, 3, None]


def test_rollup_of_a_change_point_method_and_of_nothing_steady():
    b = _bench(2)
    ids = [s.id for s in b.executions]
    r = rollup(b, {ids[0]: _res(None, [4]), ids[1]: _res(None, [])}, onset=False)
    assert r["steady"] is None and r["onset_median"] is None and r["change_points"] == [1, 0]
    r = rollup(b, {ids[0]: _res(None, [4])})
    assert r["steady"] == 0 and r["onset_median"] is None and r["onset_iqr"] is None
    assert r["change_points"] == [1, None]


def test_rollup_one_steady_execution_has_zero_iqr():
    b = _bench(1)
    r = rollup(b, {b.executions[0].id: _res(7, [7])})
    assert (r["onset_median"], r["onset_iqr"]) == (7, 0)


@pytest.mark.parametrize("onsets, median, q1, q3", [([1, 2, 3, 4], 2.5, 1.75, 3.25),
                                                    ([5, 1, 9], 5, 3, 7)])
def test_rollup_quartiles(onsets, median, q1, q3):
    b = _bench(len(onsets))
    r = rollup(b, {s.id: _res(o, []) for s, o in zip(b.executions, onsets)})
    assert (r["onset_median"], r["onset_q1"], r["onset_q3"]) == (median, q1, q3)
