"""The 8-lane vector intrinsics of ``_vec8`` and the FPOP kernel's helpers built on them, against
numpy (lane order, masks as bit sets)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from numba import njit

from segview.core.detectors import _fpop_kernels as fk, _vec8 as v8
from segview.core.detectors._vec8 import popcount, vcompress, vload, vperm, vshuf2, vstore

_REV = vperm([7, 6, 5, 4, 3, 2, 1, 0])
_MIX = vshuf2([8, 0, 9, 1, 15, 7, 3, 12])


@njit
def _apply(a, b, bits):
    out = np.zeros(32)
    vstore(out, 0, _REV(vload(a, 0)))
    vstore(out, 8, _MIX(vload(a, 0), vload(b, 0)))
    vstore(out, 16, vcompress(vload(a, 0), bits))
    return out, popcount(bits)


@njit
def _reduce(G):
    out = np.zeros(16)
    vstore(out, 0, fk._treduce(G, 0, True))
    vstore(out, 8, fk._treduce(G, 0, False))
    return out


def test_permutations_compress_and_popcount_match_numpy():
    rng = np.random.default_rng(0)
    a = rng.normal(size=8)
    b = rng.normal(size=8)
    for bits in [0, 1, 0x80, 0xFF, 0b10110010, *rng.integers(0, 256, 40)]:
        out, count = _apply(a, b, int(bits))
        keep = [(int(bits) >> j) & 1 == 1 for j in range(8)]
        assert np.array_equal(out[:8], a[::-1])
        assert np.array_equal(out[8:16], np.concatenate([a, b])[[8, 0, 9, 1, 15, 7, 3, 12]])
        assert np.array_equal(out[16:16 + sum(keep)], a[keep])
        assert count == sum(keep)


def test_transposed_reduction_gives_each_rows_max_and_min_in_its_lane():
    rng = np.random.default_rng(1)
    for _ in range(20):
        G = rng.normal(size=64)
        G[rng.integers(0, 64, 5)] = rng.choice([np.inf, -np.inf], 5)
        out = _reduce(G)
        rows = G.reshape(8, 8)
        assert np.array_equal(out[:8], rows.max(axis=1))
        assert np.array_equal(out[8:], rows.min(axis=1))


# Per-intrinsic checks on IEEE special values: every pair of SPECIAL (NaN, +-inf, +-0, subnormal,
# the largest double, ordinary numbers) through each lane-wise intrinsic, against the scalar
# expression the intrinsic's docstring promises, bit for bit (the sign of a zero counts; a NaN
# must stay a NaN).
SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.5, 5e-324, np.finfo(float).max,
                    -3.25, 2.0 ** -1074 * 3, 1e-300])
_A, _B = (g.ravel() for g in np.meshgrid(SPECIAL, SPECIAL, indexing="ij"))
_PAD = -len(_A) % 8
PAIR_A = np.concatenate([_A, np.ones(_PAD)])
PAIR_B = np.concatenate([_B, np.ones(_PAD)])


def _same_bits(got: np.ndarray, want: np.ndarray) -> bool:
    nan = np.isnan(want)
    return bool(np.array_equal(np.isnan(got), nan)
                and np.array_equal(got[~nan].view(np.int64), want[~nan].view(np.int64)))


def _lanewise2(op):
    @njit
    def run(a, b):
        out = np.empty(a.size)
        for o in range(0, a.size, 8):
            vstore(out, o, op(vload(a, o), vload(b, o)))
        return out
    return run


def _lanewise1(op):
    @njit
    def run(a):
        out = np.empty(a.size)
        for o in range(0, a.size, 8):
            vstore(out, o, op(vload(a, o)))
        return out
    return run


def _bits2(op):
    @njit
    def run(a, b):
        out = np.empty(a.size // 8, dtype=np.int64)
        for o in range(0, a.size, 8):
            out[o // 8] = op(vload(a, o), vload(b, o))
        return out
    return run


def _scalar(f, a, b):
    with np.errstate(all="ignore"):
        return np.array([f(x, y) for x, y in zip(a, b)], dtype=np.float64)


_ARITH = {
    "vadd": (v8.vadd, lambda x, y: np.float64(x) + np.float64(y)),
    "vsub": (v8.vsub, lambda x, y: np.float64(x) - np.float64(y)),
    "vmul": (v8.vmul, lambda x, y: np.float64(x) * np.float64(y)),
    "vdiv": (v8.vdiv, lambda x, y: np.float64(x) / np.float64(y)),
    "vmin": (v8.vmin, lambda x, y: x if x < y else y),
    "vmax": (v8.vmax, lambda x, y: x if x > y else y),
}


@pytest.mark.parametrize("name", sorted(_ARITH))
def test_binary_intrinsics_on_nan_signed_zeros_and_infinities(name):
    op, ref = _ARITH[name]
    got = _lanewise2(op)(PAIR_A, PAIR_B)
    assert _same_bits(got, _scalar(ref, PAIR_A, PAIR_B)), name


def test_vmin_vmax_keep_pythons_order_on_ties_zeros_and_nan():
    a = np.array([0.0, -0.0, np.nan, 1.0, np.nan, -np.inf, np.inf, 2.0])
    b = np.array([-0.0, 0.0, 1.0, np.nan, np.nan, -np.inf, 1.0, 2.0])
    lo = _lanewise2(v8.vmin)(a, b)
    hi = _lanewise2(v8.vmax)(a, b)
    # a < b / a > b is False for equal zeros and for any NaN: the result is b
    assert _same_bits(lo, np.array([-0.0, 0.0, 1.0, np.nan, np.nan, -np.inf, 1.0, 2.0]))
    assert _same_bits(hi, np.array([-0.0, 0.0, 1.0, np.nan, np.nan, -np.inf, np.inf, 2.0]))


def test_vsqrt_on_special_values():
    x = np.concatenate([SPECIAL, [-1.0, 4.0, 2.0, 0.25]])
    got = _lanewise1(v8.vsqrt)(x)
    with np.errstate(invalid="ignore"):
        want = np.array([math.sqrt(v) if v >= 0 or v != v else np.nan for v in x])
    want[np.isnan(x)] = np.nan
    assert _same_bits(got, want)
    assert x[4] == 0.0 and np.signbit(x[4]) and np.signbit(got[4])  # sqrt(-0) = -0 (IEEE 754)


@pytest.mark.parametrize("name, cmp", [("vlt", lambda x, y: x < y), ("vle", lambda x, y: x <= y)])
def test_comparisons_are_ordered_bit_sets(name, cmp):
    got = _bits2(getattr(v8, name))(PAIR_A, PAIR_B)
    for blk in range(len(got)):
        want = sum(1 << j for j in range(8)
                   if cmp(PAIR_A[8 * blk + j], PAIR_B[8 * blk + j]))  # False with a NaN
        assert got[blk] == want, (name, blk)


@njit
def _sel(bits, a, b):
    out = np.empty(8)
    vstore(out, 0, v8.vsel(bits, vload(a, 0), vload(b, 0)))
    return out


@njit
def _bcast(x):
    out = np.empty(8)
    vstore(out, 0, v8.vbcast(x))
    return out


@njit
def _popcount(x):
    return popcount(x)


def test_vsel_vbcast_and_loads_keep_special_values_bitwise():
    a = SPECIAL[:8].copy()
    b = -SPECIAL[4:12].copy()
    for bits in (0, 0xFF, 0b01010101, 0b10000001, 0x1FF):  # bits past lane 7 are ignored
        want = np.where([(bits >> j) & 1 for j in range(8)], a, b)
        assert _same_bits(_sel(bits, a, b), want)
    for x in SPECIAL:
        assert _same_bits(_bcast(x), np.full(8, x))


def test_popcount_of_signed_and_extreme_words():
    for x in (0, 1, -1, 0xFF, -(1 << 63), (1 << 63) - 1, 0b1011):
        assert _popcount(x) == bin(x & ((1 << 64) - 1)).count("1")


def test_compress_moves_special_values_unchanged():
    a = SPECIAL[:8].copy()
    for bits in (0, 0xFF, 0b00011010, 0b10000001, 0b01100000):
        out, count = _apply(a, a, bits)
        keep = [(bits >> j) & 1 == 1 for j in range(8)]
        assert count == sum(keep)
        assert _same_bits(out[16:16 + count], a[keep])


@njit
def _frexp8(a):
    out = np.empty(2 * a.size)
    for off in range(0, a.size, 8):
        vstore(out, off, v8.vexponent(vload(a, off)))
        vstore(out, a.size + off, v8.vmantissa(vload(a, off)))
    return out[:a.size], out[a.size:]


def test_exponent_and_mantissa_split_positive_normal_values_as_frexp_does():
    rng = np.random.default_rng(3)
    a = np.r_[np.exp(rng.uniform(-700, 700, 60)), 1.0, 2.0, np.nextafter(2.0, 0),
              np.finfo(float).tiny, np.finfo(float).max, 1e-11, 1e300, 0.75]
    a = np.r_[a, np.ones(-a.size % 8)]
    e, m = _frexp8(a)
    for x, ei, mi in zip(a, e, m):
        fm, fe = math.frexp(x)                     # x = fm 2^fe, fm in [0.5, 1)
        assert ei == fe - 1 and mi == 2 * fm and 1.0 <= mi < 2.0
        assert math.ldexp(mi, int(ei)) == x        # exact
