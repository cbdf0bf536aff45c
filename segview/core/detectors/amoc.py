"""At most one change in mean, detector ``amoc`` (docs/algorithms/amoc.md).

The single-change likelihood-ratio test for a shift in the mean of Gaussian data with unit variance
(Hinkley 1970; Chen & Gupta 2000), as R ``changepoint`` 2.2.2's ``cpt.mean(method="AMOC")``
computes it. For every split ``tau`` the two-segment residual sum of squares is compared with the
one-segment one; the best split is kept when the drop ``null - alt`` reaches the penalty. Under MBIC
``ln(tau) + ln(n - tau + 1)`` is added to the two-segment cost first (the package's own formula: the
second term counts one sample more than the second segment has).

The package's particulars kept here: prefix sums accumulated like R's ``cumsum`` (80-bit), splits
``min_size <= tau <= n - min_size + 1`` (with ``min_size = 1`` the last one, ``tau = n``, is an
undefined 0/0 and skipped), the first minimiser on ties, and the asymptotic confidence of Chen & Gupta
(2000, p. 10) that R returns with ``class=FALSE``; it is the change point's strength here (undefined,
NaN, for ``n <= 15``, where ``ln ln ln n`` is not real).

Index convention: the change point is the 0-based index of the first sample of the second segment,
the same number as R's ``cpts()``.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..errors import InputError
from ..params import ParamSpec, Params, Preset
from ..registry import Cost, DetectorSpec, register
from ..result import DetectionResult, Track
from . import _costs
from ._scale import SCALE_MODES
from .partition import prepare_values


def amoc_statistics(y: NDArray[np.float64], min_size: int = 1, mbic: bool = True
                    ) -> tuple[int, float, float, NDArray[np.float64]]:
    """``(tau, null, alt, curve)`` of the single-change test on ``y``.

    ``curve[k]`` is the two-segment cost of the split at ``tau = min_size + k`` (NaN where it is
    undefined), ``tau`` its first minimiser, ``null`` the one-segment cost and ``alt`` the cost at
    ``tau`` plus, with ``mbic``, ``ln(tau) + ln(n - tau + 1)``.
    """
    from ._pelt_r import prefix_sums_r  # here: listing detectors imports no numba

    y = np.asarray(y, dtype=np.float64)
    n = y.size
    if n < 2:
        raise InputError("amoc", "needs at least 2 observations")
    if n < 2 * min_size:
        raise InputError("amoc", f"min_size={min_size} is too large for {n} observations")
    S, Q = prefix_sums_r(y)
    t = np.arange(min_size, n - min_size + 2, dtype=np.int64)
    tf = t.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        right = S[n] - S[t]
        curve = ((Q[t] - S[t] * S[t] / tf) + (Q[n] - Q[t])) - (right * right) / (n - tf)
    k = int(np.nanargmin(curve))
    tau = int(t[k])
    null = float(Q[n] - S[n] * S[n] / n)
    alt = float(curve[k])
    if mbic:
        alt = alt + math.log(tau) + math.log(n - tau + 1)
    return tau, null, alt, curve


def chen_gupta_confidence(n: int, null: float, alt: float) -> float:
    """The asymptotic confidence of a mean change (Chen & Gupta 2000, p. 10) as R computes it."""
    if n <= math.e ** math.e:  # ln ln ln n is not real: R returns NaN here
        return math.nan
    alogn = (2.0 * math.log(math.log(n))) ** -0.5
    blogn = 1.0 / alogn + 0.5 * alogn * math.log(math.log(math.log(n)))
    c = -2.0 * math.sqrt(math.pi)
    return (math.exp(c * math.exp(-alogn * math.sqrt(abs(null - alt)) + blogn / alogn))
            - math.exp(c * math.exp(blogn / alogn)))


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    y, factor, notes = prepare_values(values, {**params, "noise_scale": False})
    n = y.size
    beta, mbic = _costs.resolve_penalty(params["penalty"], n, "l2")
    tau, null, alt, curve = amoc_statistics(y, params["min_size"], mbic)
    statistic = null - alt
    conf = chen_gupta_confidence(n, null, alt)
    found = statistic >= beta
    cps = np.array([tau] if found else [], dtype=np.int64)
    t = np.arange(params["min_size"], params["min_size"] + curve.size, dtype=np.float64)
    track = Track("cost reduction", null - curve, x=t)
    stats = {"penalty": beta, "statistic": statistic, "tau": tau, "null": null, "alt": alt,
             "confidence": conf}
    if mbic:
        notes += ("MBIC: ln(tau) + ln(n - tau + 1) added to the two-segment cost",)
    return DetectionResult("amoc", params, cps, tracks=(track,), stats=stats, notes=notes,
                           strengths=np.array([conf]) if found else np.zeros(0),
                           strength_label="Chen-Gupta confidence")


AMOC_PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec("scale", "str", "zscore", choices=SCALE_MODES,
              help="Units the test sees: zscore (R's scale(), as TCPDBench), robust (median 0, "
                   "white-noise sd 1) or none (the raw values, as R changepoint on its own)."),
    ParamSpec("penalty", "float", "mbic", low=0.0, high=1e6, step=0.5, log=True,
              aliases=_costs.PENALTY_NAMES,
              help="Smallest cost reduction that counts as a change, or a criterion name resolved "
                   "with the series length (mbic: 3 ln n and ln(tau) + ln(n - tau + 1) added to "
                   "the two-segment cost, as R changepoint)."),
    ParamSpec("min_size", "int", 1, low=1, high=100_000, step=1, unit="samples",
              help="Smallest first segment (R's minseglen; the second may be one shorter, as in "
                   "R changepoint 2.2.2)."),
)


def _min_length(p: Params) -> int:
    return max(2, 2 * int(p["min_size"]))


def cost(n: int, p: Params) -> Cost:
    """Time and memory of a run (read by segview.core.limits): one pass of prefix sums and one
    vectorised scan of the split points, linear in the length."""
    return Cost.of_steps(20.0 * n, 48.0 * n)


register(DetectorSpec(
    cost=cost,
    name="amoc", label="At most one change (AMOC)", version="1", produces="change_points",
    params=AMOC_PARAMS, run=_run, min_length=_min_length, affine_invariant=True,
    presets=(Preset("tcpdbench", {"scale": "zscore", "penalty": "mbic", "min_size": 1},
                    help="TCPDBench default experiment: R scale(), cpt.mean AMOC, Normal, MBIC"),
             Preset("faithful", {"scale": "none", "penalty": "mbic", "min_size": 1},
                    help="R changepoint's cpt.mean defaults on the raw values (AMOC, MBIC)")),
    citation="Hinkley (1970), Biometrika 57(1):1-17; Chen & Gupta (2000), Parametric Statistical "
             "Change Point Analysis; R changepoint 2.2.2 (Killick & Eckley 2014)",
    description="Single change in mean: the best split by residual sum of squares, kept when its "
                "cost reduction reaches the penalty (MBIC by default), on z-scored values. Its "
                "strength is Chen & Gupta's asymptotic confidence. Known limits: at most one change "
                "(a series with several finds the dominant one); unit noise variance assumed after "
                "scaling, so a shift in variance alone is not a change.",
    enabled_by_default=False,
))
