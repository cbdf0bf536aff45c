"""Golden: KB-KSSD in its faithful default mode on the 350 JMH series of ``shared/data/jmh``.

Expected onsets are the column ``kbkssd_reference`` of ``labels.csv`` (the authors' implementation
with the paper's parameters; -1 read as None), and the step-detection branch frequencies are the
ones ``shared/spec/kbkssd.md`` §5 lists for the 350 series. Exact match required.
"""
from __future__ import annotations

import collections

import numpy as np
import pytest

import segview
from segview.core.context import RunContext
from segview.core.detectors import kbkssd

pytestmark = [pytest.mark.shared, pytest.mark.slow]

SPEC_BRANCHES = {  # spec §5, counts on the 350 shared series
    "A-choose-a-keep": 195, "A-choose-a-reject": 45, "A-choose-b-keep": 45,
    "A-choose-b-fallback-to-a": 32, "A-early-return": 13, "B-keep": 12, "B-reject": 8,
}


@pytest.fixture(scope="module")
def results(jmh_series):
    return {sid: segview.detect(s, "kbkssd") for sid, s in jmh_series.items()}


def test_onsets_match_reference_350(results, jmh_labels):
    assert len(results) == 350
    mismatches = {sid: (res.steady_start, jmh_labels[sid].onsets["kbkssd_reference"])
                  for sid, res in results.items()
                  if res.steady_start != jmh_labels[sid].onsets["kbkssd_reference"]}
    assert mismatches == {}, f"{350 - len(mismatches)}/350 match; first: {list(mismatches.items())[:5]}"


def test_unsteady_count_and_change_points(results, jmh_labels):
    unsteady = [sid for sid, res in results.items() if res.steady_start is None]
    assert len(unsteady) == 5  # spec §8: 5 of the 350 are -1
    for res in results.values():
        w = res.stats["warmup_end"]
        assert res.change_points.tolist() == ([w + 1] if w >= 0 else [])
        if res.steady_start is not None and w >= 0:
            assert (res.steady_start - (w + 1)) % 500 == 0  # onset resolution is one Kelly block


def test_branch_frequencies_match_spec(results):
    counts = collections.Counter(res.stats["branch"] for res in results.values())
    assert dict(counts) == SPEC_BRANCHES
    assert sum(res.stats["warmup_end"] == -1 for res in results.values()) == 53


def test_threshold_rerun_from_prepared_matches_full_run(jmh_series):
    spec = kbkssd.SPEC
    params = spec.defaults()
    for sid in sorted(jmh_series)[::35]:
        values = jmh_series[sid].values
        prepared = spec.prepare(values, params, RunContext())
        for thr in (0.75, 0.85, 0.95):
            p = params.replace(prob_threshold=thr)
            fast = spec.run(values, p, RunContext(prepared=prepared))
            assert fast.steady_start == segview.detect(values, "kbkssd",
                                                       prob_threshold=thr).steady_start


def test_fast_path_equals_plain_reference_on_sample(jmh_series, jmh_labels):
    """The slow spec transcription in tests/core/test_kbkssd.py agrees on a sample of series
    (also a check of that transcription against the reference column)."""
    from tests.core.test_kbkssd import ref_kbkssd
    for sid in sorted(jmh_series)[::10]:
        values = np.array(jmh_series[sid].values)
        onset, w, prob = ref_kbkssd(values)
        res = segview.detect(values, "kbkssd")
        expected = jmh_labels[sid].onsets["kbkssd_reference"]
        assert onset == (-1 if expected is None else expected)
        assert res.stats["warmup_end"] == w
        assert np.array_equal(res.track("steadiness probability").y, prob)


def test_kernel_candidates_equal_convolve_argmin(results):
    """The O(N) kernel argmins equal np.convolve's on all 350 series (the reference's way)."""
    for res in results.values():
        s = np.array(res.track("smoothed series").y)
        n = s.size
        d = s - np.mean(s)
        r_large = np.convolve(d, np.concatenate((np.ones(n), -np.ones(n))), mode="valid")
        r_short = np.convolve(d, np.array(15 * [1] + 15 * [-1]), mode="valid")
        assert res.stats["large_candidate"] == int(np.argmin(r_large)) - 1
        assert res.stats["short_candidate"] == int(np.argmin(r_short)) + 14
