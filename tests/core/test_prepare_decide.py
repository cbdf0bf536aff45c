"""Detectors whose slow part does not depend on a slider's parameter cache it (the design's
prepare/decide split, issue 31 "live means live"): a decide-stage change on a cached prepare state
must give bitwise the result of a fresh run with the same parameters."""
from __future__ import annotations

import numpy as np
import pytest

from segview.core import registry
from segview.core.api import run_spec
from segview.core.context import RunContext
from segview.core.result import DetectionResult


def _series(seed: int, n: int = 600) -> np.ndarray:
    rng = np.random.default_rng(seed)
    means = np.repeat(rng.normal(0, 3, 6), n // 6)
    return means + rng.standard_normal(means.size) * rng.uniform(0.5, 1.5)


def same(a: DetectionResult, b: DetectionResult) -> None:
    assert a.change_points.dtype == b.change_points.dtype
    assert a.change_points.tobytes() == b.change_points.tobytes()
    assert np.asarray(a.strengths).tobytes() == np.asarray(b.strengths).tobytes()
    assert a.steady_start == b.steady_start and a.notes == b.notes and a.params == b.params
    assert repr(a.stats) == repr(b.stats)
    assert len(a.tracks) == len(b.tracks)
    for s, t in zip(a.tracks, b.tracks):
        assert s.name == t.name and np.asarray(s.y).tobytes() == np.asarray(t.y).tobytes()


CASES = {
    # detector: (prepare-stage parameter sets, decide-stage parameter sets)
    "wbs": ([{}, {"intervals": 300, "seed": 7}, {"scale": "none"}],
            [{"kmax": 50}, {"kmax": 3}, {"kmax": 12, "criterion": "bic"},
             {"criterion": "mbic"}, {"kmax": 1}]),
    # max_segments up, down, up past the cached layers; penalty alone; the R text rule
    "segneigh": ([{}, {"scale": "none"}, {"rule": "changepoint"}],
                 [{"max_segments": 3}, {"max_segments": 8}, {"max_segments": 5, "penalty": 3.0},
                  {"max_segments": 12}, {"max_segments": 1}, {"penalty": "aic"},
                  {"max_segments": 13, "penalty": 0.5}]),
    # cost (the explorer's slider) and max_cp on the cached kernel-cost table
    "kcpa": ([{}, {"bandwidth": "all", "seed": 3, "scale": "robust"}],
             [{"cost": 1.0}, {"cost": 30.0}, {"cost": 300.0, "max_cp": 20}, {"max_cp": 5},
              {"cost": 1.0005}, {"cost": 0.0}]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_decide_on_a_cached_state_is_a_fresh_run(name):
    spec = registry.get(name)
    prep_sets, decide_sets = CASES[name]
    assert spec.prepare is not None
    for seed in (1, 5):
        y = _series(seed)
        for prep in prep_sets:
            state = spec.prepare(y, spec.coerce(prep), RunContext())
            for decide in decide_sets:
                assert not set(decide) & spec.prepare_params
                params = spec.coerce({**prep, **decide})
                cached = run_spec(spec, y, params, RunContext().with_prepared(state))
                same(cached, run_spec(spec, y, params))


def test_wbs_cached_decide_matches_the_one_shot_function():
    """Against wbs() itself (the R-faithful single call the golden tests check)."""
    from segview.core.detectors.partition import prepare_values
    from segview.core.detectors.wbs import wbs

    spec = registry.get("wbs")
    y = _series(3)
    state = spec.prepare(y, spec.defaults(), RunContext())
    scaled, _, _ = prepare_values(y, {**spec.defaults(), "noise_scale": False})
    for kmax, criterion in ((50, "ssic"), (4, "ssic"), (20, "bic"), (2, "mbic")):
        params = spec.coerce({"kmax": kmax, "criterion": criterion})
        got = run_spec(spec, y, params, RunContext().with_prepared(state))
        cps, _res, ic, cand, _ = wbs(scaled, 5000, 1, kmax, criterion)
        assert got.change_points.tolist() == cps.tolist()
        assert got.stats["ic"] == ic.tolist() and got.stats["candidates"] == cand.tolist()


def test_wbs_prepare_leaves_the_callers_array_writeable():
    spec = registry.get("wbs")
    y = _series(2)
    spec.prepare(y, spec.coerce({"scale": "none"}), RunContext())
    assert y.flags.writeable


@pytest.mark.parametrize("sequence", [(5, 6, 5, 6), (1, 2, 3, 9, 4), (12, 2, 7, 13), (4, 4, 30)])
def test_segneigh_layers_grown_by_a_slider_equal_the_one_pass_dp(sequence):
    """Growing the cached table layer range by layer range gives bitwise the costs and change
    points of segment_neighbourhood() (the numpy one-pass DP, R's loop) for each max_segments."""
    from segview.core.detectors.segneigh import Layers, segment_neighbourhood

    for seed in (4, 9, None):
        if seed is None:  # exact ties: the first maximiser wins
            y = np.tile([0.0, 1.0, 1.0, 0.0], 70)
        else:
            y = _series(seed, 300)
            y[::37] += 7.0
        layers = Layers(y, ())
        for q in sequence:
            layers.ensure(q)
            costs, cps = layers.costs_cps(q)
            ref_costs, ref_cps = segment_neighbourhood(y, q)
            assert costs.tobytes() == ref_costs.tobytes()
            assert cps == ref_cps


def test_segneigh_kernel_equals_its_plain_path():
    from segview.core.detectors import _segneigh_kernels as sk
    from segview.core.detectors.segneigh import segment_neighbourhood

    y = np.tile([0.0, 1.0, 1.0, 0.0], 63)  # exact ties everywhere: the first maximiser wins
    out = []
    for compiled in (True, False):
        like, back = np.zeros((9, y.size)), np.full((9, y.size), -1, dtype=np.int64)
        sk.extend(y, like, back, 0, 4, lambda: None, compiled, block=50)
        sk.extend(y, like, back, 4, 9, lambda: None, compiled, block=64)
        out.append((like.tobytes(), back.tobytes()))
    assert out[0] == out[1]
    like, back = np.zeros((9, y.size)), np.full((9, y.size), -1, dtype=np.int64)
    sk.extend(y, like, back, 0, 9, lambda: None)
    ref_costs, ref_cps = segment_neighbourhood(y, 9)
    assert (-2.0 * like[:, -1]).tobytes() == ref_costs.tobytes()
    assert back.tobytes() == out[0][1]


def test_segneigh_state_survives_pickling():
    """The explorer computes the state in a worker process and caches it in the GUI process."""
    import pickle

    spec = registry.get("segneigh")
    y = _series(8)
    state = spec.prepare(y, spec.defaults(), RunContext())
    params = spec.coerce({"max_segments": 7})
    first = run_spec(spec, y, params, RunContext().with_prepared(state))
    again = pickle.loads(pickle.dumps(state))
    same(run_spec(spec, y, params, RunContext().with_prepared(again)), first)
    assert again.layers == 7 and again.nbytes >= 7 * y.size * 16


def test_kcpa_cached_decide_matches_the_one_shot_function():
    from segview.core.detectors._recp import as_matrix
    from segview.core.detectors.kcpa import kcpa

    spec = registry.get("kcpa")
    y = _series(7, 400)
    state = spec.prepare(y, spec.defaults(), RunContext())
    X = as_matrix(y, "zscore")
    for cost, max_cp in ((1.0, None), (50.0, None), (500.0, 30), (5.0, 3)):
        params = spec.coerce({"cost": cost, "max_cp": "max" if max_cp is None else max_cp})
        got = run_spec(spec, y, params, RunContext().with_prepared(state))
        cps, stats = kcpa(X, max_cp, cost, "sample", 8)
        assert got.change_points.tolist() == cps and repr(got.stats) == repr(stats)
    assert not state.U.flags.writeable and state.nbytes >= 8 * y.size ** 2  # the table is kept


@pytest.mark.parametrize("seed", range(4))
def test_kcpa_column_recursion_equals_the_pruned_one(seed):
    """Up to COLUMN_MAX_SEGMENTS segments kcpa runs the unpruned recursion in column order with
    the costs computed on the fly: the same change points, optimum and stats as the pruned
    recursion on the n x n table (the code before it), for every cost and L, and the same
    table values."""
    from segview.core.detectors import _kcpa_kernels as kk
    from segview.core.detectors.kcpa import (COLUMN_MAX_SEGMENTS, bandwidth, decide, kernel,
                                             vmax)
    from segview.core.detectors._recp import as_matrix

    rng = np.random.default_rng(seed)
    n = 240 + 37 * seed
    y = np.repeat(rng.normal(0, 2, 5), n // 5 + 1)[:n] + rng.standard_normal(n)
    if seed == 3:
        y = np.column_stack([y, rng.standard_normal(n)])  # two dimensions: the sqrt path
    if seed == 2:
        y[50:90] = 1.0  # a flat stretch: ties
    X = as_matrix(y, "zscore")
    h, _ = bandwidth(X, "all")
    v = vmax(X)
    U = kk.segment_costs(X, h)
    state = kernel(X, "all")
    for L in (2, 5, 17, COLUMN_MAX_SEGMENTS):
        last, H = kk.kcpa_columns(X, h, L, block=50)
        assert last[0] == U[0, n - 1]
        for cost in (0.0, 1.0, 25.0, 400.0, 1e5):
            want, S = kk.kcpa_dp(U, L, cost, v)
            got, S2 = kk.decide_columns(last, H, n, L, cost, v)
            assert got == want
            assert S[1:][np.isfinite(S[1:])].min() == S2[1:][np.isfinite(S2[1:])].min()
            if L == 5 and cost == 25.0:  # R's loop as written (slow: once)
                assert got == kk.kcpa_dense(U, L, cost, v)
            assert decide(state, L - 1, cost)[0] == [c for c in want if 0 < c < n]


@pytest.mark.parametrize("name, params", [("segneigh", {"max_segments": 7}),
                                          ("kcpa", {"cost": 2.0}), ("kcpa", {"max_cp": 9})])
def test_a_pickled_state_compiles_nothing_new(name, params):
    """The explorer's state comes from a worker process by pickle, which returns arrays
    writeable; numba would compile a second specialisation at the first slider move (seconds)."""
    import pickle

    from segview.core.detectors import _kcpa_kernels as kk
    from segview.core.detectors import _segneigh_kernels as sk

    spec = registry.get(name)
    y = _series(11, 300)
    p = spec.coerce(params)
    state = spec.prepare(y, p, RunContext())
    fresh = run_spec(spec, y, p, RunContext().with_prepared(state))
    kernels = (sk.extend_numba, kk._kcpa_dp, kk._kcpa_columns)
    before = [len(k.signatures) for k in kernels]
    again = pickle.loads(pickle.dumps(state))
    moved = spec.coerce({**params, "max_segments": 9} if name == "segneigh" else
                        {**params, "cost": 3.0})
    same(run_spec(spec, y, moved, RunContext().with_prepared(again)), run_spec(spec, y, moved))
    assert [len(k.signatures) for k in kernels] == before
    assert fresh.params == p
