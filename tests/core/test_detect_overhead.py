"""``segview.detect`` does no n-long work beyond what its result needs (issue 31): the input is
viewed, not copied, the magnitude check makes no temporary, the result's ``F`` statistics are views
and R fpop's convention is one compiled pass. All of it changes no bit of the results."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import segview
from segview.core.api import check_magnitude
from segview.core.detectors import _costs
from segview.core.detectors.partition import fpop_costs, optimal_partition
from segview.core.errors import InputError
from segview.core.model import as_values


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       n=st.sampled_from([0, 1, 2, 7, 1000, 65_537]),
       beta=st.floats(0.1, 1e3))
def test_fpop_costs_is_the_written_out_formula_bit_for_bit(seed, n, beta):
    rng = np.random.default_rng(seed)
    y = rng.normal(0, 10, n) + rng.choice([0.0, 1e3, -1e7])
    F = rng.normal(0, 1e4, n + 1) * rng.choice([1.0, 1e-8, 1e12])
    want = F[1:] + 2.0 * beta - np.cumsum(y * y)
    assert fpop_costs(y, F, beta).tobytes() == want.tobytes()


def test_faithful_pelt_statistics_are_the_partitions_own():
    rng = np.random.default_rng(31)
    y = np.repeat(rng.normal(0, 3, 6), 20_000) + rng.standard_normal(120_000)
    res = segview.detect(y, "pelt", preset="faithful")
    beta, _ = _costs.resolve_penalty("bic", y.size, "l2")
    part = optimal_partition(y, "l2", beta, 1, pruning=True, search="dp")
    assert res.stats["search"] == "fpop"
    assert list(res.change_points) == list(part.change_points)
    assert res.stats["optimal_cost_std"].tobytes() == part.F[1:].tobytes()
    assert res.stats["last"].tobytes() == part.last[1:].tobytes()
    want = part.F[1:] + 2.0 * beta - np.cumsum(y * y)
    assert res.stats["optimal_cost"].tobytes() == want.tobytes()


def test_detect_leaves_the_callers_array_writeable_and_unchanged():
    y = np.r_[np.zeros(50), np.ones(50) * 5.0]
    before = y.copy()
    res = segview.detect(y, "pelt", preset="faithful")
    assert y.flags.writeable  # the read-only flag went on a view, not on the caller's array
    assert y.tobytes() == before.tobytes()
    assert list(res.change_points) == [50]
    y[0] = 1.0  # and the caller may still write


def test_as_values_without_copy_is_a_read_only_view_and_copies_when_it_must():
    y = np.arange(10.0)
    v = as_values(y, copy=False)
    assert np.shares_memory(v, y) and not v.flags.writeable and y.flags.writeable
    assert not np.shares_memory(as_values(y), y)  # the default still copies
    ints = np.arange(10)
    assert as_values(ints, copy=False).dtype == np.float64
    strided = np.arange(20.0)[::2]
    w = as_values(strided, copy=False)
    assert w.flags.c_contiguous and list(w) == list(strided) and strided.flags.writeable
    with pytest.raises(InputError, match="non-finite value nan at index 3"):
        as_values(np.r_[0.0, 1.0, 2.0, np.nan], copy=False)


@pytest.mark.parametrize("values, match", [
    (np.r_[1.0, -2e150, 3.0], "values reach 2e\\+150"),
    (np.r_[1.0, 2e150, -3.0], "values reach 2e\\+150"),
    (np.r_[-3e-151, 1e-151, 0.0], "at most 3e-151"),
])
def test_check_magnitude_finds_the_largest_magnitude_on_either_side(values, match):
    with pytest.raises(InputError, match=match):
        check_magnitude(values, "s")


def test_check_magnitude_accepts_zeros_and_ordinary_values():
    check_magnitude(np.zeros(5), "s")
    check_magnitude(np.r_[-1e150, 1e-150], "s")


@pytest.mark.parametrize("bad, message", [
    ([1.0, 2.0, float("nan"), 4.0, float("nan")], "non-finite value nan at index 2 \\(and 1 more\\)"),
    ([float("-inf"), 1.0, 2.0, 3.0], "non-finite value -inf at index 0$"),
])
def test_detect_names_the_first_non_finite_value(bad, message):
    # the finiteness check moved from the copy to the magnitude check: the same message
    with pytest.raises(InputError, match=message):
        segview.detect(np.array(bad), "pelt")
    with pytest.raises(InputError, match=message):
        as_values(bad)


def test_a_short_series_with_nan_is_named_for_the_nan_first():
    with pytest.raises(InputError, match="non-finite value nan at index 0"):
        segview.detect(np.array([float("nan")]), "binseg", min_size=5)
