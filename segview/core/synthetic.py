"""Seeded synthetic series that come with their ground truth (tests, demos, the GUI's generate menu).

Every generator returns ``(series, truth)``: a :class:`~segview.core.model.Series` (id and metadata
describe the generator call) and a :class:`Truth` with the true change points (0-based first index of
each new segment) and steady-state onset (first steady sample, ``None`` when never steady).
The same ``seed`` always gives the same series (``numpy.random.default_rng(seed)``).

The M/M/1 and M/D/1 simulators follow ``docs/algorithms/fisher.md`` §9 (Berry & Hellerstein 1991, FCFS
response times by the Lindley recursion).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from .detectors._jit import njit
from numpy.typing import NDArray

from .errors import ParameterError
from .model import Series


@dataclass(frozen=True)
class Truth:
    """What a generator put into a series.

    Attributes:
        change_points: 0-based first index of each new regime.
        onset: first sample of the final steady regime; None when the series is never steady.
        kind: generator name.
        params: the generator arguments.
    """

    change_points: tuple[int, ...] = ()
    onset: int | None = 0
    kind: str = ""
    params: dict[str, Any] = field(default_factory=dict)


def _series(values: NDArray[np.float64], kind: str, params: dict[str, Any],
            cps: tuple[int, ...], onset: int | None) -> tuple[Series, Truth]:
    sid = f"{kind}(" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")"
    series = Series(np.asarray(values, dtype=np.float64), id=sid,
                    metadata={"generator": kind, **params})
    return series, Truth(tuple(int(c) for c in cps), onset, kind, dict(params))


def _check(cond: bool, name: str, reason: str) -> None:
    if not cond:
        raise ParameterError(name, reason)


# --------------------------------------------------------------------------- M/M/1 (Lindley)
@njit(nogil=True, cache=True)
def _lindley(service: NDArray[np.float64], gaps: NDArray[np.float64]) -> NDArray[np.float64]:
    """Waiting times ``W_0 = 0``, ``W_{i+1} = max(0, W_i + S_i - A_{i+1})``."""
    n = service.size
    w = np.empty(n)
    cur = 0.0
    for i in range(n):
        w[i] = cur
        if i + 1 < n:
            cur = cur + service[i] - gaps[i + 1]
            if cur < 0.0:
                cur = 0.0
    return w


def mm1_response_times(n: int, rho: float = 0.5, *, lam: float = 1.0, warmup: int = 60_000,
                       drho: float = 0.0, f: float = 0.5, mode: str = "service",
                       seed: int | None = 0) -> tuple[Series, Truth]:
    """Response times (wait + service) of ``n`` customers of an M/M/1 FCFS queue, in customer order.

    Args:
        n: customers reported (after ``warmup`` discarded ones).
        rho: utilisation ``lam * s`` (mean service time ``s = rho / lam``); must be < 1.
        lam: arrival rate.
        warmup: customers simulated and discarded first (the system starts empty).
        drho: utilisation change for the last ``f * n`` customers (0: no change).
        f: fraction of reported customers after the change.
        mode: ``"service"`` (change the service time) or ``"arrival"`` (change the arrival rate).
        seed: RNG seed.

    Returns:
        The series and its truth: one change point at ``round((1 - f) n)`` when ``drho != 0``.
    """
    resp, _, cps, params = _mm1(n, rho, lam, warmup, drho, f, mode, seed)
    return _series(resp[warmup:], "mm1", params, cps, cps[0] if cps else 0)


def md1_response_times(n: int, rho: float = 0.5, *, lam: float = 1.0, warmup: int = 60_000,
                       drho: float = 0.0, f: float = 0.5, mode: str = "service",
                       seed: int | None = 0) -> tuple[Series, Truth]:
    """Response times of ``n`` customers of an M/D/1 FCFS queue (Poisson arrivals, every service
    exactly ``rho / lam``): the paper's second queue (seed 001, "similar results for M/D/1").

    Same arguments, Lindley recursion and truth as :func:`mm1_response_times`; only the service
    times are deterministic (``drho`` changes the constant service time or the arrival rate).
    """
    resp, _, cps, params = _mm1(n, rho, lam, warmup, drho, f, mode, seed, service="det")
    return _series(resp[warmup:], "md1", params, cps, cps[0] if cps else 0)


def mm1_queue_lengths(n: int, rho: float = 0.5, *, lam: float = 1.0, warmup: int = 60_000,
                      drho: float = 0.0, f: float = 0.5, mode: str = "service",
                      seed: int | None = 0) -> tuple[Series, Truth]:
    """Number of customers each departure leaves behind, for the same customers (and the same
    random draws) as :func:`mm1_response_times` with equal arguments (``docs/algorithms/fisher.md`` §9.6)."""
    resp, gaps, cps, params = _mm1(n, rho, lam, warmup, drho, f, mode, seed)
    arrivals = np.cumsum(gaps)
    left = np.searchsorted(arrivals, arrivals + resp, side="right") - np.arange(1, resp.size + 1)
    return _series(left[warmup:].astype(np.float64), "mm1_queue", params, cps,
                   cps[0] if cps else 0)


def _mm1(n: int, rho: float, lam: float, warmup: int, drho: float, f: float, mode: str,
         seed: int | None, service: str = "exp"
         ) -> tuple[NDArray[np.float64], NDArray[np.float64], tuple[int, ...], dict[str, Any]]:
    """Simulate ``warmup + n`` customers: (response times, interarrival gaps, truth cps, params).

    ``service="exp"``: exponential service times (M/M/1); ``"det"``: constant ones (M/D/1).
    """
    _check(n >= 1, "n", f"must be >= 1, got {n}")
    _check(lam > 0 and 0 < rho < 1, "rho", f"need 0 < rho < 1 and lam > 0, got {rho}, {lam}")
    _check(0 < rho + drho < 1, "drho", f"rho + drho must be in (0, 1), got {rho + drho}")
    _check(0 <= f < 1, "f", f"must be in [0, 1), got {f}")
    _check(mode in ("service", "arrival"), "mode", f"{mode!r} is not service or arrival")
    rng = np.random.default_rng(seed)
    s = rho / lam
    total = warmup + n
    n0 = warmup + int(round((1 - f) * n)) if drho else total
    mean_service = np.full(total, s)
    rate = np.full(total, lam)
    if drho:
        if mode == "service":
            mean_service[n0:] = s + drho / lam
        else:
            rate[n0:] = lam + drho / s
    if service == "det":
        service_t = mean_service.copy()
    else:
        service_t = rng.exponential(1.0, total) * mean_service
    gaps = rng.exponential(1.0, total) / rate
    resp = _lindley(service_t, gaps) + service_t
    cps = (n0 - warmup,) if drho and n0 < total else ()
    params = dict(n=n, rho=rho, lam=lam, warmup=warmup, drho=drho, f=f, mode=mode, seed=seed)
    return resp, gaps, cps, params


# --------------------------------------------------------------------------- generic shapes
def ar1_noise(n: int, phi: float, rng: np.random.Generator, sigma: float = 1.0
              ) -> NDArray[np.float64]:
    """Stationary Gaussian AR(1) with innovation sd ``sigma`` (``x_0`` drawn from the marginal)."""
    a = rng.standard_normal(n) * sigma
    x = np.empty(n)
    x[0] = a[0] / np.sqrt(1.0 - phi * phi)
    for i in range(1, n):
        x[i] = phi * x[i - 1] + a[i]
    return x


def ar1(n: int, phi: float = 0.5, *, sigma: float = 1.0, mean: float = 0.0,
        shift_at: int | None = None, shift: float = 0.0, seed: int | None = 0
        ) -> tuple[Series, Truth]:
    """Stationary AR(1) around ``mean``; optional mean shift of ``shift`` from index ``shift_at``."""
    _check(-1 < phi < 1, "phi", f"must be in (-1, 1), got {phi}")
    _check(n >= 1, "n", f"must be >= 1, got {n}")
    x = mean + ar1_noise(n, phi, np.random.default_rng(seed), sigma)
    cps: tuple[int, ...] = ()
    if shift_at is not None and shift and 0 < shift_at < n:
        x[shift_at:] += shift
        cps = (shift_at,)
    params = dict(n=n, phi=phi, sigma=sigma, mean=mean, shift_at=shift_at, shift=shift, seed=seed)
    return _series(x, "ar1", params, cps, cps[0] if cps else 0)


def piecewise_constant(n: int, n_bkps: int = 3, *, noise_std: float = 1.0,
                       delta: tuple[float, float] = (1.0, 10.0), min_gap: int = 2,
                       seed: int | None = 0) -> tuple[Series, Truth]:
    """Piecewise-constant mean with ``n_bkps`` random changes of random size and sign, plus noise."""
    _check(n_bkps >= 0 and n >= (n_bkps + 1) * min_gap, "n_bkps",
           f"{n_bkps} changes with min_gap {min_gap} do not fit in {n} points")
    rng = np.random.default_rng(seed)
    cps = np.sort(rng.choice(np.arange(1, n // min_gap), n_bkps, replace=False)) * min_gap
    means = np.zeros(n)
    level = 0.0
    for c in cps:
        level += rng.choice([-1.0, 1.0]) * rng.uniform(*delta)
        means[c:] = level
    x = means + noise_std * rng.standard_normal(n)
    params = dict(n=n, n_bkps=n_bkps, noise_std=noise_std, delta=delta, seed=seed)
    return _series(x, "piecewise_constant", params, tuple(cps), int(cps[-1]) if n_bkps else 0)


def step(n: int = 1000, at: int | None = None, delta: float = 3.0, *, noise_std: float = 1.0,
         seed: int | None = 0) -> tuple[Series, Truth]:
    """One step of size ``delta`` at ``at`` (default n/2) in white noise."""
    at = n // 2 if at is None else at
    _check(0 < at < n, "at", f"must be in (0, {n}), got {at}")
    x = np.random.default_rng(seed).standard_normal(n) * noise_std
    x[at:] += delta
    return _series(x, "step", dict(n=n, at=at, delta=delta, noise_std=noise_std, seed=seed),
                   (at,), at)


def warmup_plateau(n: int = 1000, onset: int = 200, amplitude: float = 5.0, *,
                   noise_std: float = 1.0, seed: int | None = 0) -> tuple[Series, Truth]:
    """JIT-style warm-up: a linear decay from ``amplitude`` reaching the plateau at ``onset``."""
    _check(0 < onset < n, "onset", f"must be in (0, {n}), got {onset}")
    x = np.random.default_rng(seed).standard_normal(n) * noise_std
    x[:onset] += amplitude * (1.0 - np.arange(onset) / onset)
    params = dict(n=n, onset=onset, amplitude=amplitude, noise_std=noise_std, seed=seed)
    return _series(x, "warmup_plateau", params, (onset,), onset)


def drift(n: int = 1000, slope: float = 0.01, *, noise_std: float = 1.0,
          seed: int | None = 0) -> tuple[Series, Truth]:
    """Linear trend plus noise: never steady."""
    x = slope * np.arange(n) + np.random.default_rng(seed).standard_normal(n) * noise_std
    return _series(x, "drift", dict(n=n, slope=slope, noise_std=noise_std, seed=seed), (), None)


def periodic_spikes(n: int = 1000, period: int = 50, height: float = 10.0, *,
                    noise_std: float = 1.0, seed: int | None = 0) -> tuple[Series, Truth]:
    """Steady white noise with a spike of ``height`` every ``period`` samples (e.g. GC pauses)."""
    _check(period >= 1, "period", f"must be >= 1, got {period}")
    x = np.random.default_rng(seed).standard_normal(n) * noise_std
    x[period - 1::period] += height
    params = dict(n=n, period=period, height=height, noise_std=noise_std, seed=seed)
    return _series(x, "periodic_spikes", params, (), 0)


def never_steady(n: int = 1000, *, noise_std: float = 1.0, seed: int | None = 0
                 ) -> tuple[Series, Truth]:
    """A Gaussian random walk: no stationary regime, onset None."""
    x = np.cumsum(np.random.default_rng(seed).standard_normal(n) * noise_std)
    return _series(x, "never_steady", dict(n=n, noise_std=noise_std, seed=seed), (), None)


def lcg_uniform(n: int, s0: int = 3) -> NDArray[np.float64]:
    """Integer LCG of the specs (``fisher.md`` §7.3): ``u_i = s_i / 2**32 - 0.5``, library-free."""
    out = np.empty(n)
    s = int(s0)
    for i in range(n):
        s = (1664525 * s + 1013904223) % 4294967296
        out[i] = s / 4294967296.0 - 0.5
    return out


def lcg_ar_shifts(n: int = 600, s0: int = 3, shifts: bool = True) -> NDArray[np.float64]:
    """The specs' deterministic test series: LCG noise, ``e_i = 0.5 e_{i-1} + u_i``, shifts +0.8 at
    200 and -0.5 at 350 (``partition.md`` §7.2, ``fisher.md`` §7.3)."""
    u = lcg_uniform(n, s0)
    e = np.empty(n)
    e[0] = u[0]
    for i in range(1, n):
        e[i] = 0.5 * e[i - 1] + u[i]
    if shifts:
        e[200:] += 0.8
        e[350:] -= 0.5
    return e


GENERATORS = {
    "mm1": mm1_response_times, "mm1_queue": mm1_queue_lengths, "md1": md1_response_times,
    "ar1": ar1, "piecewise_constant": piecewise_constant,
    "step": step, "warmup_plateau": warmup_plateau, "drift": drift,
    "periodic_spikes": periodic_spikes, "never_steady": never_steady,
}
