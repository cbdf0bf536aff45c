"""Before/after comparison (segview.core.warmup.compare), without the CLI.

Expected values come from the rules of issue 27 point 3: ratio = AFTER mean / BEFORE mean (mean of
the executions' steady means), verdict from whether the interval excludes 1, read in the
benchmark's direction; time units converted, other unit disagreements a named error.
"""
from __future__ import annotations

import numpy as np
import pytest

from segview.core.errors import InputError
from segview.core.warmup import BenchmarkWarmup, ExecutionWarmup
from segview.core.warmup.compare import (
    FASTER,
    NOT_COMPARABLE,
    SAME,
    SLOWER,
    UnitMismatchError,
    compare,
    compare_benchmark,
    unit_factor,
    verdict,
)


def bw(name, groups, unit="s", direction="lower", cls="flat", reason=None):
    """A BenchmarkWarmup whose executions have these steady iterations (hand-built)."""
    execs = tuple(ExecutionWarmup(i, f"{name}/exec{i}", len(g), cls,
                                  steady_values=np.asarray(g, dtype=float),
                                  steady_mean=float(np.mean(g)), steady_iteration=0)
                  for i, g in enumerate(groups))
    return BenchmarkWarmup(name, "barrett", unit, direction, execs, cls, "consistent",
                           {cls: len(groups)}, None, None, None, None, None, reason, {})


def noisy(mean, k=5, n=200, sd=0.01, seed=0):
    rng = np.random.default_rng(seed)
    return [mean * (1 + sd * rng.standard_normal(n)) for _ in range(k)]


@pytest.mark.parametrize("low, high, direction, expected", [
    (1.05, 1.2, "lower", SLOWER),      # larger times after
    (0.8, 0.95, "lower", FASTER),
    (1.05, 1.2, "higher", FASTER),     # larger throughput after
    (0.8, 0.95, "higher", SLOWER),
    (0.9, 1.1, "lower", SAME),
    (0.9, 1.1, "higher", SAME),
    (1.0, 1.1, "lower", SAME),         # 1 on the edge: not excluded
    (0.9, 1.0, "higher", SAME),
])
def test_verdict_rules(low, high, direction, expected):
    assert verdict(low, high, direction) == expected


def test_unit_factor_converts_time_units_and_names_the_rest():
    assert unit_factor("ms", "ms") == 1.0
    assert unit_factor("ms", "us") == pytest.approx(1e-3)      # 1 us = 1e-3 ms
    assert unit_factor("s", "ns/op") == pytest.approx(1e-9)
    with pytest.raises(UnitMismatchError, match="ops/s"):
        unit_factor("ms", "ops/s", "b")
    assert issubclass(UnitMismatchError, InputError)


def test_slowed_benchmark_is_slower_with_ci_excluding_one():
    before = noisy(2.0)
    after = [g * 1.3 for g in before]
    c = compare_benchmark(bw("b", before), bw("b", after), resamples=2000, seed=1)
    assert c.ratio == pytest.approx(1.3)       # exact: every value scaled by 1.3
    assert c.ci[0] > 1 and c.ci[0] <= 1.3 <= c.ci[1]
    assert c.verdict == SLOWER and c.error is None


def test_throughput_up_is_faster():
    before = noisy(1000.0)
    after = [g * 1.3 for g in before]
    c = compare_benchmark(bw("t", before, "ops/s", "higher"),
                          bw("t", after, "ops/s", "higher"), resamples=2000)
    assert c.verdict == FASTER and c.ci[0] > 1


def test_time_down_is_faster_and_unchanged_is_no_difference():
    before = noisy(2.0)
    faster = compare_benchmark(bw("b", before), bw("b", [g / 1.3 for g in before]),
                               resamples=2000)
    assert faster.verdict == FASTER and faster.ci[1] < 1
    same = compare_benchmark(bw("b", before), bw("b", noisy(2.0, seed=7)), resamples=2000)
    assert same.verdict == SAME and same.ci[0] < 1 < same.ci[1]


def test_between_execution_spread_widens_the_interval():
    # 5% shift; executions differ by +-20% among themselves: no significant difference, although
    # the iterations alone (sd 1%) would call it
    rng = np.random.default_rng(3)
    levels = [0.8, 0.9, 1.0, 1.1, 1.2]
    before = [m * (1 + 0.01 * rng.standard_normal(200)) for m in levels]
    after = [m * 1.05 * (1 + 0.01 * rng.standard_normal(200)) for m in levels[::-1]]
    c = compare_benchmark(bw("b", before), bw("b", after), resamples=4000)
    assert c.verdict == SAME


def test_time_units_are_converted():
    before = noisy(2.0)                              # ms
    after = [g * 1000 for g in before]               # the same in us
    c = compare_benchmark(bw("b", before, "ms"), bw("b", after, "us"), resamples=2000)
    assert c.factor == pytest.approx(1e-3)
    assert c.ratio == pytest.approx(1.0) and c.verdict == SAME


def test_units_that_cannot_be_converted_are_a_named_error_for_that_benchmark():
    comp = compare([bw("x", noisy(2.0), "ms"), bw("y", noisy(1.0))],
                   [bw("x", noisy(2.0), "ops/s", "higher"), bw("y", noisy(1.0, seed=5))],
                   resamples=1000)
    x, y = comp.benchmarks
    assert x.error and "UnitMismatchError" in x.error and x.ratio is None
    assert x.verdict == NOT_COMPARABLE
    assert y.error is None and y.verdict == SAME            # the others are compared
    assert [b.name for b in comp.errors] == ["x"]


def test_same_direction_unknown_units_disagreeing_is_an_error():
    c = compare_benchmark(bw("b", noisy(2.0), "MB"), bw("b", noisy(2.0), "GB"), resamples=100)
    assert c.error and "units disagree" in c.error


def test_one_side_only_and_class_change_listed():
    comp = compare([bw("a", noisy(1.0)), bw("gone", noisy(1.0))],
                   [bw("new", noisy(1.0)), bw("a", noisy(1.0, seed=9), cls="warmup")],
                   resamples=500)
    assert comp.only_before == ("gone",) and comp.only_after == ("new",)
    (a,) = comp.benchmarks
    assert (a.before_class, a.after_class, a.class_changed) == ("flat", "warmup", True)
    d = comp.to_dict()
    assert d["only_before"] == ["gone"] and d["benchmarks"][0]["class_changed"] is True


def test_no_steady_state_side_is_not_comparable_with_reason():
    c = compare_benchmark(bw("b", noisy(1.0)),
                          bw("b", noisy(1.0), cls="no steady state", reason="1 execution(s) "
                             "without a steady state"), resamples=100)
    assert c.verdict == NOT_COMPARABLE and c.ratio is None
    assert "after: 1 execution(s) without a steady state" in c.reason


def test_seeded_and_reproducible():
    before, after = noisy(1.0), noisy(1.02, seed=4)
    a = compare_benchmark(bw("b", before), bw("b", after), resamples=1000, seed=11)
    b = compare_benchmark(bw("b", before), bw("b", after), resamples=1000, seed=11)
    c = compare_benchmark(bw("b", before), bw("b", after), resamples=1000, seed=12)
    assert a.ci == b.ci and a.ci != c.ci


def test_bad_confidence_is_named():
    with pytest.raises(InputError, match="confidence"):
        compare_benchmark(bw("b", noisy(1.0)), bw("b", noisy(1.0)), confidence=1.5)
