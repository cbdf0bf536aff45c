"""R's default random stream inside numba kernels: ``set.seed``, Mersenne-Twister, ``sample()``.

R ``ecp`` draws its permutations (E-Divisive's permutation test) and ``kcpa``'s bandwidth rows with
R's ``sample()``. Reproducing R's numbers bit for bit needs R's generator, written here from R's
documented algorithms (``?RNG``, ``?set.seed``, ``?sample``):

* ``set.seed(s)`` (kind Mersenne-Twister): the 32-bit seed is scrambled by 50 steps of the linear
  congruential generator ``s <- 69069 s + 1`` (mod 2^32); the next 625 steps fill the generator's
  state, whose first word is the position ``mti``, set to 624 so the first draw regenerates the
  624-word block (MT19937 of Matsumoto & Nishimura with the usual tempering).
* ``unif_rand()`` is a 32-bit output times 2^-32, moved inside (0, 1) if it lands on 0 or 1.
* ``R_unif_index(m)``, an index in ``[0, m)``: R >= 3.6 (``sample.kind = "Rejection"``) takes
  ``bits = ceil(log2 m)`` bits, built 16 at a time from ``floor(65536 * unif_rand())`` (one more
  chunk than needed when bits is a multiple of 16), and retries while the value is >= m; before 3.6
  (``"Rounding"``) it is ``floor(m * unif_rand())``.
* ``sample(x)`` / ``sample.int(m, k)`` without replacement: for each of the k draws, an index j in
  the shrinking pool ``[0, m)``, the pool's j-th value is taken and replaced by its last one.

:func:`seed_state` builds the state on the Python side; the kernels advance it in place (an
``uint32`` array of 625 words: ``mti`` then the 624-word block), so one state can be handed from kernel
to kernel as R's ``.Random.seed`` is. ``tests/core/test_rrng.py`` checks the streams against numbers
R printed.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ._jit import njit

_N = 624
_M = 397
_UPPER = np.uint32(0x80000000)
_LOWER = np.uint32(0x7FFFFFFF)
_MATRIX_A = np.uint32(0x9908B0DF)
_I2_32M1 = 2.328306437080797e-10  # 1 / (2^32 - 1), R's fixup constant
_TWO_M32 = 2.3283064365386963e-10  # 2^-32

from ._rkinds import SAMPLE_KINDS  # noqa: E402,F401  (re-exported: ``sample.kind`` values)


def seed_state(seed: int) -> NDArray[np.uint32]:
    """The generator state after R's ``set.seed(seed)`` (kind Mersenne-Twister)."""
    s = int(seed) & 0xFFFFFFFF
    for _ in range(50):
        s = (69069 * s + 1) & 0xFFFFFFFF
    st = np.empty(_N + 1, dtype=np.uint32)
    for j in range(_N + 1):
        s = (69069 * s + 1) & 0xFFFFFFFF
        st[j] = s
    st[0] = _N  # mti: regenerate the block at the first draw
    return st


@njit(nogil=True, cache=True)
def _regenerate(st):  # pragma: no cover (compiled)
    """MT19937's next 624-word block, in place (``st[1:]``)."""
    for kk in range(_N - _M):
        y = (st[1 + kk] & _UPPER) | (st[2 + kk] & _LOWER)
        st[1 + kk] = st[1 + kk + _M] ^ (y >> np.uint32(1)) ^ (_MATRIX_A * (y & np.uint32(1)))
    for kk in range(_N - _M, _N - 1):
        y = (st[1 + kk] & _UPPER) | (st[2 + kk] & _LOWER)
        st[1 + kk] = (st[1 + kk + _M - _N] ^ (y >> np.uint32(1))
                      ^ (_MATRIX_A * (y & np.uint32(1))))
    y = (st[_N] & _UPPER) | (st[1] & _LOWER)
    st[_N] = st[_M] ^ (y >> np.uint32(1)) ^ (_MATRIX_A * (y & np.uint32(1)))


@njit(nogil=True, cache=True, inline="always")
def _temper(y):  # pragma: no cover (compiled)
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return y


@njit(nogil=True, cache=True, inline="always")
def _fixup(v):  # pragma: no cover (compiled)
    """R's fixup of ``unif_rand()``: a value of 0 or 1 moved inside (0, 1)."""
    if v <= 0.0:
        return 0.5 * _I2_32M1
    if 1.0 - v <= 0.0:
        return 1.0 - 0.5 * _I2_32M1
    return v


@njit(nogil=True, cache=True)
def _next32(st):  # pragma: no cover (compiled)
    mti = np.int64(st[0])
    if mti >= _N:
        _regenerate(st)
        mti = 0
    y = _temper(st[1 + mti])
    st[0] = np.uint32(mti + 1)
    return y


@njit(nogil=True, cache=True)
def unif_rand(st):  # pragma: no cover (compiled)
    """R's ``unif_rand()``: the next uniform in (0, 1)."""
    return _fixup(np.float64(_next32(st)) * _TWO_M32)


@njit(nogil=True, cache=True)
def unif_index(st, m, rejection):  # pragma: no cover (compiled)
    """R's ``R_unif_index(m)``: an index in ``[0, m)`` (``m >= 1``)."""
    if not rejection:
        return np.int64(math.floor(m * unif_rand(st)))
    if m <= 0:
        return np.int64(0)
    bits = np.int64(math.ceil(math.log2(m)))
    while True:
        v = np.int64(0)
        nb = 0
        while nb <= bits:
            v = 65536 * v + np.int64(math.floor(unif_rand(st) * 65536.0))
            nb += 16
        v = v & ((np.int64(1) << bits) - 1)
        if v < m:
            return v


@njit(nogil=True, cache=True)
def _sample_rejection(st, k, left, pool, out):  # pragma: no cover (compiled)
    """The draws of :func:`sample_into` with ``R_unif_index``'s rejection sampling, the stream's
    position kept in a local variable instead of ``st[0]`` between draws (written back at the
    end): the same words in the same order as :func:`unif_index`, about twice as fast."""
    mti = np.int64(st[0])
    for i in range(k):
        bits = np.int64(math.ceil(math.log2(left)))
        mask = (np.int64(1) << bits) - 1
        while True:
            v = np.int64(0)
            nb = 0
            while nb <= bits:
                if mti >= _N:
                    _regenerate(st)
                    mti = 0
                u = _fixup(np.float64(_temper(st[1 + mti])) * _TWO_M32)
                mti += 1
                v = 65536 * v + np.int64(math.floor(u * 65536.0))
                nb += 16
            v = v & mask
            if v < left:
                break
        out[i] = pool[v]
        left -= 1
        pool[v] = pool[left]
    st[0] = np.uint32(mti)


@njit(nogil=True, cache=True)
def sample_into(st, m, k, rejection, pool, out):  # pragma: no cover (compiled)
    """``sample.int(m, k) - 1`` into ``out[:k]`` (0-based); ``pool`` is scratch of length >= m."""
    for i in range(m):
        pool[i] = i
    if rejection:
        _sample_rejection(st, k, m, pool, out)
        return
    left = m
    for i in range(k):
        j = unif_index(st, left, rejection)
        out[i] = pool[j]
        left -= 1
        pool[j] = pool[left]


def sample(st: NDArray[np.uint32], m: int, k: int | None = None,
           kind: str = "rejection") -> NDArray[np.int64]:
    """``sample.int(m, k) - 1`` (0-based, without replacement), advancing ``st`` in place."""
    k = m if k is None else int(k)
    pool = np.empty(max(m, 1), dtype=np.int64)
    out = np.empty(k, dtype=np.int64)
    sample_into(st, int(m), k, kind == "rejection", pool, out)
    return out


@njit(nogil=True, cache=True)
def _runif(st, k, out):  # pragma: no cover (compiled)
    for i in range(k):
        out[i] = unif_rand(st)


def runif(st: NDArray[np.uint32], k: int) -> NDArray[np.float64]:
    """``runif(k)``: k uniforms, advancing ``st`` in place."""
    out = np.empty(int(k))
    _runif(st, int(k), out)
    return out
