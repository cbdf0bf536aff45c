"""The default change-point detector ``auto`` (issue 28 point 4): a majority vote of five models.

Invariance is checked for every ``a != 0`` (negative too: the vote must not depend on the sign of the
data, which cpnp's quantile grid alone does); the vote itself against hand-made member lists."""
from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import segview
from segview.core.detectors.auto import MEMBERS, agreed, vote


def _series(seed: int, n: int = 240) -> np.ndarray:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(0, 4))
    cps = sorted(rng.choice(np.arange(20, n - 20), k, replace=False))
    means = np.zeros(n)
    for c in cps:
        means[c:] += rng.choice([-1.0, 1.0]) * rng.uniform(1.0, 5.0)
    y = means + rng.standard_normal(n) * rng.uniform(0.3, 2.0)
    if rng.random() < 0.5:  # heavier tails and a few spikes
        at = rng.choice(n, 3, replace=False)
        y[at] += rng.choice([-1.0, 1.0], 3) * 8.0
    return y


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000),
       a=st.sampled_from([-1e6, -3.7, -1.0, -1e-3, 1e-6, 0.25, 2.0, 1e5]),
       b=st.sampled_from([0.0, -12.5, 1e3, 7e6]))
def test_same_change_points_for_every_affine_map(seed, a, b):
    y = _series(seed)
    ref = segview.detect(y, "auto").change_points
    got = segview.detect(a * y + b, "auto").change_points
    assert list(got) == list(ref)


def test_vote_needs_a_majority_and_reports_the_lower_median():
    lists = [[100, 300], [102, 301], [99], [250], [104, 250]]
    cps, support = vote(lists, votes=3, window=5)
    assert cps == [100] and support == [4]  # 99, 100, 102, 104: lower median 100
    assert vote(lists, votes=2, window=5) == ([100, 250, 300], [4, 2, 2])
    assert vote(lists, votes=5, window=5) == ([], [])


def test_agreed_is_symmetric():
    a, b = [10, 50, 90], [12, 70, 88, 200]
    assert agreed(a, b, 5) == agreed(b, a, 5) == [10, 88]


def test_members_and_strengths():
    rng = np.random.default_rng(5)
    y = np.concatenate([rng.normal(0, 1, 150), rng.normal(6, 1, 150)])
    res = segview.detect(y, "auto")
    assert list(res.change_points) == [150]
    assert res.strengths is not None and 0.6 <= res.strengths[0] <= 1.0
    assert res.strengths[0] == res.stats["support"][0] / len(MEMBERS)
    # a member that finds nothing leaves the vote to the others
    assert segview.detect(y[:3], "auto").change_points.size == 0


def test_is_the_default_change_point_method_of_detect_and_the_explorer():
    from segview.cli.detect import DEFAULT_METHOD
    from segview.core import registry
    assert DEFAULT_METHOD == "auto"
    spec = registry.get("auto")
    assert spec.affine_invariant and not spec.slow
    # ticked in a fresh explorer (issue 28): in sample above binseg's published F1 and cover
    # (docs/defaults.md gives the leave-one-out figures beside)
    assert spec.enabled_by_default


def _reference(y: np.ndarray, votes: int, window: int) -> tuple[list[int], list[int]]:
    """The module docstring's rule from scratch: each member run on its own, cpnp on y and -y
    (agreed within the window), then the vote."""
    from segview.core import registry
    from segview.core.api import run_spec
    from segview.core.detectors.auto import _member_params

    lists = []
    for _, detector, pinned in MEMBERS:
        spec = registry.get(detector)
        p = _member_params(detector, pinned)
        cps = [int(c) for c in run_spec(spec, y, p).change_points]
        if detector == "cpnp":
            cps = agreed(cps, [int(c) for c in run_spec(spec, -y, p).change_points], window)
        lists.append(cps)
    return vote(lists, votes, window)


def test_a_votes_or_window_change_reuses_the_members_and_matches_a_fresh_run():
    """The members' runs are auto's prepare stage: prepared once (with other parameters),
    every (votes, window) gives bitwise the result of a fresh run, and the rule's own answer."""
    from segview.core import registry
    from segview.core.api import run_spec
    from segview.core.context import RunContext

    spec = registry.get("auto")
    assert spec.prepare is not None and not spec.prepare_params  # votes, window: decide only
    for seed in (3, 11, 40):
        y = _series(seed, 400)
        state = spec.prepare(y, spec.defaults(), RunContext())
        for votes, window in ((3, 5), (1, 0), (2, 12), (5, 5), (4, 40)):
            params = spec.coerce({"votes": votes, "window": window})
            fresh = run_spec(spec, y, params)
            cached = run_spec(spec, y, params, RunContext().with_prepared(state))
            assert cached.change_points.tobytes() == fresh.change_points.tobytes()
            assert np.asarray(cached.strengths).tobytes() == np.asarray(fresh.strengths).tobytes()
            assert cached.stats == fresh.stats and cached.notes == fresh.notes
            cps, support = _reference(y, votes, window)
            assert list(fresh.change_points) == [c for c in cps if 0 < c < y.size]
            assert fresh.stats["support"] == [s for c, s in zip(cps, support) if 0 < c < y.size]


def test_members_do_not_follow_other_detectors_defaults():
    """Every parameter of a member is pinned in auto (or comes from the member's frozen
    ``tcpdbench`` preset), so a change of binseg's or pelt's defaults cannot change auto's results
    without auto's own version bump."""
    from segview.core import registry
    from segview.core.detectors.auto import _FROM_TCPDBENCH
    for label, detector, pinned in MEMBERS:
        spec = registry.get(detector)
        fixed = set(pinned)
        if detector in _FROM_TCPDBENCH:
            fixed |= set(next(p for p in spec.presets if p.name == "tcpdbench").values)
        names = {p.name for p in spec.params}
        assert fixed == names, (label, sorted(names - fixed))
