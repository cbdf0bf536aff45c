"""Robust FPOP with the biweight loss, detector ``rfpop`` (Fearnhead & Rigaill 2019, JASA 114:169-183).

Specification
=============

Model. A change in mean with outliers: the cost of a segment ``y[a:b]`` is
``C(a, b) = min_theta sum_{a <= i < b} gamma(y_i - theta)`` with the biweight loss
``gamma(x) = min(x^2, K^2)``: a point further than ``K`` from its segment's level costs ``K^2`` however
far it is, so a single spike can never pay for a change point pair around it. The optimum over all
segmentations minimises ``sum of segment costs + beta * (number of changes)``; segments have at least
one point. It is found exactly by the functional recursion of the paper (section 3):
``Q_t(theta) = min(Q_{t-1}(theta), F(t-1) + beta) + gamma(y_t - theta)``, ``F(t) = min_theta Q_t``, with
``Q_t`` held exactly as a list of quadratic pieces over the data range (:mod:`._rfpop_kernels`).

Scale. The loss is scale-aware as the paper prescribes (``K`` and ``beta`` in units of the noise
standard deviation sigma): the data are standardised to ``z = (y - median y) / sigma`` with
``sigma = noise_sd(y)`` (``_scale.noise_sd``: MAD of first differences, unaffected by shifts and
spikes) unless ``sigma`` is given. Then ``threshold`` is ``K`` in units of sigma and ``penalty`` times
``penalty_factor`` is ``beta`` in units of sigma^2 (``bic`` = 2 ln n). The paper recommends K = 3 and
``2 sigma^2 log n`` (presets ``faithful`` and ``tcpdbench``, version 1's default); on autocorrelated
benchmark series the MAD of differences underestimates the noise and that configuration floods (a
median of 44.5 change points per 3,000-point JMH series), so version 2 defaults to K = 2 and
``penalty_factor`` 4 (8 ln n), chosen by measurement (``docs/defaults.md``). Because ``gamma_{K sigma}(sigma x) = sigma^2 gamma_K(x)``, this is the exact
optimum of the biweight problem in the data's units with ``K = threshold * sigma`` and
``beta = penalty * sigma^2``, and the result is invariant under ``a * y + b`` (``a > 0``).
``stats["optimal_cost"]`` holds ``F(1..n)`` in the standardised units.

Ties. Among equally good last changes the smallest start is kept (as ``op``'s default).

Expected segmentation on a JMH series with spikes (a test checks it). The bundled sample
``resources/sample/jmh/s0141.json`` (3000 iterations of a JMH benchmark, values around 1.6e-3 s with a
noise sd about 4.3e-6 s) sits about 26 sigma above its final level for its first ~520 iterations, then
drops; the judges' labels of this series put the change at 519-529. It carries isolated spikes of 5 to
175 sigma (e.g. at iterations 0, 1150-1199, ...) on which the L2 cost (``pelt``, ``scale="robust"``,
``penalty="bic"``) cuts one- and two-point segments. With the ``faithful`` preset ``rfpop`` must report:

1. a change point within 515..530 (the level shift);
2. no segment shorter than 5 iterations (no spike cut out), in particular no change at 1 or 2;
3. fewer than a third of the change points of L2 PELT with the same penalty in the same units
   (``scale="robust", penalty="bic", min_size=1``: 72 change points, 29 segments shorter than 5).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..lazy import lazy_module
from ..params import ParamSpec, Params, Preset
from ..registry import Cost, DetectorSpec, register
from ..result import DetectionResult
from . import _costs
from ._scale import noise_sd

if TYPE_CHECKING:
    from . import _partition_kernels as _pk, _rfpop_kernels as _rk
else:
    _rk = lazy_module("._rfpop_kernels", __package__)
    _pk = lazy_module("._partition_kernels", __package__)

_STEPS_PER_CALL = 1 << 16
_Z_MAX = 1e100


def biweight_partition(y: NDArray[np.float64], beta: float, K: float,
                       ctx: RunContext | None = None
                       ) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.int64]]:
    """``(change points, F, last)`` of the exact biweight segmentation of ``y`` as given (no
    standardisation): loss ``min((y - theta)^2, K^2)``, penalty ``beta``, ``F[0] = -beta``."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    n = y.size
    F = np.empty(n + 1)
    last = np.full(n + 1, -1, dtype=np.int64)
    F[0] = -beta
    if n == 0:
        return np.zeros(0, np.int64), F, last
    lo, hi = float(y.min()), float(y.max())
    if hi <= lo:
        hi = lo + 1.0
    P = np.empty((64, 6))
    W = np.empty((64, 6))
    cnt = np.zeros(1, dtype=np.int64)
    t = 1
    while t <= n:
        if ctx is not None:
            ctx.check()
        t_to = min(n + 1, t + _STEPS_PER_CALL)
        P, W = _rk.rfpop_biweight_advance(y, float(K), float(beta), lo, hi, F, last, t, t_to, P, W,
                                          cnt)
        t = t_to
        if ctx is not None:
            ctx.progress(t / (n + 1))
    return _pk.backtrack(last, n), F, last


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    y = np.asarray(values, dtype=np.float64)
    n = y.size
    sigma = params["sigma"] if params["sigma"] is not None else noise_sd(y)
    with np.errstate(over="ignore", invalid="ignore"):
        z = (y - float(np.median(y))) / sigma
    notes: tuple[str, ...] = ()
    if not np.all(np.abs(z) <= _Z_MAX):  # a noise sd tiny against the range: clip (squares overflow)
        z = np.clip(np.nan_to_num(z, nan=0.0), -_Z_MAX, _Z_MAX)
        notes = (f"standardised values clipped to +-{_Z_MAX:g} noise sds",)
    beta, _ = _costs.resolve_penalty(params["penalty"], n, "l2")
    if params["penalty"] == "mbic" or (isinstance(params["penalty"], str)
                                       and params["penalty"].lower() == "mbic"):
        beta = 3.0 * math.log(max(n, 2))  # mbic's ln(length) term has no place in this cost
    beta *= float(params["penalty_factor"])
    K = float(params["threshold"])
    cps, F, last = biweight_partition(z, beta, K, ctx)
    bounds = [0, *map(int, cps), n]
    stats = {
        "optimal_cost": F[1:].copy(),
        "penalized_cost": float(F[n]),
        "penalty": beta,
        "sigma": float(sigma),
        "threshold_data_units": K * float(sigma),
        "segments": list(zip(bounds[:-1], bounds[1:])),
        "last": last[1:].copy(),
    }
    notes += (f"biweight loss, K = {K:g} sigma, sigma = {sigma:.6g}, penalty {beta:.4g} sigma^2",)
    return DetectionResult("rfpop", params, cps, stats=stats, notes=notes)


def cost(n: int, p: Params) -> Cost:
    """Time and memory of one run (read by segview.core.limits): functional pruning keeps a few
    intervals per candidate, near-linear in the length."""
    return Cost.of_steps(100.0 * n, 96.0 * n)


#: The paper's (and TCPDBench's) configuration: version 1's default, bit for bit.
FAITHFUL = {"penalty": "bic", "penalty_factor": 1.0, "threshold": 3.0, "sigma": None}

RFPOP = register(DetectorSpec(
    cost=cost,
    name="rfpop", label="Robust FPOP (biweight)", version="2", produces="change_points",
    params=(
        ParamSpec("penalty", "float", "bic", low=0.0, high=1e6, step=0.5, log=True,
                  aliases=("bic", "sic", "bic0", "sic0", "aic", "hq", "hannan-quinn"),
                  help="Cost of one extra change point in units of the noise variance, before "
                       "penalty_factor (bic = 2 ln n, the paper's 2 sigma^2 log n)."),
        ParamSpec("penalty_factor", "float", 4.0, low=0.0, high=1000.0, step=0.5,
                  help="Multiplies the penalty (default 4: 8 ln n noise variances, chosen by "
                       "measurement, docs/defaults.md; 1 = the paper's)."),
        ParamSpec("threshold", "float", 2.0, low=0.1, high=1000.0, step=0.1, unit="sigma",
                  help="Biweight threshold K in noise sds: a point further than K from its "
                       "segment's level costs K^2, however far (default 2, measured; the "
                       "paper's 3)."),
        ParamSpec("sigma", "float", None, low=1e-300, high=1e300, optional=True,
                  help="Noise sd the threshold and penalty are measured in; automatic means "
                       "the MAD of first differences (robust to shifts and spikes)."),
    ),
    run=_run, min_length=1, affine_invariant=True,
    presets=(Preset("faithful", FAITHFUL,
                    help="the paper's K = 3 and penalty 2 ln n (version 1's default)"),
             Preset("tcpdbench", FAITHFUL,
                    help="TCPDBench default experiment: robseg biweight, K = 3, penalty "
                         "2 ln n noise variances (the paper's)")),
    citation="Fearnhead & Rigaill (2019), JASA 114(525):169-183",
    description="Exact penalised change-in-mean segmentation robust to outliers (biweight loss, "
                "functional pruning); isolated spikes are not cut out as segments. Default "
                "(version 2, docs/defaults.md): threshold K = 2 and penalty 8 ln n, both in units "
                "of the noise sd (MAD of first differences), so results do not depend on the "
                "data's units; the paper's K = 3 and 2 ln n (version 1's default) flood "
                "autocorrelated benchmark series and are the presets faithful and tcpdbench. "
                "Known limits: "
                "a shift smaller than about K noise sds, or a run of outliers as long as a real "
                "segment, is not told apart from noise; a sigma far below the noise makes every "
                "point an outlier and the search slow.",
))
