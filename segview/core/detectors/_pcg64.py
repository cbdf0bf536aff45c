"""numpy's PCG64 stream and ``Generator.integers`` inside numba kernels, bit for bit.

CP-SSD's bootstrap (``docs/algorithms/cpssd.md`` §12) is defined by numpy draws: ``rng.integers(0, m, ...,
dtype=int64)`` on a ``Generator(PCG64)``, then ``seg[idx].mean(axis=1)``. Materialising the index
matrix and the gathered values costs more than drawing them, so :func:`resampled_means` fuses the
three steps in one kernel that reproduces numpy exactly:

* PCG64 (XSL-RR 128/64): ``state = state * M + inc`` (mod 2**128), output ``rotr(hi ^ lo, hi >> 58)``;
  the 128-bit product's high half comes from an LLVM ``i128`` multiply (:func:`_mulhi64`).
* ``next_uint32`` hands out the low half of a 64-bit output first and keeps the high half for the
  next call (numpy's ``has_uint32``/``uinteger`` buffer, carried across calls in ``state``).
* bounded integers in ``[0, m)`` for ``m < 2**32``: Lemire's multiply-shift with rejection, as
  numpy's ``buffered_bounded_lemire_uint32`` (``m == 1`` draws nothing).
* the mean of each resample is numpy's ``add.reduce`` (pairwise summation: blocks of at most 128
  summed with 8 accumulators, halves split on multiples of 8, the reduction starting from 0.0)
  divided by ``m``.

``tests/core/test_cpssd.py`` checks all of it against numpy itself (many lengths, odd draw counts,
state hand-over between calls).
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from ._jit import njit
from numba import types
from numba.extending import intrinsic
from numpy.typing import NDArray

from ._pmnf_kernels import pw_sum

_MUL_HI = np.uint64(0x2360ED051FC65DA4)   # numpy's PCG64 default multiplier, high 64 bits
_MUL_LO = np.uint64(0x4385DF649FCCF645)   # ... low 64 bits
_MASK32 = np.uint64(0xFFFFFFFF)
_MASK64 = (1 << 64) - 1


@intrinsic
def _mulhi64(typingctx, a, b):  # pragma: no cover (compiled)
    """High 64 bits of the 128-bit product of two uint64 (one LLVM i128 multiply)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        prod = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        return builder.trunc(builder.lshr(prod, ir.Constant(i128, 64)), ir.IntType(64))
    return sig, codegen


@intrinsic
def _mul64wide(typingctx, a, b):  # pragma: no cover (compiled)
    """``(high, low)`` 64-bit halves of the 128-bit product of two uint64 (one widening multiply;
    taking the low half from it spares the separate 64-bit multiply LLVM emits otherwise)."""
    sig = types.UniTuple(types.uint64, 2)(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        i128 = ir.IntType(128)
        i64 = ir.IntType(64)
        prod = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        hi = builder.trunc(builder.lshr(prod, ir.Constant(i128, 64)), i64)
        lo = builder.trunc(prod, i64)
        return context.make_tuple(builder, signature.return_type, (hi, lo))
    return sig, codegen


def state_of(rng: np.random.Generator) -> NDArray[np.uint64]:
    """The PCG64 state of ``rng`` as ``uint64[6]``: state hi/lo, increment hi/lo, has_uint32, uinteger."""
    st = rng.bit_generator.state
    if st.get("bit_generator") != "PCG64":
        raise TypeError(f"expected a PCG64 generator, got {st.get('bit_generator')}")
    s, inc = int(st["state"]["state"]), int(st["state"]["inc"])
    return np.array([s >> 64, s & _MASK64, inc >> 64, inc & _MASK64, int(st["has_uint32"]),
                     int(st["uinteger"])], dtype=np.uint64)


def set_state(rng: np.random.Generator, state: NDArray[np.uint64]) -> None:
    """Write a kernel's ``uint64[6]`` state back into ``rng`` (so numpy continues the stream)."""
    hi, lo, ihi, ilo, has, word = (int(v) for v in state)
    rng.bit_generator.state = {"bit_generator": "PCG64",
                               "state": {"state": (hi << 64) | lo, "inc": (ihi << 64) | ilo},
                               "has_uint32": has, "uinteger": word}


def pairwise_plan(n: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """numpy's pairwise-summation tree over ``n`` values, flattened for a kernel without recursion.

    numpy sums blocks of at most 128 values and adds the halves of longer ranges (split at
    ``n // 2`` rounded down to a multiple of 8), left before right. Returns ``(lo, length, ops)``:
    the leaf blocks in order and the post-order program ``ops`` (``k >= 0``: push the sum of leaf
    ``k``; ``-1``: replace the top two sums by their sum). (numba's on-disk cache cannot hold
    recursive kernels, so the recursion is unrolled here once per length.)
    """
    lo: list[int] = []
    length: list[int] = []
    ops: list[int] = []

    def walk(start: int, m: int) -> None:
        if m <= 128:
            ops.append(len(lo))
            lo.append(start)
            length.append(m)
            return
        half = m // 2
        half -= half % 8
        walk(start, half)
        walk(start + half, m - half)
        ops.append(-1)

    walk(0, n)
    return (np.asarray(lo, dtype=np.int64), np.asarray(length, dtype=np.int64),
            np.asarray(ops, dtype=np.int64))


@njit(nogil=True, cache=True)
def _pairwise_sum(a, plan_lo, plan_len, ops, stack):  # pragma: no cover (compiled)
    """numpy's ``add.reduce`` of ``a`` along the tree of :func:`pairwise_plan` (same rounding)."""
    sp = 0
    for op in ops:
        if op >= 0:
            lo = plan_lo[op]
            stack[sp] = pw_sum(a[lo:lo + plan_len[op]])   # a block of <= 128: no recursion
            sp += 1
        else:
            stack[sp - 2] = stack[sp - 2] + stack[sp - 1]
            sp -= 1
    return stack[0]


@njit(nogil=True, cache=True)
def resampled_means(seg, state, rows, out, plan_lo, plan_len, ops):  # pragma: no cover
    """``out[r] = seg[rng.integers(0, m, m)].mean()`` for ``r < rows``, continuing ``state`` in place.

    Equals ``seg[rng.integers(0, m, size=(rows, m), dtype=np.int64)].mean(axis=1)`` bit for bit
    (and leaves ``state`` where numpy's generator would be). ``1 <= m < 2**32``; the plan is
    :func:`pairwise_plan` ``(m)``.
    """
    m = seg.size
    row = np.empty(m)
    stack = np.empty(ops.size + 1)
    rng = np.uint64(m - 1)
    excl = rng + np.uint64(1)
    thresh = (_MASK32 - rng) % excl          # numpy's (UINT32_MAX - rng) % rng_excl
    hi = state[0]
    lo = state[1]
    inc_hi = state[2]
    inc_lo = state[3]
    has = state[4] != 0
    buf = state[5]
    s32 = np.uint64(32)
    small = m <= 128
    for r in range(rows):
        if m == 1:
            row[0] = seg[0]
        else:
            for j in range(m):
                while True:
                    if has:
                        u = buf
                        has = False
                    else:
                        phi, nlo = _mul64wide(lo, _MUL_LO)
                        nhi = hi * _MUL_LO + lo * _MUL_HI + phi
                        lo = nlo + inc_lo
                        hi = nhi + inc_hi + (np.uint64(1) if lo < nlo else np.uint64(0))
                        rot = hi >> np.uint64(58)
                        x = hi ^ lo
                        x = (x >> rot) | (x << ((np.uint64(64) - rot) & np.uint64(63)))
                        u = x & _MASK32
                        buf = x >> s32
                        has = True
                    p = u * excl
                    if (p & _MASK32) >= thresh:   # thresh < excl: numpy's two-step test in one
                        break
                row[j] = seg[p >> s32]
        if small:                            # one block: no tree to walk
            total = pw_sum(row)
        else:
            total = _pairwise_sum(row, plan_lo, plan_len, ops, stack)
        out[r] = (0.0 + total) / m
    state[0] = hi
    state[1] = lo
    state[4] = np.uint64(1) if has else np.uint64(0)
    state[5] = buf
