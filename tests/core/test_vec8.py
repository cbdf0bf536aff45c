"""The 8-lane vector intrinsics of ``_vec8`` and the FPOP kernel's helpers built on them, against
numpy (lane order, masks as bit sets)."""
from __future__ import annotations

import numpy as np
from numba import njit

from segview.core.detectors import _fpop_kernels as fk
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
