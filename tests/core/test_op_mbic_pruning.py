"""``op`` under MBIC searches with exact functional pruning (``_mbic_kernels``): the ``F`` and
``last`` arrays must be bitwise those of the plain dynamic programme, which evaluates every
candidate (``_partition_kernels.op_advance``, the reference; not the code under test)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import segview
from segview.core.detectors import _costs, _mbic_kernels as mk, _partition_kernels as pk
from segview.core.detectors.partition import optimal_partition

TCPD = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "tcpd" / "datasets"


def _dp(y: np.ndarray, tie_last: bool = False, scale: float = 1.0, m: int = 1
        ) -> tuple[np.ndarray, np.ndarray]:
    """The recursion over every candidate, straight from the plain kernel."""
    n = y.size
    S, Q = _costs.prefix_sums(y)
    beta, mbic = _costs.resolve_penalty("mbic", n, "l2")
    beta *= scale
    assert mbic
    F = np.empty(n + 1)
    last = np.full(n + 1, -1, dtype=np.int64)
    F[0] = -beta
    pk.op_advance(S, Q, F, last, 1, n + 1, beta, m, _costs.L2, 0.0, True, tie_last)
    return F, last


def _same(y: np.ndarray, tie: str = "first", scale: float = 1.0, m: int = 1) -> None:
    part = optimal_partition(y, "l2", "mbic", m, tie=tie, search="auto", penalty_scale=scale)
    assert part.search == "pruned", part
    F, last = _dp(y, tie == "last", scale, m)
    assert np.array_equal(part.F, F), np.flatnonzero(part.F != F)[:5]
    assert np.array_equal(part.last, last), np.flatnonzero(part.last != last)[:5]


def _kinds(seed: int) -> np.ndarray:
    r = np.random.default_rng(seed)
    n = int(r.integers(2, 600))
    kind = seed % 6
    if kind == 0:
        return r.standard_normal(n)
    if kind == 1:  # integer values: many exact ties between candidates
        return np.round(2 * r.standard_normal(n))
    if kind == 2:  # steps
        return np.repeat(r.normal(0, 3, 6), -(-n // 6))[:n] + 0.3 * r.standard_normal(n)
    if kind == 3:  # constant with one spike
        y = np.ones(n)
        y[r.integers(0, n)] = 5.0
        return y
    if kind == 4:  # a few levels only
        return r.integers(0, 3, n).astype(float)
    return np.cumsum(r.standard_normal(n))  # a random walk: changes everywhere


@pytest.mark.parametrize("seed", range(120))
def test_pruned_search_is_bitwise_the_dynamic_programme(seed):
    _same(_kinds(seed), "first" if seed % 2 else "last")


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("scale", [0.0, 0.02, 0.1, 0.3])
def test_small_penalties_where_the_length_terms_decide_are_bitwise_the_dp(seed, scale):
    """With a small beta the ln(length) terms weigh as much as the data: the bounds on how they
    move with the end point (module docstring of _mbic_kernels) are what keeps this exact."""
    _same(_kinds(seed), "first" if seed % 2 else "last", scale)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False), min_size=2,
                max_size=120), st.sampled_from(["first", "last"]))
def test_pruned_search_equals_the_dp_on_arbitrary_values(values, tie):
    _same(np.asarray(values, dtype=np.float64), tie)


@pytest.mark.parametrize("seed", range(60))
@pytest.mark.parametrize("m", [2, 3, 5, 17])
def test_a_minimum_segment_length_is_bitwise_the_dynamic_programme(seed, m):
    """pelt's and op's default minimum segment is 5 since version 3: op's pruned search admits a
    start only once it is feasible (``{0} U [m, t - m]``, the plain programme's candidates), which
    must leave F and last bitwise the full programme's, infeasible prefixes (inf, -1) included."""
    _same(_kinds(seed), "first" if seed % 2 else "last", (0.1, 1.0)[seed % 2], m)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False), min_size=2,
                max_size=120), st.sampled_from(["first", "last"]), st.integers(1, 8))
def test_pruned_search_with_a_minimum_segment_equals_the_dp_on_arbitrary_values(values, tie, m):
    _same(np.asarray(values, dtype=np.float64), tie, m=m)


def test_long_series_with_few_changes_is_bitwise_and_prunes():
    rng = np.random.default_rng(11)
    n = 20_000
    y = np.repeat(rng.normal(0, 3, 4), n // 4) + rng.standard_normal(n)
    _same(y)
    # the pruning keeps few candidates: a direct run of the kernel reports its list length
    S, Q = _costs.prefix_sums(y)
    beta = 3 * math.log(n)
    F = np.empty(n + 1)
    last = np.full(n + 1, -1, dtype=np.int64)
    F[0] = -beta
    cand = np.zeros(n + 1, dtype=np.int64)
    bufs = np.empty(n + 1), np.empty(n + 1), np.empty(n + 1, dtype=np.bool_)
    lg = np.log(np.maximum(np.arange(n + 1), 1.0))
    state = np.array([1, 16], dtype=np.int64)
    mk.op_mbic_advance(S, Q, F, last, cand, state, *bufs, lg, 1, n + 1, n, beta, 1e-6, 1e-7,
                       False)
    assert state[0] < 200, state


@pytest.mark.skipif(not TCPD.is_dir(), reason="../shared/data/tcpd not present")
def test_tcpd_datasets_with_the_tcpdbench_preset_are_bitwise_the_dp():
    done = 0
    for path in sorted(TCPD.glob("*.json")):
        data = json.loads(path.read_text())
        if data["n_dim"] != 1 or any(v is None for v in data["series"][0]["raw"]):
            continue
        raw = np.asarray(data["series"][0]["raw"], dtype=np.float64)
        fast = segview.detect(raw, "op", preset="tcpdbench")
        plain = segview.detect(raw, "op", preset="tcpdbench", search="dp")
        assert fast.stats["search"] == "pruned"
        assert np.array_equal(fast.change_points, plain.change_points), path.name
        assert np.array_equal(fast.stats["optimal_cost_std"], plain.stats["optimal_cost_std"])
        done += 1
    assert done >= 10


def test_a_failing_pruned_kernel_falls_back_to_the_dp_with_a_note(monkeypatch):
    y = _kinds(2)

    def broken(*args, **kwargs):
        from numba.core.errors import TypingError
        raise TypingError("forced for the test")

    monkeypatch.setattr(mk, "op_mbic_advance", broken)
    part = optimal_partition(y, "l2", "mbic", 1, search="auto")
    F, last = _dp(y)
    assert np.array_equal(part.F, F) and np.array_equal(part.last, last)
    assert part.search == "dp"
    assert any("pruned kernel" in note for note in part.notes), part.notes


def test_search_dp_still_runs_the_plain_programme_and_other_costs_are_untouched():
    y = _kinds(2)
    assert optimal_partition(y, "l2", "mbic", 1, search="dp").search == "dp"
    assert optimal_partition(y, "normal", "mbic", 2, search="auto").search == "dp"
    assert optimal_partition(y, "l2", "mbic", 3, search="auto").search == "pruned"
    assert segview.detect(y, "op").stats["search"] == "pruned"


def _dp_constant(y: np.ndarray, beta: float, m: int, tie_last: bool) -> tuple[np.ndarray, np.ndarray]:
    """The plain recursion under a constant penalty (no length terms), every candidate."""
    n = y.size
    S, Q = _costs.prefix_sums(y)
    F = np.empty(n + 1)
    last = np.full(n + 1, -1, dtype=np.int64)
    F[0] = -beta
    pk.op_advance(S, Q, F, last, 1, n + 1, beta, m, _costs.L2, 0.0, False, tie_last)
    return F, last


@pytest.mark.parametrize("seed", range(60))
def test_constant_penalties_with_a_minimum_segment_are_pruned_bitwise(seed):
    """FPOP handles min_size 1 only; above it op's search=auto takes the same pruned search with
    the length terms at zero (op's default min_size is 5 since version 3, so penalty=bic or a
    number would otherwise run the quadratic programme)."""
    y = _kinds(seed)
    m = 1 + seed % 7
    tie = "last" if seed % 5 == 0 else "first"
    for penalty in ("bic", 0.5, 12.0):
        part = optimal_partition(y, "l2", penalty, m, tie=tie, search="auto")
        beta, mbic = _costs.resolve_penalty(penalty, y.size, "l2")
        assert not mbic
        F, last = _dp_constant(y, beta, m, tie == "last")
        if m > 1:
            assert part.search == "pruned", part
        assert np.array_equal(part.F, F), (penalty, np.flatnonzero(part.F != F)[:5])
        assert np.array_equal(part.last, last), (penalty, np.flatnonzero(part.last != last)[:5])
