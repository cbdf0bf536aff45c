"""Golden: CP-SSD in its faithful default mode on the 350 JMH series of ``shared/data/jmh``.

Expected onsets are ``cpssd_published`` of ``labels.csv`` (SEALAB's published classification; -1 read
as None). Spec ``cpssd.md`` §13: steady/unsteady agreement 100 % expected (asserted >= 95 %), exact
onsets >= 347/350 (348-349 reachable; the rest is bootstrap noise: the published run was unseeded).
Change-point lists (and one outlier set) are compared bit for bit with a few fork-0 entries of SEALAB's
``data/changepoints`` (``data/timeseries/filtered``) vendored in ``tests/golden/data/cpssd/sealab_changepoints.json``.
"""
from __future__ import annotations

import json
import logging
import multiprocessing
from pathlib import Path

import numpy as np
import pytest

import segview
from segview.core.context import RunContext
from segview.core.detectors import cpssd

pytestmark = [pytest.mark.shared, pytest.mark.slow]
log = logging.getLogger(__name__)

SEALAB = json.loads((Path(__file__).parent / "data" / "cpssd" / "sealab_changepoints.json")
                    .read_text())
SEALAB_IDS = sorted(SEALAB["changepoints"])


def _detect(item):
    sid, values = item
    res = segview.detect(values, "cpssd")
    return sid, res.steady_start, [int(c) for c in res.stats["pelt_cpts"]], res.stats["deciding_ci"]


@pytest.fixture(scope="module")
def results(jmh_series):
    items = [(sid, np.asarray(s.values)) for sid, s in sorted(jmh_series.items())]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(2) as pool:
        out = pool.map(_detect, items, chunksize=5)
    return {sid: (onset, cpts, ci) for sid, onset, cpts, ci in out}


@pytest.mark.parametrize("sid", SEALAB_IDS)
def test_change_points_match_sealab_bit_for_bit(sid, jmh_series):
    res = segview.detect(jmh_series[sid], "cpssd", bootstrap_resamples=100)
    expected = SEALAB["changepoints"][sid]
    assert [int(c) for c in res.stats["pelt_cpts"]] == expected
    assert res.change_points.tolist() == [c + 1 for c in expected[:-1]]


@pytest.mark.parametrize("sid", sorted(SEALAB["outliers"]))
def test_outliers_match_sealab_filtered_series(sid, jmh_series):
    values = jmh_series[sid].values
    mask = cpssd.outlier_mask(values, cpssd.warmup_skip(values))
    assert np.flatnonzero(mask).tolist() == SEALAB["outliers"][sid]


def test_onsets_match_published(results, jmh_labels):
    assert len(results) == 350
    published = {sid: jmh_labels[sid].onsets["cpssd_published"] for sid in results}
    agree = sum((results[sid][0] is None) == (published[sid] is None) for sid in results)
    exact = [sid for sid in results if results[sid][0] == published[sid]]
    diff = {sid: (results[sid][0], published[sid], results[sid][2]) for sid in results
            if results[sid][0] != published[sid]}
    log.info("cpssd: steady agreement %d/350, exact onsets %d/350, differing %s",
             agree, len(exact), diff)
    assert agree >= 0.95 * 350, f"steady/unsteady agreement {agree}/350; differing: {diff}"
    assert len(exact) >= 347, f"exact onsets {len(exact)}/350; differing: {diff}"


def test_prepared_stage_reuse_matches_full_run(jmh_series):
    spec = cpssd.SPEC
    params = spec.defaults().replace(bootstrap_resamples=500)
    values = jmh_series["s0004"].values
    prepared = spec.prepare(values, params, RunContext())
    again = spec.run(values, params, RunContext().with_prepared(prepared))
    full = segview.detect(values, "cpssd", bootstrap_resamples=500)
    assert again.steady_start == full.steady_start
    assert np.array_equal(again.change_points, full.change_points)


@pytest.mark.parametrize("n", [1000, 600, 400, 250, 100, 10, 4, 3])
def test_prefixes_of_a_real_series_run(n, jmh_series):
    # spec §10: every step uses its own n / N; threshold N - 501, nothing steady for N <= 500
    values = jmh_series["s0002"].values[:n]
    res = segview.detect(values, "cpssd", bootstrap_resamples=200)
    assert np.all((res.change_points > 0) & (res.change_points < n))
    if n <= 500:
        assert res.steady_start is None
    elif res.steady_start is not None:
        assert res.steady_start <= n - 501
