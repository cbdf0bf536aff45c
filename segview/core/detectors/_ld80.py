"""x87 80-bit long double sums of non-negative doubles, in integer arithmetic (numba).

R's ``sum`` and ``cumsum`` add doubles into a ``long double`` one after another and round the
total to double. On x86-64 that is the x87 extended format: a 64-bit significand with an explicit
leading bit and a 15-bit exponent, every addition rounded to nearest, ties to even, at 64 bits
(:data:`X87` tells whether numpy's ``longdouble`` is this format here). numpy reproduces it with
``np.cumsum(v.astype(np.longdouble))``, one array operation per sum; the BOCPD kernel needs
thousands of such sums per series, so this module does the same arithmetic on integers, inside
numba, for the one case the kernel meets: every summand a finite double ``>= 0`` (probabilities).

The accumulator is ``(m, e)``, value ``m * 2**e``, with ``m`` a ``uint64`` whose bit 63 is set
(``m == 0`` is zero). Why this is exact:

* Every finite double, subnormals included, is a normal long double (the long double exponent
  reaches ``2**-16382``), and a sum of non-negative doubles lies between its largest summand and
  ``n`` times it, far inside the long double range: no long double underflow or overflow, no
  long double subnormals, so the significand and an unbounded ``int`` exponent describe every
  value the hardware can hold here.
* ``a + b`` with ``a >= b > 0`` (``d`` = exponent difference): the exact sum is
  ``m_a + m_b * 2**-d`` in units of ``2**e_a``. Its integer part is ``m_a + (m_b >> d)`` (a carry
  out of bit 63 means one more bit: shift right by one, the bit shifted out becomes the first
  bit below the last kept one) and its fraction is the bits of ``m_b`` shifted out, kept whole
  for ``d <= 64`` (they fit in 64 bits) and, for ``d > 64``, below half a unit and non-zero.
  Rounding to nearest even needs only "below half / exactly half / above half" of that
  remainder, which these bits give exactly. A round-up that overflows 64 bits gives ``2**63``
  with the exponent one higher.
* To double: keep the top 53 bits (fewer when the value is in the double subnormal range,
  ``< 2**-1022``: then the unit is ``2**-1074``) and round the rest to nearest even; a round-up
  to ``2**53`` moves to the next binade (and a subnormal rounding up to ``2**52`` units is the
  smallest normal, which the bit pattern ``q`` already encodes). Above ``DBL_MAX`` rounds to inf.

Negative, infinite or NaN summands are not handled: :func:`ld_add_bits` is only called on bit
patterns the caller checked with :func:`is_nonneg_finite`. ``tests/core/test_ld80.py`` checks
every function against numpy's ``longdouble`` (the reference), bit for bit.
"""
from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from ._jit import njit

#: numpy's (and C's) long double is the x87 80-bit format, the one emulated here.
X87 = bool(np.finfo(np.longdouble).nmant == 63 and np.finfo(np.longdouble).nexp == 15)

_FRAC = np.uint64((1 << 52) - 1)
_HID = np.uint64(1 << 52)
_TOP = np.uint64(1 << 63)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_LOW11 = np.uint64((1 << 11) - 1)
_LOW10 = np.uint64((1 << 10) - 1)
_B53 = np.uint64(1 << 53)
_SIGN_EXP = np.uint64(0xFFF << 52)
_EXP_ALL = np.uint64(0x7FF << 52)
#: The exponent of a zero accumulator (``m == 0``): below every double's, so that the first
#: summand is taken as it is without a branch.
ZERO_E = -(1 << 40)


@intrinsic
def f64_bits(typingctx, x):  # pragma: no cover (compiled)
    """The bits of a double as a ``uint64`` (an LLVM bitcast)."""
    sig = types.uint64(types.float64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return sig, codegen


@intrinsic
def bits_f64(typingctx, b):  # pragma: no cover (compiled)
    """The double whose bits are the ``uint64`` ``b`` (an LLVM bitcast)."""
    sig = types.float64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return sig, codegen


@njit(inline="always")
def is_nonneg_finite(b):
    """``b`` (a double's bits) is a finite double >= +0 (-0 is excluded too)."""
    return (b & _SIGN_EXP) < _EXP_ALL


@njit(inline="always")
def _normalise(mx, ex):
    """``(m, e)`` with bit 63 of m set, same value as ``mx * 2**ex`` (``mx > 0``)."""
    if mx >= _HID:  # a normal double's significand: 53 bits
        return mx << np.uint64(11), ex - 11
    while mx < _TOP:  # a subnormal double's
        mx = mx << _ONE
        ex -= 1
    return mx, ex


@njit(inline="always")
def ld_add_bits(m, e, b):
    """The long double ``m * 2**e`` plus the double with bits ``b`` (finite, >= 0), rounded as
    the x87 rounds it (nearest, ties to even, 64-bit significand). Zero is ``m == 0`` with
    ``e`` = :data:`ZERO_E` (any ``e`` far below the summands' exponents works the same way).

    Branch-free apart from the rare zero or subnormal summand: the rounding bits of probabilities
    are as good as random, so a branch on them would be mispredicted half the time."""
    ef = b >> np.uint64(52)
    if ef == _ZERO:
        if b == _ZERO:
            return m, e
        mb, eb = _normalise(b, -1074)
    else:
        mb = (b | _HID) << np.uint64(11)
        eb = np.int64(ef) - 1086
    # a = the larger exponent (a zero accumulator, exponent ZERO_E, is always b's partner)
    sw = e < eb
    ma = mb if sw else m
    ea = eb if sw else e
    mb = m if sw else mb
    d = ea - (e if sw else eb)
    # exact sum = ma + hi + frac * 2**-64 (units 2**ea); d > 64: below half a unit, rounds down
    small = d < 64
    hi = (mb >> np.uint64(d & 63)) if small else _ZERO
    frac = (mb << np.uint64((64 - d) & 63)) if (d > 0 and d <= 64) else _ZERO
    s = ma + hi
    c = np.uint64(s < ma)  # carry out of bit 63: the true sum is 2**64 + s, one bit more
    m2 = (s >> c) | (c << np.uint64(63))
    cm = _ZERO - c  # all ones on a carry
    half = ((s & cm) | ((frac >> np.uint64(63)) & ~cm)) & _ONE
    rest = np.uint64((frac << (_ONE - c)) != _ZERO)
    up = half & (rest | (m2 & _ONE))
    m3 = m2 + up
    ov = np.uint64(m3 == _ZERO)  # rounded up past 2**64 - 1: 2**63, one binade up
    return m3 | (ov << np.uint64(63)), ea + np.int64(c) + np.int64(ov)


@njit(inline="always")
def ld_to_double_bits(m, e):
    """The bits of the double nearest (ties to even) to the long double ``m * 2**e`` (>= 0)."""
    if m == _ZERO:
        return _ZERO
    E = e + 63  # 2**E <= value < 2**(E + 1)
    if E >= -1022:
        q = m >> np.uint64(11)
        half = (m >> np.uint64(10)) & _ONE
        rest = (m & _LOW10) != _ZERO
        if half != _ZERO and (rest or (q & _ONE) != _ZERO):
            q = q + _ONE
            if q == _B53:
                q = _HID
                E += 1
        if E > 1023:
            return _EXP_ALL  # inf
        return (np.uint64(E + 1023) << np.uint64(52)) | (q & _FRAC)
    drop = -1011 - E  # bits below the unit 2**-1074; >= 12 here
    if drop > 64:
        return _ZERO
    if drop == 64:
        q = _ZERO
        half = m >> np.uint64(63)
        rest = (m << _ONE) != _ZERO
    else:
        q = m >> np.uint64(drop)
        half = (m >> np.uint64(drop - 1)) & _ONE
        rest = (m << np.uint64(65 - drop)) != _ZERO
    if half != _ZERO and (rest or (q & _ONE) != _ZERO):
        q = q + _ONE  # 2**52 units: the smallest normal, whose bits are q itself
    return q


@njit(inline="always")
def ld_ge(m, e, threshold_bits):
    """``double(m * 2**e) >= threshold`` for a finite threshold ``>= 0`` given by its bits (the
    order of non-negative doubles is the order of their bit patterns)."""
    return ld_to_double_bits(m, e) >= threshold_bits


@njit(nogil=True, cache=True)
def ld_cumsum_bits(bits, out):
    """``out[i]`` = the bits of ``double(sum(v[:i+1]))``, summed in long double, for ``v`` given
    by its bits (each finite and >= 0). Returns -1, or the first index whose summand is not."""
    m = _ZERO
    e = np.int64(ZERO_E)
    for i in range(bits.shape[0]):
        b = bits[i]
        if not is_nonneg_finite(b):
            return i
        m, e = ld_add_bits(m, e, b)
        out[i] = ld_to_double_bits(m, e)
    return -1


def ld_cumsum(v: np.ndarray) -> np.ndarray:
    """``np.cumsum(v.astype(np.longdouble)).astype(np.float64)`` for finite ``v >= 0`` (tests)."""
    v = np.ascontiguousarray(v, dtype=np.float64)
    out = np.empty(v.size, dtype=np.uint64)
    bad = ld_cumsum_bits(v.view(np.uint64), out)
    if bad >= 0:
        raise ValueError(f"ld_cumsum: v[{bad}] = {v[bad]!r} is not a finite number >= 0")
    return out.view(np.float64)
