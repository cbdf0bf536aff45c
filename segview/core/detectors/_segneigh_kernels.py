"""Segment neighbourhood (:mod:`.segneigh`): the dynamic programme one layer range at a time.

Row ``r`` of ``like`` is R changepoint's ``like.Q[r + 1, ]``: ``like[0, j]`` is the cost of ``x[0..j]``
and ``like[r, j] = max_v like[r - 1, v] + seg(v + 1, j)`` (the first maximiser, as ``np.argmax``:
the first NaN if any, else the first maximum), ``back[r, j]`` its ``v + 1``. Layer ``r`` needs
only layer ``r - 1``, so a cached table grows by the new rows alone when a ``max_segments`` slider
asks for more segments (:class:`.segneigh.Layers`).

The segment costs ``seg(i, j) = -0.5 * (sum x^2 - (sum x)^2 / m)`` come from running double sums
``acc_s[i] = x[i] + ... + x[j]`` updated as ``j`` grows, exactly as
:func:`.segneigh.segment_neighbourhood` does with numpy: the same additions in the same order, so a
value depends only on ``(i, j)`` and every row range gives bitwise the values of one pass over all
rows. :func:`extend_numba` is the compiled kernel (``nogil``), :func:`extend_numpy` the plain exact
path (vectorised per column, as the original code).
"""
from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ._jit import njit


@njit(nogil=True, cache=True)
def extend_numba(x, like, back, acc_s, acc_q, r0, r1, j0, j1):  # pragma: no cover (compiled)
    """Fill rows ``r0..r1-1`` of ``like``/``back`` for columns ``j0..j1-1``.

    ``acc_s``/``acc_q`` hold the running sums up to column ``j0 - 1`` for indices ``i >= r0``
    (zeros before the first column) and are advanced to ``j1 - 1``."""
    lo = r0
    col = np.empty(x.size)
    for j in range(j0, j1):
        xj = x[j]
        xq = xj * xj
        for i in range(lo, j + 1):
            acc_s[i] += xj
            acc_q[i] += xq
            s = acc_s[i]
            col[i] = -0.5 * (acc_q[i] - (s * s) / (j + 1.0 - i))
        if r0 == 0:
            like[0, j] = col[0]
        top = min(r1, j + 1)
        for r in range(max(r0, 1), top):
            # cand[t] = like[r-1, r-1+t] + seg(r+t, j), t = 0..j-r
            prev = like[r - 1]
            k = 0
            best = prev[r - 1] + col[r]
            if best == best:
                for t in range(1, j - r + 1):
                    v = prev[r - 1 + t] + col[r + t]
                    if v != v:  # np.argmax: the first NaN
                        k = t
                        best = v
                        break
                    if v > best:
                        k = t
                        best = v
            like[r, j] = best
            back[r, j] = k + r


def extend_numpy(x, like, back, acc_s, acc_q, r0, r1, j0, j1) -> None:
    """:func:`extend_numba`'s plain twin: the same sums, per column with numpy."""
    lo = r0
    for j in range(j0, j1):
        xj = x[j]
        acc_s[lo: j + 1] += xj
        acc_q[lo: j + 1] += xj * xj
        s = acc_s[: j + 1]
        length = np.arange(j + 1, 0, -1, dtype=np.float64)
        col = np.zeros(j + 1)
        col[lo:] = -0.5 * (acc_q[lo: j + 1] - (s[lo:] * s[lo:]) / length[lo:])
        if r0 == 0:
            like[0, j] = col[0]
        for r in range(max(r0, 1), min(r1, j + 1)):
            cand = like[r - 1, r - 1: j] + col[r: j + 1]
            k = int(np.argmax(cand))
            like[r, j] = cand[k]
            back[r, j] = k + r


def extend(x: NDArray[np.float64], like: NDArray[np.float64], back: NDArray[np.int64],
           r0: int, r1: int, check, compiled: bool = True, block: int = 256) -> None:
    """Rows ``r0..r1-1`` (rows before ``r0`` filled) over every column, ``check()`` between
    blocks of ``block`` columns (the cancel point)."""
    n = x.size
    acc_s = np.zeros(n)
    acc_q = np.zeros(n)
    fn = extend_numba if compiled else extend_numpy
    for j0 in range(0, n, block):
        check()
        fn(x, like, back, acc_s, acc_q, r0, r1, j0, min(n, j0 + block))
