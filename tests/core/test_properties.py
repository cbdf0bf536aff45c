"""Properties every registered detector must have, with parameters drawn from its own ParamSpecs.

On finite input of any length >= 1 a detector returns a result or raises the documented errors
(InputError for unusable series, ParameterError for parameter combinations); results are
deterministic; indices are in range and sorted; tracks are finite-length arrays.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import segview
from segview.core.errors import InputError, ParameterError
from segview.core.params import ParamSpec

SPECS = segview.methods()


def param_strategy(p: ParamSpec, slow: bool = False) -> st.SearchStrategy:
    """Values from a ParamSpec. For detectors declared slow, numbers are drawn between the lower
    bound and the faithful default, so that cost parameters (GA islands, restarts, resamples)
    never exceed the published setting and the test stays bounded in time."""
    if slow and p.kind in ("int", "float") and isinstance(p.default, (int, float)) \
            and p.low is not None and p.default >= p.low:
        p = dataclasses.replace(p, high=p.default)
    if p.kind == "bool":
        return st.booleans()
    if p.kind == "str":
        return st.sampled_from(p.choices) if p.choices else st.just(p.default)
    if p.default is None or isinstance(p.default, str):
        named = st.sampled_from(p.aliases) if p.aliases else st.just(p.default)
        if p.low is None:
            return named
        top = p.high if p.high is not None and p.high - p.low <= 1e6 else p.low + 1e3
        number = (st.integers(int(p.low), int(top)) if p.kind == "int"
                  else st.floats(p.low, top, allow_nan=False))
        return st.one_of(named, number)
    low = p.low if p.low is not None else min(0.0, float(p.default))
    high = p.high if p.high is not None else max(float(p.default) * 4, low + 10)
    if math.isinf(high) or high - low > 1e6:
        high = low + max(abs(float(p.default)) * 4, 10)
    if p.kind == "int":
        step = int(p.step or 1)
        n_steps = int((high - low) // step)
        return st.integers(0, n_steps).map(lambda k: int(low + k * step))
    return st.floats(low, high, allow_nan=False, allow_infinity=False)


def params_strategy(spec) -> st.SearchStrategy:
    return st.fixed_dictionaries({p.name: st.one_of(st.just(p.default),
                                                    param_strategy(p, spec.slow))
                                  for p in spec.params if p.name not in ("threads",)})


def series_strategy(max_len: int) -> st.SearchStrategy:
    return arrays(np.float64, st.integers(1, max_len),
                  elements=st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False))


def _check_result(res, n: int) -> None:
    cps = np.asarray(res.change_points)
    assert np.all(np.diff(cps) > 0), "change points not sorted/unique"
    assert np.all((cps > 0) & (cps < n)), f"change point out of (0, {n}): {cps}"
    if res.steady_start is not None:
        assert 0 <= res.steady_start < n
    for t in res.tracks:
        assert np.asarray(t.y).ndim == 1


def _run(spec, values, params):
    try:
        return segview.detect(values, spec.name, **params)
    except (InputError, ParameterError) as err:
        assert str(err)  # documented errors carry a message
        return None


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_never_crashes_and_indices_in_range(spec):
    max_len = 260 if spec.slow else 600
    examples = 12 if spec.slow else 40

    @settings(max_examples=examples, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(values=series_strategy(max_len), params=params_strategy(spec))
    def check(values, params):
        res = _run(spec, values, params)
        if res is not None:
            _check_result(res, values.size)

    check()


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
def test_deterministic(spec):
    rng = np.random.default_rng(7)
    n = 400 if spec.slow else 1200
    values = np.concatenate([rng.normal(10, 1, n // 3), rng.normal(5, 1, n - n // 3)])
    a = _run(spec, values, {})
    b = _run(spec, values, {})
    if a is None:
        assert b is None
        return
    assert np.array_equal(a.change_points, b.change_points)
    assert a.steady_start == b.steady_start


@pytest.mark.parametrize("spec", [s for s in SPECS if s.affine_invariant],
                         ids=[s.name for s in SPECS if s.affine_invariant])
def test_affine_invariance(spec):
    rng = np.random.default_rng(3)
    values = np.concatenate([rng.normal(10, 1, 500), rng.normal(6, 1, 700)])
    a = _run(spec, values, {})
    b = _run(spec, 2.0 * values + 7.0, {})
    assert (a is None) == (b is None)
    if a is not None:
        assert a.steady_start == b.steady_start
        assert np.array_equal(a.change_points, b.change_points)
