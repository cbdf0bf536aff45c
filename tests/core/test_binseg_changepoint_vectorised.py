"""binseg ``rule=changepoint`` (the ``tcpdbench`` preset) computes its gains with whole-array
operations and recomputes only the two parts of each split (issue 31). The reference below is the
earlier scalar code, kept verbatim: one ``math.log`` per candidate, every segment recomputed every
round. The two must agree bit for bit: change points, recorded gains and the penalty."""
from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from segview.core.context import NULL_CONTEXT
from segview.core.detectors import _costs
from segview.core.detectors.binseg import changepoint_binseg


def _reference_changepoint_binseg(y, penalty="mbic", max_bkps=5, min_size=1, penalty_scale=1.0,
                                  ctx=NULL_CONTEXT):
    from segview.core.detectors._pelt_r import prefix_sums_r

    y = np.asarray(y, dtype=np.float64)
    n = y.size
    beta, mbic = _costs.resolve_penalty(penalty, n, "l2")
    beta *= penalty_scale
    S, Q = prefix_sums_r(y)

    def cost(a, b):
        m = np.atleast_1d(np.asarray(b - a, dtype=np.float64))
        s = np.atleast_1d(S[b] - S[a])
        c = (np.atleast_1d(Q[b] - Q[a]) - (s * s) / m)
        if mbic:  # the C library's log, as R calls it (numpy's vector log may differ in a bit)
            c = c + np.array([math.log(v) for v in m])
        return c

    rounds = n if max_bkps is None else int(max_bkps)
    tau = [0, n]
    found = []
    oldmax = math.inf
    for _ in range(rounds):
        ctx.check()
        lam = np.zeros(n)
        for a, b in zip(tau[:-1], tau[1:]):
            js = np.arange(max(2, a + 1 + min_size), min(n - 3, b - min_size) + 1)
            if js.size:
                lam[js] = (-0.5 * cost(a, js) + -0.5 * cost(js, b)) - (-0.5 * float(cost(a, b)[0]))
        j = int(np.argmax(lam))
        oldmax = min(oldmax, float(lam[j]))
        found.append((j, 2.0 * oldmax))
        tau = sorted([*tau, j])
    kept = []
    for q, gain in found:
        if not gain >= beta:
            break
        kept.append((q, gain))
    return sorted(q for q, _ in kept), kept, beta


@st.composite
def _series(draw):
    n = draw(st.integers(1, 160))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    kind = draw(st.sampled_from(["steps", "integers", "constant", "spikes", "wide"]))
    if kind == "constant":
        return np.full(n, draw(st.floats(-1e3, 1e3)))
    if kind == "integers":  # many equal gains: ties decide
        return rng.integers(0, 3, n).astype(np.float64)
    k = int(rng.integers(0, 6))
    cuts = np.sort(rng.integers(0, n + 1, k))
    y = rng.normal(0, 3, k + 1)[np.searchsorted(cuts, np.arange(n), side="right")]
    y = y + rng.standard_normal(n)
    if kind == "spikes":
        y[rng.integers(0, n, 3)] += 25.0
    if kind == "wide":
        y = y * 1e6 + 1e9
    return y


def _bits(found):
    return [(q, np.float64(g).tobytes()) for q, g in found]


@settings(max_examples=400, deadline=None)
@given(y=_series(), penalty=st.sampled_from(["mbic", "bic", 0.0, 2.5, 40.0]),
       max_bkps=st.one_of(st.none(), st.integers(0, 9)), min_size=st.sampled_from([1, 2, 3, 7]),
       scale=st.sampled_from([1.0, 0.5]))
def test_vectorised_rule_is_the_scalar_rule_bit_for_bit(y, penalty, max_bkps, min_size, scale):
    ref = _reference_changepoint_binseg(y, penalty, max_bkps, min_size, scale)
    got = changepoint_binseg(y, penalty, max_bkps, min_size, scale)
    assert got[0] == ref[0]
    assert _bits(got[1]) == _bits(ref[1])
    assert np.float64(got[2]).tobytes() == np.float64(ref[2]).tobytes()


def test_vectorised_rule_on_a_long_series_with_many_splits():
    # a series longer than the property test draws, 40 rounds, 27 splits kept, MBIC's logs used
    rng = np.random.default_rng(31)
    y = np.repeat(rng.normal(0, 2, 50), 60) + rng.standard_normal(3000)
    ref = _reference_changepoint_binseg(y, "mbic", 40, 1)
    got = changepoint_binseg(y, "mbic", 40, 1)
    assert got[0] == ref[0] and len(got[0]) >= 20
    assert _bits(got[1]) == _bits(ref[1])
