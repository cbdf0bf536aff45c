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
