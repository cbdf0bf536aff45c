"""The benchmark model: executions kept together, harness warm-up marked, direction from the unit."""
from __future__ import annotations

import json

import numpy as np
import pytest

import segview
from segview.core.benchmark import (HIGHER, LOWER, direction_for_unit, execution, group, measured,
                                    warmup_count)
from segview.core.errors import DataFormatError, InputError


@pytest.mark.parametrize("unit,expected", [
    ("ns", LOWER), ("ms/op", LOWER), ("us/op", LOWER), ("s", LOWER), ("ops/ms", HIGHER),
    ("ops/s", HIGHER), ("MB/s", HIGHER), ("", None), ("instructions", None)])
def test_direction_for_unit(unit, expected):
    assert direction_for_unit(unit) == expected


def test_execution_keeps_warmup_and_measured_drops_it():
    s = execution([9.0, 8.0, 1.0, 1.1, 0.9], benchmark="b", index=2, harness="h", unit="ms",
                  warmup=2)
    assert s.id == "b/exec2" and len(s) == 5 and warmup_count(s) == 2
    m = measured(s)
    assert m.values.tolist() == [1.0, 1.1, 0.9]
    assert m.metadata["warmup_dropped"] == 2 and warmup_count(m) == 0
    assert measured(m) is m
    with pytest.raises(InputError, match="warm-up iterations for 5"):
        execution([1.0] * 5, benchmark="b", index=0, harness="h", warmup=6)
    with pytest.raises(InputError, match="no measured iteration"):
        measured(execution([1.0, 2.0], benchmark="b", index=0, harness="h", warmup=2))


def test_group_orders_executions_and_names_problems():
    a1 = execution([1.0, 2.0], benchmark="a", index=1, harness="h", unit="ms")
    b0 = execution([1.0, 2.0], benchmark="b", index=0, harness="h", unit="ops/s")
    a0 = execution([3.0, 4.0], benchmark="a", index=0, harness="h", unit="ms")
    a0s = execution([3.0, 4.0], benchmark="a", index=0, harness="h", unit="s", id="a/other")
    plain = segview.Series([1.0, 2.0, 3.0], id="plain")
    out = group([a1, b0, a0, plain])
    assert [b.name for b in out] == ["a", "b", "plain"]
    assert [s.id for s in out[0].executions] == ["a/exec0", "a/exec1"]
    assert out[0].direction == LOWER and out[1].direction == HIGHER and out[1].higher_is_better
    assert out[1].better(3.0, 2.0) and out[0].better(2.0, 3.0)
    assert len(out[2]) == 1 and out[0].warnings == ()
    mixed = group([a0, a1, a0s])[0]
    assert any("different units" in w for w in mixed.warnings)
    assert any("indices repeat" in w for w in mixed.warnings)


def test_jmh_files_keep_forks_together(tmp_path):
    forks = [[3.0, 2.0, 1.0], [3.5, 2.5, 1.5]]
    (tmp_path / "bench.json").write_text(json.dumps(forks))
    result = [{"benchmark": "org.Foo.bar", "mode": "thrpt", "params": {"n": "5"},
               "primaryMetric": {"scoreUnit": "ops/ms", "rawData": [[10.0, 11.0], [12.0, 13.0],
                                                                     [9.0, 9.5]]}}]
    (tmp_path / "result.json").write_text(json.dumps(result))
    ds = segview.load(tmp_path)
    benches = {b.name: b for b in ds.benchmarks()}
    fl = benches["bench"]
    assert [s.values.tolist() for s in fl.executions] == forks and fl.harness == "jmh"
    assert fl.direction is None  # a fork list has no unit
    rf = benches["org.Foo.bar[n=5]"]
    assert len(rf) == 3 and rf.unit == "ops/ms" and rf.direction == HIGHER
    assert rf.params == {"n": "5"} and rf.metadata["mode"] == "thrpt"
    assert rf.executions[2].values.tolist() == [9.0, 9.5]


def test_load_harness_warmup_choice(tmp_path):
    (tmp_path / "bench.json").write_text(json.dumps([[3.0, 2.0, 1.0]]))
    assert len(segview.load(tmp_path, harness_warmup="drop")[0]) == 3  # nothing marked
    with pytest.raises(DataFormatError, match="harness_warmup"):
        segview.load(tmp_path, harness_warmup="sometimes")


def test_unique_ids_keep_dimensions():
    from segview.core.io import Dataset, _check_unique_ids
    v = np.arange(20.0).reshape(10, 2)
    ds = Dataset([segview.Series(v, id="m", dims=["a", "b"]), segview.Series(v, id="m", dims=["a", "b"])])
    _check_unique_ids(ds)
    assert [s.dims for s in ds.series] == [("a", "b"), ("a", "b")] and ds.series[1].id != "m"
