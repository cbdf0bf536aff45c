"""Pairwise statistical comparison of two methods' onset errors (``docs/algorithms/evaluation.md`` §2.3).

For methods A and B scored on the same series (same order): paired differences ``Δ = e_B - e_A``
(``= p_A - p_B``) get Shapiro–Wilk, skewness and the sign test; the error samples ``e_B`` and ``e_A``
are compared as unpaired samples by Cramér–von Mises, Kolmogorov–Smirnov, Anderson–Darling (k-sample,
midrank) and Levene (median centre, i.e. Brown–Forsythe). Benjamini–Hochberg adjusts the five
p-values of one family (sign, CvM, KS, AD, Levene) of one pair; families are the raw errors and the
absolute errors. With methods (KB-KSSD, CP-SSD) in that order this reproduces the paper's Table 1.
"""
from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from ..errors import InputError

Family = Literal["raw", "abs"]
BH_TESTS = ("sign", "cramer_von_mises", "kolmogorov_smirnov", "anderson_darling", "levene")


@dataclass(frozen=True)
class TestResult:
    """One test between two methods; ``p_adjusted`` is the BH value within its family."""

    method_a: str
    method_b: str
    family: Family
    test: str
    statistic: float
    p_value: float | None
    p_adjusted: float | None = None
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def sign_test(diff: ArrayLike) -> tuple[float, float, int, int]:
    """Two-sided sign test on paired differences (zeros dropped).

    Returns:
        (k/n, p, k, n) with ``k = #(diff > 0)`` and ``n = #(diff != 0)``; NaNs when ``n = 0``.
    """
    d = np.asarray(diff, dtype=np.float64)
    k, n = int((d > 0).sum()), int((d != 0).sum())
    if n == 0:
        return float("nan"), float("nan"), 0, 0
    p = float(stats.binomtest(k, n, p=0.5, alternative="two-sided").pvalue)
    return k / n, p, k, n


def benjamini_hochberg(p_values: ArrayLike) -> np.ndarray:
    """BH-adjusted p-values (NaNs pass through and are not counted)."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if ok.any():
        out[ok] = stats.false_discovery_control(p[ok], method="bh")
    return out


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _family(a: np.ndarray, b: np.ndarray, name_a: str, name_b: str,
            family: Family) -> list[TestResult]:
    diff = b - a
    res: list[TestResult] = []

    def add(test: str, stat: float, p: float | None, note: str = "") -> None:
        res.append(TestResult(name_a, name_b, family, test, float(stat),
                              None if p is None else float(p), None, note))

    if diff.size >= 3 and np.ptp(diff) > 0:
        sw = _quiet(stats.shapiro, diff)
        add("shapiro_wilk", sw.statistic, sw.pvalue, f"on {name_b} - {name_a}")
        add("skewness", _quiet(stats.skew, diff), None, f"of {name_b} - {name_a}")
    frac, p, k, n = sign_test(diff)
    add("sign", frac, p, f"k={k} of n={n} non-zero pairs have {name_b} > {name_a}")
    if np.ptp(np.concatenate([a, b])) > 0:
        cvm = _quiet(stats.cramervonmises_2samp, b, a)
        add("cramer_von_mises", cvm.statistic, cvm.pvalue)
        ks = _quiet(stats.ks_2samp, b, a)
        add("kolmogorov_smirnov", ks.statistic, ks.pvalue)
        ad = _quiet(stats.anderson_ksamp, [b, a], variant="midrank")
        add("anderson_darling", ad.statistic, ad.pvalue, "p interpolated, clipped to [0.001, 0.25]")
        lev = _quiet(stats.levene, b, a, center="median")
        add("levene", lev.statistic, lev.pvalue, "center=median (Brown-Forsythe)")
    fam = [r for r in res if r.test in BH_TESTS]
    adj = benjamini_hochberg([np.nan if r.p_value is None else r.p_value for r in fam])
    adjusted = {r.test: float(q) for r, q in zip(fam, adj)}
    return [TestResult(r.method_a, r.method_b, r.family, r.test, r.statistic, r.p_value,
                       adjusted.get(r.test), r.note) for r in res]


def compare_errors(e_a: ArrayLike, e_b: ArrayLike, name_a: str = "A",
                   name_b: str = "B") -> list[TestResult]:
    """All tests of §2.3 for the raw errors and for the absolute errors of two methods.

    Args:
        e_a, e_b: raw errors ``g - p`` of methods A and B on the same series, in the same order.

    Raises:
        InputError: different lengths or fewer than two series.
    """
    a = np.asarray(e_a, dtype=np.float64)
    b = np.asarray(e_b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise InputError("errors", f"{name_a} and {name_b} must be scored on the same series "
                                   f"({a.size} vs {b.size})")
    if a.size < 2:
        raise InputError("errors", f"{a.size} scored series; tests need at least two")
    return (_family(a, b, name_a, name_b, "raw")
            + _family(np.abs(a), np.abs(b), name_a, name_b, "abs"))
