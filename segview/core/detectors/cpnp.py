"""Nonparametric PELT with the empirical-distribution cost, detector ``cpnp`` (docs/algorithms/cpnp.md).

Haynes, Fearnhead & Eckley (2017): a segment's cost is minus its log-likelihood under its own
empirical distribution function, evaluated at ``K`` quantiles of the whole series and integrated
with weights that favour the tails. With ``F`` the fraction of the segment below a quantile (ties
count one half), the cost of a segment of length ``m`` is
``-2 ln(2n - 1) / K * sum_k m (F ln F + (1 - F) ln(1 - F))``; PELT (Killick et al. 2012) minimises
the sum of costs plus ``penalty`` per change point. The quantiles are the order statistics at
probabilities ``1 / (1 + (2n - 1)^(-y_k))``, ``y_k = -1 + (2k - 1) / K``.

This is R ``changepoint.np`` 0.0.2's ``cpt.np`` (``method="PELT"``, ``test.stat =
"empirical_distribution"``) as TCPDBench runs it: ``nquantiles = 10``, ``minseglen = 1``, penalty
MBIC. In that version MBIC is only the penalty ``3 ln n``: its ``mbic`` cost function adds nothing
to the segment costs (unlike R changepoint's), and this detector does the same. The PELT loop is the
package's C loop (first minimum, pruning ``F(tau) + C + pen > F(t) + pen``), with a screening
that leaves every bit as it was (:mod:`._cpnp_kernels`). Because the cost depends
only on the ranks of the data, the detector is invariant under increasing transformations (up to
floating-point ties after scaling).

Version 2's default multiplies that penalty by ``penalty_factor = 5`` (15 ln n): the package's
``3 ln n`` floods real benchmark series (issue 28's JMH rule: 90th percentile 2.27 % of n, up to 6.43 %;
docs/defaults.md). TCPDBench's configuration, version 1's default up to last-bit rounding, is the
preset ``tcpdbench`` (``penalty_factor = 1``, ``rule = "changepoint"``), bit for bit.

Index convention: 0-based index of the first sample of each new segment (R ``cpts()`` without n).
"""
from __future__ import annotations

import math

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..context import RunContext
from ..errors import InputError
from ..params import ParamSpec, Params, Preset
from ..registry import Cost, DetectorSpec, register
from ..result import DetectionResult
from ..lazy import lazy_module
from . import _costs
from ._scale import SCALE_MODES
from .partition import prepare_values

if TYPE_CHECKING:
    from . import _cpnp_kernels as _ck
else:
    _ck = lazy_module("._cpnp_kernels", __package__)  # listing detectors imports no numba


def quantile_counts(y: NDArray[np.float64], nquantiles: int) -> NDArray[np.float64]:
    """The package's summary statistic: ``Q[k, t]`` = number of ``y[0:t]`` below quantile k plus
    half the number equal to it, shape ``(K, n + 1)`` with ``K = min(nquantiles, n)``."""
    y = np.asarray(y, dtype=np.float64)
    n = y.size
    K = min(int(nquantiles), n)
    x = np.sort(y)
    c = -math.log(2 * n - 1)
    Q = np.zeros((K, n + 1))
    for i in range(1, K + 1):
        yk = -1.0 + ((2.0 * i) / K - 1.0 / K)
        pk = 1.0 / (1.0 + math.exp(c * yk))
        j = int((n - 1) * pk + 1)  # R's as.integer truncates; 1-based order statistic
        q = x[j - 1]
        Q[i - 1, 1:] = np.cumsum(y < q) + 0.5 * np.cumsum(y == q)
    return Q


def cpnp(y: NDArray[np.float64], penalty: float | str = "mbic", nquantiles: int = 10,
         min_size: int = 1, rule: str = "changepoint", penalty_factor: float = 1.0
         ) -> tuple[list[int], float, float]:
    """``(change points, penalty used, penalised cost)`` of the nonparametric PELT on ``y``
    (the penalty used is the resolved ``penalty`` times ``penalty_factor``)."""
    y = np.asarray(y, dtype=np.float64)
    n = y.size
    if n < 2:
        raise InputError("cpnp", "needs at least 2 observations")
    if n < 2 * min_size:
        raise InputError("cpnp", f"min_size={min_size} is too large for {n} observations")
    beta, _ = _costs.resolve_penalty(penalty, n, "l2")  # mbic: 3 ln n only (package 0.0.2)
    if penalty_factor != 1.0:  # 1: the package's beta bit for bit
        beta *= float(penalty_factor)
    Q = quantile_counts(y, nquantiles)
    like, last = _ck.pelt_ed(Q, beta, int(min_size), -2.0 * math.log(2 * n - 1),
                         exact=(rule == "changepoint"))
    cps, t = [], n
    while t != 0:
        t = int(last[t])
        if t:
            cps.append(t)
    return sorted(cps), beta, float(like[n])


def _run(values: NDArray[np.float64], params: Params, ctx: RunContext) -> DetectionResult:
    y, _, notes = prepare_values(values, {**params, "noise_scale": False})
    ctx.check()
    cps, beta, cost = cpnp(y, params["penalty"], params["nquantiles"], params["min_size"],
                           params["rule"], params["penalty_factor"])
    stats = {"penalty": beta, "penalized_cost": cost,
             "nquantiles": min(params["nquantiles"], y.size)}
    if params["penalty_factor"] == DEFAULT_PENALTY_FACTOR:
        notes = (*notes, f"penalty times {DEFAULT_PENALTY_FACTOR:g}: cpnp version 2's default "
                         "(docs/defaults.md); version 1 used the package's penalty (the preset "
                         "tcpdbench, bit for bit)")
    return DetectionResult("cpnp", params, np.asarray(cps, dtype=np.int64), stats=stats,
                           notes=notes)


#: version 2's default factor on the penalty (measured on the 350 JMH and 12 TCPD series)
DEFAULT_PENALTY_FACTOR = 5.0

CPNP_PARAMS: tuple[ParamSpec, ...] = (
    ParamSpec("scale", "str", "zscore", choices=SCALE_MODES,
              help="Transform before detection (zscore = R's scale(), as TCPDBench). The cost uses "
                   "ranks only, so this changes nothing except floating-point ties."),
    ParamSpec("penalty", "float", "mbic", low=0.0, high=1e6, step=0.5, log=True,
              aliases=_costs.PENALTY_NAMES,
              help="Cost of one extra change point, or a criterion name resolved with the series "
                   "length (mbic = 3 ln n, as changepoint.np 0.0.2: no per-segment term)."),
    ParamSpec("penalty_factor", "float", DEFAULT_PENALTY_FACTOR, low=0.0, high=1000.0, step=0.5,
              help="Multiplies the penalty (default 5: 15 ln n with mbic, chosen by measurement, "
                   "docs/defaults.md; 1 = the package's and TCPDBench's)."),
    ParamSpec("nquantiles", "int", 10, low=1, high=10_000, step=1,
              help="Number of quantiles K at which segment distributions are compared (at most "
                   "n; TCPDBench: 10). More resolve finer distribution changes, cost time."),
    ParamSpec("min_size", "int", 1, low=1, high=100_000, step=1, unit="samples",
              help="Minimum segment length (R's minseglen; TCPDBench: 1)."),
    ParamSpec("rule", "str", "segview", choices=("segview", "changepoint"),
              help="segview: logarithms from a table (equal up to last-bit rounding); "
                   "changepoint: the C library log in R's order, bit for bit (the tcpdbench "
                   "preset). Both about as fast: most candidates are decided by a rounding-"
                   "bounded screen, the rule's cost only where it cannot decide."),
)


def _min_length(p: Params) -> int:
    return max(2, 2 * int(p["min_size"]))


def cost(n: int, p: Params) -> Cost:
    """Time and memory of a run (read by segview.core.limits): PELT over the empirical-distribution
    cost, ``nquantiles`` prefix sums per candidate; quadratic when pruning fails, and the
    ``nquantiles x n`` table of counts (as floats and as the kernel's integers), the two log
    tables of ``2n`` entries and the kernel's per-candidate arrays."""
    k = int(p.get("nquantiles", 10))
    return Cost.of_steps(0.5 * k * float(n) * n, 16.0 * k * n + 96.0 * n,
                         f"nonparametric PELT is quadratic in the length when it cannot prune: "
                         f"{n} samples with nquantiles={k} are up to {0.5 * k * float(n) * n:.0e} "
                         "steps (minutes to hours)")


register(DetectorSpec(
    cost=cost,
    name="cpnp", label="Nonparametric PELT (cpnp)", version="2", produces="change_points",
    params=CPNP_PARAMS, run=_run, min_length=_min_length, affine_invariant=True,
    presets=(Preset("tcpdbench", {"scale": "zscore", "penalty": "mbic", "penalty_factor": 1.0,
                                  "nquantiles": 10, "min_size": 1, "rule": "changepoint"},
                    help="TCPDBench default experiment: R scale(), changepoint.np 0.0.2 cpt.np "
                         "PELT, empirical distribution, 10 quantiles, MBIC, minseglen 1"),),
    citation="Haynes, Fearnhead & Eckley (2017), Statistics and Computing 27:1293-1305; R "
             "changepoint.np 0.0.2",
    description="PELT with a nonparametric empirical-distribution cost (changes in any aspect of "
                "the distribution, rank based), 10 quantiles, MBIC penalty times 5 (version 2; "
                "TCPDBench's 3 ln n is the preset tcpdbench). Known limits: with "
                "min_size 1 and few quantiles it tends to cut many short segments on discrete or "
                "heavily tied data; O(n^2) when the series has few changes.",
    enabled_by_default=False,
))
