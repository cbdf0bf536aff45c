"""Single-parameter PMNF hypothesis search, as used by Extra-P's segmented modeler.

Spec: ``docs/algorithms/nrss.md`` §2 (Extra-P 4.2.5 ``SingleParameterModeler`` with its defaults). A
hypothesis is ``f(x) = c0 + c1 * x^i * log2(x)^j`` with one ``(i, j)`` pair out of 42 (list order
matters for ties), scored by leave-one-out cross-validation (SMAPE decides, the running-PRESS nRSS is
reported). The constant model is the baseline.

Code paths:

* :func:`fit_best` / :func:`fit_best_paper` -- one point set; :func:`fit_sets_windows` -- every sliding
  window of a point set. Both run the numba kernels of :mod:`._pmnf_kernels` on term values computed
  once per x (cached across windows). ``fit_best_reference`` / ``fit_best_paper_reference`` are the
  former ``numpy.linalg.lstsq`` per LOO fold paths, kept as the tests' and benchmark's reference.
* :func:`window_nrss` -- the nRSS of the best hypothesis for every sliding window of a long series with
  local x = 1..k (scan mode, nrss.md §9.2): every LOO fit is a fixed linear combination of the window's
  values, so all windows are solved at once with matrix products.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

_F = Fraction
#: The 42 (i, j) exponent pairs of Extra-P's default single-parameter search space, in search order.
EXPONENTS: tuple[tuple[Fraction, int], ...] = (
    (_F(0), 1), (_F(0), 2), (_F(1, 4), 0), (_F(1, 3), 0), (_F(1, 4), 1), (_F(1, 3), 1),
    (_F(1, 4), 2), (_F(1, 3), 2), (_F(1, 2), 0), (_F(1, 2), 1), (_F(1, 2), 2), (_F(2, 3), 0),
    (_F(3, 4), 0), (_F(2, 3), 1), (_F(3, 4), 1), (_F(4, 5), 0), (_F(2, 3), 2), (_F(3, 4), 2),
    (_F(1), 0), (_F(1), 1), (_F(1), 2), (_F(5, 4), 0), (_F(5, 4), 1), (_F(4, 3), 0),
    (_F(4, 3), 1), (_F(3, 2), 0), (_F(3, 2), 1), (_F(3, 2), 2), (_F(5, 3), 0), (_F(7, 4), 0),
    (_F(2), 0), (_F(2), 1), (_F(2), 2), (_F(9, 4), 0), (_F(7, 3), 0), (_F(5, 2), 0),
    (_F(5, 2), 1), (_F(5, 2), 2), (_F(8, 3), 0), (_F(11, 4), 0), (_F(3), 0), (_F(3), 1),
)
#: Extra-P's tolerances: constant cleaning in LOO fits, minimal term contribution.
CLEAN_TOL = 5e-4
CONTRIB_TOL = 5e-4


def term_values(x: NDArray[np.float64], i: Fraction, j: int) -> NDArray[np.float64]:
    """``x^i * log2(x)^j`` evaluated with float exponents (as the reference does)."""
    with np.errstate(all="ignore"):
        t = np.ones_like(x, dtype=np.float64)
        if i != 0:
            t = t * np.power(x, float(i))
        if j != 0:
            t = t * np.power(np.log2(x), j)
    return t


def term_string(i: Fraction, j: int, var: str = "p") -> str:
    """Human-readable term, e.g. ``p^(1/2)*log2(p)^2``; empty for the constant."""
    parts = []
    if i != 0:
        if i == 1:
            parts.append(var)
        elif i.denominator == 1:
            parts.append(f"{var}^{i.numerator}")
        else:
            parts.append(f"{var}^({i.numerator}/{i.denominator})")
    if j != 0:
        parts.append(f"log2({var})" + (f"^{j}" if j != 1 else ""))
    return "*".join(parts)


def _num(v: float) -> str:
    text = f"{v:.6g}"
    return "0" if text in ("-0", "0") else text


@dataclass(frozen=True)
class Hypothesis:
    """A fitted single-parameter model ``c0 + c1 * x^i * log2(x)^j`` (``i = j = 0``: constant)."""

    c0: float
    c1: float
    i: Fraction
    j: int
    nrss: float
    smape: float
    press: float
    constant: bool

    def evaluate(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        x = np.asarray(x, dtype=np.float64)
        if self.constant:
            return np.full_like(x, self.c0)
        return self.c0 + self.c1 * term_values(x, self.i, self.j)

    def formula(self, var: str = "p", scale: float | None = None) -> str:
        """Readable formula, e.g. ``30 + p`` or ``-8.86 + 6.51*p^(1/2)*log2(p)``.

        Coefficients are shown with 6 significant digits; ``c0`` is left out when it is negligible
        (below ``1e-9 * scale``, ``scale`` defaulting to ``|c0| + |c1|``) and ``c1 = 1`` is implicit.
        """
        if self.constant:
            return _num(self.c0)
        term = term_string(self.i, self.j, var)
        c1 = _num(self.c1)
        body = term if c1 == "1" else ("-" + term if c1 == "-1" else f"{c1}*{term}")
        ref = scale if scale is not None else abs(self.c0) + abs(self.c1)
        if abs(self.c0) <= 1e-9 * ref or _num(self.c0) == "0":
            return body
        if body.startswith("-"):
            return f"{_num(self.c0)} - {body[1:]}"
        return f"{_num(self.c0)} + {body}"

    def as_dict(self, var: str = "p") -> dict[str, object]:
        return {"formula": self.formula(var), "c0": self.c0, "c1": self.c1,
                "term": term_string(self.i, self.j, var) if not self.constant else "",
                "i": str(self.i), "j": self.j, "nrss": self.nrss, "smape": self.smape}


def constant_model(y: NDArray[np.float64]) -> Hypothesis:
    """The constant model with its in-sample scores (nrss.md §2.2)."""
    n = y.size
    c = float(np.mean(y))
    d = c - y
    rss = float(np.sum(d * d))
    den = np.abs(y) + abs(c)
    ok = den > 0
    smape = float(100.0 / n * np.sum(2 * np.abs(d[ok]) / den[ok]))
    with np.errstate(all="ignore"):
        nrss = math.sqrt(rss) / c if c != 0 else math.nan
    return Hypothesis(c, 0.0, _F(0), 0, nrss, smape, rss, True)


def _lstsq2(a: NDArray[np.float64], y: NDArray[np.float64]) -> tuple[float, float]:
    coef = np.linalg.lstsq(a, y, rcond=None)[0]
    return float(coef[0]), float(coef[1])


def _score_candidate(x: NDArray[np.float64], y: NDArray[np.float64], t: NDArray[np.float64]
                     ) -> tuple[float, float, float, float, float]:
    """LOO PRESS, nRSS, SMAPE and the full-data coefficients of one candidate (nrss.md §2.3)."""
    n = y.size
    a_full = np.column_stack((np.ones(n), t))
    press = nrss = smape = 0.0
    keep = np.ones(n, dtype=bool)
    with np.errstate(all="ignore"):
        for k in range(n):
            keep[k] = False
            ytr = y[keep]
            try:
                c0, c1 = _lstsq2(a_full[keep], ytr)
            except np.linalg.LinAlgError:
                c0 = c1 = math.nan
            keep[k] = True
            m = float(np.min(ytr))
            if m == 0:
                if abs(c0) < CLEAN_TOL:
                    c0 = 0.0
            elif abs(c0 / m) < CLEAN_TOL:
                c0 = 0.0
            pred = c0 + c1 * t[k]
            d = pred - y[k]
            press += d * d
            nrss += float(np.sqrt(press) / np.mean(ytr)) / n  # numpy: x/0 -> inf or nan
            den = abs(y[k]) + abs(pred)
            if den > 0:
                smape += 100.0 * 2 * abs(d) / den / n
        try:
            c0, c1 = _lstsq2(a_full, y)
        except np.linalg.LinAlgError:
            c0 = c1 = math.nan
    return press, nrss, smape, c0, c1


def fit_best_reference(x: ArrayLike, y: ArrayLike) -> Hypothesis:
    """Extra-P's best hypothesis by ``lstsq`` per LOO fold: the reference for :func:`fit_best`."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    best = constant_model(y)
    if best.press == 0.0:
        return best
    allow_log = not bool(np.any(x < 1))
    with np.errstate(all="ignore"):
        for i, j in EXPONENTS:
            if j > 0 and not allow_log:
                continue
            t = term_values(x, i, j)
            press, nrss, smape, c0, c1 = _score_candidate(x, y, t)
            if not math.isfinite(press):
                continue
            if c1 == 0:
                continue
            contrib = np.abs(c1 * t / y)
            if np.max(contrib) < CONTRIB_TOL:  # NaN compares false: not skipped
                continue
            if smape < best.smape:
                best = Hypothesis(c0, c1, i, j, nrss, smape, press, False)
    return best


def in_sample_nrss(h: Hypothesis, x: NDArray[np.float64], y: NDArray[np.float64]) -> float:
    """``sqrt(RSS) / mean(y)`` of a fitted hypothesis on its points (the paper's nRSS)."""
    d = h.evaluate(x) - y
    my = float(np.mean(y))
    return math.sqrt(float(np.sum(d * d))) / my if my != 0 else math.nan


# ---------------------------------------------------------------------------------------------
# Scan mode: every window of k samples with local x = 1..k, all windows at once.

def _loo_weights(t: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Row ``k`` of ``W0``/``W1`` maps a window's values to the LOO (c0, c1) fitted without point k.

    Uses the minimum-norm least-squares solution (pseudo-inverse), as ``lstsq`` does.
    """
    k = t.size
    w0 = np.zeros((k, k))
    w1 = np.zeros((k, k))
    for m in range(k):
        keep = np.arange(k) != m
        a = np.column_stack((np.ones(k - 1), t[keep]))
        pinv = np.linalg.pinv(a)
        w0[m, keep] = pinv[0]
        w1[m, keep] = pinv[1]
    return w0, w1


def window_nrss(y: NDArray[np.float64], k: int = 5) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """nRSS of the best hypothesis for each window ``y[s:s+k]`` (local x = 1..k), and its index.

    Returns ``(e, which)``: ``which = -1`` for the constant model, else the index into
    :data:`EXPONENTS`. Same rules as :func:`fit_best` (nrss.md §9.2 step 3), vectorised over windows.
    """
    y = np.ascontiguousarray(y, dtype=np.float64)
    win = np.lib.stride_tricks.sliding_window_view(y, k)  # (r, k)
    r = win.shape[0]
    xloc = np.arange(1, k + 1, dtype=np.float64)
    mean = win.mean(axis=1)
    dc = mean[:, None] - win
    rss_c = np.sum(dc * dc, axis=1)
    den_c = np.abs(win) + np.abs(mean)[:, None]
    with np.errstate(all="ignore"):
        smape_c = 100.0 / k * np.sum(np.where(den_c > 0, 2 * np.abs(dc) / den_c, 0.0), axis=1)
        best_e = np.where(mean != 0, np.sqrt(rss_c) / mean, np.nan)
    best_s = smape_c
    which = np.full(r, -1, dtype=np.intp)
    const_exact = rss_c == 0.0
    # training sums for LOO means and minima
    total = win.sum(axis=1)
    ytr_mean = (total[:, None] - win) / (k - 1)  # (r, k)
    ytr_min = np.empty_like(win)
    for m in range(k):
        ytr_min[:, m] = np.min(np.delete(win, m, axis=1), axis=1)
    with np.errstate(all="ignore"):
        for idx, (i, j) in enumerate(EXPONENTS):
            t = term_values(xloc, i, j)
            w0, w1 = _loo_weights(t)
            c0 = win @ w0.T  # (r, k): LOO intercept for each left-out point
            c1 = win @ w1.T
            zero = np.where(ytr_min == 0, np.abs(c0) < CLEAN_TOL, np.abs(c0 / ytr_min) < CLEAN_TOL)
            c0 = np.where(zero, 0.0, c0)
            pred = c0 + c1 * t[None, :]
            d = pred - win
            press_run = np.cumsum(d * d, axis=1)
            nrss = np.sum(np.sqrt(press_run) / ytr_mean, axis=1) / k
            den = np.abs(win) + np.abs(pred)
            smape = np.sum(np.where(den > 0, 200.0 * np.abs(d) / den, 0.0), axis=1) / k
            pinv_full = np.linalg.pinv(np.column_stack((np.ones(k), t)))
            c1_full = win @ pinv_full[1]
            contrib = np.max(np.abs(c1_full[:, None] * t[None, :] / win), axis=1)
            ok = (np.isfinite(press_run[:, -1]) & (c1_full != 0) & ~(contrib < CONTRIB_TOL)
                  & (smape < best_s) & ~const_exact)
            best_s = np.where(ok, smape, best_s)
            best_e = np.where(ok, nrss, best_e)
            which = np.where(ok, idx, which)
    return best_e, which



#: The paper's hypothesis space (seed 000): I = {0, 1/2, ..., 3}, J = {0, 1, 2}, here with one term.
PAPER_EXPONENTS: tuple[tuple[Fraction, int], ...] = tuple(
    (_F(a, 2), j) for a in range(7) for j in range(3) if (a, j) != (0, 0))


def fit_best_paper_reference(x: ArrayLike, y: ArrayLike) -> Hypothesis:
    """The paper's rule by ``lstsq``: the reference for :func:`fit_best_paper`.

    Least in-sample RSS over :data:`PAPER_EXPONENTS`.

    One term plus constant (the paper grows to two terms; not reproduced), nRSS in-sample
    (``sqrt(RSS)/mean(y)``). Reproduces the paper's Table 1 models and nRSS values.
    """
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    best = constant_model(y)
    if best.press == 0.0:
        return best
    allow_log = not bool(np.any(x < 1))
    n = y.size
    with np.errstate(all="ignore"):
        for i, j in PAPER_EXPONENTS:
            if j > 0 and not allow_log:
                continue
            t = term_values(x, i, j)
            if not np.all(np.isfinite(t)):
                continue
            c0, c1 = _lstsq2(np.column_stack((np.ones(n), t)), y)
            d = c0 + c1 * t - y
            rss = float(np.sum(d * d))
            if c1 == 0 or not math.isfinite(rss) or rss >= best.press:
                continue
            den = np.abs(y) + np.abs(c0 + c1 * t)
            smape = float(100.0 / n * np.sum(np.where(den > 0, 2 * np.abs(d) / den, 0.0)))
            my = float(np.mean(y))
            nrss = math.sqrt(rss) / my if my != 0 else math.nan
            best = Hypothesis(c0, c1, i, j, nrss, smape, rss, False)
    return best


# ---------------------------------------------------------------------------------------------
# Fast path: numba kernels over term values computed once per x.

def _space(paper: bool) -> tuple[tuple[tuple[Fraction, int], ...], NDArray[np.bool_]]:
    space = PAPER_EXPONENTS if paper else EXPONENTS
    return space, np.array([j > 0 for _, j in space])


def term_matrix(x: NDArray[np.float64], paper: bool = False) -> NDArray[np.float64]:
    """``tt[c, i]`` = candidate ``c``'s term at ``x[i]`` (same arithmetic as :func:`term_values`)."""
    space, _ = _space(paper)
    return np.ascontiguousarray(np.array([term_values(x, i, j) for i, j in space]).reshape(
        len(space), x.size))


def _hyp(row: tuple[float, ...] | NDArray[np.float64], paper: bool) -> Hypothesis:
    which, c0, c1, nrss, smape, press = (float(v) for v in row)
    if which < 0:
        return Hypothesis(c0, 0.0, _F(0), 0, nrss, smape, press, True)
    i, j = (PAPER_EXPONENTS if paper else EXPONENTS)[int(which)]
    return Hypothesis(c0, c1, i, j, nrss, smape, press, False)


def _fit_fast(x: ArrayLike, y: ArrayLike, paper: bool) -> Hypothesis:
    from ._pmnf_kernels import fit_set
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    _, has_log = _space(paper)
    return _hyp(fit_set(x, y, term_matrix(x, paper), has_log, paper), paper)


def fit_best(x: ArrayLike, y: ArrayLike) -> Hypothesis:
    """Extra-P's best single-parameter hypothesis for the points ``(x, y)`` (nrss.md §2.1-§2.4)."""
    return _fit_fast(x, y, False)


def fit_best_paper(x: ArrayLike, y: ArrayLike) -> Hypothesis:
    """The paper's rule (``compat="paper"``): least in-sample RSS over :data:`PAPER_EXPONENTS`.

    One term plus constant (the paper grows to two terms; not reproduced), nRSS in-sample
    (``sqrt(RSS)/mean(y)``). Reproduces the paper's Table 1 models and nRSS values.
    """
    return _fit_fast(x, y, True)


def fit_sets_windows(x: ArrayLike, y: ArrayLike, k: int, paper: bool = False) -> list[Hypothesis]:
    """Best hypothesis of every window ``x[s:s+k]`` (global x), term values computed once."""
    from ._pmnf_kernels import fit_windows
    x = np.ascontiguousarray(x, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64)
    _, has_log = _space(paper)
    rows = fit_windows(x, y, term_matrix(x, paper), has_log, int(k), paper)
    return [_hyp(row, paper) for row in rows.tolist()]
