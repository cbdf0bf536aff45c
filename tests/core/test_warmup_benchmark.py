"""Benchmark-level warm-up analysis: verdicts, spreads, bootstraps, bad input, real fixtures, and the
registered ``barrett`` detector.

Executions are built so that warmup_stats' pipeline has an obvious answer: levels alternating by
+-1e-4 s (no outliers: a flat window's band is median +- 0.0006; PELT puts its change points at
the level steps, whose cost drop ~ 2 m ln(0.02 / 1e-4) dwarfs 15 ln n).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import segview
from segview.core.benchmark import execution, group
from segview.core.errors import UnknownMethodError
from segview.core.io import load_file
from segview.core.warmup import (BAD_INCONSISTENT, CLASSES, CONSISTENT, FLAT, GOOD_INCONSISTENT,
                                 NO_STEADY_STATE, SLOWDOWN, WARMUP, analyse, analyse_benchmark,
                                 benchmark_verdict, hierarchical_bootstrap, to_json,
                                 warmup_stats_bootstrap)

DATA = Path(__file__).resolve().parents[1] / "data" / "harness"
WIGGLE = 1e-4


def levels(*pieces, scale=1.0):
    x = np.concatenate([np.full(k, v) for v, k in pieces])
    return (x + WIGGLE * (-1.0) ** np.arange(x.size)) * scale


def warm(k=20, n=200):      # warm-up: 0.05 s for k iterations, then 0.01 s
    return levels((0.05, k), (0.01, n - k))


def flat(n=200):
    return levels((0.01, n))


def slow(n=200):            # slowdown: 0.005 s, then 0.01 s
    return levels((0.005, 20), (0.01, n - 20))


def nss(n=200):             # the step ends at 179 > 200 - int(0.25 * 200) = 150: no steady state
    return levels((0.05, 180), (0.01, n - 180))


def bench(*execs, name="b", unit="s", **kw):
    return group([execution(x, benchmark=name, index=i, harness="test", unit=unit, **kw)
                  for i, x in enumerate(execs)])[0]


def quick(b, **kw):
    return analyse_benchmark(b, resamples=kw.pop("resamples", 500),
                             ws_resamples=kw.pop("ws_resamples", 500), **kw)


def test_each_execution_class_through_the_pipeline():
    r = quick(bench(warm(), flat(), slow(), nss()))
    assert [e.classification for e in r.executions] == [WARMUP, FLAT, SLOWDOWN, NO_STEADY_STATE]
    assert [e.changepoints for e in r.executions] == [(19,), (), (19,), (179,)]
    assert r.counts == {FLAT: 1, WARMUP: 1, SLOWDOWN: 1, NO_STEADY_STATE: 1}


@pytest.mark.parametrize("execs, verdict, consistency", [
    ((warm(), warm(30), warm(10)), WARMUP, CONSISTENT),        # all the same class
    ((flat(), flat()), FLAT, CONSISTENT),
    ((nss(), nss()), NO_STEADY_STATE, CONSISTENT),
    ((warm(), flat(), warm()), GOOD_INCONSISTENT, GOOD_INCONSISTENT),   # flat and warm-up only
    ((warm(), slow()), BAD_INCONSISTENT, BAD_INCONSISTENT),      # anything else
    ((flat(), nss()), BAD_INCONSISTENT, BAD_INCONSISTENT),
    ((slow(), flat()), BAD_INCONSISTENT, BAD_INCONSISTENT),
])
def test_benchmark_verdicts(execs, verdict, consistency):
    r = quick(bench(*execs))
    assert (r.classification, r.consistency) == (verdict, consistency)
    assert sum(r.counts.values()) == len(execs) and set(r.counts) == set(CLASSES)


def test_verdict_rule_directly():
    assert benchmark_verdict([]) == (None, None)
    assert benchmark_verdict([SLOWDOWN]) == (SLOWDOWN, CONSISTENT)
    assert benchmark_verdict([FLAT, WARMUP, WARMUP])[0] == GOOD_INCONSISTENT
    assert benchmark_verdict([FLAT, SLOWDOWN])[0] == BAD_INCONSISTENT


def test_steady_iteration_time_and_performance_across_executions():
    # warm-ups of 10, 20, 30 iterations: steady iterations 10, 20, 30 -> median 20, IQR
    # (numpy's linear percentiles) 15..25. Time to steady: k * 0.05 s (the +-1e-4 cancel over an
    # even k) -> 0.5, 1.0, 1.5. Steady means: 0.01 each (even steady lengths).
    r = quick(bench(warm(10), warm(20), warm(30)))
    d = r.to_dict()
    assert d["steady_iteration"]["median"] == 20 and d["steady_iteration"]["iqr"] == [15, 25]
    assert d["steady_iteration"]["values"] == [10, 20, 30]
    assert d["time_to_steady"]["values"] == pytest.approx([0.5, 1.0, 1.5])
    perf = d["steady_performance"]
    assert perf["median"] == pytest.approx(0.01, abs=1e-12)
    lo, hi = perf["ci"]
    # within-execution sd 1e-4 over >= 170 iterations: sd of a mean ~7.7e-6, a 99 % interval
    # ~ +-2.58 sd ~ 4e-5 wide; the executions agree, so the between-execution level adds nothing
    assert lo <= 0.01 + 1e-12 and hi >= 0.01 - 1e-12 and hi - lo < 6e-5
    assert perf["warmup_stats"]["median"] == pytest.approx(0.01, abs=1e-5)


def test_no_steady_figures_when_any_execution_never_steadies():
    r = quick(bench(warm(), nss()))
    assert r.steady_iteration is None and r.steady_means is None and r.steady_ci is None
    assert "without a steady state" in r.steady_reason


def test_time_units_are_converted_to_seconds_and_means_reported_in_the_unit():
    # the same executions in ms: identical classes (delta 0.001 s = 1 ms), means x 1000, time to
    # steady state in seconds
    s = quick(bench(warm(10), flat(), warm(30)))
    ms = quick(bench(warm(10) * 1000, flat() * 1000, warm(30) * 1000, unit="ms"))
    assert [e.classification for e in ms.executions] == [e.classification for e in s.executions]
    assert ms.executions[0].segment_means == pytest.approx([v * 1000 for v in
                                                            s.executions[0].segment_means])
    assert ms.time_to_steady.values == pytest.approx(s.time_to_steady.values)
    ns = quick(bench(warm(10) * 1e9, name="n", unit="ns/op"))
    assert ns.executions[0].classification == WARMUP


def test_throughput_warms_up_upwards_and_has_no_time_to_steady():
    up = levels((50.0, 20), (100.0, 180))
    r = quick(bench(up, up, unit="ops/s"))
    assert r.direction == "higher" and r.classification == WARMUP
    assert r.time_to_steady is None and r.executions[0].time_to_steady is None
    assert any("higher is better" in w for w in r.warnings)


def test_bad_input_is_named_and_the_rest_analysed():
    # a Series cannot be empty (the Krun reader skips crashed executions with a named warning);
    # a series-like object stands for one that slipped through
    from dataclasses import replace
    from types import SimpleNamespace
    b = bench(warm(), flat(), warm(n=150), np.full(200, 0.01))
    crashed = SimpleNamespace(id="b/exec1", values=np.zeros(0), metadata={"execution": 1})
    b = replace(b, executions=(b.executions[0], crashed, *b.executions[2:]))
    r = quick(b)
    e0, e1, e2, e3 = r.executions
    assert e0.classification == WARMUP
    assert e1.classification is None and "crashed" in e1.error
    assert e2.classification == WARMUP                      # a shorter execution is fine
    assert e3.classification == FLAT                        # all-equal values
    text = " | ".join(r.warnings)
    assert "execution 1: not analysed (crashed" in text and "different lengths" in text
    assert r.counts[WARMUP] == 2 and r.classification == GOOD_INCONSISTENT


def test_nan_iterations_are_left_out_and_indices_map_back():
    # segview's readers refuse NaN iterations with a named DataFormatError (a Series holds finite
    # values only); analyse_execution still copes with a series-like object that has them
    from types import SimpleNamespace
    from segview.core.warmup import analyse_execution
    x = warm()
    x[5] = np.nan      # before the step: the reduced series' end 18 maps back to 19
    x[100] = np.nan
    s = SimpleNamespace(id="b/exec0", values=x, metadata={"execution": 0})
    e = analyse_execution(s, harness_warmup="keep")
    assert e.classification == WARMUP and e.nan_iterations == (5, 100)
    assert e.changepoints == (19,) and e.steady_iteration == 20
    assert e.time_to_steady == pytest.approx(np.nansum(x[:20]))
    assert "2 non-finite iterations" in e.notes[0]


def test_one_execution_is_a_named_warning():
    r = quick(bench(warm()))
    assert r.classification == WARMUP and any("one execution" in w for w in r.warnings)
    assert r.steady_ci is not None


def test_harness_warmup_iterations_are_dropped_and_indices_are_measured_ones():
    x = np.r_[np.full(7, 5.0), warm()]
    r = quick(bench(x, warmup=7))
    e = r.executions[0]
    assert e.warmup_dropped == 7 and e.n == 200 and e.changepoints == (19,)
    keep = quick(bench(x, warmup=7), harness_warmup="keep").executions[0]
    assert keep.n == 207


def test_unknown_unit_is_taken_as_seconds_with_a_warning():
    r = quick(bench(warm(), unit=""))
    assert r.classification == WARMUP and any("taken as seconds" in w for w in r.warnings)


def test_json_shape():
    r = quick(bench(warm(), flat()))
    doc = json.loads(json.dumps(to_json([r])))
    b = doc["benchmarks"][0]
    assert {"name", "classification", "steady_iteration", "steady_performance",
            "executions"} <= set(b)
    for e in b["executions"]:
        assert {"index", "classification", "changepoints", "outliers", "segment_means"} <= set(e)
    assert b["executions"][0]["changepoints"] == [19] and b["executions"][1]["changepoints"] == []


def test_other_methods_and_unknown_method():
    r = quick(bench(warm(), warm()), method="kbkssd")
    assert r.method == "kbkssd" and all(e.classification in CLASSES for e in r.executions)
    with pytest.raises(UnknownMethodError):
        analyse_benchmark(bench(warm()), method="nope")


def test_kalibera_jones_interval_carries_the_between_execution_variation():
    # two executions with means 1 and 2 and tiny within noise: a resample draws execution
    # sets {1,1}, {1,2}, {2,2} with probabilities 1/4, 1/2, 1/4, so the 99 % interval spans
    # ~[1, 2]. warmup_stats' bootstrap never resamples executions: its half-width is the
    # distance from the median to the pooled order statistics, which is about 0.5 too here, but
    # a single execution's CI is narrow in both.
    rng = np.random.default_rng(0)
    g = [1 + 1e-3 * rng.normal(size=100), 2 + 1e-3 * rng.normal(size=100)]
    ci = hierarchical_bootstrap(g, resamples=4000, confidence=0.99, seed=1)
    assert ci.low < 1.01 and ci.high > 1.99 and ci.estimate == pytest.approx(1.5, abs=1e-3)
    one = hierarchical_bootstrap(g[:1], resamples=4000, seed=1)
    assert one.high - one.low < 1e-3
    assert hierarchical_bootstrap(g, resamples=300, seed=5) == \
        hierarchical_bootstrap(g, resamples=300, seed=5)         # seeded


def test_warmup_stats_bootstrap_on_constant_data_and_its_index_rule():
    assert warmup_stats_bootstrap([[np.full(10, 3.0)], [np.full(7, 3.0)]],
                                  resamples=1000) == (3.0, 0.0)
    # one execution holding {0, 1} once each: resample means are 0, 0.5, 1 with probabilities
    # 1/4, 1/2, 1/4; 1001 sorted means with 99 %: lower index int(5.005 rounded down to 0.1) = 5,
    # upper index from 996.0 (ceil to 0.1) -> element 995: almost surely 0 and 1 -> ci 0.5
    med, ci = warmup_stats_bootstrap([[np.array([0.0, 1.0])]], resamples=1000, seed=3)
    assert med == 0.5 and ci == 0.5


def test_real_jvm_and_pypy_fixtures_end_to_end():
    series = load_file(DATA / "krun" / "nbody_results.json.bz2")
    results = analyse(series, resamples=500, ws_resamples=500)
    assert [r.name for r in results] == ["nbody:Hotspot:default-java", "nbody:PyPy:default-python"]
    for r in results:
        assert len(r.executions) == 5 and not r.warnings
        for e in r.executions:
            assert e.classification in CLASSES and e.n == 200
            assert all(0 <= c < 199 for c in e.changepoints)
            assert list(e.changepoints) == sorted(set(e.changepoints))
            assert all(0 <= o < 200 for o in e.outliers)
            assert len(e.segment_means) == len(e.changepoints) + 1
            if e.steady_iteration is not None:
                assert 0 <= e.steady_iteration < 150     # before the last 25 %
        json.dumps(r.to_dict())
    # PyPy's first iteration takes ~100 ms and the rest ~1-2 ms (README-krun.md): no execution is
    # flat, so every one has a change point right at the start
    pypy = results[1]
    assert all(e.classification != FLAT and e.changepoints[0] <= 2 for e in pypy.executions)
    # the warmup_stats CSV fixtures hold the same measurements: the same analysis
    csv = analyse(load_file(DATA / "warmup_stats" / "pypy_nbody.csv"), resamples=0,
                  ws_resamples=0)[0]
    assert [e.changepoints for e in csv.executions] == [e.changepoints for e in pypy.executions]


def test_barrett_detector_is_registered_with_its_preset():
    spec = segview.core.registry.get("barrett")
    assert spec.coerce({}, preset="warmup_stats") == spec.defaults()
    res = segview.detect(warm(), "barrett")
    assert res.stats["classification"] == WARMUP and res.notes[0] == "class: warmup"
    assert res.change_points.tolist() == [20] and res.steady_start == 20
    assert res.stats["changepoints"] == [19]
    ms = segview.detect(warm() * 1000, "barrett", unit="ms")
    assert ms.stats["classification"] == WARMUP
    assert ms.stats["segment_means"] == pytest.approx(res.stats["segment_means"] * 1000)
    assert segview.detect(nss(), "barrett").steady_start is None
    up = segview.detect(levels((50.0, 20), (100.0, 180)), "barrett", direction="higher")
    assert up.stats["classification"] == WARMUP


def test_normal_iteration_level_agrees_with_exact_resampling():
    # five executions of 300 iterations with different means: the resample mean of 300 draws is
    # close to normal (CLT), so both intervals nearly coincide; auto is exact for small data
    rng = np.random.default_rng(4)
    g = [m + 0.05 * rng.exponential(size=300) for m in (1.0, 1.02, 0.99, 1.01, 1.03)]
    ex = hierarchical_bootstrap(g, resamples=3000, seed=2, iteration_level="exact")
    no = hierarchical_bootstrap(g, resamples=3000, seed=2, iteration_level="normal")
    assert ex.iteration_level == "exact" and no.iteration_level == "normal"
    width = ex.high - ex.low
    assert abs(no.low - ex.low) < 0.1 * width and abs(no.high - ex.high) < 0.1 * width
    assert hierarchical_bootstrap(g, resamples=100).iteration_level == "exact"
    big = [np.zeros(100_000)] * 3
    assert hierarchical_bootstrap(big, resamples=100).iteration_level == "normal"


def test_barrett_warns_before_a_quadratic_run_on_a_huge_series():
    from segview.core.limits import cost_warning
    spec = segview.core.registry.get("barrett")
    assert cost_warning(spec, 20_000, spec.defaults()) is None
    assert "quadratic" in cost_warning(spec, 1_000_000, spec.defaults())


def test_threads_give_the_same_analysis():
    b = bench(warm(10), flat(), warm(30), slow(), warm(20))
    one = quick(b).to_dict()
    two = quick(b, threads=2).to_dict()
    one["params"].pop("threads")
    two["params"].pop("threads")
    assert one == two
