"""Sobol sensitivity and tuning on a tiny fake detector registered for the test."""
from __future__ import annotations

import numpy as np
import pytest

from segview.core import registry
from segview.core.errors import InputError, ParameterError
from segview.core.evaluation import sensitivity as sens
from segview.core.evaluation import tune
from segview.core.evaluation.metrics import TruthRow
from segview.core.model import Series
from segview.core.params import ParamSpec
from segview.core.registry import DetectorSpec
from segview.core.result import DetectionResult

CALLS: list[int] = []


def _run(values, params, ctx):
    """Onset = values[0]·a + b (a dominant, b small, c no effect); never steady when a > 0.9."""
    CALLS.append(1)
    if params["a"] > 0.9:
        onset = None
    else:
        onset = int(values[0] * params["a"]) + params["b"]
    return DetectionResult("fake_sens", params, np.zeros(0, np.int64), onset)


SPEC = DetectorSpec("fake_sens", "Fake", "1", "onset",
                    (ParamSpec("a", "float", 0.5, low=0, high=1),
                     ParamSpec("b", "int", 5, low=0, high=100),
                     ParamSpec("c", "float", 0.0, low=-10, high=10)), _run)


@pytest.fixture()
def fake():
    registry.register(SPEC)
    CALLS.clear()
    yield registry.get("fake_sens")
    registry._REGISTRY.pop("fake_sens", None)


@pytest.fixture()
def data():
    series = [Series([100.0 * (k + 1)] * 5, id=f"s{k}") for k in range(4)]
    truth = {"s0": TruthRow("s0", True, 50), "s1": TruthRow("s1", True, 90),
             "s2": TruthRow("s2", False), "s3": TruthRow("s3", True, 200, True)}
    return series, truth


FACTORS = [sens.Factor("a", 0.0, 1.0), sens.Factor("b", 0.5, 20.5, "int"), sens.Factor("c", -1, 1)]


def test_factor_transforms():
    assert sens.Factor("x", 0, 1, "int").value(2.5) == 2  # Python round: half to even
    assert sens.Factor("x", 0, 1, "odd").value(100.4) == 99
    assert sens.Factor("x", 0, 1, "odd").value(101.2) == 101
    assert sens.parse_range("t_crit=3.5:5.5") == sens.Factor("t_crit", 3.5, 5.5)
    assert sens.parse_range("w=80.5:120.5:odd").transform == "odd"
    with pytest.raises(ParameterError):
        sens.parse_range("w=5:1")


def test_parse_range_names_a_bad_transform():
    with pytest.raises(ParameterError, match="transform must be int, odd or float, got 'log'"):
        sens.parse_range("w=1:2:log")


def test_steady_truth_without_reference_is_a_named_error():
    # a steady truth row may lack its reference onset ("steady, onset not given"); the arrays
    # of the steady series' references then name the series instead of failing in float(None)
    series = [Series([1.0, 2.0, 3.0], id="a"), Series([1.0, 2.0, 3.0], id="b")]
    truth = {"a": TruthRow("a", True, 1), "b": TruthRow("b", True, None)}
    with pytest.raises(InputError, match="steady series b has no reference onset"):
        sens.truth_arrays(truth, series)


def test_objective_uses_minus_one_for_unsteady():
    g = np.array([10.0, 20.0])
    assert sens.objective_value(g, np.array([8.0, -1.0]), "sse") == 4 + 21 ** 2
    assert sens.objective_value(g, np.array([8.0, -1.0]), "abs") == 2 + 21


def test_sobol_indices_rank_parameters(fake, data):
    series, truth = data
    res = sens.run_sobol(fake, series, truth, FACTORS, n_base=64, seed=3, workers=1)
    assert len(res.Y) == 64 * (2 * 3 + 2)
    assert CALLS and len(CALLS) == res.n_unique * 3  # only the 3 truth-steady series are run
    st = dict(zip(res.names, res.ST))
    assert st["a"] > 0.5 and st["a"] > st["b"] and abs(st["c"]) < 0.02
    assert res.S2 is not None and res.S2.shape == (3, 3)
    # the objective of one configuration, by hand: a=0.5, b=5 -> p = 55, 105, 205
    Y, _ = sens.evaluate_configurations(fake, [fake.coerce({"a": 0.5, "b": 5})], series, truth,
                                        workers=1)
    assert Y[0] == (50 - 55) ** 2 + (90 - 105) ** 2 + (200 - 205) ** 2


def test_sobol_cache_and_dask_same_numbers(fake, data, tmp_path):
    distributed = pytest.importorskip("distributed")
    from segview.core.evaluation.batch import DaskExecutor
    series, truth = data
    local = sens.run_sobol(fake, series, truth, FACTORS, n_base=16, seed=7, workers=1,
                           cache_dir=tmp_path)
    n_calls = len(CALLS)
    again = sens.run_sobol(fake, series, truth, FACTORS, n_base=16, seed=7, workers=1,
                           cache_dir=tmp_path)
    assert len(CALLS) == n_calls  # all served from the cache
    np.testing.assert_array_equal(again.Y, local.Y)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = sens.run_sobol(fake, series, truth, FACTORS, n_base=16, seed=7,
                                executor=DaskExecutor(client=client))
    np.testing.assert_array_equal(remote.Y, local.Y)
    np.testing.assert_allclose(remote.ST, local.ST)
    np.testing.assert_allclose(remote.S1, local.S1)


def test_no_default_ranges_for_unknown_detector(fake, data):
    series, truth = data
    with pytest.raises(InputError, match="default ranges"):
        sens.run_sobol(fake, series, truth, n_base=4, workers=1)
    with pytest.raises(ParameterError):
        sens.run_sobol(fake, series, truth, [sens.Factor("zz", 0, 1)], n_base=4, workers=1)


def test_grid_search_objective_and_reference(fake, data):
    series, truth = data
    grid = {"a": [0.4, 0.5, 0.95], "b": [0, 10]}
    ref = {"s0": 1, "s1": None, "s2": 3, "s3": 4}  # reference says s1 unsteady -> s1 not scored
    res = tune.grid_search(fake, series, truth, grid, references=[ref], workers=1)
    assert len(res.rows) == 6
    best = res.rows[0]
    # a=0.5, b=0: p(s0)=50, p(s3)=200 -> m = 0 over 2 series
    assert best.params["a"] == 0.5 and best.params["b"] == 0
    assert (best.manhattan, best.n_scored) == (0, 2)
    never = [r for r in res.rows if r.params["a"] == 0.95]
    assert all(r.n_scored == 0 and r.false_negative == 3 for r in never)


def test_weighted_multi_objective(fake, data):
    series, truth = data
    grid = {"a": [0.4, 0.5, 0.95], "b": [0, 10]}
    res = tune.grid_search(fake, series, truth, grid, objective="weighted",
                           weights={"fn": 1.0, "mae": 1.0}, workers=1)
    # never-steady configurations are punished by the FN term instead of winning with m = 0
    assert res.rows[0].params["a"] == 0.5 and res.rows[0].params["b"] == 0
    assert res.rows[-1].params["a"] == 0.95
    with pytest.raises(ParameterError):
        tune.grid_search(fake, series, truth, grid, objective="weighted", weights={"zzz": 1},
                         workers=1)
