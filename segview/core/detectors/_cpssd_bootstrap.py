"""Backward segment classification of CP-SSD with a seeded, vectorised bootstrap (cpssd.md §8, §12).

The original (SEALAB ``classify_runs.py`` / ``kalibera.py``) draws with Python's unseeded
``random.choices``; here every test gets its own numpy PCG64 streams derived from
``SeedSequence(seed, spawn_key=(test_number,))``: child 0 draws all indices into the final segment,
child 1 all indices into the compared segment, as int64, in chunks. The draws do not depend on the
chunk size, so results are reproducible for a given seed.

The resampled means come from one numba kernel (:func:`._pcg64.resampled_means`) that draws numpy's
stream itself and sums in numpy's order, so they equal the numpy expression
``seg[rng.integers(0, m, size=(rows, m), dtype=np.int64)].mean(axis=1)`` bit for bit without
materialising the index matrix (about 4x less CPU); :func:`resampled_means_numpy` keeps that
expression as the reference.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ..context import NULL_CONTEXT, RunContext
from ..lazy import lazy_module
from ._threads import run_in_threads

if TYPE_CHECKING:
    from . import _pcg64
else:
    _pcg64 = lazy_module("._pcg64", __package__)

#: Default global seed of the bootstrap (documented constant; any value is as faithful as another).
DEFAULT_SEED: int = 20240722
#: Target number of index entries drawn per chunk.
CHUNK_ENTRIES: int = 3_000_000


@dataclass(frozen=True)
class BootstrapTest:
    """One ratio-of-means test: segment ``[start, stop)`` against the final segment."""

    start: int
    stop: int
    lo: float
    hi: float
    different: bool


def streams_for_test(seed: int, test_number: int
                     ) -> tuple[np.random.Generator, np.random.Generator]:
    """The two generators (final segment, compared segment) of test ``test_number``."""
    ss = np.random.SeedSequence(seed, spawn_key=(test_number,))
    child_l, child_g = ss.spawn(2)
    return (np.random.Generator(np.random.PCG64(child_l)),
            np.random.Generator(np.random.PCG64(child_g)))


def resampled_means_numpy(seg: NDArray[np.float64], rng: np.random.Generator, resamples: int,
                          ctx: RunContext = NULL_CONTEXT) -> NDArray[np.float64]:
    """Reference: the means of ``resamples`` bootstrap resamples of ``seg``, drawn by numpy."""
    m = seg.size
    out = np.empty(resamples)
    rows = max(1, CHUNK_ENTRIES // max(m, 1))
    for r0 in range(0, resamples, rows):
        ctx.check()
        r1 = min(resamples, r0 + rows)
        idx = rng.integers(0, m, size=(r1 - r0, m), dtype=np.int64)
        out[r0:r1] = seg[idx].mean(axis=1)
    return out


def _resampled_means(seg: NDArray[np.float64], rng: np.random.Generator, resamples: int,
                     ctx: RunContext) -> NDArray[np.float64]:
    """:func:`resampled_means_numpy`'s values from the fused kernel (checked for cancel per chunk)."""
    m = seg.size
    if m == 0 or m >= 2**32:
        return resampled_means_numpy(seg, rng, resamples, ctx)
    out = np.empty(resamples)
    state = _pcg64.state_of(rng)
    rows = max(1, CHUNK_ENTRIES // m)
    plan = _pcg64.pairwise_plan(m)
    for r0 in range(0, resamples, rows):
        ctx.check()
        r1 = min(resamples, r0 + rows)
        _pcg64.resampled_means(seg, state, r1 - r0, out[r0:r1], *plan)
    _pcg64.set_state(rng, state)
    return out


def normal_means(seg: NDArray[np.float64], rng: np.random.Generator, resamples: int,
                 ctx: RunContext = NULL_CONTEXT) -> NDArray[np.float64]:
    """The large-sample stand-in for :func:`resampled_means_numpy` (cpssd.md §11): the mean of
    ``m`` draws with replacement from ``seg`` has mean ``mean(seg)`` and variance
    ``var(seg) / m`` (the plug-in variance, divisor ``m``) exactly, and is normal up to a skewness
    term of order ``1 / sqrt(m)``; so ``resamples`` normal draws with those two moments, from the
    same stream, replace ``resamples * m`` index draws."""
    ctx.check()
    m = seg.size
    mu = float(np.mean(seg))
    sd = float(np.std(seg)) / float(np.sqrt(m))
    return mu + sd * rng.standard_normal(resamples)


def ratio_ci(last: NDArray[np.float64], seg: NDArray[np.float64], seed: int, test_number: int,
             resamples: int = 10000, alpha: float = 0.05,
             ctx: RunContext = NULL_CONTEXT, reference: bool = False, threads: int = 1,
             normal_above: int | None = None) -> tuple[float, float]:
    """Percentile bootstrap CI of ``mean(last) / mean(seg)`` (each resampled independently).

    ``reference=True`` draws through numpy (:func:`resampled_means_numpy`; same values, slower).
    ``threads > 1`` resamples the two segments in parallel (independent streams: same values).
    ``normal_above``: a segment longer than this gets :func:`normal_means` instead of the
    resampling (None: never; the paper's configuration).
    """
    rng_l, rng_g = streams_for_test(seed, test_number)
    exact = resampled_means_numpy if reference else _resampled_means
    a = np.ascontiguousarray(last, dtype=np.float64)
    b = np.ascontiguousarray(seg, dtype=np.float64)

    def means(x: NDArray[np.float64], rng: np.random.Generator) -> NDArray[np.float64]:
        if normal_above is not None and x.size > normal_above:
            return normal_means(x, rng, resamples, ctx)
        return exact(x, rng, resamples, ctx)

    tasks = [lambda: means(a, rng_l), lambda: means(b, rng_g)]
    if threads > 1 and not reference:
        if b.size > a.size:        # the larger one runs in the calling thread
            ml, mg = run_in_threads(tasks[::-1])[::-1]
        else:
            ml, mg = run_in_threads(tasks)
    else:
        ml, mg = tasks[0](), tasks[1]()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # mean 0 -> +-inf (§10)
        ratios = ml / mg
        lo, hi = np.quantile(ratios, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(lo), float(hi)


def is_different(lo: float, hi: float, effect_size: float = 0.05) -> bool:
    """Kalibera-Jones decision: the CI lies at or beyond ``1 -/+ effect_size`` (bounds inclusive)."""
    return bool(hi <= 1.0 - effect_size or lo >= 1.0 + effect_size)


def classify_backward(y: NDArray[np.float64], last_of_segment: NDArray[np.int64], seed: int,
                      resamples: int = 10000, alpha: float = 0.05, effect_size: float = 0.05,
                      ctx: RunContext = NULL_CONTEXT, reference: bool = False, threads: int = 1,
                      normal_above: int | None = None) -> tuple[int, list[BootstrapTest]]:
    """SEALAB's ``steady_state_starts`` on the raw series (cpssd.md §8).

    Args:
        y: the raw series (outliers included).
        last_of_segment: the real change points ``c_1 < ... < c_k`` as raw indices of the last sample
            of each segment (the final ``K[n-1]`` entry excluded).
        seed: global bootstrap seed.
        reference: draw through numpy instead of the fused kernel (benchmarks; same result).
        threads: resample the two segments of a test in parallel when > 1 (same result).
        normal_above: segments longer than this draw their resampled means from the normal law
            with the bootstrap's mean and variance (:func:`normal_means`; None: never).

    Returns:
        ``(s, tests)``: ``s`` is the last index of the last segment that differs from the final one
        (0 when none differs), and the tests made, in order.
    """
    cps = [int(c) for c in last_of_segment]
    tests: list[BootstrapTest] = []
    if not cps:
        return 0, tests
    last = y[cps[-1] + 1:]
    for number, j in enumerate(range(len(cps) - 1, -1, -1)):
        start = cps[j - 1] + 1 if j > 0 else 0
        stop = cps[j] + 1
        lo, hi = ratio_ci(last, y[start:stop], seed, number, resamples, alpha, ctx, reference,
                          threads, normal_above)
        diff = is_different(lo, hi, effect_size)
        tests.append(BootstrapTest(start, stop, lo, hi, diff))
        if diff:
            return cps[j], tests
    return 0, tests
