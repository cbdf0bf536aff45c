"""Segment costs in O(1) from cumulative sums, and penalty names (``docs/algorithms/partition.md`` §1-§2).

Every search method in the package (OP, PELT, binary segmentation, and the PELT of CP-SSD) builds the
prefix sums once with :func:`prefix_sums` and evaluates a segment ``y[a:b]`` with the jitted
``segment_cost``, so that all variants produce bitwise-identical optimal costs. The kernel lives in
:mod:`._cost_kernels` (this module imports no numba); ``_costs.segment_cost`` still names it.

Costs (``kind`` codes, usable inside numba kernels):

* :data:`L2` -- squared error around the segment mean, ``q - s**2/m`` (no clamping; partition.md §1.1).
* :data:`NORMAL` -- twice the negative maximised Gaussian log-likelihood with unknown mean and
  variance, ``m*((ln 2pi + ln(max(var, 1e-11) + var_offset)) + 1)`` (partition.md §1.2).
* :data:`NORMAL_R` -- the same with R ``changepoint`` 2.2.2's floor rule (``var <= 0`` becomes 1e-11,
  small positive variances are kept) and no offset; with R's prefix sums it is bitwise the
  ``mll_meanvar`` of that package, so CP-SSD's emulation can use it.

``mbic`` adds ``ln(m)`` to each segment's cost (R ``changepoint``'s MBIC, partition.md §2).
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import ParameterError

L2 = 0
NORMAL = 1
NORMAL_R = 2
COSTS: dict[str, int] = {"l2": L2, "normal": NORMAL, "normal_r": NORMAL_R}
#: Parameters one extra change point adds, per cost (p_param of partition.md §2).
PARAMS_PER_CHANGE: dict[str, int] = {"l2": 1, "normal": 2, "normal_r": 2}
#: Smallest legal segment length per cost.
MIN_SEGMENT: dict[str, int] = {"l2": 1, "normal": 2, "normal_r": 2}
#: Variance floor of the normal cost (R changepoint).
VAR_FLOOR = 1e-11
_LOG_2PI = math.log(2.0 * math.pi)

#: Penalty names accepted wherever a penalty is a parameter (ParamSpec aliases; lower case).
PENALTY_NAMES: tuple[str, ...] = ("bic", "sic", "bic0", "sic0", "mbic", "aic", "hq",
                                  "hannan-quinn")


def prefix_sums(y: NDArray[np.float64], centre: bool = True
                ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Cumulative sums ``S`` and ``Q`` (length n+1) of the (centred) values and their squares.

    Args:
        y: the series.
        centre: subtract the mean first (costs are shift-invariant; centring avoids cancellation).
            Pass False to reproduce software that sums raw values (e.g. R ``changepoint``).
    """
    c = np.asarray(y, dtype=np.float64)
    if centre:
        c = c - c.mean()
    S = np.zeros(c.size + 1)
    Q = np.zeros(c.size + 1)
    np.cumsum(c, out=S[1:])
    np.cumsum(c * c, out=Q[1:])
    return S, Q


def check_cost(cost: str, min_size: int, method: str) -> None:
    """Raise ParameterError for an unknown cost or a min_size the cost cannot use."""
    if cost not in COSTS:
        raise ParameterError("cost", f"{cost!r} is not one of {', '.join(COSTS)}", method)
    need = MIN_SEGMENT[cost]
    if min_size < need:
        raise ParameterError("min_size", f"the {cost} cost needs segments of at least {need} "
                                         f"points, got min_size={min_size}", method)


def resolve_penalty(penalty: float | str, n: int, cost: str, dims: int = 1) -> tuple[float, bool]:
    """Turn a penalty value or name into ``(beta, mbic)`` for a series of length ``n``.

    Names follow R ``changepoint`` >= 2.2 (``docs/algorithms/partition.md`` §2) with ``p`` parameters per change
    (1 for l2, 2 for normal; times ``dims`` for a multivariate series): ``bic``/``sic`` = (p+1) ln n, ``bic0``/``sic0`` = p ln n,
    ``mbic`` = (p+2) ln n plus ln(segment length) in each segment's cost, ``aic`` = 2(p+1),
    ``hq``/``hannan-quinn`` = 2(p+1) ln ln n.

    Raises:
        ParameterError: unknown name or negative value.
    """
    if not isinstance(penalty, str):
        beta = float(penalty)
        if not beta >= 0.0 or not math.isfinite(beta):
            raise ParameterError("penalty", f"must be a finite number >= 0, got {penalty!r}")
        return beta, False
    name = penalty.strip().lower()
    p = PARAMS_PER_CHANGE[cost] * dims
    ln_n = math.log(max(n, 2))
    if name in ("bic", "sic"):
        return (p + 1) * ln_n, False
    if name in ("bic0", "sic0"):
        return p * ln_n, False
    if name == "mbic":
        return (p + 2) * ln_n, True
    if name == "aic":
        return 2.0 * (p + 1), False
    if name in ("hq", "hannan-quinn"):
        return 2.0 * (p + 1) * math.log(max(ln_n, 1.0)), False
    raise ParameterError("penalty", f"unknown penalty name {penalty!r} "
                                    f"(known: {', '.join(PENALTY_NAMES)})")


def __getattr__(name: str) -> Any:
    # the jitted segment cost lives in ._cost_kernels: listing detectors imports no numba
    if name == "segment_cost":
        from ._cost_kernels import segment_cost
        return segment_cost
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
